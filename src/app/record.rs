//! One listed session with what search and threading need precomputed, and the rule for
//! whether it belongs to the current folder.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::model::info::SessionInfo;
use crate::model::search::{PreparedText, SearchFields};
use crate::text::paths::{same_folder, same_folder_with};

/// One listed session, with what search and threading need precomputed (off the UI thread).
#[derive(Debug, Clone)]
pub struct SessionRecord {
    /// The listing fields; `all_messages_text` is emptied once `prepared` holds it.
    pub info: SessionInfo,
    /// The lowercased searched text, built once per session.
    pub prepared: PreparedText,
    /// Whether the session's cwd is the folder grove was started in.
    pub in_current_dir: bool,
    /// The file's canonical path, for matching forks to parents.
    pub canonical_path: Option<PathBuf>,
    /// The canonical path of `parentSession`, when it exists.
    pub canonical_parent: Option<PathBuf>,
    /// Whether the session's cwd lies in the git repository of the folder grove was started
    /// in (any of its worktrees), and the branch checked out in the session's worktree.
    pub in_current_repo: bool,
    pub branch: Option<String>,
}

impl SessionRecord {
    /// Builds a record, touching the file system to canonicalise paths. Call off the UI thread.
    pub fn new(info: SessionInfo, current_dir: Option<&Path>) -> Self {
        Self::with_folders(info, current_dir, &Canonical::default())
    }

    /// [`SessionRecord::new`] with the canonical folders of a listing shared (10k sessions
    /// live in a few hundred folders: a `realpath` per folder, and a folder's entries read
    /// once to tell its links, where one or two files would each be asked by `readlink`).
    pub fn with_folders(
        info: SessionInfo,
        current_dir: Option<&Path>,
        folders: &Canonical,
    ) -> Self {
        let in_current_dir = current_dir.is_some_and(|d| folders.same_folder(&info.cwd, d));
        let canonical_path = folders.file(&info.path);
        let canonical_parent = info
            .parent_session_path
            .as_deref()
            .and_then(|p| folders.file(Path::new(p)));
        let repo = crate::storage::repo::repo_of(&info.cwd);
        let here = current_dir.and_then(|d| crate::storage::repo::repo_of(&d.to_string_lossy()));
        let in_current_repo =
            matches!((&repo, &here), (Some(a), Some(b)) if a.common_dir == b.common_dir);
        let mut r = Self::without_fs(info, in_current_dir);
        r.canonical_path = canonical_path;
        r.canonical_parent = canonical_parent;
        r.in_current_repo = in_current_repo;
        r.branch = repo.and_then(|r| r.branch.clone());
        r
    }

    /// [`SessionRecord::with_folders`] of a listed session with its text: the text is kept
    /// once, prepared and compressed, as [`SessionRecord::with_text`] keeps it.
    pub fn listed(info: &SessionInfo, current_dir: Option<&Path>, folders: &Canonical) -> Self {
        let mut bare = info.clone();
        let text = std::mem::take(&mut bare.all_messages_text);
        let tools = std::mem::take(&mut bare.tool_text);
        let r = Self::with_folders(bare, current_dir, folders);
        if text.is_empty() && tools.is_empty() {
            return r;
        }
        r.with_text(&text, &tools)
    }

    /// This record with its searchable text (read after the row was shown): the listing
    /// fields and paths are kept, the text is kept once, prepared and compressed.
    pub fn with_text(&self, text: &str, tools: &str) -> Self {
        let info = &self.info;
        let prepared = PreparedText::compressed(&SearchFields {
            id: &info.id,
            name: info.name.as_deref(),
            summary: info.summary.as_deref(),
            text,
            cwd: &info.cwd,
            tools,
        });
        SessionRecord {
            info: self.info.clone(),
            prepared,
            in_current_dir: self.in_current_dir,
            canonical_path: self.canonical_path.clone(),
            canonical_parent: self.canonical_parent.clone(),
            in_current_repo: self.in_current_repo,
            branch: self.branch.clone(),
        }
    }

