//! Finding the session files under the roots (`ROOT/*.jsonl` and `ROOT/*/*.jsonl`, see
//! `roots::find_session_files_keyed`), each with the freshness key of its one `stat`.
//!
//! A warm listing of 10k sessions is mostly this walk: one `statx` per file, which is kernel
//! time. So each folder is opened once and read into one buffer of names (no allocation per
//! entry), each file is stat'ed relative to its open folder (one path component to look up,
//! asking only for the fields the key needs), and the session folders are walked on up to
//! [`MAX_THREADS`] threads (their results put back in order).

use std::ffi::{CStr, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{CWD, FileType, Mode, OFlags};

use super::index::row::FileKey;
use crate::model::context::Dialect;

/// The most threads that walk session folders at once.
const MAX_THREADS: usize = 4;

/// A file found under a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundFile {
    pub path: PathBuf,
    /// The agent from the root, if the root decides it.
    pub agent: Option<Dialect>,
}

/// Something under a root that looks like a session but cannot be read as one.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// What a listing finds: the files with their keys, in order, and what it skipped.
pub(crate) type Found = (Vec<(FoundFile, FileKey)>, Vec<Skipped>);

/// One of a root's entries, in order: a file (or a problem), or one of the session folders
/// walked afterwards.
enum Step {
    File(Result<(FoundFile, FileKey), Skipped>),
    Folder(usize),
}

/// A session folder to walk: its root's open folder, its name there and its path.
struct Folder<'a> {
    root: BorrowedFd<'a>,
    name: Vec<u8>,
    path: PathBuf,
    agent: Option<Dialect>,
}

/// See the module docs. Links are followed (a broken one is reported); only regular files are
/// returned, anything else named `.jsonl` is reported, never opened.
/// `roots` are the roots' folders with their agents (when the root decides it).
pub(crate) fn find(roots: &[(&Path, Option<Dialect>)]) -> Found {
    let mut names = Names::default();
    let mut open_roots: Vec<OwnedFd> = Vec::new();
    let mut steps: Vec<Vec<Step>> = Vec::new();
    let mut folder_names: Vec<(usize, Vec<u8>, PathBuf, Option<Dialect>)> = Vec::new();
    for &(root, agent) in roots {
        let mut root_steps = Vec::new();
        if let Ok(fd) = open_dir(CWD, root) {
            names.read(fd.as_fd());
            for (name, kind) in names.iter() {
                let is_dir = match kind {
                    FileType::Directory => true,
                    FileType::Symlink | FileType::Unknown => {
                        matches!(stat(fd.as_fd(), name), Ok((FileType::Directory, _)))
                    }
                    _ => false,
                };
                let path = join(root, name);
                if is_dir {
                    root_steps.push(Step::Folder(folder_names.len()));
                    folder_names.push((open_roots.len(), name.to_bytes().to_vec(), path, agent));
                } else if let Some(r) = consider(fd.as_fd(), name, || path, agent) {
                    root_steps.push(Step::File(r));
                }
            }
            open_roots.push(fd);
        }
        steps.push(root_steps);
    }
    let folders: Vec<Folder<'_>> = folder_names
        .into_iter()
        .map(|(root, name, path, agent)| Folder {
            root: open_roots[root].as_fd(),
            name,
            path,
            agent,
        })
        .collect();
    let mut walked = walk_all(&folders, names);
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for step in steps.into_iter().flatten() {
        let results = match step {
            Step::File(r) => vec![r],
            Step::Folder(i) => std::mem::take(&mut walked[i]),
        };
        for r in results {
            match r {
                Ok(f) => files.push(f),
                Err(s) => skipped.push(s),
            }
        }
    }
    (files, skipped)
}

