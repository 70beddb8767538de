//! Key-sequence tests of the session view: ports of pi's `tree-selector.test.ts` plus grove's
//! filters, search, label, check-out, fork and export flows (effects asserted, then executed
//! on a temporary copy).

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

// ----- pi tree-selector.test.ts: initial selection with metadata entries -----

#[test]
fn leaf_on_model_change_focuses_nearest_visible_ancestor() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "active branch")
        .user("user-3", Some("asst-1"), "sibling branch")
        .raw(&model_change("model-1", "user-2"));
    let v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
}

#[test]
fn leaf_on_thinking_change_focuses_nearest_visible_ancestor() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "active branch")
        .user("user-3", Some("asst-1"), "sibling branch")
        .raw(r#"{"type":"thinking_level_change","id":"thinking-1","parentId":"user-2","timestamp":"2025-01-01T01:00:00Z","thinkingLevel":"high"}"#);
    let v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
}

#[test]
fn context_edits_hidden_by_default_and_labelled_in_all_mode() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .raw(r#"{"type":"context_edit","id":"edit-1","parentId":"asst-1","timestamp":"2025-01-01T01:00:00Z","targetId":"asst-1","replacement":null}"#);
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    press(&mut v, ctrl('a'));
    assert_eq!(v.nav.filter(), FilterMode::All);
    let texts: Vec<String> = v.nav.rows().iter().map(|r| v.entry_line(r.entry)).collect();
    assert!(
        texts.contains(&"[context omit: asst-1]".to_owned()),
        "{texts:?}"
    );
}

// ----- filter switching with parent traversal -----

fn five() -> B {
    B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "active branch")
        .user("user-3", Some("asst-1"), "sibling branch")
        .asst("asst-2", Some("user-2"), "response")
}

#[test]
fn ctrl_u_moves_to_nearest_user_ancestor_and_ctrl_d_keeps_it() {
    let mut v = five().view();
    assert_eq!(sel(&v).as_deref(), Some("asst-2"));
    press(&mut v, ctrl('u'));
    assert_eq!(v.nav.filter(), FilterMode::UserOnly);
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
}

#[test]
fn filters_toggle_and_cycle() {
    let mut v = five().view();
    press(&mut v, ctrl('t'));
    assert_eq!(v.nav.filter(), FilterMode::NoTools);
    press(&mut v, ctrl('t'));
    assert_eq!(v.nav.filter(), FilterMode::Default);
    press(&mut v, ctrl('o'));
    assert_eq!(v.nav.filter(), FilterMode::NoTools);
    press(&mut v, ctrl('o'));
    assert_eq!(v.nav.filter(), FilterMode::UserOnly);
    // Alt+O goes back (legacy terminals cannot send pi's Shift+Ctrl+O).
    press(&mut v, KeyEvent::new(KeyCode::Char('o'), KeyModifiers::ALT));
    assert_eq!(v.nav.filter(), FilterMode::NoTools);
    press(&mut v, KeyEvent::new(KeyCode::Char('o'), KeyModifiers::ALT));
    assert_eq!(v.nav.filter(), FilterMode::Default);
    press(&mut v, ctrl('o'));
    press(&mut v, ctrl('d'));
    assert_eq!(v.nav.filter(), FilterMode::Default);
}

// ----- empty filter preservation -----

#[test]
fn empty_labeled_filter_and_back_restores_selection() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "bye")
        .asst("asst-2", Some("user-2"), "goodbye");
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-2"));
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v), None);
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v).as_deref(), Some("asst-2"));
}

#[test]
fn selection_survives_repeated_empty_filters() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi");
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v), None);
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v), None);
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
}

// ----- branch navigation and folding -----

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

fn expect_seq(v: &mut SessionViewState, steps: &[(KeyEvent, &str)]) {
    for (i, (k, want)) in steps.iter().enumerate() {
        press(v, *k);
        assert_eq!(sel(v).as_deref(), Some(*want), "step {i} ({k:?})");
    }
}

