//! Key-sequence tests of the session view: ports of pi's `tree-selector.test.ts` plus grove's
//! filters, search, label, check-out, fork and export flows (effects asserted, then executed
//! on a temporary copy).

mod actions;
mod moves;
mod tree_selector;

use std::path::PathBuf;

use grove::app::session_view::{
    ExportFailure, Focus, Mode, Outcome, SessionViewState, ViewEffect, apply_outcome, execute,
    update,
};
use grove::model::context::Dialect;
use grove::model::flatten::FilterMode;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/work"}"#;

struct B {
    lines: Vec<String>,
    n: u32,
}

impl B {
    fn new() -> Self {
        B {
            lines: vec![HEADER.to_owned()],
            n: 0,
        }
    }
    fn ts(&mut self) -> String {
        self.n += 1;
        format!("2025-01-01T00:{:02}:{:02}Z", self.n / 60, self.n % 60)
    }
    fn parent(p: Option<&str>) -> String {
        p.map_or("null".into(), |p| format!("\"{p}\""))
    }
    fn user(mut self, id: &str, parent: Option<&str>, text: &str) -> Self {
        let ts = self.ts();
        self.lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{},"timestamp":"{ts}","message":{{"role":"user","content":"{text}"}}}}"#,
            Self::parent(parent)
        ));
        self
    }
    fn asst(mut self, id: &str, parent: Option<&str>, text: &str) -> Self {
        let ts = self.ts();
        self.lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"provider":"anthropic","model":"claude-sonnet-4","stopReason":"stop"}}}}"#,
            Self::parent(parent)
        ));
        self
    }
    fn tool_only(mut self, id: &str, parent: Option<&str>) -> Self {
        let ts = self.ts();
        self.lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"tc-{id}","name":"read","arguments":{{"path":"test.ts"}}}}],"stopReason":"toolUse"}}}}"#,
            Self::parent(parent)
        ));
        self
    }
    fn raw(mut self, json: &str) -> Self {
        self.lines.push(json.to_owned());
        self
    }
    fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }
    fn session(&self) -> Session {
        Session::new(ParsedSession::from_bytes(self.text().as_bytes()))
    }
    fn view(&self) -> SessionViewState {
        SessionViewState::new(
            PathBuf::from("/nonexistent/s.jsonl"),
            self.session(),
            Dialect::Pi,
            Rect::new(0, 0, 100, 30),
        )
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}
fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}
fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}
const UP: KeyCode = KeyCode::Up;
const DOWN: KeyCode = KeyCode::Down;
fn ctrl_left() -> KeyEvent {
    KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL)
}
fn ctrl_right() -> KeyEvent {
    KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL)
}
fn alt_left() -> KeyEvent {
    KeyEvent::new(KeyCode::Left, KeyModifiers::ALT)
}
fn alt_right() -> KeyEvent {
    KeyEvent::new(KeyCode::Right, KeyModifiers::ALT)
}

fn sel(v: &SessionViewState) -> Option<String> {
    v.selected_id().map(str::to_owned)
}

fn press(v: &mut SessionViewState, k: KeyEvent) -> Vec<ViewEffect> {
    update(v, k)
}

/// Presses ↓ (at most 20 times) until `id` is selected; whether it was reached.
fn down_to(v: &mut SessionViewState, id: &str) -> bool {
    for _ in 0..20 {
        press(v, key(DOWN));
        if sel(v).as_deref() == Some(id) {
            return true;
        }
    }
    false
}

fn type_text(v: &mut SessionViewState, s: &str) {
    for c in s.chars() {
        press(v, ch(c));
    }
}

fn model_change(id: &str, parent: &str) -> String {
    format!(
        r#"{{"type":"model_change","id":"{id}","parentId":"{parent}","timestamp":"2025-01-01T01:00:00Z","provider":"anthropic","modelId":"claude-sonnet-4"}}"#
    )
}

fn five() -> B {
    B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "active branch")
        .user("user-3", Some("asst-1"), "sibling branch")
        .asst("asst-2", Some("user-2"), "response")
}

fn branching() -> B {
    B::new()
        .user("user-1", None, "first message")
        .asst("asst-1", Some("user-1"), "response 1")
        .user("user-2", Some("asst-1"), "second message")
        .asst("asst-2", Some("user-2"), "response 2")
        .user("user-3a", Some("asst-2"), "branch A start")
        .asst("asst-3a", Some("user-3a"), "branch A response")
        .user("user-4a", Some("asst-3a"), "branch A deep")
        .user("user-3b", Some("asst-2"), "branch B start")
        .asst("asst-3b", Some("user-3b"), "branch B response")
        .user("user-4b", Some("asst-3b"), "branch B deep")
        .asst("asst-4a", Some("user-4a"), "branch A leaf")
}
