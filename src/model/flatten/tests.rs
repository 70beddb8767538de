//! Tests of the rows: the active branch first, long chains, tool results named by their call.

use super::*;
use crate::model::tree::Session;
use crate::model::tree::tests::{msg as user, session};

fn ids(s: &Session, nav: &TreeNav) -> Vec<String> {
    nav.rows()
        .iter()
        .map(|r| s.entries()[r.entry].id.clone())
        .collect()
}

#[test]
fn active_branch_first_and_chain_stays_flat() {
    let s = session(&[
        user("a", None, 1),
        user("b", Some("a"), 2),
        user("c", Some("a"), 3),
        user("d", Some("c"), 4),
        user("e", Some("b"), 5),
        // leaf is the last line: on the `c` branch
        user("f", Some("d"), 6),
    ]);
    let nav = TreeNav::new(&s, s.tree.leaf, None, FilterMode::Default);
    assert_eq!(ids(&s, &nav), ["a", "c", "d", "f", "b", "e"]);
    let prefixes: Vec<String> = nav.rows().iter().map(|r| nav.row_prefix(r)).collect();
    assert_eq!(prefixes, ["", "├⊟ ", "│     ", "│     ", "└⊟ ", "      "]);
    assert_eq!(nav.selected_entry(), Some(5));
}

#[test]
fn flattening_a_long_chain_is_iterative() {
    let lines: Vec<String> = (0..100_000u32)
        .map(|i| {
            let parent = (i > 0).then(|| format!("{:08x}", i - 1));
            user(&format!("{i:08x}"), parent.as_deref(), 1)
        })
        .collect();
    let s = session(&lines);
    let nav = TreeNav::new(&s, s.tree.leaf, None, FilterMode::Default);
    assert_eq!(nav.len(), 100_000);
    assert!(nav.rows().iter().all(|r| r.indent == 0));
    assert_eq!(nav.selected_index(), 99_999);
    assert_eq!(nav.window(10), 99_990..100_000);
}

#[test]
fn tool_results_are_labelled_by_their_call() {
    let s = session(&[
        user("a", None, 1),
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"/home/me/x.rs","offset":5,"limit":10}}],"stopReason":"toolUse"}}"#.to_string(),
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"2025-01-01T00:00:03Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[]}}"#.to_string(),
        r#"{"type":"compaction","id":"d","parentId":"c","timestamp":"2025-01-01T00:00:04Z","summary":"s","tokensBefore":50400}"#.to_string(),
    ]);
    let nav = TreeNav::new(&s, s.tree.leaf, None, FilterMode::Default);
    // the tool-call-only assistant turn is hidden
    assert_eq!(ids(&s, &nav), ["a", "c", "d"]);
    let text = |i: usize| row_text(&s.entries()[i], nav.tool_calls(), Some("/home/me")).plain();
    assert_eq!(text(2), "[read: ~/x.rs:5-14]");
    assert_eq!(text(3), "[compaction: 50k tokens]");
    assert_eq!(
        format_tool_call(
            &ToolCall::of("bash", &serde_json::json!({"command": "x".repeat(60)})),
            None
        ),
        format!("[bash: {}...]", "x".repeat(50))
    );
    let huge = serde_json::json!({"path": "a", "offset": i64::MAX, "limit": 2});
    assert_eq!(
        format_tool_call(&ToolCall::of("read", &huge), None),
        format!("[read: a:{}-{}]", i64::MAX, i64::MAX - 1)
    );
}
