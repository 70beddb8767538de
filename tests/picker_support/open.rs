//! Opening a session from the picker the way the event loop does: take the `OpenSession`
//! effect Enter left, load the view (its search applied), hand it back as `SessionOpened`;
//! and real sessions to open (a copy of the demo).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use grove::app::event::{Effect, Event};
use grove::app::search_hits::OpenSearch;
use grove::app::session_view::SessionViewState;
use grove::app::state::SessionRecord;
use grove::model::context::Dialect;
use grove::storage::demo::{copy_dir, demo_source};
use grove::storage::read::scan_info;
use grove::storage::roots::{SessionRoot, find_session_files};
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

/// The demo sessions copied into `dir` (the tests may write to them), scanned as records.
pub fn demo_records(dir: &Path) -> Vec<Arc<SessionRecord>> {
    copy_dir(&demo_source(), dir).expect("copy the demo sessions");
    let roots: Vec<SessionRoot> = ["pi-agent/sessions", "atomic-agent/sessions"]
        .iter()
        .map(|p| SessionRoot {
            path: dir.join(p),
            agent: None,
        })
        .collect();
    let (files, _) = find_session_files(&roots);
    files
        .iter()
        .map(|f| {
            let info = scan_info(&f.path, f.agent).expect("scan a demo session");
            Arc::new(SessionRecord::new(info, None))
        })
        .collect()
}
