//! The list's rows from the listed records, newest first (the threaded view is `threads`).

use std::sync::Arc;

use super::record::SessionRecord;

/// One visible row of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Index into `PickerState::records`.
    pub record: usize,
    /// Threaded sort: `│  `, `├─ `, `└─ ` drawing; empty otherwise.
    pub prefix: String,
}

pub(crate) fn plain_rows(indices: Vec<usize>) -> Vec<Row> {
    indices
        .into_iter()
        .map(|record| Row {
            record,
            prefix: String::new(),
        })
        .collect()
}

/// Newest first; ties by path so the order is stable.
pub(crate) fn sort_recent(records: &[Arc<SessionRecord>], indices: &mut [usize]) {
    indices.sort_by(|&a, &b| {
        let (a, b) = (&records[a].info, &records[b].info);
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
}
