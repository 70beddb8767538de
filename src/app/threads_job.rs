//! The threaded rows of a long list are built off the UI thread (issue: 8,000 sessions each
//! forked from the previous one blocked the loop). A rebuild asks for them with a generation;
//! one build runs at a time and the newest request waiting replaces the older ones. A result
//! whose request was cancelled (the sort, query or filters changed since) is dropped; a result
//! overtaken only by newer data (a scan batch, a refresh) is shown while the newer build runs,
//! so a streaming scan shows progress. Whatever is shown keeps only the sessions still listed:
//! every row is a session that is still there, so a key never acts on one that went away.
//! (Record indices are stable for the run and a record keeps its path, so a row's index still
//! names its file.)

pub use super::live_data::{INLINE_MAX, ThreadsJob, ThreadsRequest};

use super::event::Effect;
use super::rows::Row;
use super::state::PickerState;

/// Sends the queued request when no build is running (once per burst of events).
pub(crate) fn settle(picker: &mut PickerState, fx: &mut Vec<Effect>) {
    if picker.threads.in_flight {
        return;
    }
    if let Some(req) = picker.threads.queued.take() {
        picker.threads.in_flight = true;
        fx.push(Effect::BuildThreads(req));
    }
}

/// The rows arrived: shown unless their request was cancelled, less the sessions no longer
/// listed.
pub(crate) fn on_built(picker: &mut PickerState, generation: u64, mut rows: Vec<Row>) {
    picker.threads.in_flight = false;
    if generation < picker.threads.accept_from {
        return;
    }
    rows.retain(|r| picker.is_listed(r.record));
    picker.rows = rows;
    picker.restore_selection();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::event::{Event, ScanUpdate};
    use crate::app::keymap::Keymap;
    use crate::app::record::SessionRecord;
    use crate::app::state::{AppState, Options};
    use crate::app::theme::Palette;
    use crate::app::update::update;
    use crate::model::info::SessionInfo;
    use std::path::PathBuf;
    use std::sync::Arc;

    fn chain(n: usize) -> Vec<Arc<SessionRecord>> {
        let path = |i: usize| PathBuf::from(format!("/s/--w--/{i:05}.jsonl"));
        (0..n)
            .map(|i| {
                let info = SessionInfo {
                    path: path(i),
                    id: format!("{i}"),
                    cwd: "/w".into(),
                    parent_session_path: i
                        .checked_sub(1)
                        .map(|p| path(p).to_string_lossy().into_owned()),
                    modified_ms: i as i64,
                    message_count: 1,
                    first_message: format!("session {i}"),
                    version: 3,
                    ..SessionInfo::default()
                };
                Arc::new(SessionRecord::without_fs(info, true))
            })
            .collect()
    }

    fn loaded(records: Vec<Arc<SessionRecord>>) -> (AppState, Vec<Effect>) {
        let mut s = AppState::new(Options::default(), Keymap::default(), Palette::default());
        let generation = s.picker.loading.generation;
        let fx = update(
            &mut s,
            Event::ScanResult {
                generation,
                update: ScanUpdate::Sessions(records),
            },
        );
        (s, fx)
    }

    fn build_request(fx: &[Effect]) -> Option<&ThreadsRequest> {
        fx.iter().find_map(|e| match e {
            Effect::BuildThreads(r) => Some(r),
            _ => None,
        })
    }

    /// The 8,000-deep fork chain: the update asks for the rows instead of building them, and
    /// the rows land when the built result arrives.
    #[test]
    fn the_fork_chain_is_threaded_in_the_background() {
        let (mut s, fx) = loaded(chain(8_000));
        let req = build_request(&fx).expect("a build effect").clone();
        assert!(s.picker.rows.is_empty(), "built on the UI thread");
        let rows = req.build();
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: req.generation,
                rows,
            },
        );
        assert_eq!(s.picker.rows.len(), 8_000);
        assert_eq!(s.picker.rows[0].record, 0);
        assert_eq!(s.selected().map(|r| r.info.id.as_str()), Some("0"));
    }

    /// One build at a time: a request made while one runs waits, and goes out when the
    /// running one answers. That answer is shown (it is only overtaken by newer data), less
    /// the sessions no longer listed; a deleted one leaves the rows at once, before any build.
    #[test]
    fn one_build_at_a_time_and_gone_rows_leave_at_once() {
        let (mut s, fx) = loaded(chain(3_000));
        let first = build_request(&fx).unwrap().clone();
        assert!(s.picker.threads.in_flight);
        // Session 5 is deleted while the build runs: asked for again, not sent yet.
        s.picker.deleted[5] = true;
        s.picker.rebuild_rows();
        let mut fx = Vec::new();
        crate::app::update::settle(&mut s, &mut fx);
        assert!(build_request(&fx).is_none(), "a second build in flight");
        let fx = update(
            &mut s,
            Event::ThreadsBuilt {
                generation: first.generation,
                rows: first.build(),
            },
        );
        assert_eq!(
            s.picker.rows.len(),
            2_999,
            "the first rows, less the deleted"
        );
        assert!(s.picker.rows.iter().all(|r| r.record != 5));
        let second = build_request(&fx)
            .expect("the waiting build goes out")
            .clone();
        assert!(second.generation > first.generation);
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: second.generation,
                rows: second.build(),
            },
        );
        assert_eq!(s.picker.rows.len(), 2_999);
    }

    /// A build whose request was cancelled (here: the sort changed while it ran) is dropped
    /// when it arrives: the rows stay those of the new sort.
    #[test]
    fn a_stale_result_is_dropped() {
        let (mut s, fx) = loaded(chain(3_000));
        let first = build_request(&fx).unwrap().clone();
        s.picker.sort = crate::app::state::SortMode::Recent;
        s.picker.rebuild_rows();
        assert_eq!(s.picker.rows[0].record, 2_999, "newest first");
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: first.generation,
                rows: first.build(),
            },
        );
        assert_eq!(s.picker.rows[0].record, 2_999, "stale threaded rows shown");
        assert!(s.picker.rows.iter().all(|r| r.prefix.is_empty()));
        assert!(!s.picker.threads.in_flight);
    }

    /// A short list is threaded at once, as before (no effect, rows at once).
    #[test]
    fn a_short_list_is_threaded_at_once() {
        let (s, fx) = loaded(chain(50));
        assert!(build_request(&fx).is_none());
        assert_eq!(s.picker.rows.len(), 50);
    }
}
