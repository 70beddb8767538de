//! Keys on the picker's popups (help, the problems list, rename, the delete confirmations),
//! through their key-map layers.

use ratatui::crossterm::event::KeyEvent;

use super::event::Effect;
use super::help::{help_context, picker_help_lines, problem_lines};
use super::keymap::{Action, Conditions, KeyContext};
use super::ops::set_status;
use super::state::{AppState, Mode, StatusKind};

/// Scrolls a help-like popup of `lines` lines, or closes it (any key not bound to scrolling).
pub(crate) fn scroll_popup(action: Option<Action>, scroll: u16, lines: usize) -> Option<u16> {
    let max = lines.saturating_sub(1).min(u16::MAX as usize) as u16;
    match action {
        Some(Action::Down) => Some(scroll.saturating_add(1).min(max)),
        Some(Action::Up) => Some(scroll.saturating_sub(1)),
        Some(Action::PageDown) => Some(scroll.saturating_add(10).min(max)),
        Some(Action::PageUp) => Some(scroll.saturating_sub(10)),
        _ => None,
    }
}

pub(crate) fn popup_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    if let Mode::Trash(_) = state.mode {
        return super::trash_view::on_key(state, key, fx);
    }
    let any = Conditions { query_empty: true };
    let km = &state.keymap;
    match &mut state.mode {
        Mode::Problems { scroll } => {
            let action = km.lookup_in(&key, KeyContext::Problems, any);
            let lines = problem_lines(&state.picker.problems, None).len() + 2;
            state.mode = match scroll_popup(action, *scroll, lines) {
                Some(s) => Mode::Problems { scroll: s },
                None => Mode::Normal,
            };
        }
        Mode::Stats { .. } => {
            let action = km.lookup_in(&key, KeyContext::Stats, any);
            super::stats_keys::key(state, action, fx);
        }
        Mode::Help { scroll } => {
            let scroll = *scroll;
            let action = km.lookup_in(&key, KeyContext::Help, any);
            let lines = picker_help_lines(km, help_context(state)).len() + 2;
            state.mode = match scroll_popup(action, scroll, lines) {
                Some(s) => Mode::Help { scroll: s },
                None => Mode::Normal,
            };
        }
        Mode::Rename { record, input } => match km.lookup_in(&key, KeyContext::Input, any) {
            Some(Action::Confirm) => {
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
            Some(Action::Cancel) => state.mode = Mode::Normal,
            _ => {
                input.handle_key(&key);
            }
        },
        Mode::ConfirmDelete { record, .. } => {
            let record = *record;
            match km.lookup_in(&key, KeyContext::Confirm, any) {
                Some(Action::Yes) => {
                    state.mode = Mode::Deleting { record };
                    if let Some(r) = state.picker.records.get(record) {
                        fx.push(Effect::TrashSession {
                            record,
                            path: r.info.path.clone(),
                        });
                    }
                }
                Some(Action::No) => state.mode = Mode::Normal,
                // Every other key is swallowed, as in pi.
                _ => {}
            }
        }
        Mode::Deleting { .. } | Mode::TrashingMarked { .. } => {}
        Mode::ConfirmTrashMarked { records } => {
            match km.lookup_in(&key, KeyContext::Confirm, any) {
                Some(Action::Yes) => {
                    let records = std::mem::take(records);
                    super::marks::trash_marked(state, records, fx);
                }
                Some(Action::No) => state.mode = Mode::Normal,
                _ => {}
            }
        }
        Mode::Bookmarks(_) => super::bookmark_screen::on_key(state, key, fx),
        Mode::Handoff(_) => super::handoff::on_key(state, key, fx),
        Mode::ConfirmPermanent { record, .. } => {
            let record = *record;
            if km.lookup_in(&key, KeyContext::Danger, any) == Some(Action::DeleteForever) {
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
        }
        Mode::Normal | Mode::Trash(_) => {}
    }
}
