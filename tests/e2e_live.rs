//! End to end, live lists: the real binary in tmux while this process (another writer, as an
//! agent would be) appends to a session, creates one and deletes one. The open picker shows
//! the new count and age, the new session, and drops the deleted one, keeping the query and
//! the selection; the open session view shows the appended entry (`tail -f`). Also the polling
//! fallback (`GROVE_WATCH=poll`) and the refresh key with watching off.
//!
//! Needs tmux: under `CI=true` a missing tmux fails the test; elsewhere it is skipped with a
//! notice.

mod common;

use std::io::Write;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::tmux::{Tmux, quote, sandbox_env};

fn tmux_available() -> bool {
    common::tmux::tmux_available("the live end-to-end tests")
}

/// grove in tmux on `root/s` (one folder `--w--`), with HOME and the XDG folders under `root`.
struct Live {
    tmux: Tmux,
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Deref for Live {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.tmux
    }
}

impl Live {
    fn start(name: &str, watch: &str) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("s/--w--")).unwrap();
        let session = |name: &str| root.join(format!("s/--w--/{name}.jsonl"));
        write_session(
            &session("a"),
            "aaaa1111",
            &["alpha question", "alpha answer"],
        );
        write_session(
            &session("b"),
            "bbbb2222",
            &["bravo question", "bravo answer"],
        );
        let command = format!(
            "{env} GROVE_WATCH={watch} {bin} --session-dir {s} --all",
            env = sandbox_env(&root),
            bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
            s = quote(root.join("s")),
        );
        let tmux = Tmux::start(&format!("live-{name}"), 120, 30, &command)
            .with_timeout(Duration::from_secs(20));
        Live {
            tmux,
            _dir: dir,
            root,
        }
    }

    fn session(&self, name: &str) -> PathBuf {
        self.root.join(format!("s/--w--/{name}.jsonl"))
    }
}

/// A pi v3 session whose messages alternate user / assistant, an hour old.
fn write_session(path: &Path, id: &str, messages: &[&str]) {
    let mut text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-11-01T00:00:00.000Z\",\"cwd\":\"/w\"}}\n"
    );
    let mut parent = "null".to_owned();
    for (i, m) in messages.iter().enumerate() {
        let entry = format!("{}{i:04x}", &id[..4]);
        text.push_str(&message_line(
            &entry,
            &parent,
            i % 2 == 0,
            m,
            "2026-11-01T00:00:01.000Z",
        ));
        parent = format!("\"{entry}\"");
    }
    std::fs::write(path, text).unwrap();
}

fn message_line(id: &str, parent: &str, user: bool, text: &str, ts: &str) -> String {
    let (role, content) = if user {
        ("user", format!("\"{text}\""))
    } else {
        (
            "assistant",
            format!("[{{\"type\":\"text\",\"text\":\"{text}\"}}]"),
        )
    };
    format!(
        "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"{ts}\",\"message\":{{\"role\":\"{role}\",\"content\":{content}}}}}\n"
    )
}

/// Appends one message as an agent does: one line, one write, timestamped now.
fn append(path: &Path, id: &str, parent: &str, user: bool, text: &str) {
    let now = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let line = message_line(id, &format!("\"{parent}\""), user, text, &now);
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(line.as_bytes()).unwrap();
}

/// The list row of the session whose first message is `title`.
fn row<'a>(screen: &'a str, title: &str) -> Option<&'a str> {
    screen
        .lines()
        .find(|l| l.contains(title) && l.contains("/w"))
        .map(|l| l.split('│').next().unwrap_or(l))
}

