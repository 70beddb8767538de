//! What a listing of every root gives, and the order it is shown in.

use super::open::ReadError;
use super::roots::Skipped;
use crate::model::info::SessionInfo;

/// The result of listing every root.
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<SessionInfo>,
    /// Files that are not sessions or could not be read, with the reason.
    pub problems: Vec<Skipped>,
}

/// Newest first; ties by path so the order is stable across runs.
pub fn sort_by_modified(sessions: &mut [SessionInfo]) {
    // Sorts positions, then moves each row once: sorting the rows themselves moved each of
    // 10k ~400-byte rows at every merge pass (~6 ms of a warm listing).
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&sessions[a], &sessions[b]);
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
    // Position `i` takes the row at `order[i]`: follow each cycle with swaps, marking the
    // positions done.
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != start {
            let from = order[at];
            sessions.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// The reason part of a read error (without the path, which is reported beside it).
pub fn error_reason(e: &ReadError) -> String {
    match e {
        ReadError::Io { source, .. } => source.to_string(),
        ReadError::NotAFile { .. } => "not a regular file; not opened".into(),
        ReadError::NoHeader { .. } => "no session header on the first line".into(),
    }
}
