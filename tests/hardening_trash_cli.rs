//! Issue 13 (stretch of issue 12's round): `grove trash list|restore [--json]` lists the session
//! files in the platform trash (original path, name, deletion time) and restores them with
//! their `.bak` files byte for byte; `grove rm` says how to undo it. The trash is the sandbox's
//! (XDG_DATA_HOME), never the user's.

mod common;

use std::fs;

use common::*;
use serde_json::Value;

/// The listed items of this test (the trash list also shows other mounts' trashes).
fn ours(listed: &Value, dir: &std::path::Path) -> Vec<Value> {
    let dir = fs::canonicalize(dir).unwrap();
    listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["originalPath"]
                .as_str()
                .is_some_and(|p| p.starts_with(dir.to_str().unwrap()))
        })
        .cloned()
        .collect()
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("invalid JSON ({e}): {}\n{}", stdout(out), stderr(out)))
}

#[test]
fn rm_says_how_to_undo_and_trash_restore_brings_everything_back() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "s.jsonl", small_session("sess-tr", "/w"));
    let bak = write_file(&folder, "s.jsonl.1700000000.bak", "backup");
    let before = fs::read(&s).unwrap();
    let original = fs::canonicalize(&folder).unwrap().join("s.jsonl");

    let out = grove(dir.path(), &root, &["rm", "--yes", "sess-tr", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let undo = format!("grove trash restore '{}'", original.display());
    assert!(stderr(&out).contains(&undo), "{}", stderr(&out));
    assert_eq!(json(&out)["undo"], undo.as_str());
    assert!(!s.exists() && !bak.exists());

    let out = grove(dir.path(), &root, &["trash", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = json(&out);
    let items = ours(&listed, dir.path());
    assert_eq!(items.len(), 1, "{listed}");
    assert_eq!(items[0]["originalPath"], original.to_str().unwrap());
    assert_eq!(items[0]["name"], "s.jsonl");
    assert!(
        items[0]["deleted"]
            .as_str()
            .is_some_and(|d| d.starts_with("20")),
        "{listed}"
    );
    assert_eq!(items[0]["backups"].as_array().unwrap().len(), 1);
    let out = grove(dir.path(), &root, &["trash", "list"]);
    assert!(
        stdout(&out).contains(original.to_str().unwrap()),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("+1 backup"), "{}", stdout(&out));

    // The undo command, as printed.
    let out = grove(
        dir.path(),
        &root,
        &["trash", "restore", original.to_str().unwrap(), "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["restored"].as_array().unwrap().len(), 2);
    assert_eq!(fs::read(&s).unwrap(), before);
    assert_eq!(fs::read(&bak).unwrap(), b"backup");
    let out = grove(dir.path(), &root, &["trash", "list", "--json"]);
    assert!(ours(&json(&out), dir.path()).is_empty());

    // Again: nothing to restore.
    let out = grove(
        dir.path(),
        &root,
        &["trash", "restore", original.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("in the trash"), "{}", stderr(&out));
}

#[test]
fn trash_restore_by_name_and_never_over_a_new_file() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "n.jsonl", small_session("sess-n", "/w"));
    let before = fs::read(&s).unwrap();
    assert!(
        grove(dir.path(), &root, &["rm", "--yes", "sess-n", "--json"])
            .status
            .success()
    );
    // A new file took the place: restore refuses and moves nothing.
    fs::write(&s, "new").unwrap();
    let out = grove(dir.path(), &root, &["trash", "restore", "n.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("exists again"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("still in the trash"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(&s).unwrap(), b"new");
    fs::remove_file(&s).unwrap();
    let out = grove(dir.path(), &root, &["trash", "restore", "n.jsonl"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Restored"), "{}", stdout(&out));
    assert_eq!(fs::read(&s).unwrap(), before);
}
