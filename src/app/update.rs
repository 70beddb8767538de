//! `update(state, event) -> effects`: every state change happens here, and nothing here does
//! I/O, so key sequences can be tested by feeding events and looking at state and effects.

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::app::layout::{list_window_start, picker_layout, view_body};
use crate::model::search::Query;

use super::event::{Effect, Event, ScanUpdate, SearchRequest};
use super::keymap::{Action, KeyContext};
use super::session_view::{self, SessionViewState, ViewEffect};
use super::state::{
    AppState, Liveness, Mode, NameFilter, PreviewSlot, Scope, Screen, SessionRecord, Status,
    StatusKind,
};
use super::text_input::Edit;

/// Milliseconds between ticks.
pub const TICK_MS: u64 = 250;
const INFO_TICKS: u32 = 12;
const ERROR_TICKS: u32 = 24;
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
        Event::Paste(_) if state.notice.is_some() => {}
        Event::Paste(text) if matches!(state.screen, Screen::View { .. }) => {
            if let Screen::View { view, .. } = &mut state.screen {
                session_view::paste(view, &text);
            }
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
                session_view::apply_resize(view, Rect::new(0, 0, w, h));
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
                let follow = session_view::apply_outcome(view, *outcome);
                view_effects(state, record, path, follow, &mut fx);
            }
        }
        Event::RecordRefreshed { path, result } => on_record_refreshed(state, path, result),
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
            if let Mode::ConfirmDelete { record: r, live } = &mut state.mode
                && *r == record
            {
                *live = liveness;
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
            Err(e) => set_status(state, format!("Rename failed: {e}"), StatusKind::Error),
        },
        Event::Trashed { record, result } => match result {
            Ok(trashed) => {
                mark_deleted(state, record, true);
                state.undo.push(super::state::UndoItem { record, trashed });
                state.mode = Mode::Normal;
                let undo = state.keymap.key_label(Action::Undo);
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
                Err(e) => set_status(state, format!("Failed to delete: {e}"), StatusKind::Error),
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
                state.undo.push(item);
                set_status(state, format!("Restore failed: {e}"), StatusKind::Error);
            }
        },
    }
    fx
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
        session_view::settle(view);
    }
    after(state, fx);
}

fn mark_deleted(state: &mut AppState, record: usize, deleted: bool) {
    if let Some(d) = state.picker.deleted.get_mut(record) {
        *d = deleted;
    }
    state.picker.rebuild_rows();
}

fn set_status(state: &mut AppState, text: String, kind: StatusKind) {
    let ticks_left = if kind == StatusKind::Error {
        ERROR_TICKS
    } else {
        INFO_TICKS
    };
    state.status = Some(Status {
        text,
        kind,
        ticks_left,
    });
}

fn on_scan(state: &mut AppState, update: ScanUpdate) {
    let picker = &mut state.picker;
    match update {
        ScanUpdate::Found(n) => picker.loading.total = Some(n),
        ScanUpdate::Sessions(records) => {
            picker.loading.loaded += records.len();
            for r in records {
                picker.records.push(r);
                picker.deleted.push(false);
            }
            picker.rebuild_rows();
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
                let key = state.keymap.key_label(Action::Problems);
                let text = format!(
                    "{n} file{} could not be read as sessions · {key} lists them",
                    if n == 1 { "" } else { "s" }
                );
                set_status(state, text, StatusKind::Warning);
            }
        }
    }
}

/// Starts a search for the current query over all records; older results will be dropped.
/// The request itself goes out in [`settle`]: one per burst of keys or scan batches.
fn start_search(state: &mut AppState, reset_selection: bool) {
    let search = &mut state.picker.search;
    if search.query.is_none() {
        return;
    }
    search.generation += 1;
    search.pending = true;
    search.reset_selection |= reset_selection;
    search.queued = true;
}

fn query_changed(state: &mut AppState) {
    let text = state.picker.query.text().trim().to_owned();
    let search = &mut state.picker.search;
    // Whatever is in flight belongs to the old text.
    search.generation += 1;
    search.pending = false;
    search.reset_selection = false;
    if text.is_empty() {
        search.query = None;
        search.error = None;
        search.matches.clear();
        state.picker.rebuild_rows();
        return;
    }
    match Query::parse(&text) {
        Err(e) => {
            search.query = None;
            search.error = Some(e.to_string());
            search.matches.clear();
            state.picker.rebuild_rows();
        }
        Ok(q) => {
            search.error = None;
            search.query = Some(Arc::new(q));
            start_search(state, true);
        }
    }
}

