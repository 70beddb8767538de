//! Deleting sessions safely: to the platform trash, undoable; permanent only when asked twice.

use std::fs;
use std::path::{Path, PathBuf};

/// Why a delete did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TrashError {
    #[error("{path}: cannot move to the trash: {message}")]
    Unavailable { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("nothing to restore: {0}")]
    NotInTrash(String),
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

/// Moves a session (and its backups) to the trash.
pub fn trash_session(path: &Path) -> Result<Trashed, TrashError> {
    let paths = files_of_session(path);
    for p in &paths {
        trash::delete(p).map_err(|e| TrashError::Unavailable {
            path: p.clone(),
            message: e.to_string(),
        })?;
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
    let items = trash::os_limited::list().map_err(|e| TrashError::NotInTrash(e.to_string()))?;
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
    trash::os_limited::restore_all(chosen).map_err(|e| TrashError::NotInTrash(e.to_string()))
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

/// Deletes a session and its backups for good. Callers must have asked twice.
pub fn delete_permanently(path: &Path) -> Result<Vec<PathBuf>, TrashError> {
    let paths = files_of_session(path);
    for p in &paths {
        fs::remove_file(p).map_err(|e| TrashError::Io {
            path: p.clone(),
            source: e,
        })?;
    }
    Ok(paths)
}