fn picker_follows(watch: &str) {
    let t = Live::start(watch, watch);
    t.wait("both sessions", |s| {
        row(s, "alpha question").is_some() && row(s, "bravo question").is_some()
    });
    // A query that keeps both, and the selection on the second row.
    t.text("question");
    t.wait("the search", |s| s.contains("> question"));
    t.keys(&["Down"]);
    let s = t.wait("bravo selected", |s| {
        row(s, "bravo question").is_some_and(|r| r.contains('›'))
    });
    assert!(row(&s, "alpha question").unwrap().contains(" 2 "), "{s}");

    // Another process appends to a, moments after start (often in the second the file was
    // written in, which a poll comparing whole seconds missed): its row shows the new count
    // and age.
    append(
        &t.session("a"),
        "aaaa0002",
        "aaaa0001",
        true,
        "question three",
    );
    let s = t.wait("a's new count", |s| {
        row(s, "alpha question").is_some_and(|r| r.contains(" 3 now"))
    });
    assert!(
        row(&s, "bravo question").unwrap().contains('›'),
        "selection moved:\n{s}"
    );
    assert!(s.contains("> question"), "query lost:\n{s}");

    // A new session appears (it matches the query); a deleted one leaves.
    write_session(&t.session("c"), "cccc3333", &["charlie question"]);
    t.wait_for("charlie question");
    std::fs::remove_file(t.session("b")).unwrap();
    let s = t.wait("b to leave", |s| row(s, "bravo question").is_none());
    assert!(row(&s, "alpha question").is_some() && row(&s, "charlie question").is_some());
    assert!(s.contains("> question"), "query lost:\n{s}");
}

#[test]
fn the_picker_follows_appends_new_and_deleted_sessions() {
    if !tmux_available() {
        return;
    }
    picker_follows("notify");
}

/// The same where the roots are polled (network file systems, or no notifier).
#[test]
fn the_picker_follows_by_polling() {
    if !tmux_available() {
        return;
    }
    picker_follows("poll");
}

/// The open session view shows an appended entry, and follows the leaf it was on; closing it
/// shows the picker row up to date.
#[test]
fn the_view_follows_a_growing_session() {
    if !tmux_available() {
        return;
    }
    let t = Live::start("view", "notify");
    t.wait_for("alpha question");
    t.text("alpha");
    t.wait("the search", |s| s.contains("1/1"));
    t.keys(&["Enter"]);
    // Opened on the search hit (the first message): go to the leaf, the entry that follows.
    t.wait_for("Tree (");
    t.keys(&["End"]);
    t.wait_for("Tree (2/2)");
    append(
        &t.session("a"),
        "aaaa0002",
        "aaaa0001",
        true,
        "delta followup",
    );
    let s = t.wait("the appended entry", |s| {
        s.lines()
            .any(|l| l.contains('›') && l.contains("user: delta followup"))
    });
    assert!(s.contains("Tree (3/3)"), "{s}");
    t.keys(&["Escape"]);
    let s = t.wait("the picker", |s| s.contains("> alpha"));
    assert!(
        row(&s, "alpha question").is_some_and(|r| r.contains(" 3 now")),
        "{s}"
    );
}

/// With watching off, the refresh key reads the list again (and keeps the selection).
#[test]
fn the_refresh_key_reads_the_list_again() {
    if !tmux_available() {
        return;
    }
    let t = Live::start("key", "off");
    t.wait("both sessions", |s| {
        row(s, "alpha question").is_some() && row(s, "bravo question").is_some()
    });
    append(&t.session("b"), "bbbb0002", "bbbb0001", true, "bravo three");
    write_session(&t.session("c"), "cccc3333", &["charlie question"]);
    std::thread::sleep(Duration::from_millis(1500));
    let s = t.screen();
    assert!(!s.contains("charlie question"), "watching is off:\n{s}");
    t.keys(&["F5"]);
    let s = t.wait("the refresh", |s| {
        s.contains("charlie question")
            && row(s, "bravo question").is_some_and(|r| r.contains(" 3 now"))
    });
    assert!(s.contains("List refreshed"), "{s}");
    t.keys(&["C-l"]);
    t.wait_for("List refreshed");
}
