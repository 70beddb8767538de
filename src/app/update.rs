//! `update(state, event) -> effects`: every state change happens here, and nothing here does
//! I/O, so key sequences can be tested by feeding events and looking at state and effects.

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::crossterm::event::KeyEventKind;
use ratatui::layout::Rect;

use super::event::{Effect, Event, ScanUpdate, SearchRequest};
use super::format::reason_first;
use super::keymap::{Action, KeyContext};
use super::ops::request_quit;
use super::ops::{mark_deleted, query_changed, set_status, start_search, view_effects};
use super::picker_keys::{active_context, on_key, on_mouse};
use super::session_view::outcome::{apply_outcome, apply_resize};
use super::session_view::state::SessionViewState;
use super::session_view::update as view_update;
use super::state::{AppState, Mode, PreviewSlot, Screen, SessionRecord, StatusKind};

/// Milliseconds between ticks.
pub(crate) const TICK_MS: u64 = 250;
/// Previews kept in memory.
const PREVIEW_CACHE: usize = 64;

/// The effects that start the app: the first scan.
pub fn start(state: &mut AppState) -> Vec<Effect> {
    state.picker.loading.generation += 1;
    state.picker.loading.total = None;
    state.picker.loading.loaded = 0;
    state.picker.loading.done = false;
    state.dirty = true;
    vec![Effect::StartScan {
        generation: state.picker.loading.generation,
    }]
}

/// Applies one event and asks for the work it needs: [`apply`], then [`settle`].
pub fn update(state: &mut AppState, event: Event) -> Vec<Effect> {
    let mut fx = apply(state, event);
    settle(state, &mut fx);
    fx
}

/// Applies one event, leaving the work only the newest state needs (the search, the preview of
/// the row on screen, the session view's transcript) to [`settle`]. The loop applies every
/// queued event, then settles once: a held key or a burst of typing costs one search, one
/// preview and one transcript, not one per repeat.
pub fn apply(state: &mut AppState, event: Event) -> Vec<Effect> {
    let before = active_context(state);
    if is_write_result(&event) {
        state.writes_in_flight = state.writes_in_flight.saturating_sub(1);
    }
    let mut fx = apply_event(state, event);
    state.writes_in_flight += fx.iter().filter(|e| is_write(e)).count();
    if state.quit_when_idle && state.writes_in_flight == 0 {
        state.quit_when_idle = false;
        request_quit(state, &mut fx);
    }
    // A confirmation that just opened has not been drawn yet.
    let after = active_context(state);
    if after != before
        && matches!(
            after,
            KeyContext::Confirm | KeyContext::Danger | KeyContext::Handoff
        )
    {
        state.confirm_drawn = false;
    }
    fx
}

/// Effects that write a file; each reports back with one event (see [`is_write_result`]).
fn is_write(e: &Effect) -> bool {
    matches!(e, Effect::Organise(o) if o.is_write())
        || matches!(
            e,
            Effect::AppendRename { .. }
                | Effect::TrashSession { .. }
                | Effect::DeletePermanently { .. }
                | Effect::RestoreTrash(_)
                | Effect::RestoreFromTrash { .. }
                | Effect::View { .. }
        )
}

fn is_write_result(e: &Event) -> bool {
    matches!(e, Event::Organise(o) if o.is_write_result())
        || matches!(
            e,
            Event::Renamed { .. }
                | Event::Trashed { .. }
                | Event::DeletedPermanently { .. }
                | Event::Restored { .. }
                | Event::TrashRestored { .. }
                | Event::ViewDone { .. }
        )
}

