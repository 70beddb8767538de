//! Pins, archive and marks in the picker: which sessions are listed (archived ones only in the
//! Archived view), pinned ones first, Space-marked ones acted on together (trash with one
//! confirmation and one undo, pin, archive). The state database is written by the effects;
//! this is pure.

use std::path::PathBuf;

use crate::storage::state::{Flag, SessionKey};
use crate::storage::trash::Trashed;

use super::event::Effect;
use super::keymap::{Action, KeyContext};
use super::ops::set_status;
pub use super::org::{OrgEffect, OrgEvent, OrgView, Organise};
use super::state::{AppState, Mode, PickerState, StatusKind, UndoItem};

/// The marked sessions that are listed, in row order (a key acts only on what is shown).
pub(crate) fn marked_rows(p: &PickerState) -> Vec<usize> {
    p.rows
        .iter()
        .map(|r| r.record)
        .filter(|r| p.org.marked.contains(r))
        .collect()
}

/// Marked and listed, or else the selected session.
fn targets(state: &AppState) -> Vec<usize> {
    let marked = marked_rows(&state.picker);
    if !marked.is_empty() {
        return marked;
    }
    state
        .picker
        .rows
        .get(state.picker.selected)
        .map(|r| vec![r.record])
        .unwrap_or_default()
}

/// Space / Alt+M: mark or unmark the selected session, then move down.
pub(crate) fn toggle_mark(state: &mut AppState) {
    let p = &mut state.picker;
    let Some(row) = p.rows.get(p.selected) else {
        return;
    };
    let record = row.record;
    if !p.org.marked.remove(&record) {
        p.org.marked.insert(record);
    }
    p.move_by(1);
}

/// Pin or archive the targets (all of them, or unset it when all have it).
pub(crate) fn toggle_flag(state: &mut AppState, flag: Flag, fx: &mut Vec<Effect>) {
    if let Some(why) = &state.picker.org.unavailable {
        let text = format!("Pins and archive are unavailable: {why}");
        set_status(state, text, StatusKind::Error);
        return;
    }
    let targets = targets(state);
    if targets.is_empty() {
        return;
    }
    let p = &mut state.picker;
    let value = !targets
        .iter()
        .all(|&i| flag.get(p.org.flags_of(&p.records[i])));
    let keys: Vec<SessionKey> = targets
        .iter()
        .map(|&i| SessionKey::new(p.records[i].info.id.clone(), p.records[i].info.path.clone()))
        .collect();
    for k in &keys {
        p.org.flags.set(k, flag, value);
        if !p.org.loaded {
            p.org.early.push((k.clone(), flag, value));
        }
    }
    p.org.marked.clear();
    p.rebuild_rows();
    let n = keys.len();
    let what = if n == 1 {
        "Session".to_owned()
    } else {
        format!("{n} sessions")
    };
    let text = match (flag, value) {
        (Flag::Pinned, true) => format!("{what} pinned"),
        (Flag::Pinned, false) => format!("{what} unpinned"),
        (Flag::Archived, true) => {
            let key = state
                .keymap
                .key_label(KeyContext::Picker, Action::CycleView);
            format!("{what} archived · {key} shows the archived")
        }
        (Flag::Archived, false) => format!("{what} back from the archive"),
    };
    set_status(state, text, StatusKind::Ok);
    fx.push(Effect::Organise(OrgEffect::SaveFlags { keys, flag, value }));
}

pub(crate) fn cycle_view(state: &mut AppState) {
    let p = &mut state.picker;
    p.org.view = p.org.view.next();
    p.rebuild_rows();
}

/// Ctrl+D with marks: one confirmation listing them.
pub(crate) fn confirm_trash_marked(state: &mut AppState, fx: &mut Vec<Effect>) -> bool {
    let records = marked_rows(&state.picker);
    if records.is_empty() {
        return false;
    }
    let paths = records
        .iter()
        .map(|&i| state.picker.records[i].info.path.clone())
        .collect();
    fx.push(Effect::Organise(OrgEffect::PinFiles(paths)));
    state.mode = Mode::ConfirmTrashMarked { records };
    true
}

/// Yes on the bulk confirmation.
pub(crate) fn trash_marked(state: &mut AppState, records: Vec<usize>, fx: &mut Vec<Effect>) {
    let items: Vec<(usize, PathBuf)> = records
        .iter()
        .filter_map(|&i| {
            state
                .picker
                .records
                .get(i)
                .map(|r| (i, r.info.path.clone()))
        })
        .collect();
    state.mode = Mode::TrashingMarked { records };
    fx.push(Effect::Organise(OrgEffect::TrashMarked { items }));
}