#[test]
fn ctrl_right_unfolds_then_jumps_segments() {
    let mut v = branching().view();
    assert_eq!(sel(&v).as_deref(), Some("asst-4a"));
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-3a"),
            (ctrl_left(), "user-3a"),
            (key(DOWN), "user-3b"),
            (key(UP), "user-3a"),
            (ctrl_right(), "user-3a"),
            (key(DOWN), "asst-3a"),
            (ctrl_left(), "user-3a"),
            (ctrl_right(), "asst-4a"),
        ],
    );
}

#[test]
fn alt_arrows_are_aliases() {
    let mut v = branching().view();
    expect_seq(
        &mut v,
        &[
            (alt_left(), "user-3a"),
            (alt_left(), "user-3a"),
            (alt_right(), "user-3a"),
            (alt_right(), "asst-4a"),
        ],
    );
}

#[test]
fn folding_root_hides_everything_and_nested_fold_survives() {
    let mut v = branching().view();
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-3a"),
            (ctrl_left(), "user-3a"),
            (ctrl_left(), "user-1"),
            (ctrl_left(), "user-1"),
            // a single row: down wraps onto itself
            (key(DOWN), "user-1"),
            (ctrl_right(), "user-1"),
            (ctrl_right(), "user-3a"),
            (key(DOWN), "user-3b"),
        ],
    );
    assert_eq!(v.nav.len(), 8, "user-3a stays folded");
}

#[test]
fn fold_and_navigate_on_non_active_branch() {
    let mut v = branching().view();
    assert!(down_to(&mut v, "user-3b"));
    expect_seq(
        &mut v,
        &[
            (ctrl_right(), "user-4b"),
            (ctrl_left(), "user-3b"),
            (ctrl_left(), "user-3b"),
            (ctrl_left(), "user-1"),
        ],
    );
}

#[test]
fn fold_and_navigate_with_multiple_roots() {
    let b = B::new()
        .user("user-1", None, "first root")
        .user("user-2", None, "second root")
        .asst("asst-2", Some("user-2"), "response 2")
        .asst("asst-1", Some("user-1"), "response 1");
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-1"),
            (ctrl_left(), "user-1"),
            (key(DOWN), "user-2"),
            (ctrl_right(), "asst-2"),
            (ctrl_left(), "user-2"),
            (ctrl_left(), "user-2"),
            (ctrl_left(), "user-2"),
        ],
    );
}

#[test]
fn folding_root_hides_descendants_through_filtered_intermediates() {
    let b = B::new()
        .user("user-1", None, "hello")
        .tool_only("tool-asst-1", Some("user-1"))
        .user("user-2", Some("tool-asst-1"), "follow up")
        .asst("asst-2", Some("user-2"), "response");
    let mut v = b.view();
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-1"),
            (ctrl_left(), "user-1"),
            (key(DOWN), "user-1"),
        ],
    );
}

#[test]
fn search_and_esc_reset_folds() {
    let mut v = branching().view();
    press(&mut v, ctrl_left());
    press(&mut v, ctrl_left());
    press(&mut v, key(DOWN));
    assert_eq!(sel(&v).as_deref(), Some("user-3b"));
    press(&mut v, ch('/'));
    assert!(matches!(v.mode, Mode::TreeSearch(_)));
    press(&mut v, ch('b'));
    press(&mut v, key(KeyCode::Esc));
    assert_eq!(v.mode, Mode::Normal);
    assert!(!v.nav.has_folds());
    down_to(&mut v, "user-3a");
    assert_eq!(sel(&v).as_deref(), Some("user-3a"));
    press(&mut v, key(DOWN));
    assert_eq!(sel(&v).as_deref(), Some("asst-3a"));
}

#[test]
fn filter_change_resets_folds() {
    let mut v = branching().view();
    press(&mut v, ctrl_left());
    press(&mut v, ctrl_left());
    assert!(v.nav.has_folds());
    press(&mut v, ctrl('u'));
    press(&mut v, ctrl('d'));
    assert!(!v.nav.has_folds());
    down_to(&mut v, "user-3a");
    assert_eq!(sel(&v).as_deref(), Some("user-3a"));
    press(&mut v, key(DOWN));
    assert_eq!(sel(&v).as_deref(), Some("asst-3a"));
}

