//! Issue 13, "a first run that explains itself; a CLI for people": `grove list`'s header,
//! folder column and unique id prefixes; the errors that say where grove looked (a
//! `--session-dir` that is not a folder is a usage error, exit 2, for the CLI and the browser);
//! sentences unless `--json`; `export --force`; writes that would change nothing write nothing;
//! help texts; counts in words; `--demo` from a binary that has no source tree beside it.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("invalid JSON ({e}): {}\n{}", stdout(out), stderr(out)))
}

/// Twelve sessions whose ids share their first 8 hex digits (and more), as pi's time-ordered
/// ids do for sessions made close together.
fn close_ids(folder: &Path) -> Vec<String> {
    (1..=12)
        .map(|i| {
            let id = format!("d1000000-0000-4000-8000-0000000000{i:02}");
            write_file(folder, &format!("{id}.jsonl"), small_session(&id, "/work"));
            id
        })
        .collect()
}

#[test]
fn list_has_a_header_a_folder_column_and_prefixes_that_resolve() {
    let (dir, root, folder) = session_root();
    let ids = close_ids(&folder);
    write_file(
        &folder,
        "other.jsonl",
        small_session("a7777777-aaaa", "/elsewhere/app"),
    );
    let out = grove(dir.path(), &root, &["--no-cache", "list", "--all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    for column in ["ID", "MSGS", "LAST ACTIVITY", "FOLDER", "TITLE"] {
        assert!(header.contains(column), "{header}");
    }
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 13, "{text}");
    let prefixes: Vec<&str> = rows
        .iter()
        .map(|r| r.split_whitespace().next().unwrap())
        .collect();
    let mut unique = prefixes.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 13, "prefixes are not unique: {prefixes:?}");
    // The lone id is abbreviated to 8 characters, as git does.
    assert!(prefixes.contains(&"a7777777"), "{prefixes:?}");
    assert!(rows.iter().any(|r| r.contains("/elsewhere/app")), "{text}");
    assert!(rows.iter().any(|r| r.contains("/work ")), "{text}");
    // Every printed prefix names its session.
    for p in &prefixes {
        let out = grove(dir.path(), &root, &["--no-cache", "show", p, "--json"]);
        assert!(out.status.success(), "{p}: {}", stderr(&out));
        let id = json(&out)["id"].as_str().unwrap().to_owned();
        assert!(id.starts_with(p), "{p} resolved to {id}");
        assert!(ids.contains(&id) || id == "a7777777-aaaa");
    }
    // JSON has no header line.
    let out = grove(
        dir.path(),
        &root,
        &["--no-cache", "list", "--all", "--json"],
    );
    assert_eq!(json(&out).as_array().unwrap().len(), 13);
}

#[test]
fn a_session_dir_that_is_not_a_folder_is_a_usage_error_for_the_cli_and_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.jsonl");
    fs::write(&file, small_session("s", "/w")).unwrap();
    let missing = dir.path().join("no-such-folder");
    for (bad, why) in [(&missing, "no such folder"), (&file, "not a folder")] {
        for args in [&["list"][..], &["show", "x"], &[]] {
            let out = grove_cmd(dir.path())
                .arg("--session-dir")
                .arg(bad)
                .args(args)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).is_empty());
        }
    }
}

#[test]
fn a_session_dir_with_a_name_that_is_not_utf8_is_a_folder_like_any_other() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let odd = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9-sessions"));
    fs::create_dir_all(odd.join("--w--")).unwrap();
    write_file(
        &odd.join("--w--"),
        "s.jsonl",
        small_session("sess-odd", "/w"),
    );
    let out = grove(dir.path(), &odd, &["--no-cache", "list", "--all", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)[0]["id"], "sess-odd");
}

