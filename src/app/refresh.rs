//! Live lists: the picker follows the files. A watcher (in `tui/watch.rs`) reports changed
//! paths; they are collected here and read again off the UI thread, one request at a time
//! (paths that change meanwhile wait for the next). The results are merged in place: a grown
//! session's row gets its new counts, age and search text, a new one joins, a gone one leaves;
//! the query, the filters and the selected session stay as they were.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use super::live_data::{LiveRefresh, RefreshRequest, Refreshed};

use super::event::Effect;
use super::ops::{set_status, start_search};
use super::state::{AppState, Mode, PickerState, SessionRecord, StatusKind};

/// The watcher saw these paths change.
pub(crate) fn on_changed(state: &mut AppState, paths: Vec<PathBuf>) {
    state.picker.live.pending.extend(paths);
}

/// The refresh key: list every root again.
pub(crate) fn request_everything(state: &mut AppState) {
    state.picker.live.everything = true;
    set_status(state, "Refreshing the list…".into(), StatusKind::Info);
}

/// Asks for what is pending, unless a request is already out (once per burst of events), or
/// the list is still being read (what it has not read yet it would add twice).
pub(crate) fn settle(state: &mut AppState, fx: &mut Vec<Effect>) {
    let live = &mut state.picker.live;
    let loading = !state.picker.loading.done;
    if loading || live.in_flight || (live.pending.is_empty() && !live.everything) {
        return;
    }
    live.in_flight = true;
    let request = RefreshRequest {
        paths: std::mem::take(&mut live.pending).into_iter().collect(),
        everything: std::mem::take(&mut live.everything),
    };
    fx.push(Effect::Refresh(request));
}

/// Merges a refresh into the list. Returns the paths of the sessions that changed (a session
/// view of one of them follows it).
pub(crate) fn on_refreshed(state: &mut AppState, refreshed: Refreshed) -> Vec<PathBuf> {
    state.picker.live.in_flight = false;
    let changed = merge(state, &refreshed);
    if refreshed.everything {
        set_status(state, "List refreshed".into(), StatusKind::Ok);
    }
    changed
}

fn merge(state: &mut AppState, refreshed: &Refreshed) -> Vec<PathBuf> {
    let picker = &mut state.picker;
    let mut changed = Vec::new();
    // Where each record goes: decided before any is added, applied after.
    let mut rebuilt = false;
    let plan: Vec<(Option<usize>, &Arc<SessionRecord>)> = refreshed
        .records
        .iter()
        .map(|r| {
            (
                picker
                    .slots
                    .find(&picker.records, &r.info.path, &mut rebuilt),
                r,
            )
        })
        .collect();
    let mut kept: BTreeSet<usize> = BTreeSet::new();
    for (slot, record) in plan {
        match slot {
            Some(i) => {
                let old = &picker.records[i];
                let was_deleted = picker.deleted.get(i).copied().unwrap_or(false);
                if was_deleted || !same_listing(old, record) {
                    changed.push(record.info.path.clone());
                    picker.records[i] = Arc::clone(record);
                }
                if let Some(d) = picker.deleted.get_mut(i) {
                    *d = false;
                }
                kept.insert(i);
            }
            None => {
                changed.push(record.info.path.clone());
                picker.push_record(Arc::clone(record));
                kept.insert(picker.records.len() - 1);
            }
        }
    }
    let mut removed = false;
    for (i, r) in picker.records.iter().enumerate() {
        let path = r.info.path.as_path();
        let gone = refreshed.gone.iter().any(|g| path.starts_with(g))
            || (!kept.contains(&i) && refreshed.listed_dirs.iter().any(|d| path.starts_with(d)));
        if gone && let Some(d) = picker.deleted.get_mut(i) {
            removed |= !*d;
            *d = true;
        }
    }
    // Problems: a file that reads now is no longer one; a new one is added once.
    let readable: BTreeSet<&Path> = refreshed
        .records
        .iter()
        .map(|r| r.info.path.as_path())
        .collect();
    picker.problems.retain(|p| {
        !readable.contains(p.path.as_path())
            && !refreshed.gone.iter().any(|g| p.path.starts_with(g))
    });
    for p in &refreshed.problems {
        if !picker.problems.iter().any(|q| q.path == p.path) {
            picker.problems.push(p.clone());
        }
    }
    for path in &changed {
        state.previews.remove(path);
    }
    close_popup_of_gone(state);
    if !changed.is_empty() || removed {
        state.picker.rebuild_rows();
        if state.picker.search.query.is_some() {
            start_search(state, false);
        }
    }
    changed
}

/// A prompt about a session that another program just deleted or moved (rename, delete) would
/// act on a file that is not there any more: it closes, and says why.
fn close_popup_of_gone(state: &mut AppState) {
    let record = match &state.mode {
        Mode::Rename { record, .. }
        | Mode::ConfirmDelete { record, .. }
        | Mode::ConfirmPermanent { record, .. } => *record,
        _ => return,
    };
    if state.picker.deleted.get(record).copied().unwrap_or(false) {
        state.mode = Mode::Normal;
        set_status(
            state,
            "The session was deleted or moved by another program".into(),
            StatusKind::Warning,
        );
    }
}

