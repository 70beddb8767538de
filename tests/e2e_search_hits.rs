//! End to end, the real binary in tmux: a phrase found only in an assistant message shows its
//! snippet at the top of the preview and Enter lands on that entry; a bash command found only
//! in a tool call is found, marked as a tool-call hit, and Enter lands on the tool call; `r`
//! on an entry that is not the leaf offers the check-out first.
//! tmux is required: without it the test fails under `CI=true`, else it says so and passes.

mod common;

use std::path::Path;
use std::time::Duration;

use common::tmux::{Tmux, quote, sandbox_env, tmux_available};
use serde_json::json;

fn line(v: serde_json::Value) -> String {
    format!("{v}\n")
}

fn message(id: &str, parent: Option<&str>, second: u32, message: serde_json::Value) -> String {
    line(json!({"type":"message","id":id,"parentId":parent,
        "timestamp":format!("2026-11-29T10:00:{second:02}.000Z"),"message":message}))
}

/// Two pi sessions in `dir`: one whose assistant alone mentions the phrase, one whose only
/// mention of the command is a bash tool call.
fn write_sessions(dir: &Path) {
    let project = dir.join("--home-u-code-app--");
    std::fs::create_dir_all(&project).unwrap();
    let header = |id: &str| {
        line(json!({"type":"session","version":3,"id":id,
            "timestamp":"2026-11-29T10:00:00.000Z","cwd":"/home/u/code/app"}))
    };
    let text = |role: &str, t: &str| {
        json!({"role":role,"content":[{"type":"text","text":t}],"timestamp":1,
            "provider":"anthropic","model":"claude","stopReason":"stop"})
    };
    let mut a = header("0190a000-0000-7000-8000-0000000000a1");
    a += &message(
        "aa000001",
        None,
        1,
        json!({"role":"user","content":"Plan the road works","timestamp":1}),
    );
    a += &message("aa000002", Some("aa000001"), 2, text("assistant", "Sure."));
    a += &message(
        "aa000003",
        Some("aa000002"),
        3,
        json!({"role":"user","content":"and then?","timestamp":1}),
    );
    a += &message(
        "aa000004",
        Some("aa000003"),
        4,
        text(
            "assistant",
            "We follow the quokka crossing protocol at every junction.",
        ),
    );
    a += &message(
        "aa000005",
        Some("aa000004"),
        5,
        json!({"role":"user","content":"thanks, done","timestamp":1}),
    );
    a += &message(
        "aa000006",
        Some("aa000005"),
        6,
        text("assistant", "Glad to help."),
    );
    std::fs::write(project.join("2026-11-29T10-00-00-000Z_a1.jsonl"), a).unwrap();

    let mut b = header("0190a000-0000-7000-8000-0000000000b2");
    b += &message(
        "bb000001",
        None,
        1,
        json!({"role":"user","content":"Ship the crate","timestamp":1}),
    );
    b += &message(
        "bb000002",
        Some("bb000001"),
        2,
        json!({"role":"assistant","content":[
            {"type":"text","text":"Running the release."},
            {"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"cargo yank --vers 9.9.9"}}],
            "timestamp":1,"provider":"anthropic","model":"claude","stopReason":"toolUse"}),
    );
    b += &message(
        "bb000003",
        Some("bb000002"),
        3,
        json!({"role":"toolResult","toolCallId":"t1","toolName":"bash",
            "content":[{"type":"text","text":"done"}],"isError":false,"timestamp":1}),
    );
    b += &message(
        "bb000004",
        Some("bb000003"),
        4,
        text("assistant", "Released."),
    );
    std::fs::write(project.join("2026-11-29T11-00-00-000Z_b2.jsonl"), b).unwrap();
}

#[test]
fn a_hit_shows_its_snippet_and_enter_lands_on_its_entry() {
    if !tmux_available("the search-hits end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let sessions = root.join("sessions");
    write_sessions(&sessions);
    let command = format!(
        "cd {root} && {env} {bin} --session-dir {dir} --all",
        root = quote(root),
        env = sandbox_env(root),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        dir = quote(&sessions),
    );
    let tmux = Tmux::start("e2e-hits", 160, 40, &command);

    tmux.wait_for("Plan the road works");
    tmux.wait_for("Ship the crate");

    // The phrase is only in an assistant message: the preview shows it.
    tmux.text("\"quokka crossing\"");
    let s = tmux.wait_for("matched in messages");
    tmux.wait_for("assistant We follow the quokka crossing protocol");
    assert!(s.contains("1 match"), "{s}");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("hit 1/1 (message)");
    // The tree's selected row is the assistant entry; the transcript shows its text.
    let selected = s
        .lines()
        .find(|l| l.contains('›'))
        .unwrap_or_default()
        .to_owned();
    assert!(
        selected.contains("assistant: We follow the quokka"),
        "selected row: {selected:?}\n{s}"
    );
    assert!(
        s.contains("We follow the quokka crossing protocol at every junction."),
        "{s}"
    );

    // `r` on this entry, which is not the leaf: grove offers to check it out first, and "no"
    // writes nothing.
    let a_file = sessions
        .join("--home-u-code-app--")
        .join("2026-11-29T10-00-00-000Z_a1.jsonl");
    let before = std::fs::read(&a_file).unwrap();
    tmux.keys(&["r"]);
    let s = tmux.wait_for("Resume here?");
    assert!(s.contains("enter yes"), "{s}");
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(std::fs::read(&a_file).unwrap(), before, "declining wrote");

    // Back to the picker; a bash command only in a tool call.
    tmux.keys(&["Escape"]);
    tmux.wait_for("matched in messages");
    tmux.keys(&["C-u"]);
    for _ in 0..20 {
        tmux.keys(&["BSpace"]);
    }
    tmux.text("cargo yank");
    tmux.wait_for("matched in tool call");
    let s = tmux.wait_for("tool call bash cargo yank --vers 9.9.9");
    assert!(s.contains("1 match"), "{s}");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("(tool call)");
    let selected = s
        .lines()
        .find(|l| l.contains('›'))
        .unwrap_or_default()
        .to_owned();
    assert!(
        selected.contains("Running the release") || selected.contains("cargo yank"),
        "selected row: {selected:?}\n{s}"
    );
    tmux.keys(&["C-c"]);
}
