//! Keys and the mouse on the picker, the preview screen and the picker's popups (rename,
//! delete confirmations, help, problems): dispatched through the key map.

use ratatui::crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use crate::app::layout::{list_window_start, picker_layout, too_small, view_body};

use super::event::Effect;
use super::keymap::{Action, Conditions, KeyContext};
use super::ops::{list_height, query_changed, request_quit, resume, set_status, view_effects};
use super::session_view::update as view_update;
use super::state::{AppState, Liveness, Mode, NameFilter, Scope, Screen, StatusKind};
use super::text_input::Edit;

pub(crate) fn on_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    // The start-up notice is over everything: its keys first.
    if super::notice_keys::on_key(state, &key, fx) {
        return;
    }
    let context = active_context(state);
    let global = state
        .keymap
        .lookup_in(&key, KeyContext::Global, conditions(state));
    // Ctrl+C quits from every screen and popup, and is all that works while the terminal is
    // too small to draw anything (resizing arrives as its own event).
    if global == Some(Action::Quit) {
        request_quit(state, fx);
        return;
    }
    let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
    if too_small(area) {
        return;
    }
    // A confirmation acts only once it has been drawn.
    if matches!(
        context,
        KeyContext::Confirm | KeyContext::Danger | KeyContext::Handoff
    ) && !state.confirm_drawn
    {
        return;
    }
    if state.mode != Mode::Normal {
        super::popup_keys::popup_key(state, key, fx);
        return;
    }
    match state.screen {
        Screen::Picker => picker_key(state, key, fx),
        Screen::Session { .. } => view_key(state, key, fx),
        Screen::View {
            record,
            ref mut view,
        } => {
            let conditions = Conditions {
                query_empty: state.picker.query.text().is_empty(),
            };
            let refresh = state
                .keymap
                .lookup(&key, view_update::view_context(view), conditions);
            if refresh == Some(Action::Refresh) {
                super::follow::refresh_view(state, fx);
                return;
            }
            if let Some(a @ (Action::Yank | Action::PagerEntry | Action::PagerBranch)) = refresh {
                super::handoff::view_key(state, a, fx);
                return;
            }
            let effects = view_update::apply_key_with(view, key, &state.keymap);
            let path = view.path.clone();
            view_effects(state, record, path, effects, fx);
        }
    }
}

/// The key layer in front: the popup's, else the screen's (for the view, its pane's or its
/// own popup's).
pub(crate) fn active_context(state: &AppState) -> KeyContext {
    match &state.mode {
        Mode::Help { .. } => return KeyContext::Help,
        Mode::Problems { .. } => return KeyContext::Problems,
        Mode::Trash(v) => return super::trash_view::context(v),
        Mode::Stats { .. } => return KeyContext::Stats,
        Mode::Rename { .. } => return KeyContext::Input,
        Mode::ConfirmDelete { .. } | Mode::Deleting { .. } => return KeyContext::Confirm,
        Mode::ConfirmPermanent { .. } => return KeyContext::Danger,
        Mode::ConfirmTrashMarked { .. } | Mode::TrashingMarked { .. } => {
            return KeyContext::Confirm;
        }
        Mode::Bookmarks(_) => return KeyContext::Bookmarks,
        Mode::Handoff(_) => return KeyContext::Handoff,
        Mode::Normal => {}
    }
    match &state.screen {
        Screen::Picker => KeyContext::Picker,
        Screen::Session { .. } => KeyContext::Preview,
        Screen::View { view, .. } => view_update::view_context(view),
    }
}

/// The state the key map's conditions look at.
pub(crate) fn conditions(state: &AppState) -> Conditions {
    Conditions {
        query_empty: state.picker.query.text().is_empty(),
    }
}

