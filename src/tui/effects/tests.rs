//! The effect runner's session loads: reuse of a load in flight, and cancel when its screen is gone.

use super::*;
use crate::app::event::ScanUpdate;
use crate::app::keymap::Keymap;
use crate::app::state::Options;
use crate::app::theme::Palette;
use crate::model::info::SessionInfo;
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

struct NoSessions;
impl SessionSource for NoSessions {
    fn scan(&self, _sink: &mut dyn FnMut(ScanUpdate) -> bool) {}
}

fn runner() -> (Runner, Receiver<Msg>) {
    let (tx, rx) = mpsc::channel();
    let runner = Runner::new(tx, Arc::new(NoSessions), None, Arc::from(Vec::new()));
    (runner, rx)
}

/// A session of `n` messages.
fn session_file(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/w\"}\n",
    );
    let mut parent = "null".to_owned();
    for i in 0..n {
        text.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{i:08x}\",\"parentId\":{parent},\"timestamp\":\"2025-01-01T00:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"message {i}\"}}}}\n"
        ));
        parent = format!("\"{i:08x}\"");
    }
    let path = dir.join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn open(path: &Path) -> Effect {
    Effect::OpenSession {
        record: 0,
        path: path.to_path_buf(),
        agent: Dialect::Pi,
        viewport: ratatui::layout::Rect::new(0, 0, 100, 30),
        home: None,
        search: None,
    }
}

/// The session-open results that arrive within a moment (other messages are dropped).
fn opened(rx: &Receiver<Msg>) -> Vec<(u64, bool)> {
    let mut out = Vec::new();
    while let Ok(msg) = rx.recv_timeout(Duration::from_secs(5)) {
        if let Msg::Done {
            job: Job::Open,
            generation,
            event: Event::SessionOpened { result, .. },
        } = msg
        {
            out.push((generation, result.is_ok()));
            // Whatever else was asked is in the queue by now: a short wait suffices.
            while let Ok(msg) = rx.recv_timeout(Duration::from_millis(500)) {
                if let Msg::Done {
                    job: Job::Open,
                    generation,
                    event: Event::SessionOpened { result, .. },
                } = msg
                {
                    out.push((generation, result.is_ok()));
                }
            }
            break;
        }
    }
    out
}

fn state_showing(path: &Path) -> AppState {
    let mut state = AppState::new(Options::default(), Keymap::default(), Palette::default());
    let info = SessionInfo {
        path: path.to_path_buf(),
        id: "s".into(),
        cwd: "/w".into(),
        version: 3,
        ..SessionInfo::default()
    };
    state
        .picker
        .records
        .push(Arc::new(SessionRecord::without_fs(info, false)));
    state.screen = Screen::Session {
        record: 0,
        scroll: 0,
    };
    state
}

/// A second Enter on the session being loaded reuses the running load: one load, one
/// result, accepted.
#[test]
fn a_second_open_of_the_same_session_reuses_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_file(dir.path(), 2000);
    let (mut runner, rx) = runner();
    let state = state_showing(&path);
    assert!(runner.execute(open(&path)).is_none());
    runner.reconcile(&state);
    assert!(runner.execute(open(&path)).is_none());
    let results = opened(&rx);
    assert_eq!(results, vec![(1, true)], "one load for two opens");
    assert!(runner.accept(Job::Open, 1));
    // Once delivered, a new Enter loads again (the file may have changed).
    assert!(runner.execute(open(&path)).is_none());
    assert_eq!(opened(&rx), vec![(2, true)]);
}

/// Leaving the loading screen (Esc) cancels the load: its result, if it got that far, is
/// not accepted, and a new open starts a new load.
#[test]
fn leaving_the_loading_screen_cancels_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_file(dir.path(), 2000);
    let (mut runner, rx) = runner();
    let mut state = state_showing(&path);
    assert!(runner.execute(open(&path)).is_none());
    runner.reconcile(&state);
    state.screen = Screen::Picker;
    runner.reconcile(&state);
    assert!(runner.opening.is_none());
    for (generation, _) in opened(&rx) {
        assert!(
            !runner.accept(Job::Open, generation),
            "a cancelled load was accepted"
        );
    }
    state.screen = Screen::Session {
        record: 0,
        scroll: 0,
    };
    assert!(runner.execute(open(&path)).is_none());
    runner.reconcile(&state);
    let results = opened(&rx);
    assert_eq!(results.len(), 1);
    assert!(runner.accept(Job::Open, results[0].0));
}
