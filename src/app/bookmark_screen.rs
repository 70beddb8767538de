//! The bookmarks screen (Alt+B): every labelled entry of every loaded session, newest first,
//! filtered by typing (label, note, tags, text, title; `#tag` for a tag); Enter opens the
//! session view on the entry.

use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;

use super::bookmarks::Bookmark;
use super::event::Effect;
use super::keymap::{Action, Conditions, KeyContext};
use super::ops::set_status;
use super::org::OrgEffect;
pub use super::org::{BookmarkScreen, Loaded};
use super::state::{AppState, Mode, Screen, StatusKind};
use super::text_input::{Edit, TextInput};
use crate::storage::state::{BookmarkEdit, BookmarkKey, BookmarkMeta};

/// Alt+B: open the screen and load the bookmarks of the sessions that have labels.
pub(crate) fn open(state: &mut AppState, fx: &mut Vec<Effect>) {
    let sessions: Vec<_> = state
        .picker
        .records
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            r.info.label_count > 0
                && !r.info.internal
                && !state.picker.deleted.get(*i).copied().unwrap_or(false)
        })
        .map(|(_, r)| r.clone())
        .collect();
    state.mode = Mode::Bookmarks(Box::new(BookmarkScreen {
        loading: true,
        ..BookmarkScreen::default()
    }));
    fx.push(Effect::Organise(OrgEffect::LoadBookmarks { sessions }));
}

pub(crate) fn on_loaded(state: &mut AppState, loaded: Loaded) {
    let Mode::Bookmarks(screen) = &mut state.mode else {
        return;
    };
    screen.loading = false;
    screen.problems = loaded.problems;
    match loaded.bookmarks {
        Ok(all) => {
            screen.all = all;
            screen.refilter();
        }
        Err(e) => set_status(state, format!("Bookmarks: {e}"), StatusKind::Error),
    }
}

/// Rows of the list on a terminal of this size (title, search box, separator, footer).
pub(crate) fn list_height(viewport: (u16, u16)) -> usize {
    viewport.1.saturating_sub(4) as usize / 2
}

pub(crate) fn on_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let page = list_height(state.viewport).max(1) as isize;
    let action = state.keymap.lookup_in(
        &key,
        KeyContext::Bookmarks,
        Conditions { query_empty: true },
    );
    let Mode::Bookmarks(screen) = &mut state.mode else {
        return;
    };
    if screen.editing.is_some() {
        edit_key(state, key, fx);
        return;
    }
    match action {
        Some(Action::Up) => screen.move_by(-1),
        Some(Action::Down) => screen.move_by(1),
        Some(Action::PageUp) => screen.move_by(-page),
        Some(Action::PageDown) => screen.move_by(page),
        Some(Action::Back) => {
            if screen.query.text().is_empty() {
                state.mode = Mode::Normal;
            } else {
                screen.query.clear();
                screen.refilter();
            }
        }
        Some(Action::EditNote) => {
            if let Some(b) = screen.selected_bookmark() {
                let mut text = b.note.clone();
                for t in &b.tags {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push('#');
                    text.push_str(t);
                }
                screen.editing = Some(TextInput::with_text(&text));
            }
        }
        Some(Action::Open) => {
            let Some(b) = screen.selected_bookmark().cloned() else {
                return;
            };
            open_bookmark(state, &b, fx);
        }
        _ => {
            if screen.query.handle_key(&key) == Edit::Changed {
                screen.selected = 0;
                screen.refilter();
            }
        }
    }
}

/// Splits an edited note into its text and its `#tags`.
pub(crate) fn parse_note(text: &str) -> (String, Vec<String>) {
    let mut words = Vec::new();
    let mut tags: Vec<String> = Vec::new();
    for w in text.split_whitespace() {
        match w.strip_prefix('#') {
            Some(tag) if !tag.is_empty() => tags.push(tag.to_owned()),
            _ => words.push(w),
        }
    }
    tags.sort();
    tags.dedup();
    (words.join(" "), tags)
}

/// Keys while the note is edited: Enter saves (to the state database), Esc drops it.
fn edit_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let action = state
        .keymap
        .lookup_in(&key, KeyContext::Input, Conditions { query_empty: true });
    let Mode::Bookmarks(screen) = &mut state.mode else {
        return;
    };
    match action {
        Some(Action::Confirm) => {
            let text = screen
                .editing
                .take()
                .map(|i| i.text().to_owned())
                .unwrap_or_default();
            let Some(b) = screen.selected_bookmark() else {
                return;
            };
            let (note, tags) = parse_note(&text);
            let remove_tags = b
                .tags
                .iter()
                .filter(|t| !tags.contains(t))
                .cloned()
                .collect();
            fx.push(Effect::Organise(OrgEffect::SaveBookmark {
                key: b.key(),
                path: b.session_path.clone(),
                edit: BookmarkEdit {
                    note: Some(note),
                    add_tags: tags,
                    remove_tags,
                },
            }));
        }
        Some(Action::Cancel) => screen.editing = None,
        _ => {
            if let Some(input) = &mut screen.editing {
                input.handle_key(&key);
            }
        }
    }
}

pub(crate) fn on_saved(
    state: &mut AppState,
    key: BookmarkKey,
    result: Result<BookmarkMeta, String>,
) {
    match result {
        Ok(meta) => {
            if let Mode::Bookmarks(screen) = &mut state.mode {
                for b in screen.all.iter_mut().filter(|b| b.key() == key) {
                    b.note = meta.note.clone();
                    b.tags = meta.tags.clone();
                }
                screen.refilter();
            }
            set_status(state, "Note saved".into(), StatusKind::Ok);
        }
        Err(e) => set_status(state, format!("Note not saved: {e}"), StatusKind::Error),
    }
}

pub(crate) fn paste(state: &mut AppState, text: &str) {
    if let Mode::Bookmarks(screen) = &mut state.mode
        && let Some(input) = &mut screen.editing
    {
        input.paste(text);
        return;
    }
    if let Mode::Bookmarks(screen) = &mut state.mode {
        screen.query.paste(text);
        screen.selected = 0;
        screen.refilter();
    }
}

/// Opens the session view of a bookmark's session, on its entry.
fn open_bookmark(state: &mut AppState, b: &Bookmark, fx: &mut Vec<Effect>) {
    let found = state
        .picker
        .records
        .iter()
        .enumerate()
        .find(|(i, r)| {
            r.info.path == b.session_path && !state.picker.deleted.get(*i).copied().unwrap_or(false)
        })
        .map(|(i, r)| (i, r.info.agent));
    let Some((record, agent)) = found else {
        set_status(state, "That session is gone".into(), StatusKind::Error);
        return;
    };
    state.mode = Mode::Normal;
    state.picker.org.open_at = Some((b.session_path.clone(), b.entry_id.clone()));
    state.screen = Screen::Session { record, scroll: 0 };
    state.previews.remove(&b.session_path);
    fx.push(Effect::OpenSession {
        record,
        path: b.session_path.clone(),
        agent,
        viewport: Rect::new(0, 0, state.viewport.0, state.viewport.1),
        home: state.options.home.clone(),
        search: None,
    });
}
