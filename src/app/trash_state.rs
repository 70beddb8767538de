//! The trash view's data: the rows listed and the view's state (kept apart from the view's
//! logic in [`super::trash_view`], so the app state can hold it without importing that).

use std::path::PathBuf;

/// One trashed session, as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrashRow {
    /// Its file name.
    pub name: String,
    /// Where it was, and where a restore puts it back.
    pub original: PathBuf,
    /// When it was deleted, in seconds since the epoch (`None`: the trash does not say).
    pub deleted_s: Option<i64>,
    /// The `.bak` files trashed with it (restored with it).
    pub backups: usize,
}

/// The trash view's state.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TrashView {
    /// `None` while the trash is being read; `Err` when it cannot be.
    pub rows: Option<Result<Vec<TrashRow>, String>>,
    pub selected: usize,
    /// The restore confirmation is open for the selected row.
    pub confirm: bool,
    /// A restore is running.
    pub restoring: bool,
    /// Which listing is current (a newer request replaces an older one).
    pub generation: u64,
}

impl TrashView {
    /// The rows listed so far (none while loading or after an error).
    pub fn listed(&self) -> &[TrashRow] {
        match &self.rows {
            Some(Ok(rows)) => rows,
            _ => &[],
        }
    }

    pub fn selected_row(&self) -> Option<&TrashRow> {
        self.listed().get(self.selected)
    }
}
