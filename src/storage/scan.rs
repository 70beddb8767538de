//! Listing many sessions at once, on all cores, streaming results as they come.

use std::sync::mpsc::Sender;

use rayon::prelude::*;

use super::read::{ReadError, scan_info};
use super::roots::{FoundFile, SessionRoot};
use crate::model::info::SessionInfo;

pub use super::listing::{Listing, error_reason, sort_by_modified};

/// One file's outcome.
pub type ScanResult = Result<SessionInfo, ReadError>;

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
