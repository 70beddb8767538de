//! grove's own movement, search and focus keys.

use super::*;

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