#[test]
fn an_empty_list_and_a_missing_session_say_where_grove_looked() {
    let dir = tempfile::tempdir().unwrap();
    // The default roots, in a sandbox where neither agent has sessions.
    let out = grove_cmd(dir.path())
        .current_dir(dir.path())
        .arg("list")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("No sessions for"), "{text}");
    assert!(
        text.contains("~/.pi/agent/sessions (pi, not there)"),
        "{text}"
    );
    assert!(
        text.contains("~/.atomic/agent/sessions (Atomic, not there)"),
        "{text}"
    );
    assert!(
        text.contains("--demo") && text.contains("--session-dir"),
        "{text}"
    );

    // JSON stays an empty array; the explanation goes to stderr.
    let out = grove_cmd(dir.path())
        .args(["list", "--all", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out), serde_json::json!([]));
    assert!(stderr(&out).contains("--demo"), "{}", stderr(&out));

    // Sessions elsewhere: say so rather than suggesting the demo.
    let (dir, root, folder) = session_root();
    write_file(
        &folder,
        "s.jsonl",
        small_session("sess-elsewhere", "/far/away"),
    );
    let out = grove_cmd(dir.path())
        .current_dir(dir.path())
        .arg("--session-dir")
        .arg(&root)
        .arg("list")
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("1 session in other folders: `grove list --all`"),
        "{}",
        stdout(&out)
    );

    let out = grove(dir.path(), &root, &["show", "nothing-like-it"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no session matches nothing-like-it"), "{err}");
    assert!(
        err.contains(&format!("looked in: {}", root.display())),
        "{err}"
    );
}

#[test]
fn writes_that_would_change_nothing_write_nothing_and_say_so() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "s.jsonl", small_session("sess-noop", "/w"));
    let before = fs::read(&s).unwrap();
    // The leaf is m0000003 (an assistant message).
    for args in [
        &["checkout", "sess-noop", "m0000003"][..],
        &["label", "sess-noop", "m0000001", "--clear"],
        &["label", "sess-noop", "m0000001", "   "],
    ] {
        let out = grove(dir.path(), &root, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(
            stdout(&out).starts_with("Nothing written: "),
            "{}",
            stdout(&out)
        );
        assert_eq!(fs::read(&s).unwrap(), before, "{args:?} wrote");
    }
    let mut args = vec!["checkout", "sess-noop", "m0000003", "--json"];
    let out = grove(dir.path(), &root, &args);
    assert_eq!(json(&out)["written"], false);
    assert_eq!(fs::read(&s).unwrap(), before);

    // A real check-out writes; repeating it (or a user message resuming at the same parent,
    // or labelling then clearing) does not write twice.
    args = vec!["checkout", "sess-noop", "m0000001"];
    let out = grove(dir.path(), &root, &args);
    assert!(
        stdout(&out).contains("now resumes from entry m0000001"),
        "{}",
        stdout(&out)
    );
    let after_checkout = fs::read(&s).unwrap();
    assert!(after_checkout.len() > before.len());
    for again in ["m0000001", "m0000002"] {
        let out = grove(dir.path(), &root, &["checkout", "sess-noop", again]);
        assert!(
            stdout(&out).starts_with("Nothing written: "),
            "{again}: {}",
            stdout(&out)
        );
        assert_eq!(fs::read(&s).unwrap(), after_checkout, "{again}");
    }
    let out = grove(
        dir.path(),
        &root,
        &["label", "sess-noop", "m0000001", "here"],
    );
    assert!(
        stdout(&out).contains("Labelled entry m0000001 \"here\""),
        "{}",
        stdout(&out)
    );
    let out = grove(
        dir.path(),
        &root,
        &["label", "sess-noop", "m0000001", "--clear"],
    );
    assert!(
        stdout(&out).contains("Removed the label"),
        "{}",
        stdout(&out)
    );
    let cleared = fs::read(&s).unwrap();
    let out = grove(
        dir.path(),
        &root,
        &["label", "sess-noop", "m0000001", "--clear"],
    );
    assert!(
        stdout(&out).starts_with("Nothing written: "),
        "{}",
        stdout(&out)
    );
    assert_eq!(fs::read(&s).unwrap(), cleared);
}

