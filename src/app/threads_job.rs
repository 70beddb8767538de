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
use super::families::BuiltThreads;
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
/// listed, with their families (a family opened to show the selection stays open only when
/// no newer build is coming: that one carries its own).
pub(crate) fn on_built(picker: &mut PickerState, generation: u64, built: BuiltThreads) {
    picker.threads.in_flight = false;
    if generation < picker.threads.accept_from {
        return;
    }
    let BuiltThreads {
        mut rows,
        mut folds,
    } = built;
    if generation != picker.threads.generation {
        folds.opened.clear();
    }
    rows.retain(|r| picker.is_listed(r.record));
    let records = &picker.records;
    picker
        .families
        .take(folds, |i| records.get(i).map(|r| r.info.path.clone()));
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
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use std::path::PathBuf;
    use std::sync::Arc;

    fn path(i: usize) -> PathBuf {
        PathBuf::from(format!("/s/--w--/{i:05}.jsonl"))
    }

    fn session(i: usize, parent: Option<usize>) -> Arc<SessionRecord> {
        let info = SessionInfo {
            path: path(i),
            id: format!("{i}"),
            cwd: "/w".into(),
            parent_session_path: parent.map(|p| path(p).to_string_lossy().into_owned()),
            modified_ms: i as i64,
            message_count: 1,
            first_message: format!("session {i}"),
            version: 3,
            ..SessionInfo::default()
        };
        Arc::new(SessionRecord::without_fs(info, true))
    }

    fn chain(n: usize) -> Vec<Arc<SessionRecord>> {
        (0..n).map(|i| session(i, i.checked_sub(1))).collect()
    }

    /// `heads` sessions with two forks each: 3 × `heads` sessions, in families of three.
    fn families(heads: usize) -> Vec<Arc<SessionRecord>> {
        (0..heads * 3)
            .map(|i| session(i, (i % 3 != 0).then(|| i - i % 3)))
            .collect()
    }

    fn loaded_with(records: Vec<Arc<SessionRecord>>, folded: bool) -> (AppState, Vec<Effect>) {
        let mut s = AppState::new(Options::default(), Keymap::default(), Palette::default());
        s.picker.families.folded_by_default = folded;
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

    /// Families unfolded (the tests of the job itself).
    fn loaded(records: Vec<Arc<SessionRecord>>) -> (AppState, Vec<Effect>) {
        loaded_with(records, false)
    }

    fn build_request(fx: &[Effect]) -> Option<&ThreadsRequest> {
        fx.iter().find_map(|e| match e {
            Effect::BuildThreads(r) => Some(r),
            _ => None,
        })
    }

    /// Runs the build asked for in `fx` and delivers it; the effects of that.
    fn deliver(s: &mut AppState, fx: &[Effect]) -> Vec<Effect> {
        let req = build_request(fx).expect("a build effect").clone();
        update(
            s,
            Event::ThreadsBuilt {
                generation: req.generation,
                rows: req.build(),
            },
        )
    }

    fn alt(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
        update(s, Event::Key(KeyEvent::new(code, KeyModifiers::ALT)))
    }

    fn shown(s: &AppState) -> Vec<usize> {
        s.picker.rows.iter().map(|r| r.record).collect()
    }

    /// The 8,000-deep fork chain: the update asks for the rows instead of building them, and
    /// the rows land when the built result arrives.
    #[test]
    fn the_fork_chain_is_threaded_in_the_background() {
        let (mut s, fx) = loaded(chain(8_000));
        assert!(s.picker.rows.is_empty(), "built on the UI thread");
        deliver(&mut s, &fx);
        assert_eq!(s.picker.rows.len(), 8_000);
        assert_eq!(s.picker.rows[0].record, 0);
        assert_eq!(s.selected().map(|r| r.info.id.as_str()), Some("0"));
    }

    /// Folded by default, the list built in the background is folded as one built at once
    /// would be: 1,200 families of three (3,600 sessions) show their 1,200 heads, each with
    /// the 2 it hides. Unfolding one asks the job again, with the new fold state, and the
    /// selection stays on its session.
    #[test]
    fn a_long_list_built_in_the_background_is_folded() {
        let (mut s, fx) = loaded_with(families(1_200), true);
        let req = build_request(&fx).expect("built in the background");
        assert!(req.fold.folded_by_default);
        deliver(&mut s, &fx);
        assert_eq!(s.picker.rows.len(), 1_200);
        assert!(s.picker.rows.iter().all(|r| r.record % 3 == 0));
        let folds = &s.picker.families.shown;
        assert_eq!(folds.hidden_under.len(), 1_200);
        assert!(folds.hidden_under.values().all(|&n| n == 2));
        // The same rows as the inline build of the same listing.
        let listed: Vec<usize> = (0..3_600).collect();
        let spec = s.picker.families.spec(None);
        let inline = crate::app::threads::threaded_folded(&s.picker.records, &listed, &[], &spec);
        assert_eq!(s.picker.rows, inline.rows);

        s.picker.select(5);
        let head = s.picker.rows[5].record;
        let fx = alt(&mut s, KeyCode::Right);
        let req = build_request(&fx).expect("asked again");
        assert!(req.fold.toggled.contains(&path(head)));
        assert_eq!(
            s.picker.rows.len(),
            1_200,
            "the old rows until the new land"
        );
        deliver(&mut s, &fx);
        assert_eq!(s.picker.rows.len(), 1_202);
        assert_eq!(shown(&s)[5..8], [head, head + 2, head + 1]);
        assert_eq!(s.selected().map(|r| r.info.path.clone()), Some(path(head)));
        // Alt+← on a fork folds its family; the head is selected.
        s.picker.select(6);
        let fx = alt(&mut s, KeyCode::Left);
        deliver(&mut s, &fx);
        assert_eq!(s.picker.rows.len(), 1_200);
        assert_eq!(s.picker.selected, 5);
    }

    /// 1,000 families loaded; `fork` selected in the recent sort, then the threaded sort asked
    /// for: the state and the effects of that rebuild.
    fn selected_in_recent_then_threaded(fork: usize) -> (AppState, Vec<Effect>) {
        let (mut s, fx) = loaded_with(families(1_000), true);
        deliver(&mut s, &fx);
        s.picker.sort = crate::app::state::SortMode::Recent;
        s.picker.rebuild_rows();
        let pos = shown(&s).iter().position(|&r| r == fork).unwrap();
        s.picker.select(pos);
        s.picker.sort = crate::app::state::SortMode::Threaded;
        s.picker.rebuild_rows();
        let mut fx = Vec::new();
        crate::app::update::settle(&mut s, &mut fx);
        (s, fx)
    }

    /// A session selected in another sort stays selected in the threaded one: its family
    /// opens (and stays open), in the background build as at once.
    #[test]
    fn the_selected_session_is_never_folded_away() {
        let fork = 3 * 400 + 1;
        let (mut s, fx) = selected_in_recent_then_threaded(fork);
        deliver(&mut s, &fx);
        assert_eq!(s.picker.rows.len(), 1_002);
        assert_eq!(s.selected().map(|r| r.info.path.clone()), Some(path(fork)));
        assert!(s.picker.families.toggled.contains(&path(fork - 1)));
    }

    /// A family opened to show the selection is recorded from the newest build only: an
    /// older answer shows it open, without recording it (the newer build carries its own).
    #[test]
    fn only_the_newest_build_records_a_family_opened() {
        let fork = 3 * 10 + 2;
        let (mut s, fx) = selected_in_recent_then_threaded(fork);
        let older = build_request(&fx).unwrap().clone();
        // Newer data while it runs (a rebuild): asked again, waiting.
        s.picker.rebuild_rows();
        let fx = update(
            &mut s,
            Event::ThreadsBuilt {
                generation: older.generation,
                rows: older.build(),
            },
        );
        assert!(shown(&s).contains(&fork), "shown open");
        assert!(s.picker.families.toggled.is_empty(), "not recorded");
        deliver(&mut s, &fx);
        assert!(shown(&s).contains(&fork));
        assert!(s.picker.families.toggled.contains(&path(fork - 2)));
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
        deliver(&mut s, &fx);
        assert_eq!(s.picker.rows.len(), 2_999);
    }

    /// A build whose request was cancelled (here: the sort changed while it ran) is dropped
    /// when it arrives: the rows stay those of the new sort, and so do the families.
    #[test]
    fn a_stale_result_is_dropped() {
        let (mut s, fx) = loaded_with(chain(3_000), true);
        let first = build_request(&fx).unwrap().clone();
        s.picker.sort = crate::app::state::SortMode::Recent;
        s.picker.rebuild_rows();
        assert_eq!(s.picker.rows[0].record, 2_999, "newest first");
        assert_eq!(s.picker.rows.len(), 3_000);
        update(
            &mut s,
            Event::ThreadsBuilt {
                generation: first.generation,
                rows: first.build(),
            },
        );
        assert_eq!(s.picker.rows[0].record, 2_999, "stale threaded rows shown");
        assert_eq!(s.picker.rows.len(), 3_000, "stale folded rows shown");
        assert!(s.picker.rows.iter().all(|r| r.prefix.is_empty()));
        assert!(s.picker.families.shown.hidden_under.is_empty());
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
