//! Deleting sessions safely: to the platform trash, undoable; permanent only when asked twice.

use std::fs;
use std::path::{Path, PathBuf};

use super::roots::{SessionRoot, find_session_files};
use super::safe_fs::{Pin, PinnedDir};
pub use super::trash_error::{TrashError, describe};

/// The trash is found through `XDG_DATA_HOME`; the XDG spec allows only an absolute path there
/// and the trash crate would fail on a relative one with an empty path in its message.
fn check_trash_env() -> Result<(), TrashError> {
    match std::env::var_os("XDG_DATA_HOME") {
        Some(v) if !v.is_empty() && !Path::new(&v).is_absolute() => {
            Err(TrashError::Unavailable {
                path: PathBuf::from(&v),
                message: "XDG_DATA_HOME is a relative path; the XDG base directory spec requires an absolute one, so grove cannot find the trash (set it to an absolute path or unset it)".into(),
            })
        }
        _ => Ok(()),
    }
}

/// The path as the trash records it: the parent folder resolved, the file name kept as is, so a
/// symlinked session is the link itself, never the file it points to.
pub fn entry_path(path: &Path) -> Result<PathBuf, TrashError> {
    let io = |source| TrashError::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .ok_or_else(|| TrashError::NotASessionFile {
            path: path.to_path_buf(),
            reason: "not a file name".into(),
        })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(fs::canonicalize(parent).map_err(io)?.join(name))
}

/// Checks that `path` is one of the session files grove finds under `roots` (the same folder
/// entry, not just the same content): deletes never reach outside the roots grove scanned.
pub fn check_in_roots(path: &Path, roots: &[SessionRoot]) -> Result<(), TrashError> {
    let wanted = entry_path(path)?;
    let (found, _) = find_session_files(roots);
    let listed = found
        .iter()
        .any(|f| entry_path(&f.path).is_ok_and(|p| same_entry(&p, &wanted)));
    if listed {
        Ok(())
    } else {
        Err(TrashError::OutsideRoots {
            path: path.to_path_buf(),
        })
    }
}

/// Same folder (by identity, so symlinked folders match) and same name.
fn same_entry(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    if a.file_name() != b.file_name() {
        return false;
    }
    match (a.parent().map(fs::metadata), b.parent().map(fs::metadata)) {
        (Some(Ok(x)), Some(Ok(y))) => same_file(&x, &y),
        _ => false,
    }
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    false
}

/// A session must be a regular file or a symlink (deleting a link never touches its target).
fn check_deletable(path: &Path) -> Result<(), TrashError> {
    let meta = fs::symlink_metadata(path).map_err(|source| TrashError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let t = meta.file_type();
    if t.is_file() || t.is_symlink() {
        return Ok(());
    }
    Err(TrashError::NotASessionFile {
        path: path.to_path_buf(),
        reason: if t.is_dir() {
            "is a directory".into()
        } else {
            "not a regular file".into()
        },
    })
}

/// The session file plus Atomic's compaction backups beside it (`<file>.jsonl.*.bak`).
pub fn files_of_session(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return out;
    };
    let prefix = format!("{name}.");
    if let Ok(read) = fs::read_dir(dir) {
        let mut baks: Vec<PathBuf> = read
            .flatten()
            .filter_map(|d| {
                let n = d.file_name().to_str()?.to_owned();
                (n.starts_with(&prefix) && n.ends_with(".bak")).then(|| d.path())
            })
            .collect();
        baks.sort();
        out.extend(baks);
    }
    out
}

/// Files moved to the trash by one delete, so they can be restored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trashed {
    pub paths: Vec<PathBuf>,
}

/// Moves a session (and its backups) to the trash. A symlinked session moves the link; the
/// file it points to is left alone.
pub fn trash_session(path: &Path) -> Result<Trashed, TrashError> {
    trash_session_pinned(path, None)
}

