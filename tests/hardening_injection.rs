//! Terminal injection through the CLI: session text full of escape sequences, C1 controls, bidi
//! overrides, zero-width characters, tabs and carriage returns is printed visibly and inertly
//! by every subcommand (plain and JSON, stdout and stderr), JSON output still means the same,
//! and exported Markdown keeps session text inside fences.

mod common;

use std::fs;
use std::path::PathBuf;

use common::*;
use serde_json::{Value, json};

/// Everything a hostile session might carry.
const HOSTILE: &str = "osc52:\x1b]52;c;cm0gLXJmIH4=\x07 clear:\x1b[2J\x1b[H c1:\u{9b}31m \
     bidi:\u{202E}gnp.exe\u{202C} zw:a\u{200B}b\u{2060}c\u{FEFF} tag:\u{E0041} tab:\tx cr:\rover \
     del:\x7f nul:\0 bell:\x07 ls:\u{2028}ps:\u{2029} esc8:\x1b8 title:\x1b]0;pwned\x1b\\ end";

/// Markdown that would escape its block if it were not fenced.
const MARKDOWN: &str =
    "```\n# Injected heading\n<img src=x onerror=alert(1)>\n````\n[link](javascript:alert(1))";

fn h(tag: &str) -> String {
    format!("{tag} {HOSTILE}")
}

