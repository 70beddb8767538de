//! The session view follows its file like `tail -f`: when the session grows (an agent is
//! writing it), it is read again off the UI thread and the view takes the new entries. The
//! selection stays on its entry, unless it was on the leaf: then it follows the new leaf.

use std::path::PathBuf;

use crate::model::tree::Session;

use super::event::Effect;
use super::session_view::state::SessionViewState;
use super::state::{AppState, Screen};

/// Sessions changed on disk (a live refresh): a view of one of them reads it again.
pub(crate) fn on_sessions_changed(state: &mut AppState, changed: &[PathBuf], fx: &mut Vec<Effect>) {
    if let Screen::View { view, .. } = &state.screen
        && changed.contains(&view.path)
    {
        fx.push(Effect::FollowSession {
            path: view.path.clone(),
        });
    }
}

/// The refresh key in the view: read the session again now.
pub(crate) fn refresh_view(state: &mut AppState, fx: &mut Vec<Effect>) {
    if let Screen::View { view, .. } = &state.screen {
        fx.push(Effect::FollowSession {
            path: view.path.clone(),
        });
        // The picker row follows too.
        state.picker.live.pending.insert(view.path.clone());
    }
}

/// The session, read again: the view takes it if it still shows that file.
pub(crate) fn on_session_reread(
    state: &mut AppState,
    path: PathBuf,
    result: Result<Box<Session>, String>,
) {
    let Screen::View { view, .. } = &mut state.screen else {
        return;
    };
    if view.path != path {
        return;
    }
    match result {
        Ok(session) => follow(view, *session),
        Err(e) => view.set_status(format!("Cannot read the session again: {e}"), true),
    }
}

/// Replaces the view's session with a newer read of the same file.
pub(crate) fn follow(view: &mut SessionViewState, session: Session) {
    let grew = session.entries().len() != view.session.entries().len()
        || session
            .tree
            .leaf
            .and_then(|l| session.entry(l))
            .map(|e| &e.id)
            != view
                .session
                .tree
                .leaf
                .and_then(|l| view.session.entry(l))
                .map(|e| &e.id);
    if !grew {
        return;
    }
    let on_leaf = view.nav.selected_entry().is_some()
        && (view.nav.selected_entry() == view.marked_leaf()
            || view.nav.selected_entry() == view.session.tree.leaf);
    view.reload(session);
    if on_leaf {
        if let Some(leaf) = view.marked_leaf().or(view.session.tree.leaf) {
            view.nav.select_entry(&view.session, leaf);
        }
        view.sync_transcript();
        // Following the leaf: the newest lines are the ones to see.
        view.transcript_scroll = view.transcript_bottom();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::context::Dialect;
    use ratatui::layout::Rect;

    fn session(n: usize) -> Session {
        let mut text = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/w\"}\n",
        );
        let mut parent = "null".to_owned();
        for i in 0..n {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let content = if role == "user" {
                format!("\"message {i}\"")
            } else {
                format!("[{{\"type\":\"text\",\"text\":\"answer {i}\"}}]")
            };
            text.push_str(&format!(
                "{{\"type\":\"message\",\"id\":\"{i:08x}\",\"parentId\":{parent},\"timestamp\":\"2025-01-01T00:00:00Z\",\"message\":{{\"role\":\"{role}\",\"content\":{content}}}}}\n"
            ));
            parent = format!("\"{i:08x}\"");
        }
        Session::new(crate::model::parse::ParsedSession::from_bytes(
            text.as_bytes(),
        ))
    }

    fn view(n: usize) -> SessionViewState {
        SessionViewState::new(
            PathBuf::from("/s/a.jsonl"),
            session(n),
            Dialect::Pi,
            Rect::new(0, 0, 120, 30),
        )
    }

    #[test]
    fn on_the_leaf_the_selection_follows_the_leaf() {
        let mut v = view(4);
        assert_eq!(v.selected_id(), Some("00000003"));
        follow(&mut v, session(6));
        assert_eq!(v.selected_id(), Some("00000005"));
    }

    #[test]
    fn elsewhere_the_selection_stays_put() {
        let mut v = view(4);
        let first = v.session.tree.index_of("00000001").unwrap();
        v.nav.select_entry(&v.session, first);
        v.sync_transcript();
        follow(&mut v, session(6));
        assert_eq!(v.selected_id(), Some("00000001"));
        assert_eq!(v.session.entries().len(), 6);
    }
}
