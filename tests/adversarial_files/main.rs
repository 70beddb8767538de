//! Adversarial session files, each through the library and the CLI: a clear message, no panic,
//! no hang, and the neighbouring sessions still list.

#[path = "../common/mod.rs"]
mod common;
mod huge_lines;
mod odd_files;
mod structure;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::parse::IssueKind;
use grove::model::tree::Session;
use grove::storage::append::{NewEntry, WriteError, append_entry};
use grove::storage::read::{ReadError, load_session, scan_info};
use grove::storage::roots::{SessionRoot, find_session_files};
use grove::storage::scan::list_sessions;
use serde_json::Value;

/// A root holding the adversarial file plus one good neighbour.
struct Case {
    dir: tempfile::TempDir,
    root: PathBuf,
    path: PathBuf,
}

fn case(name: &str, content: impl AsRef<[u8]>) -> Case {
    let (dir, root, folder) = session_root();
    write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    let path = write_file(&folder, name, content);
    Case { dir, root, path }
}

fn roots(c: &Case) -> Vec<SessionRoot> {
    vec![SessionRoot {
        path: c.root.clone(),
        agent: None,
    }]
}

/// Exit status 0 or 1 with inert output; never a panic (101) or a signal.
fn cli(c: &Case, args: &[&str]) -> Output {
    let out = grove_within(c.dir.path(), &c.root, args, 120);
    let what = format!("grove {}", args.join(" "));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: exit {:?}\n{}",
        out.status,
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("panicked"),
        "{what}: {}",
        stderr(&out)
    );
    assert_inert(&format!("{what} stdout"), &out.stdout);
    assert_inert(&format!("{what} stderr"), &out.stderr);
    out
}

/// The listing still shows the good neighbour (and never the broken file as a session).
fn neighbour_still_lists(c: &Case) -> Output {
    let out = cli(c, &["list", "--all", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == "good-neighbour"),
        "good neighbour missing: {v}"
    );
    out
}

/// Every read-only subcommand on the file; returns their outputs.
fn all_views(c: &Case) -> Vec<(String, Output)> {
    let p = c.path.to_str().unwrap();
    [
        vec!["show", p],
        vec!["show", p, "--json"],
        vec!["tree", p],
        vec!["tree", p, "--json"],
        vec!["context", p],
        vec!["context", p, "--json"],
        vec!["export", p, "--format", "md"],
    ]
    .into_iter()
    .map(|args| (args.join(" "), cli(c, &args)))
    .collect()
}

/// Library: load, tree, context in both dialects, listing fields.
fn lib_views(path: &Path) -> Result<Session, ReadError> {
    let s = load_session(path)?;
    for d in [Dialect::Pi, Dialect::Atomic] {
        let ctx = build_context(&s, LeafChoice::Current, d);
        if let Some(l) = ctx.leaf {
            assert!(l < s.entries().len());
        }
        let _ = build_context(&s, LeafChoice::Index(0), d);
    }
    for i in 0..s.entries().len().min(2000) {
        let _ = s.tree.path_to(i);
    }
    Ok(s)
}

fn entry(id: &str, parent: Option<&str>) -> String {
    message(id, parent, "user", &format!("text of {id}"))
}

fn with_header(lines: Vec<String>) -> String {
    let mut all = vec![header("adv", "/w")];
    all.extend(lines);
    jsonl(&all)
}

fn tree_issue_mentions(s: &Session, word: &str) -> bool {
    s.issues()
        .any(|i| i.kind == IssueKind::Tree && i.message.contains(word))
}

fn assert_note(views: &[(String, Output)], word: &str) {
    for (what, out) in views {
        assert!(out.status.success(), "{what}: {}", stderr(out));
        if !what.contains("--json") || what.starts_with("show") {
            let all = format!("{}{}", stdout(out), stderr(out));
            assert!(all.contains(word), "{what}: no mention of {word}:\n{all}");
        }
    }
}