/// Each folder's files (or problems), walked on as many threads as help, by position.
fn walk_all(
    folders: &[Folder<'_>],
    names: Names,
) -> Vec<Vec<Result<(FoundFile, FileKey), Skipped>>> {
    let threads = if folders.len() < 2 {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_THREADS)
            .min(folders.len())
    };
    let next = AtomicUsize::new(0);
    // Takes the next folder not yet taken until none is left.
    let work = |mut names: Names| {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(folder) = folders.get(i) else {
                return done;
            };
            done.push((i, walk(folder, &mut names)));
        }
    };
    let mut all: Vec<_> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| s.spawn(|| work(Names::default())))
            .collect();
        let mut all = work(names);
        for h in helpers {
            // A walk does not panic; if one did, its folders are missing from this listing.
            all.extend(h.join().unwrap_or_default());
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// The `*.jsonl` files of one session folder, in name order.
fn walk(folder: &Folder<'_>, names: &mut Names) -> Vec<Result<(FoundFile, FileKey), Skipped>> {
    let Ok(fd) = open_dir(folder.root, OsStr::from_bytes(&folder.name)) else {
        return Vec::new();
    };
    names.read(fd.as_fd());
    names
        .iter()
        .filter_map(|(name, _)| {
            let path = || join(&folder.path, name);
            consider(fd.as_fd(), name, path, folder.agent)
        })
        .collect()
}

/// A `*.jsonl` entry of an open folder: the file with its key, or why it is skipped; `None`
/// for other names.
fn consider(
    dir: BorrowedFd<'_>,
    name: &CStr,
    path: impl FnOnce() -> PathBuf,
    agent: Option<Dialect>,
) -> Option<Result<(FoundFile, FileKey), Skipped>> {
    if !is_session_name(name.to_bytes()) {
        return None;
    }
    let path = path();
    Some(match stat(dir, name) {
        Ok((FileType::RegularFile, key)) => Ok((FoundFile { path, agent }, key)),
        Ok((FileType::Directory, _)) => Err(Skipped {
            path,
            reason: "is a directory".into(),
        }),
        Ok(_) => Err(Skipped {
            path,
            reason: "not a regular file (FIFO, socket or device); not opened".into(),
        }),
        Err(e) => Err(Skipped {
            path,
            reason: format!("cannot stat: {e}"),
        }),
    })
}

/// `dir.join(name)`, allocated once at its length (a `join` copies `dir`, then grows).
fn join(dir: &Path, name: &CStr) -> PathBuf {
    let name = OsStr::from_bytes(name.to_bytes());
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
}

/// Whether a file name is `*.jsonl` as `Path::extension` sees it: a name with something
/// before the dot (`.jsonl` alone is a hidden file without an extension).
fn is_session_name(name: &[u8]) -> bool {
    name.len() > b".jsonl".len() && name.ends_with(b".jsonl")
}

fn open_dir(at: BorrowedFd<'_>, path: impl AsRef<Path>) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    Ok(rustix::fs::openat(at, path.as_ref(), flags, Mode::empty())?)
}

/// The type and key of `name` in `dir`, a link followed (a file's own type and key when it is
/// none: what `entry.metadata()` gave for a file and `fs::metadata` for a link).
#[cfg(target_os = "linux")]
fn stat(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<(FileType, FileKey)> {
    use rustix::fs::{AtFlags, StatxFlags};
    let mask = StatxFlags::TYPE
        | StatxFlags::INO
        | StatxFlags::SIZE
        | StatxFlags::MTIME
        | StatxFlags::CTIME;
    match rustix::fs::statx(dir, name, AtFlags::empty(), mask) {
        Ok(st) => {
            let ns = |t: rustix::fs::StatxTimestamp| {
                t.tv_sec
                    .saturating_mul(1_000_000_000)
                    .saturating_add(i64::from(t.tv_nsec))
            };
            let key = FileKey {
                dev: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
                ino: st.stx_ino,
                size: st.stx_size,
                mtime_ns: ns(st.stx_mtime),
                ctime_ns: ns(st.stx_ctime),
            };
            Ok((FileType::from_raw_mode(st.stx_mode.into()), key))
        }
        // A kernel without `statx` (before 4.11).
        Err(rustix::io::Errno::NOSYS) => stat_at(dir, name),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn stat(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<(FileType, FileKey)> {
    stat_at(dir, name)
}

/// [`stat`] with `fstatat`.
fn stat_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<(FileType, FileKey)> {
    let st = rustix::fs::statat(dir, name, rustix::fs::AtFlags::empty())?;
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    let key = FileKey {
        dev: st.st_dev as u64,
        ino: st.st_ino as u64,
        size: st.st_size as u64,
        mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
        ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
    };
    Ok((FileType::from_raw_mode(st.st_mode as _), key))
}

/// A folder's entries (without `.` and `..`): their names, NUL-terminated, in one buffer, and
/// where each starts and how long it is, with its type from the folder, sorted by name.
#[derive(Default)]
struct Names {
    bytes: Vec<u8>,
    entries: Vec<(usize, usize, FileType)>,
    /// The buffer `getdents` fills (reused).
    #[cfg(target_os = "linux")]
    raw: Vec<u8>,
}

impl Names {
    /// Reads the open folder's entries (those read before an error, if one happens).
    fn read(&mut self, dir: BorrowedFd<'_>) {
        self.bytes.clear();
        self.entries.clear();
        self.read_entries(dir);
        let bytes = &self.bytes;
        let name = |&(at, len, _): &(usize, usize, FileType)| bytes.get(at..at + len);
        self.entries.sort_unstable_by(|a, b| name(a).cmp(&name(b)));
    }

    fn push(&mut self, name: &CStr, kind: FileType) {
        let name = name.to_bytes_with_nul();
        if name == b".\0" || name == b"..\0" {
            return;
        }
        self.entries.push((self.bytes.len(), name.len() - 1, kind));
        self.bytes.extend_from_slice(name);
    }

    #[cfg(target_os = "linux")]
    fn read_entries(&mut self, dir: BorrowedFd<'_>) {
        let mut raw = std::mem::take(&mut self.raw);
        raw.reserve(32 << 10);
        let mut iter = rustix::fs::RawDir::new(dir, raw.spare_capacity_mut());
        while let Some(Ok(entry)) = iter.next() {
            self.push(entry.file_name(), entry.file_type());
        }
        self.raw = raw;
    }

    #[cfg(not(target_os = "linux"))]
    fn read_entries(&mut self, dir: BorrowedFd<'_>) {
        let Ok(entries) = rustix::fs::Dir::read_from(dir) else {
            return;
        };
        for entry in entries.flatten() {
            self.push(entry.file_name(), entry.file_type());
        }
    }

    /// The names with their types, in name order.
    fn iter(&self) -> impl Iterator<Item = (&CStr, FileType)> {
        self.entries.iter().filter_map(|&(at, len, kind)| {
            let name = CStr::from_bytes_with_nul(self.bytes.get(at..=at + len)?).ok()?;
            Some((name, kind))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names_are_those_path_extension_calls_jsonl() {
        for name in [
            "a.jsonl",
            ".jsonl",
            "..jsonl",
            "a.b.jsonl",
            "jsonl",
            "a.JSONL",
            "a.jsonl.bak",
            "a.jsonl~",
            ".a.jsonl",
            "x.jsonlx",
        ] {
            let by_path = Path::new("/r")
                .join(name)
                .extension()
                .and_then(|e| e.to_str())
                == Some("jsonl");
            assert_eq!(is_session_name(name.as_bytes()), by_path, "{name}");
        }
    }

    #[test]
    fn paths_are_joined_as_path_join_does() {
        for dir in ["/r", "/r/", "r", "", "/", "r//s"] {
            let name = c"a.jsonl";
            let by_join = Path::new(dir).join("a.jsonl");
            assert_eq!(join(Path::new(dir), name), by_join, "{dir:?}");
        }
    }

    #[test]
    fn keys_are_those_of_std_metadata() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        for (i, f) in ["a.jsonl", "b.jsonl"].iter().enumerate() {
            std::fs::write(dir.join(f), "x".repeat(i + 1)).unwrap();
        }
        let (files, skipped) = find(&[(tmp.path(), None)]);
        assert!(skipped.is_empty());
        assert_eq!(files.len(), 2);
        for (f, key) in files {
            assert_eq!(key, FileKey::of(&std::fs::metadata(&f.path).unwrap()));
        }
    }
}
