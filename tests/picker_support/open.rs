//! Opening a session from the picker the way the event loop does: take the `OpenSession`
//! effect Enter left, load the view (its search applied), hand it back as `SessionOpened`.

use std::path::PathBuf;

use grove::app::event::{Effect, Event};
use grove::app::search_hits::OpenSearch;
use grove::app::session_view::SessionViewState;
use grove::model::context::Dialect;
use ratatui::layout::Rect;

use super::Harness;

/// What an `OpenSession` effect asked for.
pub struct OpenRequest {
    pub record: usize,
    pub path: PathBuf,
    pub agent: Dialect,
    pub viewport: Rect,
    pub home: Option<String>,
    pub search: Option<OpenSearch>,
}

impl Harness {
    /// The `OpenSession` effect among the pending effects (the others are dropped); panics
    /// when there is none.
    pub fn take_open_request(&mut self) -> OpenRequest {
        let fx = self.take_effects();
        let Some(Effect::OpenSession {
            record,
            path,
            agent,
            viewport,
            home,
            search,
        }) = fx
            .into_iter()
            .find(|e| matches!(e, Effect::OpenSession { .. }))
        else {
            panic!("no OpenSession effect: Enter did not open the session");
        };
        OpenRequest {
            record,
            path,
            agent,
            viewport,
            home,
            search,
        }
    }

    /// Loads and lays out the view as the event loop does (the search it was found by
    /// applied) and hands it to the app, with no frame settled after it.
    pub fn answer_open(&mut self, open: OpenRequest) {
        let mut result = SessionViewState::open(&open.path, open.agent, open.viewport, open.home);
        if let (Ok(view), Some(search)) = (&mut result, open.search) {
            view.open_search(search);
        }
        self.raw(Event::SessionOpened {
            record: open.record,
            path: open.path,
            result,
        });
    }

    /// Enter on the selected row, the load answered: the session view is open.
    pub fn enter_and_open(&mut self) -> PathBuf {
        self.auto_preview = false;
        self.key(ratatui::crossterm::event::KeyCode::Enter);
        let open = self.take_open_request();
        let path = open.path.clone();
        self.answer_open(open);
        path
    }
}