/// Ctrl+Z: restores the last delete, or every session of the last bulk trash.
pub(crate) fn undo(state: &mut AppState, fx: &mut Vec<Effect>) {
    let len = state.undo.len();
    let batch = state
        .picker
        .org
        .undo_batches
        .last()
        .filter(|b| b.end == len && b.start < b.end)
        .cloned();
    let take = match batch {
        Some(b) => {
            state.picker.org.undo_batches.pop();
            b.end - b.start
        }
        None => usize::from(len > 0),
    };
    if take == 0 {
        set_status(state, "Nothing to undo".into(), StatusKind::Info);
        return;
    }
    let items: Vec<UndoItem> = state.undo.split_off(len - take);
    let text = if take == 1 {
        "Restoring…".to_owned()
    } else {
        format!("Restoring {take} sessions…")
    };
    set_status(state, text, StatusKind::Info);
    fx.extend(items.into_iter().map(Effect::RestoreTrash));
}

/// The session view opened from a bookmark: select the bookmarked entry.
pub(crate) fn apply_open_at(
    org: &mut Organise,
    path: &std::path::Path,
    view: &mut super::session_view::state::SessionViewState,
) {
    let Some((p, entry)) = org.open_at.take() else {
        return;
    };
    if p != path {
        return;
    }
    match view.session.tree.index_of(&entry) {
        Some(i) => {
            view.nav.select_entry(&view.session, i);
            view.sync_transcript();
        }
        // The leaf branch alone: the whole session, which follows, may hold it.
        None if view.leaf_first => org.open_at = Some((p, entry)),
        None => {}
    }
}

pub(crate) fn on_event(state: &mut AppState, event: OrgEvent, _fx: &mut Vec<Effect>) {
    match event {
        OrgEvent::Loaded(Ok(flags)) => {
            // Changes made before the load finished are kept over what was read.
            let org = &mut state.picker.org;
            org.flags = flags;
            org.loaded = true;
            for (k, flag, value) in std::mem::take(&mut org.early) {
                org.flags.set(&k, flag, value);
            }
            state.picker.rebuild_rows();
        }
        OrgEvent::Loaded(Err(e)) => {
            state.picker.org.loaded = true;
            state
                .notices
                .push_status(format!("Pins and archive are unavailable: {e}"));
            state.picker.org.unavailable = Some(e);
        }
        OrgEvent::Saved {
            keys,
            flag,
            value,
            result: Err(e),
        } => {
            for k in &keys {
                state.picker.org.flags.set(k, flag, !value);
            }
            state.picker.rebuild_rows();
            set_status(state, format!("Not saved: {e}"), StatusKind::Error);
        }
        OrgEvent::Saved { .. } => {}
        OrgEvent::TrashedMarked { results } => on_trashed_marked(state, results),
        OrgEvent::Bookmarks(loaded) => super::bookmark_screen::on_loaded(state, loaded),
        OrgEvent::BookmarkSaved { key, result } => {
            super::bookmark_screen::on_saved(state, key, result)
        }
    }
}

fn on_trashed_marked(state: &mut AppState, results: Vec<(usize, Result<Trashed, String>)>) {
    state.mode = Mode::Normal;
    let start = state.undo.len();
    let mut failed = Vec::new();
    for (record, result) in results {
        match result {
            Ok(trashed) => {
                if let Some(d) = state.picker.deleted.get_mut(record) {
                    *d = true;
                }
                state.picker.org.marked.remove(&record);
                state.undo.push(UndoItem { record, trashed });
            }
            Err(e) => failed.push(e),
        }
    }
    let moved = state.undo.len() - start;
    if moved > 0 {
        state.picker.org.undo_batches.push(start..state.undo.len());
    }
    // Rows rebuilt once for the lot.
    state.picker.rebuild_rows();
    let undo = state.keymap.key_label(KeyContext::Picker, Action::Undo);
    if failed.is_empty() {
        set_status(
            state,
            format!(
                "{moved} session{} moved to trash · {undo} undo",
                if moved == 1 { "" } else { "s" }
            ),
            StatusKind::Ok,
        );
    } else {
        set_status(
            state,
            format!(
                "{moved} moved to trash, {} not (nothing was deleted for good): {}",
                failed.len(),
                failed[0]
            ),
            StatusKind::Error,
        );
    }
}
