//! `label`, `rename` and `checkout` without the index (`--no-cache`) on a big generated session
//! under an address-space limit (`prlimit --as`): the write reads the file in one streaming
//! pass for the last entry id, a fresh id and the target, so memory stays that of a line
//! (issue "Hardening, round two", item 4). Loading the session whole, as before, took several
//! times the file and is killed by the limit. Needs `prlimit` (util-linux); fails under
//! `CI=true` when it cannot run.
#![cfg(target_os = "linux")]

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use common::prlimit_available;

/// The id of entry `n`: scattered over the 8-hex space as pi's random ids are, so that a
/// 7-character prefix names one entry.
fn id(n: u32) -> String {
    format!("{:08x}", n.wrapping_mul(2_654_435_761))
}

/// A session of about `mb` MB of short entries on a few branches (every seventh entry
/// hangs off an older one). Returns the id of a user message and of the last entry.
fn branchy_session(path: &Path, mb: usize) -> (String, String) {
    let mut s = common::header("big", "/work");
    s.push('\n');
    let mut n = 0u32;
    let mut last = String::new();
    while s.len() < mb * 1_000_000 {
        let this = id(n);
        let parent = match n {
            0 => None,
            _ if n.is_multiple_of(7) => Some(id(n / 3)),
            _ => Some(id(n - 1)),
        };
        let role = if n.is_multiple_of(2) {
            "user"
        } else {
            "assistant"
        };
        let text = format!("entry {n} of a big session, short like most of pi's");
        s.push_str(&common::message(&this, parent.as_deref(), role, &text));
        s.push('\n');
        last = this;
        n += 1;
    }
    fs::write(path, s).unwrap();
    (id(1000), last)
}

/// Runs `grove --no-cache ARGS` under an address-space limit of `limit_mb`.
fn run_within(sandbox: &Path, limit_mb: usize, args: &[&str]) -> (bool, String, String) {
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!("--as={}", limit_mb * 1024 * 1024))
        .arg("--")
        .arg(common::grove_bin())
        .arg("--no-cache")
        .args(args);
    common::isolate(&mut cmd, sandbox);
    cmd.env("MALLOC_ARENA_MAX", "2")
        .env("RAYON_NUM_THREADS", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn last_line(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn writes_without_the_index_stream_the_file() {
    if !prlimit_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2026-01-01T00-00-00-000Z_big.jsonl");
    let (user, last) = branchy_session(&path, 20);
    let p = path.to_str().unwrap();
    // The file is 20 MB; loaded whole it took 14× that (434 MB resident for 30 MB), streamed
    // grove's own baseline (about 150 MB of address space) plus a line.
    let limit = 200;

    let (ok, _, err) = run_within(dir.path(), limit, &["label", p, &user[..7], "keep"]);
    assert!(ok, "label under a {limit} MB address-space limit: {err}");
    let label = last_line(&path);
    assert_eq!(label["type"], "label");
    assert_eq!(label["targetId"], user.as_str(), "the prefix resolved");
    assert_eq!(label["parentId"], last.as_str(), "hangs off the last entry");
    let label_id = label["id"].as_str().unwrap().to_owned();

    let (ok, _, err) = run_within(dir.path(), limit, &["rename", p, "big one"]);
    assert!(ok, "rename under a {limit} MB address-space limit: {err}");
    let rename = last_line(&path);
    assert_eq!(rename["name"], "big one");
    assert_eq!(rename["parentId"], label_id.as_str());

    // A user message checked out: the branch resumes from its parent.
    let (ok, _, err) = run_within(dir.path(), limit, &["checkout", p, &user]);
    assert!(ok, "checkout under a {limit} MB address-space limit: {err}");
    let checkout = last_line(&path);
    assert_eq!(checkout["customType"], "grove.checkout");
    assert_eq!(checkout["parentId"], id(999).as_str());
    assert_eq!(checkout["data"]["previousLeafId"], rename["id"]);

    // Writes that would change nothing are told by a streaming pass too: a check-out to where
    // the session now resumes, clearing a label that is not there.
    let before = fs::read(&path).unwrap();
    let (unlabelled, resumes) = (id(1001), id(999));
    for args in [
        &["checkout", p, resumes.as_str()][..],
        &["label", p, unlabelled.as_str(), "--clear"],
    ] {
        let (ok, out, err) = run_within(dir.path(), limit, args);
        assert!(ok, "{args:?} under a {limit} MB address-space limit: {err}");
        assert!(out.starts_with("Nothing written: "), "{args:?}: {out}");
    }
    assert!(fs::read(&path).unwrap() == before, "a no-op wrote");

    let (ok, _, err) = run_within(dir.path(), limit, &["label", p, "nosuchid", "x"]);
    assert!(!ok && err.contains("no entry nosuchid"), "{err}");
}
