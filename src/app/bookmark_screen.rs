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
use super::text_input::Edit;

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

pub(crate) fn paste(state: &mut AppState, text: &str) {
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
    });
}
