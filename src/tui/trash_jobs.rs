//! The trash view's I/O, run off the UI thread: reading the platform trash into rows, and
//! restoring one trashed session with its backups (`storage::restore`, as `grove trash
//! restore` does).

use std::path::{Path, PathBuf};

use crate::app::trash_view::TrashRow;
use crate::storage::restore::{TrashedSession, list_trashed_sessions, restore_trashed};

fn row(s: &TrashedSession) -> TrashRow {
    TrashRow {
        name: s.item.name.to_string_lossy().into_owned(),
        original: s.item.original_path(),
        deleted_s: (s.item.time_deleted >= 0).then_some(s.item.time_deleted),
        backups: s.backups.len(),
    }
}

/// The session files in the trash, most recently deleted first.
pub(crate) fn list_rows() -> Result<Vec<TrashRow>, String> {
    list_trashed_sessions()
        .map(|all| all.iter().map(row).collect())
        .map_err(|e| e.to_string())
}

/// Restores the trashed session that was at `original` and deleted at `deleted_s` (the
/// trash is read again: it may have changed since it was listed).
pub(crate) fn restore_row(original: &Path, deleted_s: Option<i64>) -> Result<Vec<PathBuf>, String> {
    let all = list_trashed_sessions().map_err(|e| e.to_string())?;
    let found = all
        .iter()
        .find(|s| s.item.original_path() == original && row(s).deleted_s == deleted_s)
        .ok_or_else(|| "it is no longer in the trash".to_owned())?;
    restore_trashed(found).map_err(|e| e.to_string())
}
