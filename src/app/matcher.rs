//! Running a search over a snapshot of the records, off the UI thread, abandoning it as soon as
//! a newer one is asked for.

use rayon::prelude::*;

use crate::model::search::Score;

use super::event::SearchRequest;

/// Below this many sessions a plain loop is faster than spreading the work.
const PARALLEL_FROM: usize = 2000;

/// Scores every record of the request. `None` when `cancelled` turned true meanwhile.
pub fn execute_search(
    req: &SearchRequest,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<(usize, Score)>> {
    let query = &req.query;
    let score = |(i, r): (usize, &std::sync::Arc<super::state::SessionRecord>)| {
        query.score_prepared(&r.prepared).map(|s| (i, s))
    };
    let matches: Vec<(usize, Score)> = if req.records.len() < PARALLEL_FROM {
        req.records.iter().enumerate().filter_map(score).collect()
    } else {
        req.records
            .par_iter()
            .enumerate()
            .with_min_len(256)
            .filter_map(|item| if cancelled() { None } else { score(item) })
            .collect()
    };
    (!cancelled()).then_some(matches)
}