fn list_height(state: &AppState) -> usize {
    let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
    picker_layout(area, state.preview_visible()).list.height as usize
}

fn on_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    if super::notice::on_key(state, &key, fx) {
        return;
    }
    let is_ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
    match &mut state.mode {
        Mode::Problems { scroll } => {
            let scroll = *scroll;
            let lines = state.picker.problems.len();
            state.mode = match crate::ui::help::help_key(&key, scroll, lines) {
                crate::ui::help::HelpKey::Scroll(s) => Mode::Problems { scroll: s },
                crate::ui::help::HelpKey::Close => Mode::Normal,
            };
            return;
        }
        Mode::Help { scroll } => {
            let scroll = *scroll;
            let lines = crate::ui::help::picker_help_lines(state).len() + 2;
            state.mode = match crate::ui::help::help_key(&key, scroll, lines) {
                crate::ui::help::HelpKey::Scroll(s) => Mode::Help { scroll: s },
                crate::ui::help::HelpKey::Close => Mode::Normal,
            };
            return;
        }
        Mode::Rename { record, input } => {
            match key.code {
                KeyCode::Enter => {
                    let record = *record;
                    let name = input.text().trim().to_owned();
                    state.mode = Mode::Normal;
                    if let Some(r) = state.picker.records.get(record) {
                        fx.push(Effect::AppendRename {
                            record,
                            path: r.info.path.clone(),
                            name,
                        });
                    }
                }
                KeyCode::Esc => state.mode = Mode::Normal,
                _ if is_ctrl_c => state.mode = Mode::Normal,
                _ => {
                    input.handle_key(&key);
                }
            }
            return;
        }
        Mode::ConfirmDelete { record, .. } => {
            let record = *record;
            match key.code {
                KeyCode::Enter => {
                    state.mode = Mode::Deleting { record };
                    if let Some(r) = state.picker.records.get(record) {
                        fx.push(Effect::TrashSession {
                            record,
                            path: r.info.path.clone(),
                        });
                    }
                }
                KeyCode::Esc => state.mode = Mode::Normal,
                _ if is_ctrl_c => state.mode = Mode::Normal,
                // Every other key is swallowed, as in pi.
                _ => {}
            }
            return;
        }
        Mode::Deleting { .. } => return,
        Mode::ConfirmPermanent { record, .. } => {
            let record = *record;
            let plain = !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            if plain && matches!(key.code, KeyCode::Char('y' | 'Y')) {
                state.mode = Mode::Deleting { record };
                if let Some(r) = state.picker.records.get(record) {
                    fx.push(Effect::DeletePermanently {
                        record,
                        path: r.info.path.clone(),
                    });
                }
            } else {
                state.mode = Mode::Normal;
                set_status(state, "Nothing was deleted".into(), StatusKind::Info);
            }
            return;
        }
        Mode::Normal => {}
    }
    match state.screen {
        Screen::Picker => picker_key(state, key, fx),
        Screen::Session { .. } => view_key(state, key, fx),
        Screen::View {
            record,
            ref mut view,
        } => {
            let effects = session_view::apply_key(view, key);
            let path = view.path.clone();
            view_effects(state, record, path, effects, fx);
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
    let Screen::Session { record: shown, .. } = state.screen else {
        return;
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
                session_view::apply_resize(&mut view, area);
            }
            state.screen = Screen::View { record, view };
        }
        Err(e) => set_status(state, format!("Cannot open: {e}"), StatusKind::Error),
    }
}

