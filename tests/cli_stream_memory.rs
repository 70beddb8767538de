//! `tree --json` and `context --json` on big generated sessions under an address-space limit
//! (`prlimit --as`): their output is streamed and the session loaded slim, so memory stays a
//! fraction of the file (issue "Hardening, round two", item 4). Built whole, as before, either
//! needed several times the file and is killed by the limit. Needs `prlimit` (util-linux);
//! fails under `CI=true` when it cannot run.
#![cfg(target_os = "linux")]

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::prlimit_available;

fn header(id: &str) -> String {
    format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}}"#
    )
}

/// A long linear session as pi writes one: thinking with a signature, a tool call, its
/// result of many lines, over and over; about `mb` MB.
fn linear_session(path: &Path, mb: usize) {
    let mut s = header("linear");
    s.push('\n');
    let output: String = (0..110)
        .map(|i| format!("{i:>6}\\tconst value = compute(input, options); // line {i}\\n"))
        .collect();
    let signature = "QUJD".repeat(300);
    let mut parent = String::from("null");
    let mut n = 0usize;
    while s.len() < mb * 1_000_000 {
        let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", n / 60 % 60, n % 60);
        let id = format!("{n:08x}");
        let line = match n % 3 {
            0 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"user","content":"step {n}: run the tests"}}}}"#
            ),
            1 => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"think about step {n}","thinkingSignature":"{signature}"}},{{"type":"toolCall","id":"call{n}","name":"bash","arguments":{{"command":"cargo test {n}"}}}}],"provider":"anthropic","model":"claude","stopReason":"toolUse"}}}}"#
            ),
            _ => format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"toolResult","toolCallId":"call{}","toolName":"bash","content":[{{"type":"text","text":"{output}"}}],"isError":false}}}}"#,
                n - 1
            ),
        };
        s.push_str(&line);
        s.push('\n');
        parent = format!("\"{id}\"");
        n += 1;
    }
    fs::write(path, s).unwrap();
}

/// A bushy session of many small entries: every tenth entry forks off an earlier one, with
/// labels on some.
fn bushy_session(path: &Path, mb: usize) {
    let mut s = header("bushy");
    s.push('\n');
    let mut n = 0usize;
    while s.len() < mb * 1_000_000 {
        let id = format!("{n:08x}");
        let parent = match n {
            0 => "null".to_owned(),
            _ if n.is_multiple_of(10) => format!("\"{:08x}\"", n / 2),
            _ => format!("\"{:08x}\"", n - 1),
        };
        let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", n / 60 % 60, n % 60);
        if n % 50 == 49 {
            let _ = writeln!(
                s,
                r#"{{"type":"label","id":"{id}","parentId":{parent},"timestamp":"{ts}","targetId":"{:08x}","label":"mark {n}"}}"#,
                n - 1
            );
        } else {
            let role = if n.is_multiple_of(2) {
                "user"
            } else {
                "assistant"
            };
            let _ = writeln!(
                s,
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"{role}","content":[{{"type":"text","text":"message number {n} of a bushy session with short entries"}}]}}}}"#
            );
        }
        n += 1;
    }
    fs::write(path, s).unwrap();
}

/// Runs `grove ARGS` under an address-space limit of `limit_mb`, output discarded; true when
/// it succeeded.
fn runs_within(sandbox: &Path, limit_mb: usize, args: &[&str]) -> (bool, String) {
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!("--as={}", limit_mb * 1024 * 1024))
        .arg("--")
        .arg(common::grove_bin())
        .args(args);
    common::isolate(&mut cmd, sandbox);
    // Address space, not RSS, is limited: keep what the allocator and the thread pool reserve
    // independent of the machine's core count.
    cmd.env("MALLOC_ARENA_MAX", "2")
        .env("RAYON_NUM_THREADS", "2")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn session_file(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("2026-01-01T00-00-00-000Z_{name}.jsonl"))
}

#[test]
fn context_json_of_a_long_linear_session_is_streamed() {
    if !prlimit_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = session_file(dir.path(), "linear");
    linear_session(&path, 120);
    let p = path.to_str().unwrap();
    // The file is 120 MB; whole, its context as JSON values and text took 5× that.
    for args in [["context", p, "--json"], ["tree", p, "--json"]] {
        let (ok, err) = runs_within(dir.path(), 400, &args);
        assert!(ok, "{args:?} under a 400 MB address-space limit: {err}");
    }
}

#[test]
fn tree_json_of_a_bushy_session_is_streamed() {
    if !prlimit_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = session_file(dir.path(), "bushy");
    bushy_session(&path, 60);
    let p = path.to_str().unwrap();
    let (ok, err) = runs_within(dir.path(), 400, &["tree", p, "--json"]);
    assert!(ok, "tree --json under a 400 MB address-space limit: {err}");
}
