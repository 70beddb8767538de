//! Files that are empty, headless, not JSON, not UTF-8, not regular, or change underfoot.

use super::*;

#[test]
fn zero_byte_file() {
    let c = case("empty.jsonl", "");
    let e = scan_info(&c.path, None).unwrap_err();
    assert!(matches!(e, ReadError::NoHeader { .. }), "{e:?}");
    lib_views(&c.path).unwrap();
    for (what, out) in all_views(&c) {
        assert!(!out.status.success(), "{what}");
        assert!(
            stderr(&out).contains("no session header"),
            "{what}: {}",
            stderr(&out)
        );
    }
    let out = neighbour_still_lists(&c);
    assert!(stderr(&out).contains("empty.jsonl"), "{}", stderr(&out));
    let e = append_entry(&c.path, NewEntry::Rename { name: "x".into() }).unwrap_err();
    assert!(matches!(e, WriteError::NoHeader { .. }), "{e:?}");
    assert_eq!(fs::read(&c.path).unwrap().len(), 0);
}

#[test]
fn header_only_file() {
    let c = case("header.jsonl", format!("{}\n", header("hdr-only", "/w")));
    let s = lib_views(&c.path).unwrap();
    assert!(s.entries().is_empty());
    for (what, out) in all_views(&c) {
        assert!(out.status.success(), "{what}: {}", stderr(&out));
    }
    let out = cli(&c, &["context", c.path.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["messages"], Value::Array(vec![]));
    let out = cli(
        &c,
        &["label", c.path.to_str().unwrap(), "nope", "x", "--json"],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no entry"), "{}", stderr(&out));
    neighbour_still_lists(&c);
}

fn no_header_case(name: &str, content: &[u8]) {
    let c = case(name, content);
    let before = fs::read(&c.path).unwrap();
    let s = lib_views(&c.path).unwrap();
    assert!(s.parsed.header.is_none());
    assert!(s.issues().any(|i| i.kind == IssueKind::NoHeader));
    assert!(matches!(
        scan_info(&c.path, None),
        Err(ReadError::NoHeader { .. })
    ));
    for (what, out) in all_views(&c) {
        assert!(!out.status.success(), "{what}");
        assert!(
            stderr(&out).contains("no session header"),
            "{what}: {}",
            stderr(&out)
        );
    }
    let out = cli(&c, &["rename", c.path.to_str().unwrap(), "x", "--json"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no header"), "{}", stderr(&out));
    let out = neighbour_still_lists(&c);
    assert!(stderr(&out).contains(name), "{}", stderr(&out));
    assert_eq!(fs::read(&c.path).unwrap(), before);
}

#[test]
fn header_not_on_the_first_line() {
    let content = jsonl(&[entry("aaaaaaaa", None), header("late", "/w")]);
    no_header_case("late.jsonl", content.as_bytes());
}

#[test]
fn not_json_at_all() {
    no_header_case(
        "text.jsonl",
        b"hello\nthis is a text file\n\x00\x01\x02 binary\n",
    );
    // A non-session JSON file (pi once truncated such a file it was pointed at).
    no_header_case(
        "package.jsonl",
        b"{\"name\":\"pkg\",\"version\":\"1.0.0\"}\n",
    );
}

#[test]
fn invalid_utf8() {
    let mut content = format!("{}\n", header("utf8", "/w")).into_bytes();
    content.extend_from_slice(
        b"{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe bytes \xc3\"}}\n",
    );
    let c = case("utf8.jsonl", &content);
    let s = lib_views(&c.path).unwrap();
    assert_eq!(s.entries().len(), 1);
    assert!(s.issues().any(|i| i.kind == IssueKind::Repaired));
    let views = all_views(&c);
    assert_note(&views, "U+FFFD");
    let out = cli(&c, &["context", c.path.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("bad \u{fffd}\u{fffd} bytes"),
        "{}",
        stdout(&out)
    );
    neighbour_still_lists(&c);
}

#[test]
fn lone_surrogate_escapes() {
    let c = case(
        "surrogate.jsonl",
        with_header(vec![
            r#"{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi \ud83d there \udc00 \ud83d\ude00"}}"#.into(),
            r#"{"type":"session_info","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2025-01-01T00:00:02.000Z","name":"\udfff name"}"#.into(),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert_eq!(s.entries().len(), 2);
    assert_eq!(s.tree.name.name.as_deref(), Some("\u{fffd} name"));
    assert_note(&all_views(&c), "U+FFFD");
    let out = neighbour_still_lists(&c);
    assert!(stdout(&out).contains("\u{fffd} name"));
}

#[test]
fn jsonl_that_is_a_directory() {
    let (dir, root, folder) = session_root();
    write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    let path = folder.join("dir.jsonl");
    fs::create_dir(&path).unwrap();
    let c = Case { dir, root, path };
    assert!(matches!(
        load_session(&c.path),
        Err(ReadError::NotAFile { .. })
    ));
    for (what, out) in all_views(&c) {
        assert!(!out.status.success(), "{what}");
        assert!(
            stderr(&out).contains("not a regular file"),
            "{what}: {}",
            stderr(&out)
        );
    }
    let out = neighbour_still_lists(&c);
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    let out = cli(
        &c,
        &[
            "rm",
            "--yes",
            "--permanent",
            c.path.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(!out.status.success());
    assert!(c.path.is_dir());
}

#[cfg(unix)]
#[test]
fn jsonl_that_is_a_fifo_never_blocks() {
    let (dir, root, folder) = session_root();
    write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    let path = folder.join("pipe.jsonl");
    let made = Command::new("mkfifo").arg(&path).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("NOTICE: mkfifo unavailable; FIFO check skipped");
        return;
    }
    let c = Case { dir, root, path };
    // The library refuses before opening (opening a FIFO for reading blocks).
    assert!(matches!(
        load_session(&c.path),
        Err(ReadError::NotAFile { .. })
    ));
    let (found, skipped) = find_session_files(&roots(&c));
    assert_eq!(found.len(), 1);
    assert!(skipped.iter().any(|s| s.path == c.path));
    // Each CLI run has a deadline: blocking on the FIFO fails the test.
    for (what, out) in all_views(&c) {
        assert!(!out.status.success(), "{what}");
        assert!(
            stderr(&out).contains("not a regular file"),
            "{what}: {}",
            stderr(&out)
        );
    }
    let out = cli(&c, &["rename", c.path.to_str().unwrap(), "x", "--json"]);
    assert!(!out.status.success());
    let out = neighbour_still_lists(&c);
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
}

#[test]
fn file_disappearing_between_listing_and_opening() {
    let (dir, root, folder) = session_root();
    write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    let path = write_file(&folder, "gone.jsonl", small_session("gone", "/w"));
    let c = Case { dir, root, path };
    let (found, _) = find_session_files(&roots(&c));
    assert_eq!(found.len(), 2);
    fs::remove_file(&c.path).unwrap();
    for f in &found {
        match scan_info(&f.path, f.agent) {
            Ok(info) => assert_eq!(info.id, "good-neighbour"),
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains("gone.jsonl"), "{text}");
                assert!(text.contains("No such file"), "{text}");
            }
        }
    }
    let e = load_session(&c.path).unwrap_err();
    assert!(e.to_string().contains("No such file"), "{e}");
    let listing = list_sessions(&roots(&c));
    assert_eq!(listing.sessions.len(), 1);
    let out = cli(&c, &["show", c.path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no such file"), "{}", stderr(&out));
}

#[test]
fn file_shrinking_between_listing_and_opening() {
    let (dir, root, folder) = session_root();
    let content = small_session("shrinks", "/w");
    let path = write_file(&folder, "shrink.jsonl", &content);
    let c = Case { dir, root, path };
    let listed = scan_info(&c.path, None).unwrap();
    assert_eq!(listed.message_count, 4);
    // Truncated mid-line (a rewrite in progress, or a crash).
    let cut = content.len() * 2 / 3;
    let f = fs::OpenOptions::new().write(true).open(&c.path).unwrap();
    f.set_len(cut as u64).unwrap();
    drop(f);
    let s = lib_views(&c.path).unwrap();
    assert!(s.entries().len() < 4);
    assert!(s.issues().any(|i| i.kind == IssueKind::TornLastLine));
    let before = fs::read(&c.path).unwrap();
    let e = append_entry(&c.path, NewEntry::Rename { name: "x".into() }).unwrap_err();
    assert!(matches!(e, WriteError::TornLastLine { .. }), "{e:?}");
    assert_eq!(fs::read(&c.path).unwrap(), before);
    assert_note(&all_views(&c), "incomplete");
    // Truncated to nothing.
    fs::write(&c.path, "").unwrap();
    assert!(matches!(
        scan_info(&c.path, None),
        Err(ReadError::NoHeader { .. })
    ));
}

#[cfg(unix)]
#[test]
fn unreadable_file() {
    let dir = tempfile::tempdir().unwrap();
    open_up(dir.path(), 0o755);
    let root = dir.path().join("sessions");
    let folder = root.join("--w--");
    fs::create_dir_all(&folder).unwrap();
    open_up(&root, 0o755);
    open_up(&folder, 0o755);
    let good = write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    chmod(&good, 0o644);
    let path = write_file(&folder, "secret.jsonl", small_session("secret", "/w"));
    chmod(&path, 0o000);
    let sandbox = dir.path().join("sandbox");
    fs::create_dir(&sandbox).unwrap();
    open_up(&sandbox, 0o777);

    let run = |args: &[&str]| -> Option<Output> {
        let mut cmd = if fs::File::open(&path).is_ok() {
            as_unprivileged(&grove_bin())?
        } else {
            Command::new(grove_bin())
        };
        isolate(&mut cmd, &sandbox);
        for d in ["home", "data", "cache"] {
            open_up(&sandbox.join(d), 0o777);
        }
        cmd.arg("--session-dir").arg(&root).args(args);
        let out = output_within(cmd, 60, "unreadable");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        assert_inert("unreadable", &out.stderr);
        Some(out)
    };
    let Some(out) = run(&["list", "--all", "--json"]) else {
        eprintln!("NOTICE: root without setpriv; unreadable-file check skipped");
        return;
    };
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("good-neighbour"));
    assert!(stderr(&out).contains("secret.jsonl"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    let out = run(&["show", path.to_str().unwrap()]).unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    let out = run(&["rename", path.to_str().unwrap(), "x", "--json"]).unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    chmod(&path, 0o644);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        small_session("secret", "/w")
    );
}
