//! File-system operations that cannot be redirected or leave half a file behind.
//!
//! - [`Pin`]: the identity (device, inode) of a session file and of its folder, taken when the
//!   user saw the session. [`PinnedDir::open`] opens the folder and refuses if the folder or the
//!   file is no longer the one pinned (a folder swapped for a symlink, a file replaced); every
//!   later step (append, unlink) then goes through the open folder handle, never the path.
//! - [`write_new_file`]: a new file appears whole or not at all: it is written unnamed
//!   (`O_TMPFILE`, or a hidden temporary name where that is unsupported) in the destination
//!   folder, synced, and linked into place without ever replacing an existing file.
//! - [`lock_exclusive`]: the advisory lock grove processes take on a session file while
//!   appending, so two grove writers never interleave.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, CWD, FlockOperation, Mode, OFlags, RenameFlags};

/// A file's identity: the same (device, inode) means the same file, whatever its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
}

impl Identity {
    pub fn of_meta(m: &fs::Metadata) -> Self {
        Identity {
            dev: m.dev(),
            ino: m.ino(),
        }
    }
    fn of_stat(s: &rustix::fs::Stat) -> Self {
        Identity {
            dev: s.st_dev,
            ino: s.st_ino,
        }
    }
}

/// What a session path pointed to when it was pinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pin {
    /// The folder holding the file (its path resolved, symlinks followed).
    pub folder: Identity,
    /// The folder entry itself (a symlinked session is the link).
    pub entry: Identity,
    /// What the entry leads to (the file written by an append; the entry unless a link).
    pub target: Identity,
}

impl Pin {
    /// Pins `path` as it is now.
    pub fn of(path: &Path) -> io::Result<Pin> {
        let (dir, name) = split(path)?;
        let folder = Identity::of_meta(&fs::metadata(&dir)?);
        let entry = Identity::of_meta(&fs::symlink_metadata(dir.join(&name))?);
        let target = Identity::of_meta(&fs::metadata(path)?);
        Ok(Pin {
            folder,
            entry,
            target,
        })
    }
}

/// Why a pinned operation refused.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error(
        "{path}: {what} changed since grove read it (replaced, moved or swapped for a link); nothing was done"
    )]
    Changed { path: PathBuf, what: &'static str },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// A path split into its folder and file name (`.` for a bare name).
pub fn split(path: &Path) -> io::Result<(PathBuf, OsString)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name.to_owned()))
}

/// A session's folder, held open, with the file's name in it and what both were pinned as.
#[derive(Debug)]
pub struct PinnedDir {
    fd: OwnedFd,
    dir: PathBuf,
    name: OsString,
    path: PathBuf,
    pin: Pin,
}