/// [`trash_session`], refusing unless the file and its folder are still those of `pin` (taken
/// when the user chose the session), checked through an open handle of the folder at the
/// moment of the move.
pub fn trash_session_pinned(path: &Path, pin: Option<&Pin>) -> Result<Trashed, TrashError> {
    check_trash_env()?;
    check_deletable(path)?;
    let pinned = PinnedDir::open(path, pin)?;
    let mut paths = Vec::new();
    for p in files_of_session(path) {
        if p != path && check_deletable(&p).is_err() {
            continue;
        }
        // The trash crate resolves only the parent folder too; recording the same path lets
        // `restore` find the item again.
        let p = entry_path(&p)?;
        // The last moment before the move: the folder (and the file) are still the pinned ones.
        if paths.is_empty() {
            pinned.recheck()?;
        } else {
            pinned.recheck_folder()?;
        }
        if let Err(e) = trash::delete(&p) {
            let mut message = describe(&e);
            if !paths.is_empty() {
                message.push_str(&format!(
                    " (already in the trash and restorable: {})",
                    paths
                        .iter()
                        .map(|p: &PathBuf| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            return Err(TrashError::Unavailable { path: p, message });
        }
        paths.push(p);
    }
    Ok(Trashed { paths })
}

/// Restores what [`trash_session`] moved (the most recent trash item for each path).
#[cfg(all(
    unix,
    not(target_os = "macos"),
    not(target_os = "ios"),
    not(target_os = "android")
))]
pub fn restore(trashed: &Trashed) -> Result<(), TrashError> {
    check_trash_env()?;
    let items = trash::os_limited::list().map_err(|e| TrashError::NotInTrash(describe(&e)))?;
    let mut chosen = Vec::new();
    for p in &trashed.paths {
        let best = items
            .iter()
            .filter(|i| i.original_path() == *p)
            .max_by_key(|i| i.time_deleted)
            .cloned()
            .ok_or_else(|| TrashError::NotInTrash(p.display().to_string()))?;
        chosen.push(best);
    }
    // Nothing moves when any place is taken again.
    for item in &chosen {
        let original = item.original_path();
        if fs::symlink_metadata(&original).is_ok() {
            return Err(TrashError::RestoreFailed {
                in_trash: super::restore::file_in_trash(item).unwrap_or_default(),
                path: original,
                reason: "a file of that name exists again (not overwritten)".into(),
            });
        }
    }
    for item in &chosen {
        super::restore::restore_item(item)?;
    }
    Ok(())
}

/// Restoring needs the platform's trash listing, which this platform does not offer.
#[cfg(not(all(
    unix,
    not(target_os = "macos"),
    not(target_os = "ios"),
    not(target_os = "android")
)))]
pub fn restore(trashed: &Trashed) -> Result<(), TrashError> {
    Err(TrashError::NotInTrash(format!(
        "restore is not supported on this platform; the files are in the trash: {:?}",
        trashed.paths
    )))
}

/// Deletes a session and its backups for good (a symlink is unlinked, its target kept).
/// Callers must have asked twice.
pub fn delete_permanently(path: &Path) -> Result<Vec<PathBuf>, TrashError> {
    delete_permanently_pinned(path, None)
}

/// [`delete_permanently`] through the pinned folder handle (see [`trash_session_pinned`]).
pub fn delete_permanently_pinned(
    path: &Path,
    pin: Option<&Pin>,
) -> Result<Vec<PathBuf>, TrashError> {
    check_deletable(path)?;
    let pinned = PinnedDir::open(path, pin)?;
    let paths: Vec<PathBuf> = files_of_session(path)
        .into_iter()
        .filter(|p| p == path || check_deletable(p).is_ok())
        .collect();
    for p in &paths {
        if p == path {
            pinned.unlink()?;
            continue;
        }
        pinned.recheck_folder()?;
        fs::remove_file(p).map_err(|e| TrashError::Io {
            path: p.clone(),
            source: e,
        })?;
    }
    Ok(paths)
}
