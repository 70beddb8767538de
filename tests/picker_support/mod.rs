//! Shared fixtures for the picker tests: sessions, a harness that feeds events to the app
//! state and runs background work synchronously, and a renderer on ratatui's TestBackend.
#![allow(dead_code)]

mod open;
#[allow(unused_imports)]
pub use open::demo_records;

use std::path::PathBuf;
use std::sync::Arc;

use grove::app::event::{Effect, Event, ScanUpdate};
use grove::app::keymap::Keymap;
use grove::app::matcher::execute_search;
use grove::app::preview::{Preview, PreviewMessage};
use grove::app::state::{AppState, Options, SessionRecord};
use grove::app::theme::Palette;
use grove::app::update::{start, update};
use grove::model::context::Dialect;
use grove::model::info::{SessionInfo, WorkflowInfo};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

/// The sizes every screen and popup is snapshotted at (see [`assert_sizes`]).
pub const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];

/// Snapshots a harness's screen at each of [`SIZES`] as `NAME_WxH` (a resize there and back:
/// what a user sees after resizing the terminal to that size).
/// `assert_sizes!("bookmarks", h);` or, with a filter over each screen,
/// `assert_sizes!("hits", h, |s: String| s.replace(tmp, "/tmp/X"));`
#[allow(unused_macros)]
macro_rules! assert_sizes {
    ($name:expr, $harness:expr) => {
        $crate::support::assert_sizes!($name, $harness, |s: String| s)
    };
    // `filter` makes what changes per run constant (a temp folder's name).
    ($name:expr, $harness:expr, $filter:expr) => {
        for (w, h) in $crate::support::SIZES {
            let screen = ($filter)($harness.render_at(w, h));
            insta::assert_snapshot!(format!("{}_{w}x{h}", $name), screen);
        }
    };
}
#[allow(unused_imports)]
pub(crate) use assert_sizes;

/// 2026-11-30T12:00:00Z, the "now" of every snapshot.
pub const NOW: i64 = 1_796_040_000_000;
pub const MIN: i64 = 60_000;
pub const HOUR: i64 = 60 * MIN;
pub const DAY: i64 = 24 * HOUR;
pub const CURRENT: &str = "/home/u/code/app";

pub fn session_path(id: &str, cwd: &str) -> PathBuf {
    let dir = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
    PathBuf::from(format!(
        "/home/u/.pi/agent/sessions/{dir}/2026-11-01T00-00-00-000Z_{id}.jsonl"
    ))
}

/// A session with the fields the picker shows.
pub fn info(id: &str, first: &str, cwd: &str, ago: i64, messages: u64) -> SessionInfo {
    SessionInfo {
        path: session_path(id, cwd),
        id: format!("{id}-0000-7000-8000-000000000000"),
        cwd: cwd.to_owned(),
        name: None,
        parent_session_path: None,
        created_ms: Some(NOW - ago - HOUR),
        modified_ms: NOW - ago,
        message_count: messages,
        first_message: first.to_owned(),
        agent: Dialect::Pi,
        version: 3,
        bytes: 1000,
        entry_count: messages + 3,
        leaf_count: 1,
        label_count: 0,
        has_name: false,
        internal: false,
        workflow: None,
        summary: None,
        total_tokens: 12_345,
        cost: 0.12,
        last_stop_reason: Some("stop".into()),
        model: Some("claude-sonnet-4-5".into()),
        parse_issues: 0,
        first_issue: None,
        all_messages_text: format!("{first} and the assistant answered"),
        tool_text: String::new(),
    }
}

pub fn record(info: SessionInfo) -> Arc<SessionRecord> {
    let current = info.cwd == CURRENT;
    Arc::new(SessionRecord::without_fs(info, current))
}

