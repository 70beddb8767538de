//! The threaded rows of a long list are built off the UI thread (issue: 8,000 sessions each
//! forked from the previous one blocked the loop). A rebuild asks for them with a generation;
//! the newest request wins and an older result is dropped. Until the new rows arrive the old
//! ones stay on screen, less those whose sessions are no longer listed: every row shown is a
//! session that is still there, so a key never acts on one that went away. (Record indices are
//! stable for the run and a record keeps its path, so a row's index still names its file.)

pub use super::live_data::{INLINE_MAX, ThreadsJob, ThreadsRequest};

use super::event::Effect;
use super::rows::Row;
use super::state::PickerState;

/// Sends the queued request (once per burst of events).
pub(crate) fn settle(picker: &mut PickerState, fx: &mut Vec<Effect>) {
    if let Some(req) = picker.threads.queued.take() {
        fx.push(Effect::BuildThreads(req));
    }
}

/// The rows arrived: shown if they answer the newest request.
pub(crate) fn on_built(picker: &mut PickerState, generation: u64, rows: Vec<Row>) {
    if generation != picker.threads.generation || !picker.threads.waiting {
        return;
    }
    picker.threads.waiting = false;
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

    /// A result of an older request is dropped; meanwhile the rows shown are only sessions
    /// still listed (a deleted one leaves at once, before any build).
    #[test]
    fn a_stale_result_is_dropped_and_gone_rows_leave_at_once() {
        let (mut s, fx) = loaded(chain(3_000));
        let first = build_request(&fx).unwrap().clone();
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: first.generation,
                rows: first.build(),
            },
        );
        assert_eq!(s.picker.rows.len(), 3_000);
        // Session 5 is deleted: a new build is asked for, the old rows stay without it.
        s.picker.deleted[5] = true;
        s.picker.rebuild_rows();
        let mut fx = Vec::new();
        crate::app::update::settle(&mut s, &mut fx);
        let second = build_request(&fx).unwrap().clone();
        assert!(second.generation > first.generation);
        assert_eq!(s.picker.rows.len(), 2_999);
        assert!(s.picker.rows.iter().all(|r| r.record != 5));
        // The old build's rows arrive late: dropped.
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: first.generation,
                rows: first.build(),
            },
        );
        assert!(
            s.picker.rows.iter().all(|r| r.record != 5),
            "stale rows shown"
        );
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: second.generation,
                rows: second.build(),
            },
        );
        assert_eq!(s.picker.rows.len(), 2_999);
    }

    /// A short list is threaded at once, as before (no effect, rows at once).
    #[test]
    fn a_short_list_is_threaded_at_once() {
        let (s, fx) = loaded(chain(50));
        assert!(build_request(&fx).is_none());
        assert_eq!(s.picker.rows.len(), 50);
    }
}