// ----- grove: movement, search, focus -----

#[test]
fn j_k_wrap_and_g_jumps() {
    let mut v = branching().view();
    let n = v.nav.len();
    press(&mut v, ch('g'));
    assert_eq!(v.nav.selected_index(), 0);
    press(&mut v, ch('k'));
    assert_eq!(v.nav.selected_index(), n - 1);
    press(&mut v, ch('j'));
    assert_eq!(v.nav.selected_index(), 0);
    press(&mut v, ch('G'));
    assert_eq!(v.nav.selected_index(), n - 1);
}

#[test]
fn tree_search_filters_while_typing_then_n_walks_hits() {
    let mut v = branching().view();
    press(&mut v, ch('/'));
    type_text(&mut v, "branch deep");
    // live: only the two matching rows
    assert_eq!(v.nav.len(), 2);
    assert_eq!(v.nav.query(), "branch deep");
    press(&mut v, key(KeyCode::Enter));
    // the whole tree again, the selection on a hit, n/N walking the hits
    assert_eq!(v.nav.len(), 11);
    assert_eq!(v.tree_search.as_deref(), Some("branch deep"));
    let first = sel(&v).unwrap();
    assert!(first == "user-4a" || first == "user-4b", "{first}");
    press(&mut v, ch('n'));
    let second = sel(&v).unwrap();
    assert_ne!(first, second);
    assert!(second == "user-4a" || second == "user-4b");
    press(&mut v, ch('n'));
    assert_eq!(sel(&v).unwrap(), first);
    press(&mut v, ch('N'));
    assert_eq!(sel(&v).unwrap(), second);
    // Esc clears the search; a second Esc leaves the view.
    assert!(press(&mut v, key(KeyCode::Esc)).is_empty());
    assert_eq!(v.tree_search, None);
    assert_eq!(press(&mut v, key(KeyCode::Esc)), vec![ViewEffect::Close]);
}

#[test]
fn transcript_follows_selection_and_searches() {
    let mut v = branching().view();
    // leaf branch: user-1, asst-1, user-2, asst-2, user-3a, asst-3a, user-4a, asst-4a
    assert_eq!(v.transcript.message_count, 8);
    press(&mut v, ch('g'));
    assert_eq!(v.transcript.message_count, 1);
    press(&mut v, ch('G'));
    assert_eq!(sel(&v).as_deref(), Some("user-4b"));
    assert_eq!(v.transcript.message_count, 7);
    assert!(
        v.transcript
            .lines
            .iter()
            .any(|l| l.text.contains("branch B deep"))
    );
    press(&mut v, key(KeyCode::Tab));
    assert_eq!(v.focus, Focus::Transcript);
    press(&mut v, ch('/'));
    type_text(&mut v, "response");
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.transcript_hits.len(), 3);
    press(&mut v, ch('g'));
    press(&mut v, ch('n'));
    assert_eq!(v.transcript_scroll, v.transcript_hits[0]);
    press(&mut v, ch('n'));
    assert_eq!(v.transcript_scroll, v.transcript_hits[1]);
    // j/k scroll the transcript now, the tree selection stays
    press(&mut v, ch('k'));
    assert_eq!(sel(&v).as_deref(), Some("user-4b"));
    // Esc: clear the search, then back to the tree, then close
    press(&mut v, key(KeyCode::Esc));
    assert!(v.transcript_hits.is_empty());
    press(&mut v, key(KeyCode::Esc));
    assert_eq!(v.focus, Focus::Tree);
    assert_eq!(press(&mut v, key(KeyCode::Esc)), vec![ViewEffect::Close]);
}