fn apply_event(state: &mut AppState, event: Event) -> Vec<Effect> {
    let mut fx = Vec::new();
    if !matches!(event, Event::Tick) {
        state.dirty = true;
    }
    match event {
        Event::Key(key) => {
            if key.kind != KeyEventKind::Release {
                on_key(state, key, &mut fx);
            }
        }
        Event::Mouse(m) => on_mouse(state, m),
        Event::Paste(_) if state.notices.popup().is_some() => {}
        Event::Paste(text) if matches!(state.screen, Screen::View { .. }) => {
            if let Screen::View { view, .. } = &mut state.screen {
                view_update::paste(view, &text);
            }
        }
        Event::Paste(text) if matches!(state.mode, Mode::Bookmarks(_)) => {
            super::bookmark_screen::paste(state, &text)
        }
        Event::Paste(text) => match &mut state.mode {
            Mode::Rename { input, .. } => input.paste(&text),
            Mode::Normal if state.screen.is_picker() => {
                state.picker.query.paste(&text);
                query_changed(state);
            }
            _ => {}
        },
        Event::Resize(w, h) => {
            state.viewport = (w, h);
            if let Screen::View { view, .. } = &mut state.screen {
                apply_resize(view, Rect::new(0, 0, w, h));
            }
        }
        Event::SessionOpened {
            record,
            path,
            result,
        } => on_session_opened(state, record, path, result),
        Event::ViewDone { path, outcome } => {
            if let Screen::View { record, view } = &mut state.screen
                && view.path == path
            {
                let record = *record;
                let follow = apply_outcome(view, *outcome);
                view_effects(state, record, path, follow, &mut fx);
            }
        }
        Event::RecordRefreshed { path, result } => {
            on_record_refreshed(state, path.clone(), result);
            super::fork_open::after_refresh(state, &path, &mut fx);
        }
        Event::HitsFound {
            path,
            query,
            result,
        } => super::hits_ops::on_hits_found(state, &path, &query, result),
        Event::TrashListed { generation, result } => {
            super::trash_view::on_listed(state, generation, result)
        }
        Event::TrashRestored { original, result } => {
            super::trash_view::on_restored(state, original, result, &mut fx)
        }
        Event::Organise(e) => super::marks::on_event(state, e, &mut fx),
        Event::HandedOff { text, is_error } => super::handoff::report(state, text, is_error),
        Event::SessionReread { path, result } => {
            super::follow::on_session_reread(state, path, result)
        }
        Event::ThreadsBuilt { generation, rows } => {
            super::threads_job::on_built(&mut state.picker, generation, rows)
        }
        Event::FilesChanged { paths } => super::refresh::on_changed(state, paths),
        Event::Refreshed(refreshed) => {
            let changed = super::refresh::on_refreshed(state, *refreshed);
            super::follow::on_sessions_changed(state, &changed, &mut fx);
        }
        Event::StatsReady { generation, report } => {
            super::stats_keys::on_ready(state, generation, *report)
        }
        Event::Tick => {
            if let Some(s) = &mut state.status {
                s.ticks_left = s.ticks_left.saturating_sub(1);
                if s.ticks_left == 0 {
                    state.status = None;
                    state.dirty = true;
                }
            }
        }
        Event::ScanResult { generation, update } => {
            if generation == state.picker.loading.generation {
                on_scan(state, update);
            }
        }
        Event::SearchResult {
            generation,
            matches,
        } => {
            let search = &mut state.picker.search;
            if generation != search.generation {
                return fx;
            }
            search.matches = matches.into_iter().collect();
            search.pending = false;
            let reset = std::mem::take(&mut search.reset_selection);
            state.picker.rebuild_rows();
            if reset {
                state.picker.select(0);
            }
        }
        Event::PreviewLoaded { path, result } => {
            let slot = match result {
                Ok(p) => PreviewSlot::Ready(p),
                Err(e) => PreviewSlot::Failed(e),
            };
            state.previews.insert(path, slot);
        }
        Event::PreviewCancelled { path } => {
            if matches!(state.previews.get(&path), Some(PreviewSlot::Loading)) {
                state.previews.remove(&path);
            }
        }
        Event::LiveChecked { record, liveness } => {
            if let Mode::ConfirmDelete {
                record: r,
                live,
                backups,
            } = &mut state.mode
                && *r == record
            {
                *live = liveness.liveness;
                *backups = liveness.backups;
            }
        }
        Event::Renamed { record, result } => match result {
            Ok(updated) => {
                let text = match &updated.info.name {
                    Some(n) if !n.trim().is_empty() => format!("Renamed to “{}”", n.trim()),
                    _ => "Name cleared".to_owned(),
                };
                state.previews.remove(&updated.info.path);
                if let Some(slot) = state.picker.records.get_mut(record) {
                    *slot = updated;
                }
                state.picker.rebuild_rows();
                if state.picker.search.query.is_some() {
                    start_search(state, false);
                }
                set_status(state, text, StatusKind::Ok);
            }
            Err(e) => {
                let e = record_reason(state, record, &e);
                set_status(state, format!("Rename failed: {e}"), StatusKind::Error)
            }
        },
        Event::Trashed { record, result } => match result {
            Ok(trashed) => {
                mark_deleted(state, record, true);
                state.undo.push(super::state::UndoItem { record, trashed });
                state.mode = Mode::Normal;
                let undo = state.keymap.key_label(KeyContext::Picker, Action::Undo);
                set_status(
                    state,
                    format!("Session moved to trash · {undo} undo"),
                    StatusKind::Ok,
                );
            }
            Err(error) => {
                state.mode = Mode::ConfirmPermanent { record, error };
            }
        },
        Event::DeletedPermanently { record, result } => {
            state.mode = Mode::Normal;
            match result {
                Ok(()) => {
                    mark_deleted(state, record, true);
                    set_status(state, "Session deleted permanently".into(), StatusKind::Ok);
                }
                Err(e) => {
                    let e = record_reason(state, record, &e);
                    set_status(state, format!("Failed to delete: {e}"), StatusKind::Error)
                }
            }
        }
        Event::Restored { item, result } => match result {
            Ok(()) => {
                let record = item.record;
                mark_deleted(state, record, false);
                if let Some(pos) = state.picker.rows.iter().position(|r| r.record == record) {
                    state.picker.select(pos);
                }
                set_status(
                    state,
                    "Session restored from the trash".into(),
                    StatusKind::Ok,
                );
            }
            Err(e) => {
                let e = record_reason(state, item.record, &e);
                state.undo.push(item);
                set_status(state, format!("Restore failed: {e}"), StatusKind::Error);
            }
        },
    }
    fx
}

