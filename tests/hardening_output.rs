//! Issue 12, items 12, 13 and 15: output that cannot lie or panic.
//! - Paths that are not UTF-8: every command prints valid JSON, the path as
//!   `{"lossy", "bytesBase64"}` (a string when it is UTF-8); nothing panics after a write.
//! - A write that succeeded while printing its report failed (stdout on /dev/full) says so on
//!   stderr and exits 3, not 1 (the status of a failed write).
//! - Smaller: `show` escapes a newline in a path; `label` through a link to a non-session file
//!   says why; `cache clear` errors name the path; a relative `XDG_DATA_HOME` is explained.

mod common;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Stdio;

use base64::Engine as _;
use common::*;
use serde_json::Value;

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("invalid JSON ({e}): {}\n{}", stdout(out), stderr(out)))
}

/// The path a JSON path value stands for.
fn decode_path(v: &Value) -> PathBuf {
    match v {
        Value::String(s) => PathBuf::from(s),
        Value::Object(o) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(o["bytesBase64"].as_str().unwrap())
                .unwrap();
            assert!(o["lossy"].as_str().unwrap().contains('\u{FFFD}'));
            PathBuf::from(OsStr::from_bytes(&bytes))
        }
        other => panic!("not a path: {other}"),
    }
}

#[test]
fn non_utf8_paths_never_panic_and_json_keeps_them_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let folder = root.join(OsStr::from_bytes(b"--w\xff--"));
    fs::create_dir_all(&folder).unwrap();
    let bad = folder.join(OsStr::from_bytes(b"caf\xe9.jsonl"));
    fs::write(&bad, small_session("sess-bad", "/w")).unwrap();
    let good_dir = root.join("--ok--");
    fs::create_dir_all(&good_dir).unwrap();
    write_file(&good_dir, "ok.jsonl", small_session("sess-ok", "/w"));

    for args in [
        &["rename", "sess-bad", "new name", "--json"][..],
        &["label", "sess-bad", "m0000001", "a label", "--json"],
        &["checkout", "sess-bad", "m0000001", "--json"],
        &["show", "sess-bad", "--json"],
    ] {
        let out = grove(dir.path(), &root, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(decode_path(&json(&out)["path"]), bad, "{args:?}");
    }
    // Exactly one line per write: no panic after appending, so nothing invites a retry.
    let text = fs::read_to_string(&bad).unwrap();
    assert_eq!(text.lines().count(), 5 + 3);

    let out = grove(dir.path(), &root, &["list", "--all", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = json(&out);
    let paths: Vec<PathBuf> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| decode_path(&s["path"]))
        .collect();
    assert_eq!(paths.len(), 2, "{listed}");
    assert!(paths.contains(&bad));

    for args in [
        &["show", "sess-bad"][..],
        &["tree", "sess-bad"],
        &["list", "--all"],
    ] {
        let out = grove(dir.path(), &root, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let out = grove(dir.path(), &root, &["fork", "sess-bad", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fork = decode_path(&json(&out)["path"]);
    assert!(fork.exists() && fork.parent() == Some(folder.as_path()));
    fs::remove_file(&fork).unwrap();

    let out = grove(dir.path(), &root, &["rm", "--yes", "sess-bad", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let trashed = json(&out)["trashed"].clone();
    assert_eq!(
        decode_path(&trashed[0]),
        fs::canonicalize(&folder)
            .unwrap()
            .join(bad.file_name().unwrap())
    );
    assert!(!bad.exists());
}

fn dev_full() -> Stdio {
    Stdio::from(
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap(),
    )
}

#[test]
fn a_write_whose_report_cannot_be_printed_says_it_is_done_and_exits_3() {
    let (dir, root, folder) = session_root();
    let path = write_file(&folder, "s.jsonl", small_session("sess-full", "/w"));
    let lines = || fs::read_to_string(&path).unwrap().lines().count();
    for (args, added) in [
        (&["rename", "sess-full", "new", "--json"][..], 1),
        (&["label", "sess-full", "m0000001", "l", "--json"], 1),
        (&["checkout", "sess-full", "m0000001", "--json"], 1),
    ] {
        let before = lines();
        let out = grove_cmd(dir.path())
            .arg("--session-dir")
            .arg(&root)
            .args(args)
            .stdout(dev_full())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.contains("The change is made: do not run the command again"),
            "{err}"
        );
        assert!(err.contains("No space left on device"), "{err}");
        assert_eq!(lines(), before + added, "{args:?}");
    }
    // A failed write is status 1, and nothing was written.
    let before = lines();
    let out = grove_cmd(dir.path())
        .arg("--session-dir")
        .arg(&root)
        .args(["label", "sess-full", "nosuchentry", "l", "--json"])
        .stdout(dev_full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(lines(), before);
    // Fork and export -o: the new file exists, the status says so.
    let export = dir.path().join("e.md");
    for args in [
        vec!["fork".to_string(), "sess-full".into(), "--json".into()],
        vec![
            "export".into(),
            "sess-full".into(),
            "-o".into(),
            export.to_string_lossy().into_owned(),
            "--json".into(),
        ],
    ] {
        let out = grove_cmd(dir.path())
            .arg("--session-dir")
            .arg(&root)
            .args(&args)
            .stdout(dev_full())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
    }
    assert!(export.exists());
    assert_eq!(
        fs::read_dir(&folder).unwrap().count(),
        2,
        "the fork is there"
    );
}

#[test]
fn show_escapes_a_newline_in_a_path() {
    let (dir, root, folder) = session_root();
    let path = write_file(&folder, "a\nb.jsonl", small_session("sess-nl", "/w"));
    let out = grove(dir.path(), &root, &["show", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("a^Jb.jsonl"), "{text}");
    assert!(!text.contains("a b.jsonl"), "{text}");
}

#[test]
fn label_through_a_link_to_a_non_session_file_says_why() {
    let (dir, root, folder) = session_root();
    let notes = write_file(dir.path(), "notes.txt", "just some notes\n");
    let link = folder.join("link.jsonl");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    let out = grove(
        dir.path(),
        &root,
        &["label", link.to_str().unwrap(), "abc", "x", "--json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("a link to"), "{err}");
    assert!(err.contains("not a session file"), "{err}");
    assert!(!err.contains("no entry"), "{err}");
    assert_eq!(fs::read_to_string(&notes).unwrap(), "just some notes\n");
}

#[test]
fn cache_clear_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    fs::create_dir_all(&cache).unwrap();
    // The cache folder is a file: removing it as a folder fails.
    fs::write(cache.join("grove"), "not a folder").unwrap();
    let out = grove_cmd(dir.path())
        .args(["cache", "clear", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains(cache.join("grove").to_str().unwrap()), "{err}");
}

#[test]
fn a_relative_xdg_data_home_is_explained_and_nothing_is_deleted() {
    let (dir, root, folder) = session_root();
    let path = write_file(&folder, "s.jsonl", small_session("sess-rel", "/w"));
    let out = grove_cmd(dir.path())
        .env("XDG_DATA_HOME", "relative/data")
        .arg("--session-dir")
        .arg(&root)
        .args(["rm", "--yes", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("XDG_DATA_HOME is a relative path"), "{err}");
    assert!(err.contains("relative/data"), "{err}");
    assert!(
        !err.contains("cannot resolve \n") && !err.trim_end().ends_with("cannot resolve"),
        "{err}"
    );
    assert!(path.exists());
}
