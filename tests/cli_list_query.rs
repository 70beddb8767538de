//! `grove list --query Q [--sort …] --json`: the picker's search from the CLI, with why each
//! session matched (field, snippet and range, entry id, tool hits).

mod common;

use std::path::Path;

use common::{grove_cmd, header, jsonl, message, session_root, write_file};
use serde_json::{Value, json};

/// An assistant message whose content holds a text block and a `bash` tool call.
fn tool_message(id: &str, parent: &str, text: &str, command: &str, ts: i64) -> String {
    json!({
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:02.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": text},
                {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": command}},
            ],
            "stopReason": "toolUse",
            "timestamp": ts,
        },
    })
    .to_string()
}

fn session(folder: &Path, id: &str, ts: i64, lines: Vec<String>) {
    let mut all = vec![header(id, "/work")];
    all.extend(lines);
    // Distinct activity times: the user message's timestamp is the session's `modified`.
    let mut first = serde_json::from_str::<Value>(&all[1]).expect("json");
    first["message"]["timestamp"] = json!(ts);
    all[1] = first.to_string();
    write_file(folder, &format!("{id}.jsonl"), jsonl(&all));
}

fn list(root: &Path, args: &[&str]) -> (bool, String, String) {
    let sandbox = root.parent().expect("sandbox");
    let mut cmd = grove_cmd(sandbox);
    cmd.arg("--session-dir").arg(root).arg("--no-cache");
    cmd.args(["list", "--all"]).args(args);
    let out = cmd.output().expect("run grove");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_list(root: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.push("--json");
    let (ok, stdout, stderr) = list(root, &all);
    assert!(ok, "{stderr}");
    match serde_json::from_str(&stdout).expect("JSON out") {
        Value::Array(items) => items,
        other => panic!("{other}"),
    }
}

fn ids(items: &[Value]) -> Vec<&str> {
    items.iter().filter_map(|i| i["id"].as_str()).collect()
}

fn fixture_root() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root, folder) = session_root();
    session(
        &folder,
        "aaaa0001",
        1_735_689_600_000,
        vec![
            message("u0000001", None, "user", "please fix the flaky parser test"),
            message(
                "a0000001",
                Some("u0000001"),
                "assistant",
                "The parser drops the last line.\nHere is the fix.",
            ),
        ],
    );
    session(
        &folder,
        "bbbb0002",
        1_735_689_700_000,
        vec![
            message("u0000002", None, "user", "publish the crate"),
            tool_message(
                "a0000002",
                "u0000002",
                "Running it now.",
                "cargo publish --dry-run",
                1_735_689_700_000,
            ),
        ],
    );
    session(
        &folder,
        "cccc0003",
        1_735_689_800_000,
        vec![message(
            "u0000003",
            None,
            "user",
            "cargo build fails; also s-c-r-e-e-n-s-h-o-t",
        )],
    );
    (dir, root)
}

#[test]
fn a_content_match_says_where_with_a_snippet_and_the_entry() {
    let (_dir, root) = fixture_root();
    let items = json_list(&root, &["--query", "\"last line\""]);
    assert_eq!(ids(&items), ["aaaa0001"]);
    let m = &items[0]["match"];
    assert_eq!(m["field"], "messages");
    assert_eq!(m["entryId"], "a0000001");
    assert_eq!(m["tool"], false);
    let snippet = m["snippet"].as_str().expect("snippet");
    let range = m["range"].as_array().expect("range");
    let (a, b) = (
        range[0].as_u64().expect("start") as usize,
        range[1].as_u64().expect("end") as usize,
    );
    assert_eq!(&snippet[a..b], "last line");
    assert!(!snippet.contains('\n'), "{snippet:?}");
    assert_eq!(items[0]["score"], json!(1_000_000.0));
    // Both messages hold "parser": two hits to step through.
    let items = json_list(&root, &["--query", "parser"]);
    let hits = items[0]["match"]["hits"].as_array().expect("hits");
    let entries: Vec<&str> = hits.iter().filter_map(|h| h["entryId"].as_str()).collect();
    assert_eq!(entries, ["u0000001", "a0000001"]);
}

#[test]
fn a_bash_command_found_only_in_a_tool_call_is_a_tool_hit_ranked_last() {
    let (_dir, root) = fixture_root();
    let items = json_list(&root, &["--query", "cargo publish"]);
    assert_eq!(ids(&items), ["bbbb0002"]);
    assert_eq!(items[0]["toolOnly"], true);
    let m = &items[0]["match"];
    assert_eq!(m["tool"], true);
    assert_eq!(m["entryId"], "a0000002");
    assert_eq!(m["snippet"], "bash cargo publish --dry-run");
    // "cargo" is in cccc0003's text (pi finds it) and only in bbbb0002's tool call: the tool
    // hit comes after, although it is not the most recent.
    let items = json_list(&root, &["--query", "cargo"]);
    assert_eq!(ids(&items), ["cccc0003", "bbbb0002"]);
    assert_eq!(items[0]["toolOnly"], false);
    // The recent sort keeps them newest first.
    let items = json_list(&root, &["--query", "cargo", "--sort", "recent"]);
    assert_eq!(ids(&items), ["cccc0003", "bbbb0002"]);
}

#[test]
fn words_are_literal_in_text_and_sorts_order_the_same_matches() {
    let (_dir, root) = fixture_root();
    // Scattered letters in the text are not a match (pi 1.6.0).
    assert!(json_list(&root, &["--query", "screenshot"]).is_empty());
    let relevance = json_list(&root, &["--query", "the"]);
    let recent = json_list(&root, &["--query", "the", "--sort", "recent"]);
    let threaded = json_list(&root, &["--query", "the", "--sort", "threaded"]);
    assert_eq!(ids(&recent), ["bbbb0002", "aaaa0001"]);
    assert_eq!(ids(&relevance), ids(&threaded));
    // Text-tier ties go to the most recent.
    assert_eq!(ids(&relevance), ["bbbb0002", "aaaa0001"]);
    // Fuzzy in the cwd ("/work"): every session, tier fuzzy.
    let fuzzy = json_list(&root, &["--query", "wrk"]);
    assert_eq!(fuzzy.len(), 3);
    assert_eq!(
        fuzzy[0]["match"]["fields"][0],
        json!({"field": "cwd", "fuzzy": true})
    );
}

#[test]
fn plain_rows_bad_queries_and_sort_without_query() {
    let (_dir, root) = fixture_root();
    let (ok, stdout, _) = list(&root, &["--query", "\"last line\""]);
    assert!(ok);
    // A header line, then the one match.
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(stdout.starts_with("ID "), "{stdout}");
    assert!(
        stdout.contains("aaaa0001") && stdout.contains("text: "),
        "{stdout}"
    );
    let (ok, _, stderr) = list(&root, &["--query", "re:("]);
    assert!(!ok);
    assert!(stderr.contains("invalid regex"), "{stderr}");
    let (ok, _, stderr) = list(&root, &["--sort", "recent"]);
    assert!(!ok, "--sort needs --query");
    assert!(stderr.contains("--query"), "{stderr}");
}