/// An error about a record's file, reason first.
fn record_reason(state: &AppState, record: usize, message: &str) -> String {
    match state.picker.records.get(record) {
        Some(r) => reason_first(message, &r.info.path),
        None => message.to_owned(),
    }
}

/// Asks for the work the state now needs, once per burst of events (see [`apply`]).
pub fn settle(state: &mut AppState, fx: &mut Vec<Effect>) {
    let search = &mut state.picker.search;
    if std::mem::take(&mut search.queued)
        && let Some(query) = search.query.clone()
    {
        fx.push(Effect::RunSearch(SearchRequest {
            generation: search.generation,
            query,
            records: state.picker.records.clone(),
        }));
    }
    if let Screen::View { view, .. } = &mut state.screen {
        view_update::settle(view);
    }
    super::refresh::settle(state, fx);
    super::threads_job::settle(&mut state.picker, fx);
    after(state, fx);
}

fn on_scan(state: &mut AppState, update: ScanUpdate) {
    let picker = &mut state.picker;
    match update {
        ScanUpdate::Found(n) => picker.loading.total = Some(n),
        ScanUpdate::Sessions(records) => {
            picker.loading.loaded += records.len();
            for r in records {
                picker.push_record(r);
            }
            picker.rebuild_rows();
            if picker.search.query.is_some() {
                start_search(state, false);
            }
        }
        ScanUpdate::Texts(records) => {
            if picker.replace_records(records) {
                picker.rebuild_rows();
            }
            if picker.search.query.is_some() {
                start_search(state, false);
            }
        }
        ScanUpdate::Failed(skipped) => {
            picker.loading.loaded += skipped.len();
            picker.problems.extend(skipped);
        }
        ScanUpdate::Done => {
            picker.loading.done = true;
            let n = picker.problems.len();
            if n > 0 {
                let key = state.keymap.key_label(KeyContext::Picker, Action::Problems);
                let text = format!(
                    "{n} file{} could not be read as sessions · {key} lists them",
                    if n == 1 { "" } else { "s" }
                );
                state.notices.push_status(text);
            }
        }
    }
}

