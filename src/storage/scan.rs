//! Listing many sessions at once, on all cores, streaming results as they come.

use std::sync::mpsc::Sender;

use rayon::prelude::*;

use super::read::{ReadError, scan_info};
use super::roots::{FoundFile, SessionRoot, Skipped};
use crate::model::info::SessionInfo;

/// One file's outcome.
pub type ScanResult = Result<SessionInfo, ReadError>;

/// The result of listing every root.
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<SessionInfo>,
    /// Files that are not sessions or could not be read, with the reason.
    pub problems: Vec<Skipped>,
}

/// Scans the given files in parallel, sending each outcome as soon as it is ready.
pub fn scan_files_streaming(files: &[FoundFile], tx: &Sender<(usize, ScanResult)>) {
    files
        .par_iter()
        .enumerate()
        .for_each_with(tx.clone(), |tx, (i, f)| {
            let _ = tx.send((i, scan_info(&f.path, f.agent)));
        });
}

/// Lists every session under the roots without the index cache (every file is read); sorted
/// by `modified`, newest first, problems by path. See [`super::index::Index::list`] for the
/// cached and streaming version.
pub fn list_sessions(roots: &[SessionRoot]) -> Listing {
    super::index::Index::disabled().list(
        roots,
        super::index::ListOptions { with_text: true },
        |_| {},
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_by_modified_matches_a_plain_stable_sort() {
        let mut seed = 7u64;
        for n in [0, 1, 2, 3, 10, 257] {
            let mut rows: Vec<SessionInfo> = (0..n)
                .map(|i| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    SessionInfo {
                        path: format!("/s/{}", (seed >> 33) % 50).into(),
                        id: i.to_string(),
                        modified_ms: (seed >> 60) as i64,
                        version: 3,
                        ..SessionInfo::default()
                    }
                })
                .collect();
            let mut expected = rows.clone();
            expected.sort_by(|a, b| {
                b.modified_ms
                    .cmp(&a.modified_ms)
                    .then_with(|| a.path.cmp(&b.path))
            });
            sort_by_modified(&mut rows);
            assert_eq!(rows, expected, "{n} rows");
        }
    }
}
