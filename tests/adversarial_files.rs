//! Adversarial session files, each through the library and the CLI: a clear message, no panic,
//! no hang, and the neighbouring sessions still list.

mod common;

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

#[test]
fn parent_cycle_of_two() {
    let c = case(
        "cycle2.jsonl",
        with_header(vec![
            entry("root0000", None),
            entry("aaaaaaaa", Some("bbbbbbbb")),
            entry("bbbbbbbb", Some("aaaaaaaa")),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert!(tree_issue_mentions(&s, "cycle"));
    assert_note(&all_views(&c), "cycle");
    neighbour_still_lists(&c);
}

#[test]
fn parent_cycle_of_a_thousand() {
    let n = 1000;
    let lines: Vec<String> = (0..n)
        .map(|i| entry(&format!("c{i:07}"), Some(&format!("c{:07}", (i + 1) % n))))
        .collect();
    let c = case("cycle1000.jsonl", with_header(lines));
    let s = lib_views(&c.path).unwrap();
    assert!(tree_issue_mentions(&s, "cycle"));
    assert_eq!(s.tree.roots.len(), 1);
    assert_note(&all_views(&c), "cycle");
    neighbour_still_lists(&c);
}

#[test]
fn duplicate_ids() {
    let c = case(
        "dup.jsonl",
        with_header(vec![
            entry("aaaaaaaa", None),
            entry("bbbbbbbb", Some("aaaaaaaa")),
            entry("aaaaaaaa", Some("bbbbbbbb")),
            entry("cccccccc", Some("aaaaaaaa")),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert!(tree_issue_mentions(&s, "duplicate"));
    assert_note(&all_views(&c), "duplicate");
    neighbour_still_lists(&c);
}

#[test]
fn entry_that_is_its_own_parent() {
    let c = case(
        "self.jsonl",
        with_header(vec![
            entry("aaaaaaaa", None),
            entry("ssssssss", Some("ssssssss")),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert_eq!(s.tree.roots.len(), 2);
    for (what, out) in all_views(&c) {
        assert!(out.status.success(), "{what}: {}", stderr(&out));
    }
    let out = cli(&c, &["context", c.path.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), 1);
    neighbour_still_lists(&c);
}

#[test]
fn chain_200k_deep() {
    let n = 200_000;
    let c = case("deep.jsonl", {
        let mut s = header("deep", "/w");
        s.push('\n');
        let mut parent: Option<String> = None;
        for i in 0..n {
            let id = format!("{i:08x}");
            s.push_str(&format!(
                "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{},\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"m{i}\"}}}}\n",
                parent.as_ref().map_or("null".to_string(), |p| format!("\"{p}\""))
            ));
            parent = Some(id);
        }
        s
    });
    let s = lib_views(&c.path).unwrap();
    assert_eq!(s.tree.path_to(n - 1).len(), n);
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    assert_eq!(ctx.messages.len(), n);
    let p = c.path.to_str().unwrap();
    let out = cli(&c, &["context", p, "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), n);
    let out = cli(&c, &["tree", p, "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["nodes"].as_array().unwrap().len(), n);
    let out = cli(&c, &["tree", p]);
    assert_eq!(stdout(&out).lines().count(), n);
}

/// A comb: every entry on the spine has a side branch, so a naive indented tree would print
/// quadratic whitespace.
#[test]
fn deep_forks_keep_tree_output_linear() {
    let n = 20_000;
    let mut lines = Vec::new();
    for i in 0..n {
        let parent = (i > 0).then(|| format!("s{:07}", i - 1));
        lines.push(entry(&format!("s{i:07}"), parent.as_deref()));
        if i > 0 {
            lines.push(entry(&format!("b{i:07}"), parent.as_deref()));
        }
    }
    let c = case("comb.jsonl", with_header(lines));
    let out = cli(&c, &["tree", c.path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        out.stdout.len() < 200 * (2 * n),
        "tree output is {} bytes",
        out.stdout.len()
    );
}

fn huge_line_session(dir: &Path, mb: usize) -> PathBuf {
    let path = dir.join("huge.jsonl");
    let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    use std::io::Write;
    writeln!(f, "{}", header("huge", "/w")).unwrap();
    write!(
        f,
        "{{\"type\":\"message\",\"id\":\"hhhhhhhh\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\""
    )
    .unwrap();
    let chunk = "0123456789abcdef".repeat(64 * 1024); // 1 MiB
    for _ in 0..mb {
        f.write_all(chunk.as_bytes()).unwrap();
    }
    writeln!(f, "\"}}}}").unwrap();
    writeln!(f, "{}", entry("after000", Some("hhhhhhhh"))).unwrap();
    f.flush().unwrap();
    path
}

/// Peak resident memory of a child in KiB, via GNU time, when available.
fn peak_rss_kib(cmd: Command) -> Option<(Output, u64)> {
    if !Path::new("/usr/bin/time").exists() {
        return None;
    }
    let prog = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let mut t = Command::new("/usr/bin/time");
    t.arg("-f").arg("GROVE_PEAK_RSS=%M").arg(prog).args(args);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => t.env(k, v),
            None => t.env_remove(k),
        };
    }
    let out = output_within(t, 300, "huge line");
    let text = stderr(&out);
    let kib = text
        .lines()
        .find_map(|l| l.strip_prefix("GROVE_PEAK_RSS="))?
        .trim()
        .parse()
        .ok()?;
    Some((out, kib))
}

fn huge_line(mb: usize) {
    let (dir, root, folder) = session_root();
    let path = huge_line_session(&folder, mb);
    write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    let s = load_session(&path).unwrap();
    assert_eq!(s.entries().len(), 2);
    drop(s);
    let info = scan_info(&path, None).unwrap();
    assert_eq!(info.message_count, 2);
    let c = Case {
        dir,
        root,
        path: path.clone(),
    };
    for args in [
        vec!["show", path.to_str().unwrap()],
        vec!["context", path.to_str().unwrap()],
    ] {
        let out = cli(&c, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(out.stdout.len() < 64 * 1024, "printed the whole line");
    }
    neighbour_still_lists(&c);
    let mut cmd = grove_cmd(c.dir.path());
    cmd.arg("--session-dir")
        .arg(&c.root)
        .args(["context", path.to_str().unwrap()]);
    if let Some((out, kib)) = peak_rss_kib(cmd) {
        assert!(out.status.success(), "{}", stderr(&out));
        let mib = kib / 1024;
        eprintln!("peak RSS for `context` on a {mb} MiB line: {mib} MiB");
        // The line is held a few times (bytes, parsed string, context copy); never unbounded.
        assert!(mib < (mb as u64) * 6 + 64, "{mib} MiB for a {mb} MiB line");
    }
}

#[test]
fn single_20mb_line() {
    huge_line(20);
}

/// Nearly the 64 MiB line cap (`tests/bounded_lines.rs` covers lines past it); slow in debug
/// builds, run with `cargo test -- --ignored`.
#[test]
#[ignore]
fn single_60mb_line() {
    huge_line(60);
}

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
