//! Issue 12, item 8: fork and export write new files whole or not at all. The bytes go to an
//! unnamed file in the destination folder (`O_TMPFILE`), are synced, and get their name only
//! when complete, never replacing a file; errors name the path; a failed or killed write
//! leaves nothing and does not block the next one.

mod common;
#[path = "hardening_support/mod.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;

/// A session of `n` messages of `text_len` bytes each.
fn big_session(id: &str, n: usize, text_len: usize) -> String {
    let text = "x".repeat(text_len);
    let mut lines = vec![header(id, "/w")];
    let mut parent: Option<String> = None;
    for i in 0..n {
        let mid = format!("m{i:07x}");
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        lines.push(message(&mid, parent.as_deref(), role, &text));
        parent = Some(mid);
    }
    jsonl(&lines)
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

fn sigterm(pid: u32) {
    // The shell's own `kill`: no procps needed.
    let _ = std::process::Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}")])
        .status();
}

#[test]
fn a_fork_killed_midway_leaves_no_partial_session() {
    let (dir, root, folder) = session_root();
    let source = write_file(&folder, "big.jsonl", big_session("sess-big", 6000, 4000));
    let source_len = fs::metadata(&source).unwrap().len();
    // Kill at the moment a new name appears in the folder (a file being filled under its
    // final name would be caught mid-write), and at a spread of fixed delays.
    for attempt in 0..8u64 {
        let mut child = grove_cmd(dir.path())
            .args(["fork", source.to_str().unwrap(), "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let delay = Duration::from_millis(40 * attempt);
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let appeared = entries(&folder).len() > 1;
            if appeared || (attempt > 0 && start.elapsed() >= delay) {
                sigterm(child.id());
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let _ = child.wait();
        for p in entries(&folder) {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                !name.contains("grove-tmp"),
                "a temporary file was left: {name}"
            );
            if p == source {
                continue;
            }
            // A fork that exists is complete: as long as the source (same entries, a new
            // header), ends with a newline, every line parses.
            let bytes = fs::read(&p).unwrap();
            assert!(
                bytes.ends_with(b"\n"),
                "attempt {attempt}: torn fork {name}"
            );
            assert!(
                bytes.len() as u64 > source_len - 1000,
                "attempt {attempt}: partial fork {name} ({} of ~{source_len} bytes)",
                bytes.len()
            );
            for l in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                serde_json::from_slice::<serde_json::Value>(l).unwrap();
            }
            fs::remove_file(&p).unwrap();
        }
    }
    // The listing shows no partial session.
    let out = grove(
        dir.path(),
        &root,
        &["--no-cache", "list", "--all", "--json"],
    );
    let listed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
}

#[test]
fn export_and_fork_on_a_full_file_system_leave_nothing_and_name_the_path() {
    let Some(fs_) = support::tmpfs("64k") else {
        return;
    };
    let mnt = fs_.path();
    let (dir, root, folder) = session_root();
    let big = write_file(&folder, "big.jsonl", big_session("sess-exp", 40, 4000));
    let target = mnt.join("out.md");
    let out = grove(
        dir.path(),
        &root,
        &[
            "export",
            big.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(target.to_str().unwrap()), "no path in: {err}");
    assert!(err.contains("No space left"), "{err}");
    assert!(entries(mnt).is_empty(), "left behind: {:?}", entries(mnt));
    // The failed export does not block the next one.
    let small = write_file(&folder, "small.jsonl", small_session("sess-small", "/w"));
    let out = grove(
        dir.path(),
        &root,
        &[
            "export",
            small.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read_to_string(&target).unwrap().contains("message 1"));
    // And never overwrites.
    let out = grove(
        dir.path(),
        &root,
        &[
            "export",
            small.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("exists"), "{}", stderr(&out));
    fs::remove_file(&target).unwrap();

    // A fork into a folder without room for it: the error names the fork's path.
    let sessions = mnt.join("--w--");
    fs::create_dir(&sessions).unwrap();
    let src = write_file(&sessions, "s.jsonl", big_session("sess-fork", 10, 4000));
    let out = grove(dir.path(), mnt, &["fork", src.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(sessions.to_str().unwrap()) && err.contains(".jsonl"),
        "{err}"
    );
    assert_eq!(entries(&sessions), vec![src]);
}

/// The browser's export (`e` in the session view) is written the same way: a full disk leaves
/// nothing new, and an overwrite the user confirmed leaves the old file intact on failure.
#[test]
fn the_views_export_on_a_full_file_system_leaves_nothing_and_keeps_an_old_file() {
    use grove::app::session_view::{ExportFailure, write_export};
    let Some(fs_) = support::tmpfs("64k") else {
        return;
    };
    let mnt = fs_.path();
    let big = "z".repeat(200_000);
    let e = write_export(&mnt.join("new.md"), &big, false).unwrap_err();
    assert!(
        matches!(&e, ExportFailure::Other(m) if m.contains("new.md")),
        "{e:?}"
    );
    assert!(entries(mnt).is_empty(), "{:?}", entries(mnt));
    let old = mnt.join("old.md");
    fs::write(&old, "the old export").unwrap();
    assert!(matches!(
        write_export(&old, "x", false),
        Err(ExportFailure::Exists(_))
    ));
    write_export(&old, &big, true).unwrap_err();
    assert_eq!(fs::read_to_string(&old).unwrap(), "the old export");
    assert_eq!(entries(mnt), vec![old.clone()]);
    write_export(&old, "replaced", true).unwrap();
    assert_eq!(fs::read_to_string(&old).unwrap(), "replaced");
}