/// Whether a re-read session lists the same as before (an mtime-only touch, or a folder listed
/// again): then its row is left alone.
fn same_listing(old: &SessionRecord, new: &SessionRecord) -> bool {
    let (a, b) = (&old.info, &new.info);
    a.bytes == b.bytes
        && a.modified_ms == b.modified_ms
        && a.name == b.name
        && a.message_count == b.message_count
        && a.entry_count == b.entry_count
}

impl PickerState {
    /// Records sent again with their searchable text ([`super::event::ScanUpdate::Texts`]):
    /// each takes its path's place (so rows, marks and search results keep pointing at it);
    /// one without a place is added. Whether any was added (the rows must be rebuilt).
    pub(crate) fn replace_records(&mut self, records: Vec<Arc<SessionRecord>>) -> bool {
        // Where each goes, decided before any is added (two of one new path are both added,
        // as a map built once would have them), from the kept map (see `super::slots`).
        let mut rebuilt = false;
        let slots: Vec<Option<usize>> = records
            .iter()
            .map(|r| self.slots.find(&self.records, &r.info.path, &mut rebuilt))
            .collect();
        let mut added = false;
        for (record, slot) in records.into_iter().zip(slots) {
            match slot {
                Some(i) => self.records[i] = record,
                None => {
                    self.push_record(record);
                    self.loading.loaded += 1;
                    added = true;
                }
            }
        }
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::keymap::Keymap;
    use crate::app::state::Options;
    use crate::app::theme::Palette;
    use crate::model::info::SessionInfo;

    fn record(name: &str, messages: u64, modified_ms: i64) -> Arc<SessionRecord> {
        let info = SessionInfo {
            path: PathBuf::from(format!("/s/--w--/{name}.jsonl")),
            id: name.into(),
            cwd: "/w".into(),
            modified_ms,
            message_count: messages,
            entry_count: messages,
            bytes: messages * 100,
            first_message: format!("about {name}"),
            all_messages_text: format!("about {name} with {messages} messages"),
            version: 3,
            leaf_count: 1,
            ..SessionInfo::default()
        };
        Arc::new(SessionRecord::without_fs(info, true))
    }

    fn state(records: Vec<Arc<SessionRecord>>) -> AppState {
        let mut s = AppState::new(Options::default(), Keymap::default(), Palette::default());
        s.picker.deleted = vec![false; records.len()];
        s.picker.records = records;
        s.picker.sort = crate::app::state::SortMode::Recent;
        s.picker.loading.done = true;
        s.picker.rebuild_rows();
        s
    }

    fn titles(s: &AppState) -> Vec<String> {
        s.picker
            .rows
            .iter()
            .map(|r| s.picker.records[r.record].info.id.clone())
            .collect()
    }

    /// The rows shown before their text was read (`ScanUpdate::Texts`): the records with
    /// text take their places, and the rows and the selection stay.
    #[test]
    fn texts_sent_after_the_rows_replace_them_in_place() {
        let bare = |name: &str, t: i64| {
            let info = record(name, 1, t).info.clone();
            Arc::new(SessionRecord::without_fs(
                SessionInfo {
                    all_messages_text: String::new(),
                    ..info
                },
                true,
            ))
        };
        let mut s = state(vec![bare("a", 30), bare("b", 20)]);
        s.picker.select(1);
        assert!(
            s.picker
                .records
                .iter()
                .all(|r| r.prepared.text().is_empty())
        );
        let generation = s.picker.loading.generation;
        crate::app::update::update(
            &mut s,
            crate::app::event::Event::ScanResult {
                generation,
                update: crate::app::event::ScanUpdate::Texts(vec![
                    record("b", 1, 20),
                    record("a", 1, 30),
                ]),
            },
        );
        assert_eq!(titles(&s), ["a", "b"]);
        assert_eq!(s.selected().unwrap().info.id, "b");
        assert!(s.picker.records[0].prepared.text().contains("about a with"));
        assert_eq!(s.picker.records.len(), 2);
        // One not sent before is added.
        assert!(s.picker.replace_records(vec![record("c", 1, 10)]));
        assert_eq!(s.picker.records.len(), 3);
    }

    /// A session that joins by being re-read (a fork) gets its deleted flag with it: when
    /// another program deletes it, its row leaves like any other's.
    #[test]
    fn a_forked_session_that_joined_can_leave_again() {
        let mut s = state(vec![record("a", 1, 30), record("b", 1, 20)]);
        crate::app::update::update(
            &mut s,
            crate::app::event::Event::RecordRefreshed {
                path: PathBuf::from("/s/--w--/c.jsonl"),
                result: Ok(record("c", 1, 40)),
            },
        );
        assert_eq!(titles(&s), ["c", "a", "b"]);
        assert_eq!(s.picker.deleted.len(), s.picker.records.len());
        on_refreshed(
            &mut s,
            Refreshed {
                gone: vec![PathBuf::from("/s/--w--/c.jsonl")],
                ..Refreshed::default()
            },
        );
        assert_eq!(titles(&s), ["a", "b"]);
    }

    /// A grown session moves up (newest first), a new one joins, a gone one leaves; the
    /// selected session stays selected.
    #[test]
    fn the_merge_keeps_the_selection() {
        let mut s = state(vec![
            record("a", 1, 30),
            record("b", 1, 20),
            record("c", 1, 10),
        ]);
        assert_eq!(titles(&s), ["a", "b", "c"]);
        s.picker.select(2);
        assert_eq!(s.selected().unwrap().info.id, "c");
        let mut fx = Vec::new();
        on_changed(&mut s, vec![PathBuf::from("/s/--w--/b.jsonl")]);
        settle(&mut s, &mut fx);
        assert!(matches!(&fx[..], [Effect::Refresh(r)] if r.paths.len() == 1));
        // A second change while the first is out waits.
        on_changed(&mut s, vec![PathBuf::from("/s/--w--/c.jsonl")]);
        fx.clear();
        settle(&mut s, &mut fx);
        assert!(fx.is_empty());
        let changed = on_refreshed(
            &mut s,
            Refreshed {
                records: vec![record("b", 5, 40), record("d", 1, 35)],
                gone: vec![PathBuf::from("/s/--w--/a.jsonl")],
                ..Refreshed::default()
            },
        );
        assert_eq!(changed.len(), 2);
        assert_eq!(titles(&s), ["b", "d", "c"]);
        assert_eq!(s.selected().unwrap().info.id, "c", "selection kept");
        assert_eq!(s.picker.records[1].info.message_count, 5);
        // Now the waiting change goes out.
        settle(&mut s, &mut fx);
        assert!(
            matches!(&fx[..], [Effect::Refresh(r)] if r.paths == [PathBuf::from("/s/--w--/c.jsonl")])
        );
    }

    /// A change reported while the list is still being read waits for the end of the read
    /// (the refresh would add the sessions the read has not delivered yet, then the read adds
    /// them again).
    #[test]
    fn changes_wait_for_the_list_to_be_read() {
        let mut s = state(vec![record("a", 1, 30)]);
        s.picker.loading.done = false;
        on_changed(&mut s, vec![PathBuf::from("/s")]);
        let mut fx = Vec::new();
        settle(&mut s, &mut fx);
        assert!(fx.is_empty(), "asked while loading: {fx:?}");
        s.picker.loading.done = true;
        settle(&mut s, &mut fx);
        assert!(matches!(&fx[..], [Effect::Refresh(r)] if r.paths == [PathBuf::from("/s")]));
    }

    /// With a query, the rows are searched again (the new text can match) and the query box
    /// is left as typed; a folder listed whole drops the sessions no longer in it.
    #[test]
    fn the_merge_keeps_the_query_and_searches_again() {
        let mut s = state(vec![record("a", 1, 30), record("b", 1, 20)]);
        s.picker.query.paste("about");
        crate::app::ops::query_changed(&mut s);
        let generation = s.picker.search.generation;
        on_refreshed(
            &mut s,
            Refreshed {
                records: vec![record("b", 2, 50)],
                listed_dirs: vec![PathBuf::from("/s/--w--")],
                ..Refreshed::default()
            },
        );
        assert_eq!(s.picker.query.text(), "about");
        assert!(s.picker.search.generation > generation, "searched again");
        assert!(s.picker.search.queued);
        assert_eq!(s.picker.deleted, [true, false], "a is gone from its folder");
    }

    /// A delete prompt on a session that another program removes closes (its Enter would act
    /// on a file that is gone).
    #[test]
    fn a_prompt_on_a_gone_session_closes() {
        let mut s = state(vec![record("a", 1, 30), record("b", 1, 20)]);
        s.mode = Mode::ConfirmDelete {
            record: 1,
            live: crate::app::state::Liveness::Idle,
            backups: Vec::new(),
        };
        on_refreshed(
            &mut s,
            Refreshed {
                gone: vec![PathBuf::from("/s/--w--/b.jsonl")],
                ..Refreshed::default()
            },
        );
        assert_eq!(s.mode, Mode::Normal);
        assert!(s.status.as_ref().unwrap().text.contains("deleted or moved"));
        assert_eq!(titles(&s), ["a"]);
    }

    /// Listed again unchanged: the row is left alone, nothing is searched again.
    #[test]
    fn an_unchanged_session_changes_nothing() {
        let mut s = state(vec![record("a", 1, 30)]);
        let changed = on_refreshed(
            &mut s,
            Refreshed {
                records: vec![record("a", 1, 30)],
                ..Refreshed::default()
            },
        );
        assert!(changed.is_empty());
        assert!(!s.picker.live.in_flight);
    }
}