#[test]
fn long_tool_results_collapse_and_expand() {
    let output: Vec<String> = (1..=40).map(|i| format!("line {i}")).collect();
    let out = output.join("\\n");
    let b = B::new()
        .user("u1", None, "run it")
        .raw(r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:10:00Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"let me think\nmore"},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"seq 40"}}],"stopReason":"toolUse"}}"#)
        .raw(&format!(r#"{{"type":"message","id":"r1","parentId":"a1","timestamp":"2025-01-01T00:11:00Z","message":{{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{{"type":"text","text":"{out}"}}]}}}}"#));
    let mut v = b.view();
    let text: Vec<&str> = v.transcript.lines.iter().map(|l| l.text.as_str()).collect();
    assert!(text.contains(&"▸ thinking · 2 lines"), "{text:?}");
    assert!(text.contains(&"$ seq 40"), "{text:?}");
    assert!(
        text.contains(&"… 34 more lines (Enter expands)"),
        "{text:?}"
    );
    assert!(!text.contains(&"line 40"));
    press(&mut v, key(KeyCode::Tab));
    press(&mut v, ch('x'));
    let text: Vec<&str> = v.transcript.lines.iter().map(|l| l.text.as_str()).collect();
    assert!(text.contains(&"line 40"));
    assert!(text.contains(&"let me think"));
    press(&mut v, ch('x'));
    assert!(!v.transcript.lines.iter().any(|l| l.text == "line 40"));
    // Enter opens the first folded block at or below the top of the pane
    press(&mut v, ch('g'));
    press(&mut v, key(KeyCode::Enter));
    assert!(v.transcript.lines.iter().any(|l| l.text == "let me think"));
    assert!(!v.transcript.lines.iter().any(|l| l.text == "line 40"));
}

// ----- actions -----

fn temp_session(b: &B) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2025-01-01T00-00-00-000Z_s1.jsonl");
    std::fs::write(&path, b.text()).unwrap();
    (dir, path)
}

fn open(path: &std::path::Path) -> SessionViewState {
    let session = grove::storage::read::load_session(path).unwrap();
    SessionViewState::new(
        path.to_path_buf(),
        session,
        Dialect::Pi,
        Rect::new(0, 0, 100, 30),
    )
}

fn run(v: &mut SessionViewState, effects: Vec<ViewEffect>) -> Vec<ViewEffect> {
    let mut notes = Vec::new();
    for e in effects {
        if let Some(outcome) = execute(&e) {
            notes.extend(apply_outcome(v, outcome));
        }
    }
    notes
}

#[test]
fn label_is_prefilled_written_and_removed() {
    let (_dir, path) = temp_session(&branching());
    let mut v = open(&path);
    press(&mut v, ch('g'));
    assert_eq!(sel(&v).as_deref(), Some("user-1"));
    // Shift+L as terminals report it
    let fx = press(
        &mut v,
        KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT),
    );
    assert!(fx.is_empty());
    assert!(matches!(&v.mode, Mode::Label { input, .. } if input.text().is_empty()));
    type_text(&mut v, "start here");
    let fx = press(&mut v, key(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![ViewEffect::AppendLabel {
            path: path.clone(),
            target_id: "user-1".into(),
            label: Some("start here".into()),
        }]
    );
    let before = std::fs::read_to_string(&path).unwrap();
    let notes = run(&mut v, fx);
    assert_eq!(
        notes,
        vec![ViewEffect::SessionChanged { path: path.clone() }]
    );
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(&before), "only appended");
    assert_eq!(after.lines().count(), before.lines().count() + 1);
    assert_eq!(sel(&v).as_deref(), Some("user-1"), "selection kept");
    assert_eq!(v.session.tree.labels["user-1"].text, "start here");
    // Labeled-only filter now has one row.
    press(&mut v, ctrl('l'));
    assert_eq!(v.nav.len(), 1);
    // Edit: prefilled; clearing it removes the label.
    press(&mut v, ch('L'));
    assert!(matches!(&v.mode, Mode::Label { input, .. } if input.text() == "start here"));
    press(&mut v, ctrl('u'));
    let fx = press(&mut v, key(KeyCode::Enter));
    assert!(matches!(
        &fx[..],
        [ViewEffect::AppendLabel { label: None, .. }]
    ));
    run(&mut v, fx);
    assert!(v.session.tree.labels.is_empty());
    // Esc cancels without effects.
    press(&mut v, ctrl('d'));
    press(&mut v, ch('L'));
    type_text(&mut v, "nope");
    assert!(press(&mut v, key(KeyCode::Esc)).is_empty());
    assert_eq!(v.mode, Mode::Normal);
}