/// Eight sessions: named ones, a fork, an internal one, other folders, one with escapes.
pub fn fixtures() -> Vec<Arc<SessionRecord>> {
    let a = info(
        "aaaa1111",
        "Fix the flaky CI job on macOS runners",
        CURRENT,
        5 * MIN,
        14,
    );
    let mut b = info("bbbb2222", "cut a release", CURRENT, 3 * HOUR, 37);
    b.name = Some("Release 0.4.0".into());
    b.has_name = true;
    let mut c = info(
        "cccc3333",
        "Benchmark the bytes pipeline after the release",
        CURRENT,
        2 * DAY,
        9,
    );
    c.parent_session_path = Some(b.path.to_string_lossy().into_owned());
    let d = info(
        "dddd4444",
        "Add a dark mode toggle",
        "/home/u/code/web",
        2 * DAY,
        21,
    );
    let e = info(
        "eeee5555",
        "Paste from terminal: \u{1b}[31mred\u{1b}[0m alert \u{202e}spoof",
        CURRENT,
        3 * 7 * DAY,
        6,
    );
    let mut f = info("ffff6666", "workflow plan stage", CURRENT, 10 * MIN, 4);
    f.internal = true;
    f.workflow = Some(WorkflowInfo {
        run_id: "run-1".into(),
        stage_id: "s".into(),
        stage_name: "plan".into(),
    });
    let mut g = info(
        "99997777",
        "try a new parser",
        "/home/u/code/app",
        130 * DAY,
        48,
    );
    g.name = Some("Old experiment".into());
    g.has_name = true;
    let h = info(
        "88889999",
        "Write the README",
        "/home/u/code/web",
        400 * DAY,
        3,
    );
    [a, b, c, d, e, f, g, h].into_iter().map(record).collect()
}

/// A preview with a few messages, the same for every session.
pub fn fixture_preview() -> Arc<Preview> {
    Arc::new(Preview {
        model: Some("anthropic/claude-sonnet-4-5".into()),
        thinking_level: "medium".into(),
        labels: vec!["checkpoint".into()],
        branch_messages: 4,
        messages: vec![
            PreviewMessage {
                role: "user".into(),
                text: "The CI job fails on macOS about one run in five.".into(),
            },
            PreviewMessage {
                role: "assistant".into(),
                text: "Let me look at the workflow file.\n→ read".into(),
            },
            PreviewMessage {
                role: "tool".into(),
                text: "read: name: ci".into(),
            },
            PreviewMessage {
                role: "assistant".into(),
                text: "The cache key includes the runner's temp path, which changes per run. I pinned it."
                    .into(),
            },
        ],
        file_mtime_ms: NOW - 5 * MIN,
    })
}

/// Feeds events to the state; runs searches and previews synchronously.
pub struct Harness {
    pub state: AppState,
    /// Effects not yet looked at (searches and previews are consumed by `settle`).
    pub effects: Vec<Effect>,
    /// Answer preview requests automatically.
    pub auto_preview: bool,
}

impl Harness {
    pub fn new(width: u16, height: u16) -> Self {
        Self::with_options(width, height, Options::default())
    }

    pub fn with_options(width: u16, height: u16, options: Options) -> Self {
        let mut state = AppState::new(options, Keymap::default(), Palette::default());
        state.viewport = (width, height);
        let effects = start(&mut state);
        Harness {
            state,
            effects,
            auto_preview: true,
        }
    }

    /// Applies an event without settling background work.
    pub fn raw(&mut self, event: Event) {
        let fx = update(&mut self.state, event);
        self.effects.extend(fx);
        // As the event loop does, a frame follows each event (see `undrawn` for a burst).
        self.state.drawn();
    }

    /// Applies an event with no frame drawn after it (a burst of queued keys).
    pub fn undrawn(&mut self, event: Event) {
        let fx = update(&mut self.state, event);
        self.effects.extend(fx);
    }

    /// Applies an event, then runs what it started.
    pub fn send(&mut self, event: Event) {
        self.raw(event);
        self.settle();
    }

    pub fn scan_generation(&self) -> u64 {
        self.state.picker.loading.generation
    }

