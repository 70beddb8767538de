//! Keys and the mouse on the picker, the preview screen and the picker's popups (rename,
//! delete confirmations, help, problems): dispatched through the key map.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::app::layout::{list_window_start, picker_layout, view_body};

use super::event::Effect;
use super::keymap::{Action, KeyContext};
use super::ops::{list_height, query_changed, resume, set_status, view_effects};
use super::session_view::update as view_update;
use super::state::{AppState, Liveness, Mode, NameFilter, Scope, Screen, StatusKind};
use super::text_input::Edit;

pub(crate) fn on_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let is_ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
    match &mut state.mode {
        Mode::Problems { scroll } => {
            let scroll = *scroll;
            let lines = state.picker.problems.len();
            state.mode = match super::help::help_key(&key, scroll, lines) {
                super::help::HelpKey::Scroll(s) => Mode::Problems { scroll: s },
                super::help::HelpKey::Close => Mode::Normal,
            };
            return;
        }
        Mode::Help { scroll } => {
            let scroll = *scroll;
            let lines =
                super::help::picker_help_lines(&state.keymap, super::help::help_context(state))
                    .len()
                    + 2;
            state.mode = match super::help::help_key(&key, scroll, lines) {
                super::help::HelpKey::Scroll(s) => Mode::Help { scroll: s },
                super::help::HelpKey::Close => Mode::Normal,
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
            let effects = view_update::apply_key(view, key);
            let path = view.path.clone();
            view_effects(state, record, path, effects, fx);
        }
    }
}

pub(crate) fn picker_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
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

pub(crate) fn on_mouse(state: &mut AppState, m: MouseEvent) {
    if state.mode != Mode::Normal {
        return;
    }
    if let Screen::View { view, .. } = &mut state.screen {
        // The wheel moves like the arrow keys; the view's own key table decides what moves.
        let code = match m.kind {
            MouseEventKind::ScrollUp => KeyCode::Up,
            MouseEventKind::ScrollDown => KeyCode::Down,
            _ => return,
        };
        let _ = view_update::apply_key(view, KeyEvent::new(code, KeyModifiers::NONE));
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