/// Turns the session view's effects into the app's.
fn view_effects(
    state: &mut AppState,
    record: usize,
    session: PathBuf,
    effects: Vec<ViewEffect>,
    fx: &mut Vec<Effect>,
) {
    for e in effects {
        match e {
            ViewEffect::Close => {
                if let Screen::View { view, .. } =
                    std::mem::replace(&mut state.screen, Screen::Picker)
                {
                    fx.push(Effect::Discard(Arc::from(view)));
                }
            }
            ViewEffect::Resume {
                path,
                entry_id,
                dialect,
            } => {
                if state.options.print_mode {
                    let line = match entry_id {
                        Some(id) => format!("{} {id}", path.display()),
                        None => path.display().to_string(),
                    };
                    fx.push(Effect::PrintLine(line));
                } else {
                    let cwd = state
                        .picker
                        .records
                        .get(record)
                        .map(|r| PathBuf::from(&r.info.cwd))
                        .unwrap_or_default();
                    fx.push(Effect::LaunchAgent {
                        path,
                        agent: dialect,
                        cwd,
                    });
                }
            }
            ViewEffect::SessionChanged { path } => {
                state.previews.remove(&path);
                let agent = state.picker.records.get(record).map(|r| r.info.agent);
                fx.push(Effect::RefreshRecord { path, agent });
            }
            ViewEffect::SessionCreated { path, .. } => {
                let agent = state.picker.records.get(record).map(|r| r.info.agent);
                fx.push(Effect::RefreshRecord { path, agent });
            }
            effect => fx.push(Effect::View {
                session: session.clone(),
                effect,
            }),
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
    match state
        .picker
        .records
        .iter()
        .position(|r| r.info.path == path)
    {
        Some(i) => state.picker.records[i] = updated,
        None => state.picker.records.push(updated),
    }
    state.picker.rebuild_rows();
    if state.picker.search.query.is_some() {
        start_search(state, false);
    }
}

fn picker_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let query_empty = state.picker.query.text().is_empty();
    let Some(action) = state.keymap.lookup(&key, KeyContext::Picker, query_empty) else {
        if state.picker.query.handle_key(&key) == Edit::Changed {
            query_changed(state);
        }
        return;
    };
    let page = list_height(state).max(1) as isize;
    let picker = &mut state.picker;
    match action {
        Action::Up => picker.move_by(-1),
        Action::Down => picker.move_by(1),
        Action::PageUp => picker.move_by(-page),
        Action::PageDown => picker.move_by(page),
        Action::Home => picker.select(0),
        Action::End => picker.select(usize::MAX),
        Action::Open | Action::View => {
            let Some(r) = state.selected() else { return };
            let (path, agent) = (r.info.path.clone(), r.info.agent);
            if state.options.print_mode && action == Action::Open {
                fx.push(Effect::Print(path));
            } else {
                state.screen = Screen::Session {
                    record: state.picker.rows[state.picker.selected].record,
                    scroll: 0,
                };
                state.previews.remove(&path);
                let record = state.picker.rows[state.picker.selected].record;
                fx.push(Effect::OpenSession {
                    record,
                    path,
                    agent,
                    viewport: Rect::new(0, 0, state.viewport.0, state.viewport.1),
                    home: state.options.home.clone(),
                });
            }
        }
        Action::Resume => resume(state, None, fx),
        Action::ToggleScope => {
            picker.scope = match picker.scope {
                Scope::Current => Scope::All,
                Scope::All => Scope::Current,
            };
            picker.rebuild_rows();
        }
        Action::CycleSort => {
            picker.sort = picker.sort.next();
            picker.rebuild_rows();
        }
        Action::ToggleNamed => {
            picker.name_filter = match picker.name_filter {
                NameFilter::All => NameFilter::Named,
                NameFilter::Named => NameFilter::All,
            };
            picker.rebuild_rows();
        }
        Action::TogglePath => picker.show_path = !picker.show_path,
        Action::TogglePreview => picker.show_preview = !picker.show_preview,
        Action::Rename => {
            let Some(r) = state.selected() else { return };
            let input =
                super::text_input::TextInput::with_text(r.info.name.as_deref().unwrap_or(""));
            let record = state.picker.rows[state.picker.selected].record;
            state.mode = Mode::Rename { record, input };
        }
        Action::Delete => {
            let Some(r) = state.selected() else { return };
            let path = r.info.path.clone();
            let record = state.picker.rows[state.picker.selected].record;
            state.mode = Mode::ConfirmDelete {
                record,
                live: Liveness::Checking,
            };
            fx.push(Effect::CheckLive { record, path });
        }
        Action::Undo => match state.undo.pop() {
            Some(item) => {
                set_status(state, "Restoring…".into(), StatusKind::Info);
                fx.push(Effect::RestoreTrash(item));
            }
            None => set_status(state, "Nothing to undo".into(), StatusKind::Info),
        },
        Action::Help => state.mode = Mode::Help { scroll: 0 },
        Action::Problems => {
            if state.picker.problems.is_empty() {
                set_status(
                    state,
                    "Every file was read as a session".into(),
                    StatusKind::Info,
                );
            } else {
                state.mode = Mode::Problems { scroll: 0 };
            }
        }
        Action::Back => {
            if state.picker.query.text().is_empty() {
                fx.push(Effect::Quit {
                    code: u8::from(state.options.print_mode),
                });
            } else {
                state.picker.query.clear();
                query_changed(state);
            }
        }
        Action::Quit => fx.push(Effect::Quit {
            code: if state.options.print_mode { 130 } else { 0 },
        }),
    }
}

fn resume(state: &mut AppState, record: Option<usize>, fx: &mut Vec<Effect>) {
    let r = match record {
        Some(i) => state.picker.records.get(i),
        None => state.selected(),
    };
    let Some(r) = r else { return };
    fx.push(Effect::LaunchAgent {
        path: r.info.path.clone(),
        agent: r.info.agent,
        cwd: PathBuf::from(&r.info.cwd),
    });
}

/// Lines the session view can scroll through at the current width.
fn view_max_scroll(state: &AppState, record: usize) -> u16 {
    let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
    let body = view_body(area);
    let Some(r) = state.picker.records.get(record) else {
        return 0;
    };
    let lines = crate::ui::preview::preview_lines(
        &r.info,
        state.previews.get(&r.info.path),
        &state.theme,
        body.width,
        state.options.home.as_deref(),
    );
    (lines.len().saturating_sub(body.height as usize)).min(u16::MAX as usize) as u16
}

fn view_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let Screen::Session { record, scroll } = state.screen else {
        return;
    };
    let Some(action) = state.keymap.lookup(&key, KeyContext::View, true) else {
        if matches!(key.code, KeyCode::Char('q')) {
            state.screen = Screen::Picker;
        }
        return;
    };
    let page = view_body(Rect::new(0, 0, state.viewport.0, state.viewport.1))
        .height
        .saturating_sub(1)
        .max(1);
    let max = view_max_scroll(state, record);
    let scroll = match action {
        Action::Up => scroll.saturating_sub(1),
        Action::Down => scroll.saturating_add(1).min(max),
        Action::PageUp => scroll.saturating_sub(page),
        Action::PageDown => scroll.saturating_add(page).min(max),
        Action::Home => 0,
        Action::End => max,
        Action::Resume => {
            resume(state, Some(record), fx);
            return;
        }
        Action::Help => {
            state.mode = Mode::Help { scroll: 0 };
            return;
        }
        Action::Back => {
            state.screen = Screen::Picker;
            return;
        }
        Action::Quit => {
            fx.push(Effect::Quit {
                code: if state.options.print_mode { 130 } else { 0 },
            });
            return;
        }
        _ => scroll,
    };
    state.screen = Screen::Session { record, scroll };
}