fn hostile_session() -> String {
    let lines = vec![
        json!({"type":"session","version":3,"id":"hostile-1","timestamp":"2025-01-01T00:00:00.000Z",
               "cwd": h("/cwd")}),
        json!({"type":"model_change","id":"e0000001","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",
               "provider": h("prov"), "modelId": h("model")}),
        json!({"type":"thinking_level_change","id":"e0000002","parentId":"e0000001",
               "timestamp":"2025-01-01T00:00:01.000Z","thinkingLevel": h("think")}),
        json!({"type":"message","id":"e0000003","parentId":"e0000002","timestamp":"2025-01-01T00:00:02.000Z",
               "message":{"role":"user","content": format!("{}\n{MARKDOWN}", h("user")),"timestamp":1}}),
        json!({"type":"message","id":"e0000004","parentId":"e0000003","timestamp":"2025-01-01T00:00:03.000Z",
               "message":{"role":"assistant","content":[
                   {"type":"thinking","thinking": h("thinking")},
                   {"type":"text","text": format!("{}\n{MARKDOWN}", h("assistant"))},
                   {"type":"toolCall","id":"t1","name": h("tool"),"arguments":{"cmd": h("args")}}],
                 "provider": h("p"),"model": h("m"),"api":"x","usage":{"input":1,"output":1,"cacheRead":0,
                 "cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},
                 "stopReason":"toolUse","timestamp":2}}),
        json!({"type":"message","id":"e0000005","parentId":"e0000004","timestamp":"2025-01-01T00:00:04.000Z",
               "message":{"role":"toolResult","toolCallId":"t1","toolName": h("toolname"),
                 "content":[{"type":"text","text": h("result")}],"isError":false,"timestamp":3}}),
        json!({"type":"message","id":"e0000006","parentId":"e0000005","timestamp":"2025-01-01T00:00:05.000Z",
               "message":{"role":"bashExecution","command": h("cmd"),"output": h("out"),"exitCode":0,
                 "cancelled":false,"truncated":false,"timestamp":4}}),
        json!({"type":"custom_message","id":"e0000007","parentId":"e0000006","timestamp":"2025-01-01T00:00:06.000Z",
               "customType": h("ctype"),"content": h("custom"),"display":true}),
        json!({"type":"branch_summary","id":"e0000008","parentId":"e0000007","timestamp":"2025-01-01T00:00:07.000Z",
               "fromId":"e0000003","summary": format!("{}\n{MARKDOWN}", h("summary"))}),
        json!({"type":"label","id":"e0000009","parentId":"e0000008","timestamp":"2025-01-01T00:00:08.000Z",
               "targetId":"e0000003","label": h("label")}),
        json!({"type":"session_info","id":"e000000a","parentId":"e0000009","timestamp":"2025-01-01T00:00:09.000Z",
               "name": format!("<b>bold</b> # [x](y) {}", h("name"))}),
        json!({"type":"message","id":"e\u{1b}[2Jid","parentId":"e000000a","timestamp":"2025-01-01T00:00:10.000Z",
               "message":{"role":"user","content": h("last"),"timestamp":5}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

struct Setup {
    dir: tempfile::TempDir,
    root: PathBuf,
    path: PathBuf,
}

fn setup() -> Setup {
    let (dir, root, folder) = session_root();
    // The file name itself is hostile too.
    let path = write_file(
        &folder,
        "evil\x1b]52;c;x\x07\u{202E}.jsonl",
        hostile_session(),
    );
    // And a broken neighbour, so the listing prints a (hostile) problem line on stderr.
    write_file(
        &folder,
        "broken\x1b[2J\u{9b}.jsonl",
        "not json \x1b]0;x\x07\n",
    );
    Setup { dir, root, path }
}

fn run(s: &Setup, args: &[&str]) -> std::process::Output {
    let out = grove(s.dir.path(), &s.root, args);
    let what = args.join(" ");
    assert_inert(&format!("`grove {what}` stdout"), &out.stdout);
    assert_inert(&format!("`grove {what}` stderr"), &out.stderr);
    out
}

#[test]
fn every_subcommand_prints_hostile_text_inertly() {
    let s = setup();
    let p = s.path.to_str().unwrap();
    let plain: &[&[&str]] = &[
        &["list", "--all"],
        &["show", p],
        &["tree", p],
        &["context", p],
        &["context", p, "--leaf", "e0000004"],
        &["export", p, "--format", "md"],
        &["export", p, "--format", "jsonl"],
    ];
    for args in plain {
        let out = run(&s, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        // Shown visibly, not dropped.
        if args[0] != "list" || text.contains("name") {
            assert!(
                text.contains("^[") || text.contains("\\u001b"),
                "{args:?}: escape not shown visibly:\n{text}"
            );
        }
    }
    // Errors that echo hostile input.
    for args in [
        &["show", "/nonexistent/\x1b[2J\u{202E}.jsonl"][..],
        &["label", p, "\x1b]52;c;x\x07", "t", "--json"],
        &["context", p, "--leaf", "\u{9b}2J"],
        &["show", "\x1b[2J-no-such-id"],
    ] {
        let out = run(&s, args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains("grove:"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn json_output_is_inert_and_means_the_same() {
    let s = setup();
    let p = s.path.to_str().unwrap();
    for args in [
        &["list", "--all", "--json"][..],
        &["show", p, "--json"],
        &["tree", p, "--json"],
        &["context", p, "--json"],
    ] {
        let out = run(&s, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{args:?}: invalid JSON: {e}"));
        let text = v.to_string();
        // Decoded, the hostile text is intact: escaping changed the bytes, not the meaning.
        assert!(text.contains(&serde_json::to_string(HOSTILE).unwrap()[1..40]));
    }
    let out = run(&s, &["list", "--all", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let row = &v[0];
    assert_eq!(row["path"].as_str(), Some(p));
    assert_eq!(row["cwd"].as_str().unwrap(), h("/cwd"));
    assert!(row["name"].as_str().unwrap().ends_with(&h("name")));

    // JSONL export: each line is the stored entry, value for value.
    let out = run(&s, &["export", p, "--format", "jsonl"]);
    let exported: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stored: Vec<Value> = fs::read_to_string(&s.path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exported[0], stored[0]);
    for e in &exported[1..] {
        assert!(stored.contains(e), "exported line not in the file: {e}");
    }
}

/// Lines of Markdown outside fenced blocks (the structure a renderer would interpret).
fn outside_fences(md: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut fence: Option<usize> = None;
    for line in md.lines() {
        let ticks = line.chars().take_while(|&c| c == '`').count();
        match fence {
            None if ticks >= 3 => fence = Some(ticks),
            None => out.push(line),
            Some(n) if ticks >= n && line[ticks..].trim().is_empty() => fence = None,
            Some(_) => {}
        }
    }
    assert!(fence.is_none(), "a fence is left open");
    out
}

#[test]
fn markdown_export_keeps_session_text_in_fences() {
    let s = setup();
    let out = run(&s, &["export", s.path.to_str().unwrap(), "--format", "md"]);
    let md = stdout(&out);
    let outside = outside_fences(&md);
    for line in &outside {
        assert!(
            !line.contains("Injected heading"),
            "session text escaped its fence: {line}"
        );
        assert!(
            !line.contains("<img") && !line.contains("<b>"),
            "raw HTML outside a fence: {line}"
        );
        assert!(!line.contains("](javascript"), "a live link: {line}");
        if line.starts_with('#') {
            assert!(
                line.starts_with("# ") || line.starts_with("## "),
                "unexpected heading: {line}"
            );
        }
    }
    // The message bodies are all there, inside fences.
    for tag in ["user", "assistant", "thinking", "result", "summary", "last"] {
        assert!(
            md.contains(&format!("{tag} osc52:^[]52;c;")),
            "{tag} missing"
        );
    }
}

/// A listing of many hostile names stays one row per session.
#[test]
fn plain_list_rows_cannot_be_split_or_overwritten() {
    let (dir, root, folder) = session_root();
    for i in 0..5 {
        let mut lines = vec![header(&format!("s{i}"), "/w")];
        lines.push(message(
            "m1",
            None,
            "user",
            &format!("row{i}\nfake row\rover\u{2028}x"),
        ));
        write_file(&folder, &format!("s{i}.jsonl"), jsonl(&lines));
    }
    let out = grove(dir.path(), &root, &["list", "--all"]);
    assert_inert("list", &out.stdout);
    // A header line, then one row per session.
    assert_eq!(stdout(&out).lines().count(), 6, "{}", stdout(&out));
}
