//! Reading the usage totals of session files (see [`crate::model::stats`]).

use std::path::Path;

use rayon::prelude::*;

use super::read::{ReadError, open_regular};
use crate::model::stats::report::{GroupBy, Report, SessionMeta};
use crate::model::stats::{SessionStats, read_stats};

/// The stats of one session file, streamed.
pub fn session_stats(path: &Path) -> Result<SessionStats, ReadError> {
    let (file, _) = open_regular(path)?;
    read_stats(file).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Sessions read in parallel per batch, then added in order: the sums do not depend on the
/// scheduling, and only one batch's stats are held at a time.
const BATCH: usize = 256;

/// A report over `sessions` (read in parallel, added in the order given). Files that cannot be
/// read are returned with the reason, not counted.
pub fn report_over(
    sessions: &[(std::path::PathBuf, SessionMeta)],
    by: GroupBy,
    since: Option<String>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> (Report, Vec<ReadError>) {
    let mut report = Report::new(by, since);
    let mut problems = Vec::new();
    for batch in sessions.chunks(BATCH) {
        if cancelled() {
            break;
        }
        let read: Vec<_> = batch
            .par_iter()
            .map(|(path, _)| session_stats(path))
            .collect();
        for ((_, meta), r) in batch.iter().zip(read) {
            match r {
                Ok(s) => report.add_session(meta, &s),
                Err(e) => problems.push(e),
            }
        }
    }
    (report, problems)
}
