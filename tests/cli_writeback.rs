//! The CLI end to end: listing, resolution, and the three writes read back as pi would.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const HEADER: &str = r#"{"type":"session","version":3,"id":"0197aaaa-0000-7000-8000-000000000001","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/alice/code/app"}"#;

fn line(id: &str, parent: Option<&str>, sec: u32, role: &str, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    let message = if role == "assistant" {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{{"input":0.01,"output":0.02,"cacheRead":0,"cacheWrite":0,"total":0.03}}}},"stopReason":"stop","timestamp":17487720{sec:02}000}}"#
        )
    } else {
        format!(r#"{{"role":"user","content":"{text}","timestamp":17487720{sec:02}000}}"#)
    };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-06-01T10:00:{sec:02}.000Z","message":{message}}}"#
    )
}

/// A session with a branch: a1 → b1 → a2 → b2 (leaf) and a1 → b1 → a3 → b3.
fn write_session(dir: &Path) -> PathBuf {
    let folder = dir.join("--home-alice-code-app--");
    fs::create_dir_all(&folder).unwrap();
    let path = folder.join("2025-06-01T10-00-00-000Z_0197aaaa-0000-7000-8000-000000000001.jsonl");
    let lines = [
        HEADER.to_owned(),
        line("aaaa0001", None, 1, "user", "fix the parser"),
        line("bbbb0001", Some("aaaa0001"), 2, "assistant", "looking"),
        line("aaaa0003", Some("bbbb0001"), 3, "user", "try another way"),
        line("bbbb0003", Some("aaaa0003"), 4, "assistant", "other way"),
        line("aaaa0002", Some("bbbb0001"), 5, "user", "now the tests"),
        line("bbbb0002", Some("aaaa0002"), 6, "assistant", "tests pass"),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn grove(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grove"))
        .arg("--session-dir")
        .arg(dir)
        .args(args)
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .output()
        .expect("run grove")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "grove failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn context_ids(dir: &Path, session: &str) -> Vec<String> {
    let v = json(&grove(dir, &["context", session, "--json"]));
    v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["entryId"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn list_json_has_pi_fields() {
    let tmp = tempfile::tempdir().unwrap();
    write_session(tmp.path());
    let v = json(&grove(tmp.path(), &["list", "--all", "--json"]));
    let s = &v[0];
    assert_eq!(s["id"], "0197aaaa-0000-7000-8000-000000000001");
    assert_eq!(s["cwd"], "/home/alice/code/app");
    assert_eq!(s["messageCount"], 6);
    assert_eq!(s["firstMessage"], "fix the parser");
    assert_eq!(s["created"], "2025-06-01T10:00:00.000Z");
    assert_eq!(s["modified"], "2025-06-01T10:00:06.000Z");
    assert_eq!(s["leafCount"], 2);
    assert_eq!(s["agent"], "pi");
    assert_eq!(s["totalTokens"], 45);
    // Not the current directory: the default scope is empty.
    let v = json(&grove(tmp.path(), &["list", "--json"]));
    assert_eq!(v.as_array().unwrap().len(), 0);
    let v = json(&grove(
        tmp.path(),
        &["list", "--cwd", "/home/alice/code/app", "--json"],
    ));
    assert_eq!(v.as_array().unwrap().len(), 1);
}

#[test]
fn label_and_rename_keep_the_leaf_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_session(tmp.path());
    let before = context_ids(tmp.path(), "0197aaaa");
    assert_eq!(before, ["aaaa0001", "bbbb0001", "aaaa0002", "bbbb0002"]);

    let out = json(&grove(
        tmp.path(),
        &["label", "0197aaaa", "aaaa0003", "second try", "--json"],
    ));
    let label_id = out["id"].as_str().unwrap().to_owned();
    assert_eq!(label_id.len(), 8);
    let out = json(&grove(
        tmp.path(),
        &["rename", "0197aaaa", "  Parser\r\nwork  ", "--json"],
    ));
    let rename_id = out["id"].as_str().unwrap().to_owned();

    // The conversation position is unchanged: the new entries hang off the old leaf.
    assert_eq!(context_ids(tmp.path(), "0197aaaa"), before);
    let tree = json(&grove(tmp.path(), &["tree", "0197aaaa", "--json"]));
    let nodes = tree["nodes"].as_array().unwrap();
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap().clone();
    assert_eq!(node(&label_id)["parentId"], "bbbb0002");
    assert_eq!(node(&rename_id)["parentId"], label_id.as_str());
    assert_eq!(node("aaaa0003")["label"], "second try");
    assert_eq!(tree["leafId"], rename_id.as_str());

    // The written lines are exactly what pi writes.
    let text = fs::read_to_string(&path).unwrap();
    let last: Vec<Value> = text
        .lines()
        .rev()
        .take(2)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(last[0]["type"], "session_info");
    assert_eq!(last[0]["name"], "Parser work");
    assert_eq!(last[1]["type"], "label");
    assert_eq!(last[1]["targetId"], "aaaa0003");
    let keys: Vec<&str> = last[1]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["type", "id", "parentId", "timestamp", "targetId", "label"]
    );

    // The name resolves sessions now, and clearing works.
    let show = json(&grove(tmp.path(), &["show", "Parser work", "--json"]));
    assert_eq!(show["name"], "Parser work");
    json(&grove(
        tmp.path(),
        &["label", "0197aaaa", "aaaa0003", "--clear", "--json"],
    ));
    json(&grove(tmp.path(), &["rename", "0197aaaa", "", "--json"]));
    let show = json(&grove(tmp.path(), &["show", "0197aaaa", "--json"]));
    assert_eq!(show["name"], Value::Null);
    assert_eq!(show["hasName"], true);
    assert_eq!(show["labels"], serde_json::json!({}));
}

#[test]
fn checkout_moves_the_leaf_and_persists() {
    let tmp = tempfile::tempdir().unwrap();
    write_session(tmp.path());
    // An assistant entry: the branch resumes right after it.
    json(&grove(
        tmp.path(),
        &["checkout", "0197aaaa", "bbbb0003", "--json"],
    ));
    assert_eq!(
        context_ids(tmp.path(), "0197aaaa"),
        ["aaaa0001", "bbbb0001", "aaaa0003", "bbbb0003"]
    );
    // A user message: as in pi, the branch resumes from its parent (the text is re-asked).
    let out = json(&grove(
        tmp.path(),
        &["checkout", "0197aaaa", "aaaa0002", "--json"],
    ));
    assert_eq!(out["leafParentId"], "bbbb0001");
    assert_eq!(
        context_ids(tmp.path(), "0197aaaa"),
        ["aaaa0001", "bbbb0001"]
    );
    // A later label does not move it again.
    json(&grove(
        tmp.path(),
        &["label", "0197aaaa", "aaaa0001", "start", "--json"],
    ));
    assert_eq!(
        context_ids(tmp.path(), "0197aaaa"),
        ["aaaa0001", "bbbb0001"]
    );
}

#[test]
fn fork_writes_a_new_session_with_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_session(tmp.path());
    json(&grove(
        tmp.path(),
        &["label", "0197aaaa", "aaaa0003", "alt", "--json"],
    ));
    json(&grove(
        tmp.path(),
        &["label", "0197aaaa", "bbbb0002", "done", "--json"],
    ));
    let out = json(&grove(
        tmp.path(),
        &["fork", "0197aaaa", "--at", "bbbb0003", "--json"],
    ));
    let fork = PathBuf::from(out["path"].as_str().unwrap());
    assert_eq!(fork.parent(), path.parent());
    let show = json(&grove(
        tmp.path(),
        &["show", fork.to_str().unwrap(), "--json"],
    ));
    assert_eq!(
        show["parentSessionPath"],
        fs::canonicalize(&path).unwrap().to_str().unwrap()
    );
    assert_eq!(show["labels"], serde_json::json!({"aaaa0003": "alt"}));
    assert_eq!(
        context_ids(tmp.path(), fork.to_str().unwrap()),
        ["aaaa0001", "bbbb0001", "aaaa0003", "bbbb0003"]
    );
    // Nothing orphaned: one root.
    assert_eq!(show["roots"], 1);
}

#[test]
fn export_markdown_and_jsonl() {
    let tmp = tempfile::tempdir().unwrap();
    write_session(tmp.path());
    let out = grove(tmp.path(), &["export", "0197aaaa"]);
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("## User"));
    assert!(md.contains("tests pass"));
    let out = grove(
        tmp.path(),
        &[
            "export", "0197aaaa", "--format", "jsonl", "--leaf", "bbbb0003",
        ],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 5);
    let file = tmp.path().join("out.md");
    json(&grove(
        tmp.path(),
        &["export", "0197aaaa", "-o", file.to_str().unwrap(), "--json"],
    ));
    // Never overwrites.
    let again = grove(
        tmp.path(),
        &["export", "0197aaaa", "-o", file.to_str().unwrap(), "--json"],
    );
    assert!(!again.status.success());
}

#[test]
fn errors_are_clear_and_nonzero() {
    let tmp = tempfile::tempdir().unwrap();
    write_session(tmp.path());
    let out = grove(tmp.path(), &["show", "nope"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session matches"));
    let out = grove(tmp.path(), &["label", "0197aaaa", "zzzz", "x", "--json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no entry zzzz"));
    let out = grove(tmp.path(), &["rm", "0197aaaa", "--json"]);
    assert!(
        !out.status.success(),
        "rm without --yes on a non-terminal must refuse"
    );
}

#[test]
fn torn_last_line_refuses_to_append() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_session(tmp.path());
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"type":"message","id":"cc"#);
    fs::write(&path, &bytes).unwrap();
    let out = grove(tmp.path(), &["rename", "0197aaaa", "x", "--json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("incomplete"));
    assert_eq!(fs::read(&path).unwrap(), bytes);
}