pub(crate) fn picker_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(action) = state
        .keymap
        .lookup(&key, KeyContext::Picker, conditions(state))
    else {
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
            let resumes = state.options.enter == crate::app::config::EnterAction::Resume;
            if state.options.print_mode && action == Action::Open {
                fx.push(Effect::Print(path));
            } else if resumes && action == Action::Open {
                resume(state, None, fx);
            } else {
                state.screen = Screen::Session {
                    record: state.picker.rows[state.picker.selected].record,
                    scroll: 0,
                };
                state.previews.remove(&path);
                let record = state.picker.rows[state.picker.selected].record;
                let search = state.picker.search.query.clone().and_then(|query| {
                    let score = state.picker.search.matches.get(&record)?;
                    Some(crate::app::search_hits::OpenSearch {
                        query,
                        prefer_tool: score.tool_only,
                    })
                });
                fx.push(Effect::OpenSession {
                    record,
                    path,
                    agent,
                    viewport: Rect::new(0, 0, state.viewport.0, state.viewport.1),
                    home: state.options.home.clone(),
                    search,
                });
            }
        }
        Action::Resume => resume(state, None, fx),
        Action::ToggleScope => {
            picker.scope = match picker.scope {
                // The repository scope only when the folder is in one.
                Scope::Current if picker.current_repo.is_some() => Scope::Repo,
                Scope::Current | Scope::Repo => Scope::All,
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
        Action::Delete if super::marks::confirm_trash_marked(state, fx) => {}
        Action::Delete => {
            let Some(r) = state.selected() else { return };
            let path = r.info.path.clone();
            let record = state.picker.rows[state.picker.selected].record;
            state.mode = Mode::ConfirmDelete {
                record,
                live: Liveness::Checking,
                backups: Vec::new(),
            };
            fx.push(Effect::CheckLive { record, path });
        }
        Action::Undo => super::marks::undo(state, fx),
        Action::Mark => super::marks::toggle_mark(state),
        Action::Pin => super::marks::toggle_flag(state, crate::storage::state::Flag::Pinned, fx),
        Action::Archive => {
            super::marks::toggle_flag(state, crate::storage::state::Flag::Archived, fx)
        }
        Action::CycleView => super::marks::cycle_view(state),
        Action::Bookmarks => super::bookmark_screen::open(state, fx),
        Action::Help => state.mode = Mode::Help { scroll: 0 },
        Action::TrashView => super::trash_view::open(state, fx),
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
        Action::Stats => super::stats_keys::open(state, fx),
        Action::Yank => super::handoff::open_from_picker(state),
        Action::FoldFamily | Action::UnfoldFamily | Action::ToggleFamily => {
            super::family_keys::fold_action(state, action)
        }
        Action::HideChildren => super::family_keys::toggle_children(state),
        Action::Dismiss if state.notices.has_status() => {
            state.notices.dismiss(super::notice::NoticeKind::Status);
        }
        // Esc with marks: drop the marks first.
        Action::Back
            if !state.picker.org.marked.is_empty() && state.picker.query.text().is_empty() =>
        {
            state.picker.org.marked.clear();
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
        Action::Quit => request_quit(state, fx),
        Action::Refresh => super::refresh::request_everything(state),
        _ => {}
    }
}

/// Lines the session view can scroll through at the current width.
pub(crate) fn view_max_scroll(state: &AppState, record: usize) -> u16 {
    let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
    let body = view_body(area);
    let Some(r) = state.picker.records.get(record) else {
        return 0;
    };
    let lines = super::preview_text::preview_lines(
        &r.info,
        state.previews.get(&r.info.path),
        body.width,
        state.options.home.as_deref(),
    );
    (lines.len().saturating_sub(body.height as usize)).min(u16::MAX as usize) as u16
}

pub(crate) fn view_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let Screen::Session { record, scroll } = state.screen else {
        return;
    };
    let Some(action) = state
        .keymap
        .lookup(&key, KeyContext::Preview, conditions(state))
    else {
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
        Action::Back | Action::Leave => {
            state.screen = Screen::Picker;
            return;
        }
        Action::Quit => {
            request_quit(state, fx);
            return;
        }
        _ => scroll,
    };
    state.screen = Screen::Session { record, scroll };
}

pub(crate) fn on_mouse(state: &mut AppState, m: MouseEvent) {
    let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
    if state.mode != Mode::Normal || state.notices.popup().is_some() || too_small(area) {
        return;
    }
    if let Screen::View { view, .. } = &mut state.screen {
        // The wheel moves like the arrow keys in the focused pane.
        match m.kind {
            MouseEventKind::ScrollUp => view_update::wheel(view, true),
            MouseEventKind::ScrollDown => view_update::wheel(view, false),
            _ => {}
        }
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
