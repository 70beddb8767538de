//! After `f` (fork) in the session view, the new session opens in the view, as pi's `/fork`
//! switches to the session it made: once its row is read into the picker, if the view of the
//! session it was forked from is still on screen.

use std::path::Path;
use std::sync::Arc;

use ratatui::layout::Rect;

use super::event::Effect;
use super::state::{AppState, Screen};

/// The fork's row was read: open it in the view, in place of its parent's view.
pub(crate) fn after_refresh(state: &mut AppState, path: &Path, fx: &mut Vec<Effect>) {
    let Some(pending) = state.open_after_fork.take_if(|p| p.path == path) else {
        return;
    };
    let on_parent =
        matches!(&state.screen, Screen::View { view, .. } if view.path == pending.parent);
    let Some(record) = state
        .picker
        .records
        .iter()
        .position(|r| r.info.path == path)
    else {
        return;
    };
    if !on_parent {
        return;
    }
    let agent = state.picker.records[record].info.agent;
    if let Screen::View { view, .. } =
        std::mem::replace(&mut state.screen, Screen::Session { record, scroll: 0 })
    {
        fx.push(Effect::Discard(Arc::from(view)));
    }
    state.previews.remove(path);
    fx.push(Effect::OpenSession {
        record,
        path: path.to_path_buf(),
        agent,
        viewport: Rect::new(0, 0, state.viewport.0, state.viewport.1),
        home: state.options.home.clone(),
        search: None,
    });
}