    /// Streams `records` in as one batch and finishes the scan.
    pub fn load(&mut self, records: Vec<Arc<SessionRecord>>) {
        let generation = self.scan_generation();
        self.send(Event::ScanResult {
            generation,
            update: ScanUpdate::Found(records.len()),
        });
        self.send(Event::ScanResult {
            generation,
            update: ScanUpdate::Sessions(records),
        });
        self.send(Event::ScanResult {
            generation,
            update: ScanUpdate::Done,
        });
    }

    /// Runs pending searches, previews and threaded builds; leaves every other effect in
    /// `effects`.
    pub fn settle(&mut self) {
        loop {
            let pending: Vec<Effect> = std::mem::take(&mut self.effects);
            let mut events = Vec::new();
            for e in pending {
                match e {
                    Effect::RunSearch(req) => {
                        let matches = execute_search(&req, &|| false).expect("not cancelled");
                        events.push(Event::SearchResult {
                            generation: req.generation,
                            matches,
                        });
                    }
                    // A long threaded list is built in the background.
                    Effect::BuildThreads(req) => events.push(Event::ThreadsBuilt {
                        generation: req.generation,
                        rows: req.build(),
                    }),
                    // The preview's search hits, read from the file as the worker does.
                    Effect::FindHits { path, query } => {
                        events.push(Event::HitsFound {
                            result: grove::app::preview_hits::find_preview_hits(
                                &path,
                                &query,
                                &|| false,
                            ),
                            path,
                            query: query.as_str().to_owned(),
                        });
                    }
                    Effect::LoadPreview { path, .. } | Effect::OpenSession { path, .. }
                        if self.auto_preview =>
                    {
                        events.push(Event::PreviewLoaded {
                            path,
                            result: Ok(fixture_preview()),
                        });
                    }
                    other => self.effects.push(other),
                }
            }
            if events.is_empty() {
                return;
            }
            for ev in events {
                self.raw(ev);
            }
        }
    }

    pub fn key(&mut self, code: KeyCode) {
        self.send(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    pub fn ctrl(&mut self, c: char) {
        self.send(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        )));
    }

    pub fn type_str(&mut self, s: &str) {
        for c in s.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    pub fn wheel(&mut self, down: bool) {
        let kind = if down {
            MouseEventKind::ScrollDown
        } else {
            MouseEventKind::ScrollUp
        };
        self.send(Event::Mouse(MouseEvent {
            kind,
            column: 5,
            row: 6,
            modifiers: KeyModifiers::NONE,
        }));
    }

    /// Titles of the visible rows, in order.
    pub fn titles(&self) -> Vec<String> {
        self.state
            .picker
            .rows
            .iter()
            .map(|r| self.state.picker.records[r.record].info.title().to_owned())
            .collect()
    }

    pub fn selected_title(&self) -> Option<String> {
        self.state.selected().map(|r| r.info.title().to_owned())
    }

    /// The status line's text; panics when there is none.
    pub fn status_text(&self) -> &str {
        &self.state.status.as_ref().expect("a status line").text
    }

    /// Takes the effects collected so far.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The screen as text at `width`×`height`; the viewport is set back after.
    /// What the resize asks for (a preview the wider screen shows) is answered first, as the
    /// event loop would, and the effects it leaves are dropped: they are not the test's.
    pub fn render_at(&mut self, width: u16, height: u16) -> String {
        let was = self.state.viewport;
        let pending = std::mem::take(&mut self.effects);
        self.send(Event::Resize(width, height));
        let screen = self.render();
        self.raw(Event::Resize(was.0, was.1));
        self.effects = pending;
        screen
    }

    /// The screen as text, at the viewport size.
    pub fn render(&self) -> String {
        let (w, h) = self.state.viewport;
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test backend");
        terminal
            .draw(|f| grove::ui::draw(f, &self.state, NOW))
            .expect("draw");
        terminal.backend().to_string()
    }
}