fn on_mouse(state: &mut AppState, m: MouseEvent) {
    if state.mode != Mode::Normal || state.notice.is_some() {
        return;
    }
    if let Screen::View { view, .. } = &mut state.screen {
        // The wheel moves like the arrow keys; the view's own key table decides what moves.
        let code = match m.kind {
            MouseEventKind::ScrollUp => KeyCode::Up,
            MouseEventKind::ScrollDown => KeyCode::Down,
            _ => return,
        };
        let _ = session_view::apply_key(view, KeyEvent::new(code, KeyModifiers::NONE));
        return;
    }
    if let Screen::Session { record, scroll } = state.screen {
        let max = view_max_scroll(state, record);
        let scroll = match m.kind {
            MouseEventKind::ScrollUp => scroll.saturating_sub(3),
            MouseEventKind::ScrollDown => scroll.saturating_add(3).min(max),
            _ => return,
        };
        state.screen = Screen::Session { record, scroll };
        return;
    }
    match m.kind {
        MouseEventKind::ScrollUp => state.picker.move_by(-1),
        MouseEventKind::ScrollDown => state.picker.move_by(1),
        MouseEventKind::Down(MouseButton::Left) => {
            let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
            let list = picker_layout(area, state.preview_visible()).list;
            if m.column < list.x
                || m.column >= list.right()
                || m.row < list.y
                || m.row >= list.bottom()
            {
                return;
            }
            let start = list_window_start(
                state.picker.selected,
                state.picker.rows.len(),
                list.height as usize,
            );
            let row = start + (m.row - list.y) as usize;
            if row < state.picker.rows.len() {
                state.picker.select(row);
            }
        }
        _ => {}
    }
}

/// Runs after every event: load the preview the screen now needs.
fn after(state: &mut AppState, fx: &mut Vec<Effect>) {
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