    /// Builds a record without touching the file system (tests, cached listings).
    pub fn without_fs(mut info: SessionInfo, in_current_dir: bool) -> Self {
        let prepared = PreparedText::new(&SearchFields {
            id: &info.id,
            name: info.name.as_deref(),
            summary: info.summary.as_deref(),
            text: &info.all_messages_text,
            cwd: &info.cwd,
            tools: &info.tool_text,
        });
        // The prepared copy replaces the original text; keeping both would double memory.
        info.all_messages_text = String::new();
        info.tool_text = String::new();
        SessionRecord {
            info,
            prepared,
            in_current_dir,
            canonical_path: None,
            canonical_parent: None,
            in_current_repo: false,
            branch: None,
        }
    }

    pub(crate) fn is_named(&self) -> bool {
        self.info
            .name
            .as_deref()
            .is_some_and(|n| !n.trim().is_empty())
    }
}

/// Whether a session's cwd names the folder `dir`: the one rule, [`same_folder`].
pub fn same_dir(session_cwd: &str, dir: &Path) -> bool {
    same_folder(session_cwd, dir)
}

/// Canonical folders, looked up once each for a listing: a file's canonical path is its
/// folder's with the file's name, unless the file itself is a symbolic link (its folder's
/// entries, read once, tell: a `readlink` a file was half the time of building 10k records).
/// Gives what [`std::fs::canonicalize`] gives.
#[derive(Debug, Default)]
pub struct Canonical {
    folders: Mutex<ByPath<Option<PathBuf>>>,
    /// Each folder's entries, and whether each is a symbolic link, once enough of its files
    /// were asked.
    entries: Mutex<ByPath<Folder>>,
}

/// How many files of one folder are asked by `readlink` before its entries are read.
const ASK_FIRST: u32 = 8;

/// What [`Canonical`] knows of a folder's entries.
#[derive(Debug)]
enum Folder {
    /// Not read yet: this many of its files were asked by themselves.
    Asked(u32),
    /// Read (`None`: it could not be).
    Read(Option<Arc<FolderEntries>>),
}

/// Looked up once or twice for each of 10k records: hashed with foldhash, not SipHash.
type ByPath<T> = HashMap<PathBuf, T, foldhash::fast::RandomState>;

/// A folder's entry names, each with whether it is a symbolic link.
type FolderEntries = HashMap<OsString, bool, foldhash::fast::RandomState>;

impl Canonical {
    /// `canonicalize(dir)`, remembered.
    pub fn folder(&self, dir: &Path) -> Option<PathBuf> {
        if let Ok(m) = self.folders.lock()
            && let Some(hit) = m.get(dir)
        {
            return hit.clone();
        }
        let found = std::fs::canonicalize(dir).ok();
        if let Ok(mut m) = self.folders.lock() {
            m.insert(dir.to_path_buf(), found.clone());
        }
        found
    }