#[test]
fn checkout_confirms_which_branch_resumes() {
    let (_dir, path) = temp_session(&branching());
    let mut v = open(&path);
    // go to asst-3b (the other branch), an assistant entry: resumes at itself
    down_to(&mut v, "asst-3b");
    let target = v.nav.selected_entry().unwrap();
    press(&mut v, ch('c'));
    assert_eq!(
        v.mode,
        Mode::ConfirmCheckout {
            target,
            resumes_after: Some(target)
        }
    );
    // n cancels
    assert!(press(&mut v, ch('n')).is_empty());
    assert_eq!(v.mode, Mode::Normal);
    press(&mut v, ch('c'));
    let fx = press(&mut v, ch('y'));
    assert_eq!(
        fx,
        vec![ViewEffect::Checkout {
            path: path.clone(),
            target_id: "asst-3b".into()
        }]
    );
    run(&mut v, fx);
    // the leaf is now the check-out entry under asst-3b; its branch is the active path
    let leaf = v.session.tree.leaf.unwrap();
    assert_eq!(v.session.tree.parent[leaf], Some(target));
    assert!(v.nav.is_on_active_path(target));
    assert_eq!(sel(&v).as_deref(), Some("asst-3b"));
    // the active branch is listed first now
    assert_eq!(
        v.nav.rows()[4].entry,
        v.session.tree.index_of("user-3b").unwrap()
    );
    // checking out the same point again writes nothing
    press(&mut v, ch('c'));
    assert_eq!(v.mode, Mode::Normal);
    assert!(v.status.as_ref().unwrap().text.contains("Already"));
}

#[test]
fn checkout_of_a_user_message_resumes_after_its_parent() {
    let mut v = branching().view();
    down_to(&mut v, "user-3b");
    let target = v.nav.selected_entry().unwrap();
    let parent = v.session.tree.index_of("asst-2");
    press(&mut v, ch('c'));
    assert_eq!(
        v.mode,
        Mode::ConfirmCheckout {
            target,
            resumes_after: parent
        }
    );
}

#[test]
fn fork_writes_a_new_session_and_reports_it() {
    let (dir, path) = temp_session(&branching());
    let mut v = open(&path);
    press(&mut v, ch('g'));
    press(&mut v, ch('j'));
    let fx = press(&mut v, ch('f'));
    assert_eq!(
        fx,
        vec![ViewEffect::Fork {
            path: path.clone(),
            at_id: "asst-1".into()
        }]
    );
    let notes = run(&mut v, fx);
    let [ViewEffect::SessionCreated { path: new, parent }] = &notes[..] else {
        panic!("{notes:?}");
    };
    assert_eq!(parent, &path);
    assert_eq!(new.parent(), Some(dir.path()));
    let forked = grove::storage::read::load_session(new).unwrap();
    assert_eq!(forked.entries().len(), 2);
}

#[test]
fn resume_reports_the_selected_entry() {
    let mut v = branching().view();
    // Not where the session resumes: the check-out is offered first (tests/resume_offer.rs).
    press(&mut v, ch('g'));
    assert_eq!(press(&mut v, ch('r')), vec![]);
    assert!(matches!(v.mode, Mode::ConfirmResume(_)), "{:?}", v.mode);
    press(&mut v, ch('n'));
    // On the leaf it resumes at once.
    let leaf = v.session.tree.leaf.unwrap();
    v.nav.select_entry(&v.session, leaf);
    let id = v.session.entry(leaf).unwrap().id.clone();
    assert_eq!(
        press(&mut v, ch('r')),
        vec![ViewEffect::Resume {
            path: PathBuf::from("/nonexistent/s.jsonl"),
            entry_id: Some(id),
            dialect: Dialect::Pi,
        }]
    );
}

