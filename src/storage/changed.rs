//! Which session files a changed path stands for. A file watcher reports paths (a session
//! written, a folder created, moved or removed); the listing needs the session files to read
//! again, and what is known to be gone. Only the layout the roots are listed with counts
//! (`ROOT/*.jsonl`, `ROOT/*/*.jsonl`): anything else under a root is ignored.

use std::fs;
use std::path::{Path, PathBuf};

use super::index::row::FileKey;
use super::roots::{FoundFile, SessionRoot, Skipped, agent_from_path, find_session_files_keyed};

/// What a set of changed paths comes to.
#[derive(Debug, Default)]
pub struct Changed {
    /// Session files to read again (new or changed), with their keys (`stat`).
    pub files: Vec<(FoundFile, FileKey)>,
    /// Folders listed whole: every session under one of them is among `files` (or a problem),
    /// so a listed session under it that is not there is gone.
    pub listed_dirs: Vec<PathBuf>,
    /// Paths that no longer exist: a session file, or a folder with every session under it.
    pub gone: Vec<PathBuf>,
    /// Things that look like sessions but cannot be read as one.
    pub problems: Vec<Skipped>,
}

/// Resolves changed paths against the roots. A root itself (or a path at or above one) lists
/// that root whole; a session folder is listed whole; a session file is stat'ed.
pub fn resolve(roots: &[SessionRoot], changed: &[PathBuf]) -> Changed {
    let mut out = Changed::default();
    let mut whole_roots: Vec<&SessionRoot> = Vec::new();
    let mut folders: Vec<(PathBuf, Option<crate::model::context::Dialect>)> = Vec::new();
    let mut files: Vec<(PathBuf, Option<crate::model::context::Dialect>)> = Vec::new();
    for path in changed {
        // A root under the changed path (its parent folder was re-created, say): list it whole.
        for root in roots.iter().filter(|r| r.path.starts_with(path)) {
            if !whole_roots.iter().any(|w| w.path == root.path) {
                whole_roots.push(root);
            }
        }
        let Some(root) = roots
            .iter()
            .filter(|r| path.starts_with(&r.path) && path != &r.path)
            .max_by_key(|r| r.path.as_os_str().len())
        else {
            continue;
        };
        let depth = path
            .strip_prefix(&root.path)
            .map_or(0, |rel| rel.components().count());
        let agent = root.agent.or_else(|| agent_from_path(&root.path));
        match fs::metadata(path) {
            Err(_) => out.gone.push(path.clone()),
            Ok(m) if m.is_dir() && depth == 1 => folders.push((path.clone(), agent)),
            Ok(_) if depth <= 2 && is_session_name(path) => files.push((path.clone(), agent)),
            Ok(_) => {}
        }
    }
    for root in &whole_roots {
        let (found, problems) = find_session_files_keyed(std::slice::from_ref(*root));
        out.files.extend(found);
        out.problems.extend(problems);
        out.listed_dirs.push(root.path.clone());
        if !root.path.exists() {
            out.gone.push(root.path.clone());
        }
    }
    let covered = |p: &Path, out: &Changed| out.listed_dirs.iter().any(|d| p.starts_with(d));
    for (dir, agent) in folders {
        if covered(&dir, &out) {
            continue;
        }
        // The folder as a root of its own: its `*.jsonl` files (and none deeper than the
        // layout allows, since a session folder holds files, not folders of sessions).
        let (found, problems) = find_session_files_keyed(&[SessionRoot {
            path: dir.clone(),
            agent,
        }]);
        out.files.extend(
            found
                .into_iter()
                .filter(|(f, _)| f.path.parent() == Some(&dir)),
        );
        out.problems.extend(
            problems
                .into_iter()
                .filter(|p| p.path.parent() == Some(&dir)),
        );
        out.listed_dirs.push(dir);
    }
    for (path, agent) in files {
        if covered(&path, &out) || out.files.iter().any(|(f, _)| f.path == path) {
            continue;
        }
        match fs::metadata(&path) {
            Ok(m) if m.is_file() => out.files.push((FoundFile { path, agent }, FileKey::of(&m))),
            Ok(_) => out.problems.push(Skipped {
                path,
                reason: "not a regular file (FIFO, socket or device); not opened".into(),
            }),
            Err(_) => out.gone.push(path),
        }
    }
    out
}

fn is_session_name(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()) == Some("jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(c: &Changed) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = c.files.iter().map(|(f, _)| f.path.clone()).collect();
        v.sort();
        v
    }

    #[test]
    fn files_folders_and_gone_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let folder = root.join("--w--");
        fs::create_dir_all(&folder).unwrap();
        let a = folder.join("a.jsonl");
        let b = folder.join("b.jsonl");
        fs::write(&a, "{}\n").unwrap();
        fs::write(&b, "{}\n").unwrap();
        fs::write(folder.join("a.jsonl.1.bak"), "{}\n").unwrap();
        let roots = [SessionRoot {
            path: root.clone(),
            agent: None,
        }];

        let c = resolve(&roots, std::slice::from_ref(&a));
        assert_eq!(paths(&c), vec![a.clone()]);
        assert!(c.listed_dirs.is_empty() && c.gone.is_empty());

        // A backup, a path outside the roots, something too deep: nothing to read.
        let deep = folder.join("x").join("c.jsonl");
        fs::create_dir_all(deep.parent().unwrap()).unwrap();
        fs::write(&deep, "{}\n").unwrap();
        let outside = dir.path().join("elsewhere.jsonl");
        fs::write(&outside, "{}\n").unwrap();
        let c = resolve(
            &roots,
            &[folder.join("a.jsonl.1.bak"), outside, deep.clone()],
        );
        assert!(c.files.is_empty() && c.gone.is_empty(), "{c:?}");

        // A folder: listed whole (its own files only).
        let c = resolve(&roots, std::slice::from_ref(&folder));
        assert_eq!(paths(&c), vec![a.clone(), b.clone()]);
        assert_eq!(c.listed_dirs, vec![folder.clone()]);

        // Removed: the file, then the folder.
        fs::remove_file(&b).unwrap();
        let c = resolve(&roots, std::slice::from_ref(&b));
        assert_eq!(c.gone, vec![b.clone()]);
        fs::remove_dir_all(&folder).unwrap();
        let c = resolve(&roots, std::slice::from_ref(&folder));
        assert_eq!(c.gone, vec![folder.clone()]);

        // The root itself: listed whole.
        fs::create_dir_all(&folder).unwrap();
        fs::write(&a, "{}\n").unwrap();
        let c = resolve(&roots, std::slice::from_ref(&root));
        assert_eq!(paths(&c), vec![a]);
        assert_eq!(c.listed_dirs, vec![root]);
    }
}
