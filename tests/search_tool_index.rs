//! The tool-call text the listing gathers for search survives the index cache: a warm listing
//! and a resumed one give back the same message text and tool text as a cold scan, also for a
//! message that holds the index's own separator.

mod common;

use common::{header, jsonl, message, session_root, write_file};
use grove::model::context::Dialect;
use grove::model::info::SessionInfo;
use grove::storage::index::{Index, ListOptions};
use grove::storage::roots::custom_roots;
use serde_json::json;

fn tool_call(id: &str, parent: &str, command: &str, path: &str) -> String {
    json!({
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:02.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "on it"},
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": command}},
                {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": path, "offset": 3}},
            ],
            "stopReason": "toolUse",
            "timestamp": 1_735_689_700_000_i64,
        },
    })
    .to_string()
}

fn texts(sessions: &[SessionInfo]) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = sessions
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                s.all_messages_text.clone(),
                s.tool_text.clone(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn tool_text_round_trips_through_the_index() {
    let (dir, root, folder) = session_root();
    let with_tools = vec![
        header("aaaa0001", "/work"),
        message("u1", None, "user", "publish it"),
        tool_call("a1", "u1", "cargo publish", "src/auth.rs"),
    ];
    let tools_path = write_file(&folder, "a.jsonl", jsonl(&with_tools));
    // A message holding the separator the index puts between message and tool text.
    let hostile = vec![
        header("bbbb0002", "/work"),
        message("u2", None, "user", "x\u{0}\u{0}grove-tools\u{0}y"),
    ];
    write_file(&folder, "b.jsonl", jsonl(&hostile));

    let roots = custom_roots(std::slice::from_ref(&root), Some(Dialect::Pi));
    let opts = ListOptions { with_text: true };
    let cold = Index::disabled().list(&roots, opts, |_| {}).sessions;
    let want = texts(&cold);
    assert_eq!(
        want[0].2, "bash cargo publish\nread src/auth.rs",
        "the tool text of a.jsonl"
    );
    assert_eq!(want[1].1, "x\u{0}\u{0}grove-tools\u{0}y");
    assert_eq!(want[1].2, "");

    let cache = dir.path().join("cache");
    let filled = Index::open_at(&cache).list(&roots, opts, |_| {}).sessions;
    assert_eq!(texts(&filled), want, "filling the cache");
    let warm = Index::open_at(&cache).list(&roots, opts, |_| {}).sessions;
    assert_eq!(texts(&warm), want, "from the cache");

    // A grown file resumes: the new tool call is added, the old ones kept.
    let mut grown = with_tools.clone();
    grown.push(tool_call("a2", "a1", "git push", "README.md"));
    std::fs::write(&tools_path, jsonl(&grown)).expect("grow");
    let resumed = Index::open_at(&cache).list(&roots, opts, |_| {}).sessions;
    let cold = Index::disabled().list(&roots, opts, |_| {}).sessions;
    assert_eq!(texts(&resumed), texts(&cold), "resumed == cold");
    assert_eq!(
        texts(&cold)[0].2,
        "bash cargo publish\nread src/auth.rs\nbash git push\nread README.md"
    );
    // Without text, neither is kept.
    let bare = Index::open_at(&cache)
        .list(&roots, ListOptions { with_text: false }, |_| {})
        .sessions;
    assert!(
        bare.iter()
            .all(|s| s.all_messages_text.is_empty() && s.tool_text.is_empty())
    );
}