    /// Whether `name` in `dir` is a symbolic link, from the folder's entries read once;
    /// `None` when the folder could not be read or did not hold `name` then, and for the
    /// first [`ASK_FIRST`] files asked of a folder (reading a folder of 10k entries for one
    /// file, as a live refresh or a write's re-read asks, costs more than its `readlink`).
    fn is_link(&self, dir: &Path, name: &OsStr) -> Option<bool> {
        let mut known = self.entries.lock().ok()?;
        match known.get_mut(dir) {
            Some(Folder::Read(entries)) => return entries.as_ref()?.get(name).copied(),
            Some(Folder::Asked(n)) if *n < ASK_FIRST => {
                *n += 1;
                return None;
            }
            Some(Folder::Asked(_)) => {}
            None => {
                known.insert(dir.to_path_buf(), Folder::Asked(1));
                return None;
            }
        }
        drop(known);
        // Read without holding the lock (other folders' lookups go on meanwhile).
        let entries = std::fs::read_dir(dir).ok().map(|rd| {
            let entries: FolderEntries = rd
                .flatten()
                .map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_symlink())))
                .collect();
            Arc::new(entries)
        });
        let link = entries.as_ref().and_then(|e| e.get(name).copied());
        if let Ok(mut m) = self.entries.lock() {
            m.insert(dir.to_path_buf(), Folder::Read(entries));
        }
        link
    }

    /// `canonicalize(path)` of a file.
    pub fn file(&self, path: &Path) -> Option<PathBuf> {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return std::fs::canonicalize(path).ok();
        };
        if dir.as_os_str().is_empty() {
            return std::fs::canonicalize(path).ok();
        }
        // The fast answer only for a path that ends in its file name (`a.jsonl/` and
        // `a.jsonl/.` name the same file but are no file's path: `canonicalize` refuses them).
        let plain = path
            .as_os_str()
            .as_encoded_bytes()
            .ends_with(name.as_encoded_bytes());
        match self.is_link(dir, name).filter(|_| plain) {
            Some(false) => return Some(self.folder(dir)?.join(name)),
            Some(true) => return std::fs::canonicalize(path).ok(),
            // Not in the folder when it was read (or unreadable): the file itself tells.
            None => {}
        }
        match std::fs::read_link(path) {
            // Not a link (EINVAL): the file is where its folder really is.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                Some(self.folder(dir)?.join(name))
            }
            Ok(_) => std::fs::canonicalize(path).ok(),
            // Missing or unreachable: canonicalize fails too.
            Err(_) => None,
        }
    }

    /// [`same_folder`] with the folders looked up here.
    pub fn same_folder(&self, session_cwd: &str, dir: &Path) -> bool {
        same_folder_with(session_cwd, dir, |p| self.folder(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared lookups give what `canonicalize` and `same_folder` give: through a linked
    /// folder, a linked file, a missing file, a relative path.
    #[test]
    fn shared_folders_canonicalise_as_the_file_system_does() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("a.jsonl"), "x").unwrap();
        std::fs::write(tmp.path().join("b.jsonl"), "y").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("b.jsonl"), real.join("b-link.jsonl")).unwrap();
        let c = Canonical::default();
        for p in [
            real.join("a.jsonl"),
            link.join("a.jsonl"),
            link.join("b-link.jsonl"),
            link.join("missing.jsonl"),
            tmp.path().join("missing/a.jsonl"),
            link.join("../b.jsonl"),
            PathBuf::from("relative.jsonl"),
        ] {
            assert_eq!(
                c.file(&p),
                std::fs::canonicalize(&p).ok(),
                "{}",
                p.display()
            );
            // Asked again: the remembered folder gives the same.
            assert_eq!(
                c.file(&p),
                std::fs::canonicalize(&p).ok(),
                "{}",
                p.display()
            );
        }
        // Enough files of one folder that its entries are read, then asked again.
        for i in 0..2 * ASK_FIRST {
            std::fs::write(real.join(format!("n{i}.jsonl")), "n").unwrap();
        }
        for i in 0..2 * ASK_FIRST {
            let p = link.join(format!("n{i}.jsonl"));
            assert_eq!(
                c.file(&p),
                std::fs::canonicalize(&p).ok(),
                "{}",
                p.display()
            );
        }
        assert!(matches!(
            c.entries.lock().unwrap().get(link.as_path()),
            Some(Folder::Read(Some(_)))
        ));
        for p in [
            link.join("a.jsonl"),
            link.join("b-link.jsonl"),
            link.join("missing.jsonl"),
            PathBuf::from(format!("{}/a.jsonl/", link.display())),
            PathBuf::from(format!("{}/a.jsonl/.", link.display())),
        ] {
            assert_eq!(
                c.file(&p),
                std::fs::canonicalize(&p).ok(),
                "{}",
                p.display()
            );
        }
        // Made after their folders were read: the files themselves tell.
        std::fs::write(real.join("late.jsonl"), "z").unwrap();
        std::os::unix::fs::symlink(real.join("late.jsonl"), real.join("late-link.jsonl")).unwrap();
        for p in [link.join("late.jsonl"), link.join("late-link.jsonl")] {
            assert_eq!(
                c.file(&p),
                std::fs::canonicalize(&p).ok(),
                "{}",
                p.display()
            );
        }
        // A "folder" that cannot be read (a file): each file asked by itself.
        let not_a_folder = tmp.path().join("b.jsonl");
        for p in [
            not_a_folder.join("x.jsonl"),
            not_a_folder.join("..").join("b.jsonl"),
        ] {
            assert_eq!(
                c.file(&p),
                std::fs::canonicalize(&p).ok(),
                "{}",
                p.display()
            );
        }
        for cwd in ["", "/", &format!("{}/", link.display()), "/nowhere"] {
            assert_eq!(c.same_folder(cwd, &real), same_folder(cwd, &real), "{cwd}");
        }
    }
}
