//! The trash view (`alt+t` in the picker): the session files in the platform trash, whatever
//! run of grove (or other program) deleted them, with their original path, name and deletion
//! time. Enter asks, then restores the selected one with its Atomic `.bak` files, byte for
//! byte (the same code as `grove trash restore`); the picker then shows it again.
//!
//! Pure like the rest of `app`: listing and restoring are effects, their results events.

use std::path::PathBuf;

use ratatui::crossterm::event::KeyEvent;

use super::event::Effect;
use super::keymap::{Action, Conditions, KeyContext};
use super::ops::{mark_deleted, set_status};
use super::state::{AppState, Mode, StatusKind};
pub use super::trash_state::{TrashRow, TrashView};

/// Opens the trash view and asks for the listing.
pub(crate) fn open(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = match &state.mode {
        Mode::Trash(v) => v.generation + 1,
        _ => 1,
    };
    state.mode = Mode::Trash(Box::new(TrashView {
        generation,
        ..TrashView::default()
    }));
    fx.push(Effect::ListTrash { generation });
}

/// The key layer of the trash view: its own, or the confirmation's while it is open.
pub(crate) fn context(view: &TrashView) -> KeyContext {
    if view.confirm {
        KeyContext::Confirm
    } else {
        KeyContext::Trash
    }
}

/// A key on the trash view.
pub(crate) fn on_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let any = Conditions { query_empty: true };
    let Mode::Trash(view) = &mut state.mode else {
        return;
    };
    if view.confirm {
        match state.keymap.lookup_in(&key, KeyContext::Confirm, any) {
            Some(Action::Yes) => {
                view.confirm = false;
                if let Some(row) = view.selected_row().cloned() {
                    view.restoring = true;
                    fx.push(Effect::RestoreFromTrash {
                        original: row.original,
                        deleted_s: row.deleted_s,
                    });
                }
            }
            Some(Action::No) => view.confirm = false,
            // Every other key is swallowed, as in the other confirmations.
            _ => {}
        }
        return;
    }
    // F1: the help, as everywhere (closing it returns to the list).
    if state.keymap.lookup_in(&key, KeyContext::Global, any) == Some(Action::Help) {
        state.mode = Mode::Help { scroll: 0 };
        return;
    }
    let Mode::Trash(view) = &mut state.mode else {
        return;
    };
    let len = view.listed().len();
    let last = len.saturating_sub(1);
    match state.keymap.lookup_in(&key, KeyContext::Trash, any) {
        Some(Action::Down) => view.selected = (view.selected + 1).min(last),
        Some(Action::Up) => view.selected = view.selected.saturating_sub(1),
        Some(Action::PageDown) => view.selected = (view.selected + 10).min(last),
        Some(Action::PageUp) => view.selected = view.selected.saturating_sub(10),
        Some(Action::Home) => view.selected = 0,
        Some(Action::End) => view.selected = last,
        // One restore at a time; a key acts only on a row that is shown.
        Some(Action::Restore) if !view.restoring && view.selected_row().is_some() => {
            view.confirm = true;
        }
        Some(Action::Leave) if !view.restoring => state.mode = Mode::Normal,
        _ => {}
    }
}

/// The trash was read.
pub(crate) fn on_listed(
    state: &mut AppState,
    generation: u64,
    result: Result<Vec<TrashRow>, String>,
) {
    let Mode::Trash(view) = &mut state.mode else {
        return;
    };
    if view.generation != generation {
        return;
    }
    // The selection stays on the same file when it is still there.
    let keep = view.selected_row().map(|r| r.original.clone());
    let selected = match (&result, keep) {
        (Ok(rows), Some(p)) => rows
            .iter()
            .position(|r| r.original == p)
            .unwrap_or(view.selected),
        _ => view.selected,
    };
    let len = result.as_ref().map_or(0, Vec::len);
    view.selected = selected.min(len.saturating_sub(1));
    view.rows = Some(result);
}

/// A restore finished: say so, list the trash again, and show the session in the picker.
pub(crate) fn on_restored(
    state: &mut AppState,
    original: PathBuf,
    result: Result<Vec<PathBuf>, String>,
    fx: &mut Vec<Effect>,
) {
    if let Mode::Trash(view) = &mut state.mode {
        view.restoring = false;
    }
    match result {
        Ok(restored) => {
            let shown =
                crate::text::sanitize::sanitize_path(&original.to_string_lossy()).into_owned();
            let backups = restored.len().saturating_sub(1);
            let with = if backups == 0 {
                String::new()
            } else {
                format!(
                    " with {}",
                    crate::text::count::counted_s(backups as u64, "backup")
                )
            };
            set_status(state, format!("Restored {shown}{with}"), StatusKind::Info);
            // A session deleted in this run comes back to its row; any other is read anew.
            if let Some(i) = state
                .picker
                .records
                .iter()
                .position(|r| r.info.path == original)
            {
                mark_deleted(state, i, false);
            }
            fx.push(Effect::RefreshRecord {
                path: original,
                agent: None,
            });
            if let Mode::Trash(view) = &mut state.mode {
                view.generation += 1;
                fx.push(Effect::ListTrash {
                    generation: view.generation,
                });
            }
        }
        Err(e) => set_status(
            state,
            format!("Not restored: {}", crate::text::sanitize::sanitize_line(&e)),
            StatusKind::Error,
        ),
    }
}