#[test]
fn write_commands_print_a_sentence_unless_json() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "s.jsonl", small_session("sess-say", "/w"));
    let out = grove(dir.path(), &root, &["rename", "sess-say", "my name"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Named "), "{}", stdout(&out));
    assert!(stdout(&out).contains("\"my name\""));
    let out = grove(
        dir.path(),
        &root,
        &["rename", "sess-say", "other", "--json"],
    );
    assert!(json(&out)["id"].is_string());
    let out = grove(dir.path(), &root, &["fork", "sess-say"]);
    assert!(stdout(&out).starts_with("Forked "), "{}", stdout(&out));
    let out = grove(dir.path(), &root, &["rm", "--yes", s.to_str().unwrap()]);
    let said = stdout(&out);
    assert!(said.starts_with("Moved "), "{said}");
    assert!(said.contains("To undo: grove trash restore '"), "{said}");
    let out = grove(dir.path(), &root, &["cache", "clear"]);
    assert!(stdout(&out).ends_with(".\n"), "{}", stdout(&out));
}

#[test]
fn export_refuses_to_overwrite_unless_force_and_never_a_session_file() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "s.jsonl", small_session("sess-exp", "/w"));
    let session_before = fs::read(&s).unwrap();
    let target = dir.path().join("out.md");
    fs::write(&target, "keep me").unwrap();
    let t = target.to_str().unwrap();

    let out = grove(dir.path(), &root, &["export", "sess-exp", "-o", t]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(fs::read(&target).unwrap(), b"keep me");

    let out = grove(
        dir.path(),
        &root,
        &["export", "sess-exp", "-o", t, "--force"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Replaced "), "{}", stdout(&out));
    let written = fs::read_to_string(&target).unwrap();
    assert!(written.contains("message 1"), "{written}");

    let out = grove(
        dir.path(),
        &root,
        &["export", "sess-exp", "-o", t, "--force", "--json"],
    );
    assert_eq!(json(&out)["replaced"], true);

    // --force never replaces a session file (not even the one exported).
    let out = grove(
        dir.path(),
        &root,
        &[
            "export",
            "sess-exp",
            "-o",
            s.to_str().unwrap(),
            "--force",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("session file"), "{}", stderr(&out));
    assert_eq!(fs::read(&s).unwrap(), session_before);

    // --force without -o is a usage error.
    let out = grove(dir.path(), &root, &["export", "sess-exp", "--force"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_says_what_every_option_does_and_that_no_command_opens_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let out = grove_cmd(dir.path()).arg("--help").output().unwrap();
    let top = stdout(&out);
    assert!(
        top.contains("Without a command, grove opens the browser"),
        "{top}"
    );
    assert!(top.contains("No command opens\nthe browser"), "{top}");
    assert!(top.contains("Examples:"), "{top}");
    for sub in ["list", "show", "label", "rm", "export", "trash"] {
        let out = grove_cmd(dir.path())
            .args([sub, "--help"])
            .output()
            .unwrap();
        let text = stdout(&out);
        assert!(text.contains("Examples:"), "{sub}: {text}");
        assert!(sub == "trash" || text.contains("--json"), "{sub}: {text}");
    }
}

#[test]
fn counts_are_in_words_and_v1_sessions_have_one_branch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let folder = root.join("--legacy--");
    fs::create_dir_all(&folder).unwrap();
    let v1 = concat!(
        r#"{"type":"session","version":1,"id":"v1-session","timestamp":"2024-11-03T08:00:00.000Z","cwd":"/l"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2024-11-03T08:00:01.000Z","message":{"role":"user","content":"only one","timestamp":1730620801000}}"#,
        "\n"
    );
    fs::write(folder.join("v1.jsonl"), v1).unwrap();
    let out = grove(
        dir.path(),
        &root,
        &["--no-cache", "list", "--all", "--json"],
    );
    assert_eq!(json(&out)[0]["leafCount"], 1, "{}", stdout(&out));
    let out = grove(dir.path(), &root, &["show", "v1-session"]);
    let text = stdout(&out);
    assert!(
        text.contains("1 message · 1 entry · 1 branch · 0 labels"),
        "{text}"
    );
    assert!(text.contains("first message: only one"), "{text}");
    assert!(
        text.contains("last activity: 2024-11-03T08:00:01.000Z"),
        "{text}"
    );
    let out = grove(dir.path(), &root, &["show", "v1-session", "--json"]);
    assert_eq!(json(&out)["leafCount"], 1);
    assert_eq!(json(&out)["firstMessage"], "only one");
}

#[test]
fn show_lists_labels_as_text() {
    let (dir, root, folder) = session_root();
    write_file(&folder, "s.jsonl", small_session("sess-lab", "/w"));
    grove(
        dir.path(),
        &root,
        &["label", "sess-lab", "m0000001", "the answer"],
    );
    let out = grove(dir.path(), &root, &["show", "sess-lab"]);
    let text = stdout(&out);
    assert!(text.contains("labels: m0000001  the answer"), "{text}");
    assert!(
        text.contains("4 messages · 5 entries · 1 branch · 1 label"),
        "{text}"
    );
}

/// The demo from a copy of the binary run in another folder: its sessions are embedded, not
/// read from the source tree. Where a mount namespace can be made (root, as in CI), the
/// source tree's `assets/` is also hidden from the process, as after `cargo install` with the
/// checkout removed.
#[test]
fn the_demo_works_from_a_binary_without_its_source_tree() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin").join("grove");
    fs::create_dir_all(bin.parent().unwrap()).unwrap();
    fs::copy(grove_bin(), &bin).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let check = |out: std::process::Output, how: &str| {
        assert!(out.status.success(), "{how}: {}", stderr(&out));
        let listed = json(&out);
        let rows = listed.as_array().unwrap();
        assert!(rows.len() >= 15, "{how}: {listed}");
        for r in rows {
            let p = r["path"].as_str().unwrap();
            assert!(!p.starts_with(assets.to_str().unwrap()), "{how}: {p}");
        }
    };
    let mut plain = Command::new(&bin);
    isolate(&mut plain, dir.path());
    plain
        .current_dir(&elsewhere)
        .args(["--demo", "list", "--all", "--json"]);
    check(plain.output().unwrap(), "copied binary");

    let hidden = format!(
        "mount -t tmpfs tmpfs '{}' && test ! -e '{}/demo' && exec '{}' --demo list --all --json",
        assets.display(),
        assets.display(),
        bin.display()
    );
    let mut ns = Command::new("unshare");
    isolate(&mut ns, dir.path());
    ns.current_dir(&elsewhere)
        .args(["--mount", "sh", "-c", &hidden]);
    match ns.output() {
        Ok(out) if out.status.success() => check(out, "source tree hidden"),
        other => {
            let why = match other {
                Ok(out) => stderr(&out),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none_or(|v| v != "true"),
                "CI=true: cannot hide the source tree (unshare --mount): {why}"
            );
            eprintln!("note: the source tree could not be hidden ({why}); checked the copy only");
        }
    }
}