#[test]
fn export_offers_a_name_and_never_overwrites_without_asking() {
    let (dir, path) = temp_session(&branching());
    let mut v = open(&path);
    press(&mut v, ch('e'));
    let Mode::ExportName(input) = &v.mode else {
        panic!("{:?}", v.mode)
    };
    assert_eq!(input.text(), "s1-asst4a.md");
    // Replace the offered name with a path in the temp dir.
    let target = dir.path().join("out.md");
    for _ in 0..input.text().chars().count() {
        press(&mut v, key(KeyCode::Backspace));
    }
    type_text(&mut v, &target.to_string_lossy());
    let fx = press(&mut v, key(KeyCode::Enter));
    let [
        ViewEffect::Export {
            file,
            contents,
            overwrite: false,
        },
    ] = &fx[..]
    else {
        panic!("{fx:?}")
    };
    assert_eq!(file, &target);
    assert!(contents.contains("branch A leaf"));
    run(&mut v, fx.clone());
    assert!(v.status.as_ref().unwrap().text.starts_with("Exported to"));
    let first = std::fs::read_to_string(&target).unwrap();
    // Again: the file exists, so the view asks.
    std::fs::write(&target, "keep me").unwrap();
    run(&mut v, fx.clone());
    assert_eq!(
        v.mode,
        Mode::ConfirmOverwrite {
            file: target.clone()
        }
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    // n: back to the name, file untouched
    press(&mut v, ch('n'));
    assert!(matches!(v.mode, Mode::ExportName(_)));
    let again = press(&mut v, key(KeyCode::Enter));
    run(&mut v, again);
    assert!(matches!(v.mode, Mode::ConfirmOverwrite { .. }));
    let fx = press(&mut v, ch('y'));
    assert!(matches!(
        &fx[..],
        [ViewEffect::Export {
            overwrite: true,
            ..
        }]
    ));
    run(&mut v, fx);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), first);
    // The write helper itself refuses to replace.
    assert_eq!(
        grove::app::session_view::write_export(&target, "x", false),
        Err(ExportFailure::Exists(target.clone()))
    );
    let _ = Outcome::Forked(Ok(PathBuf::new()));
}

#[test]
fn help_opens_scrolls_and_any_other_key_closes() {
    let mut v = branching().view();
    press(&mut v, ch('?'));
    assert_eq!(v.mode, Mode::Help { scroll: 0 });
    press(&mut v, ch('j'));
    assert_eq!(v.mode, Mode::Help { scroll: 1 });
    press(&mut v, ch('q'));
    assert_eq!(v.mode, Mode::Normal);
}

#[test]
fn the_leaf_marker_hangs_from_the_nearest_shown_entry_after_a_label_or_rename() {
    let b = five()
        .raw(r#"{"type":"label","id":"lab-1","parentId":"asst-2","timestamp":"2025-01-01T01:00:00Z","targetId":"user-1","label":"start"}"#)
        .raw(r#"{"type":"session_info","id":"name-1","parentId":"lab-1","timestamp":"2025-01-01T01:00:01Z","name":"named"}"#);
    let v = b.view();
    let leaf = v.session.tree.leaf.unwrap();
    assert_eq!(v.session.entry(leaf).unwrap().id, "name-1");
    // The label and the name are hidden by the default filter: the marker is on asst-2.
    assert!(v.nav.row_of(leaf).is_none());
    let marked = v.marked_leaf().unwrap();
    assert_eq!(v.session.entry(marked).unwrap().id, "asst-2");
    // Shown entries mark themselves.
    let v = five().view();
    assert_eq!(v.marked_leaf(), v.session.tree.leaf);
}