/// The session finished loading: open the view if its preview is still the screen.
fn on_session_opened(
    state: &mut AppState,
    record: usize,
    path: PathBuf,
    result: Result<Box<SessionViewState>, String>,
) {
    // A view of this session's leaf branch alone (a large session is shown from the end of
    // its file first) is replaced by the whole session, which takes over its place; a whole
    // view already shown (re-read after a write) is newer than this load.
    let shown = match &state.screen {
        Screen::Session { record, .. } => *record,
        Screen::View { record, view } if view.path == path && view.leaf_first => *record,
        _ => return,
    };
    if shown != record {
        return;
    }
    if !matches!(state.picker.records.get(record), Some(r) if r.info.path == path) {
        return;
    }
    match result {
        Ok(mut view) => {
            // Laid out for the size at the time of the request: the terminal may have changed.
            let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
            if view.viewport != area {
                apply_resize(&mut view, area);
            }
            view.set_panes(state.view_panes);
            view.resume_prints = state.options.print_mode;
            if let Screen::View { view: first, .. } = &state.screen {
                view.take_over(first);
            }
            super::marks::apply_open_at(&mut state.picker.org, &path, &mut view);
            state.screen = Screen::View { record, view };
            // Its row follows what was just read (watching may be off or slow).
            state.picker.live.pending.insert(path);
        }
        Err(e) => {
            let e = reason_first(&e, &path);
            set_status(state, format!("Cannot open: {e}"), StatusKind::Error)
        }
    }
}

/// A re-read session replaces its row, or joins the list (a fork).
fn on_record_refreshed(
    state: &mut AppState,
    path: PathBuf,
    result: Result<Arc<SessionRecord>, String>,
) {
    let updated = match result {
        Ok(r) => r,
        Err(e) => {
            set_status(
                state,
                format!("Cannot re-read a session: {e}"),
                StatusKind::Error,
            );
            return;
        }
    };
    state.previews.remove(&path);
    match state.picker.slot_of(&path) {
        Some(i) => state.picker.records[i] = updated,
        // A new row (a fork).
        None => state.picker.push_record(updated),
    }
    state.picker.rebuild_rows();
    if state.picker.search.query.is_some() {
        start_search(state, false);
    }
}

/// Runs after every event: load the preview the screen now needs.
fn after(state: &mut AppState, fx: &mut Vec<Effect>) {
    super::hits_ops::want_hits(state, fx);
    let record = match state.screen {
        Screen::Session { record, .. } => state.picker.records.get(record),
        Screen::Picker if state.preview_visible() => state.selected(),
        Screen::Picker | Screen::View { .. } => None,
    };
    let Some(r) = record else { return };
    let (path, agent) = (r.info.path.clone(), r.info.agent);
    if state.previews.contains_key(&path) {
        return;
    }
    if state.previews.len() >= PREVIEW_CACHE {
        state.previews.clear();
    }
    state.previews.insert(path.clone(), PreviewSlot::Loading);
    // Enter already asked for it through OpenSession.
    let opened = fx
        .iter()
        .any(|e| matches!(e, Effect::OpenSession { path: p, .. } if *p == path));
    if !opened {
        fx.push(Effect::LoadPreview { path, agent });
    }
}