impl PinnedDir {
    /// Opens the folder of `path`. With `expected`, refuses unless the folder and the file are
    /// the pinned ones; without, pins them now.
    pub fn open(path: &Path, expected: Option<&Pin>) -> Result<PinnedDir, PinError> {
        let io_err = |source| PinError::Io {
            path: path.to_path_buf(),
            source,
        };
        let (dir, name) = split(path).map_err(io_err)?;
        let fd = rustix::fs::open(
            &dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_err(e.into()))?;
        let folder = Identity::of_stat(&rustix::fs::fstat(&fd).map_err(|e| io_err(e.into()))?);
        let entry = Identity::of_stat(
            &rustix::fs::statat(&fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
                .map_err(|e| io_err(e.into()))?,
        );
        let target = Identity::of_stat(
            &rustix::fs::statat(&fd, name.as_os_str(), AtFlags::empty())
                .map_err(|e| io_err(e.into()))?,
        );
        let now = Pin {
            folder,
            entry,
            target,
        };
        let pinned = PinnedDir {
            fd,
            dir,
            name,
            path: path.to_path_buf(),
            pin: expected.copied().unwrap_or(now),
        };
        pinned.compare(&now)?;
        Ok(pinned)
    }

    pub fn pin(&self) -> &Pin {
        &self.pin
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn changed(&self, what: &'static str) -> PinError {
        PinError::Changed {
            path: self.path.clone(),
            what,
        }
    }

    fn compare(&self, now: &Pin) -> Result<(), PinError> {
        if now.folder != self.pin.folder {
            return Err(self.changed("its folder"));
        }
        if now.entry != self.pin.entry || now.target != self.pin.target {
            return Err(self.changed("the file"));
        }
        Ok(())
    }

    /// Checks, at the moment of the operation, that the path still leads to the pinned folder
    /// and that the pinned file is still in it under its name.
    pub fn recheck(&self) -> Result<(), PinError> {
        self.recheck_folder()?;
        let entry = rustix::fs::statat(&self.fd, self.name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|_| self.changed("the file"))?;
        if Identity::of_stat(&entry) != self.pin.entry {
            return Err(self.changed("the file"));
        }
        Ok(())
    }

    /// Checks that the path still leads to the pinned folder.
    pub fn recheck_folder(&self) -> Result<(), PinError> {
        match fs::metadata(&self.dir) {
            Ok(m) if Identity::of_meta(&m) == self.pin.folder => Ok(()),
            _ => Err(self.changed("its folder")),
        }
    }

    /// Opens the pinned file for reading and appending, through the folder handle; refuses if
    /// what opens is not the pinned file.
    pub fn open_append(&self) -> Result<File, PinError> {
        self.recheck()?;
        let fd = rustix::fs::openat(
            &self.fd,
            self.name.as_os_str(),
            OFlags::RDWR | OFlags::APPEND | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .map_err(|e| PinError::Io {
            path: self.path.clone(),
            source: e.into(),
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| PinError::Io {
            path: self.path.clone(),
            source: e.into(),
        })?;
        if Identity::of_stat(&st) != self.pin.target {
            return Err(self.changed("the file"));
        }
        Ok(File::from(fd))
    }

    /// Removes the pinned entry (a link is unlinked, its target kept), through the handle.
    pub fn unlink(&self) -> Result<(), PinError> {
        self.recheck()?;
        rustix::fs::unlinkat(&self.fd, self.name.as_os_str(), AtFlags::empty()).map_err(|e| {
            PinError::Io {
                path: self.path.clone(),
                source: e.into(),
            }
        })
    }
}

/// How long a grove process waits for another one's lock on a session file before giving up
/// (an append holds it for milliseconds; a stopped or hung process must not hang this one).
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Takes grove's advisory lock on a session file (released when the file is closed). Every
/// grove process appending to a file takes it, so their appends never interleave. Gives up with
/// `WouldBlock` after [`LOCK_WAIT`].
pub fn lock_exclusive(file: &File) -> io::Result<()> {
    let start = std::time::Instant::now();
    loop {
        match rustix::fs::flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK && start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "another grove process has held the session's lock for 10 s",
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Why a new file was not created. Nothing is left at `path` in any case.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}; no file was created")]
pub struct NewFileError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// Creates `path` with the bytes `fill` writes, whole or not at all: written unnamed in the
/// destination folder, synced, then linked into place. Never replaces an existing file
/// (`AlreadyExists`). A process killed midway leaves nothing under any name (`O_TMPFILE`) or,
/// where the file system lacks it, a hidden `.NAME.grove-tmp-*` file, never a partial `NAME`.
pub fn write_new_file(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), NewFileError> {
    create_new_checked(path, fill, &mut |_| Ok(()))
}

/// [`write_new_file`] with `check` run on the complete, synced file (open for reading and
/// writing, at its start) before it gets its name: an error from `check` leaves nothing.
pub fn create_new_checked(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    check: &mut dyn FnMut(&mut File) -> io::Result<()>,
) -> Result<(), NewFileError> {
    let err = |source| NewFileError {
        path: path.to_path_buf(),
        source,
    };
    let (dir, name) = split(path).map_err(err)?;
    let dirfd = rustix::fs::open(
        &dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| err(e.into()))?;
    // Fail early (before writing a large file) when the name is taken.
    if rustix::fs::statat(&dirfd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW).is_ok() {
        return Err(err(io::Error::from(io::ErrorKind::AlreadyExists)));
    }
    let mode = Mode::from_raw_mode(0o644);
    // The unnamed file is linked by its /proc name: without /proc, use a temporary name.
    let unnamed = if Path::new("/proc/self/fd").is_dir() {
        rustix::fs::openat(
            &dirfd,
            ".",
            OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
            mode,
        )
    } else {
        Err(rustix::io::Errno::NOTSUP)
    };
    match unnamed {
        Ok(fd) => {
            let mut file = File::from(fd);
            fill_and_sync(&mut file, fill)
                .and_then(|()| rewind_and(&mut file, check))
                .map_err(err)?;
            // Linking an unnamed file by its /proc name needs no privilege; link never replaces.
            let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
            rustix::fs::linkat(
                CWD,
                proc.as_str(),
                &dirfd,
                name.as_os_str(),
                AtFlags::SYMLINK_FOLLOW,
            )
            .map_err(|e| err(e.into()))?;
        }
        Err(_) => {
            let tmp = temp_name(&name);
            let fd = rustix::fs::openat(
                &dirfd,
                tmp.as_os_str(),
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
                mode,
            )
            .map_err(|e| err(e.into()))?;
            let mut file = File::from(fd);
            let placed = fill_and_sync(&mut file, fill)
                .and_then(|()| rewind_and(&mut file, check))
                .and_then(|()| rename_noreplace(&dirfd, &tmp, &dirfd, &name));
            if let Err(e) = placed {
                let _ = rustix::fs::unlinkat(&dirfd, tmp.as_os_str(), AtFlags::empty());
                return Err(err(e));
            }
        }
    }
    // The new name itself must survive a crash.
    let _ = rustix::fs::fsync(&dirfd);
    Ok(())
}

/// Writes `path` whole, replacing what is there (the user asked to overwrite): the bytes go to
/// a hidden temporary name in the same folder, are synced, and are renamed over `path`, so a
/// failure leaves the old file as it was.
pub fn replace_file(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), NewFileError> {
    let err = |source| NewFileError {
        path: path.to_path_buf(),
        source,
    };
    let (dir, name) = split(path).map_err(err)?;
    let tmp = dir.join(temp_name(&name));
    write_new_file(&tmp, fill).map_err(|e| err(e.source))?;
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        err(e)
    })
}

fn rewind_and(
    file: &mut File,
    check: &mut dyn FnMut(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    use std::io::Seek;
    file.rewind()?;
    check(file)
}

fn fill_and_sync(
    file: &mut File,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 16, &mut *file);
    fill(&mut w)?;
    w.flush()?;
    drop(w);
    file.sync_all()
}

/// A hidden name beside `name` for a file being written (never ending in `.jsonl`): unique
/// by process, time and a per-process counter (a taken name is refused when created, never
/// overwritten).
pub fn temp_name(name: &OsStr) -> OsString {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut t = OsString::from(".");
    t.push(name);
    t.push(format!(
        ".grove-tmp-{}-{nanos:08x}{n:x}",
        std::process::id()
    ));
    t
}

/// Renames without replacing: `renameat2(RENAME_NOREPLACE)`, or link + unlink where the file
/// system does not support it.
pub fn rename_noreplace(
    from_dir: impl AsFd,
    from: &OsStr,
    to_dir: impl AsFd,
    to: &OsStr,
) -> io::Result<()> {
    let (from_dir, to_dir) = (from_dir.as_fd(), to_dir.as_fd());
    match rustix::fs::renameat_with(from_dir, from, to_dir, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            rustix::fs::linkat(from_dir, from, to_dir, to, AtFlags::empty())?;
            rustix::fs::unlinkat(from_dir, from, AtFlags::empty())?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether the two files hold the same bytes (compared in blocks, never read whole).
pub fn same_contents(a: &mut File, b: &mut File) -> io::Result<bool> {
    if a.metadata()?.len() != b.metadata()?.len() {
        return Ok(false);
    }
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = read_full(a, &mut x)?;
        let m = read_full(b, &mut y)?;
        if n != m || x[..n] != y[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
