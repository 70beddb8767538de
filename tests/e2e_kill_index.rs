//! End to end, a killed browser and the index: grove's TUI fills an empty cache while it lists
//! a corpus; SIGKILL it once the list is shown whole, and the next `grove list` is served from
//! the cache, every session of it; SIGKILL it at other moments of the listing, and the next
//! listing is still the one `--no-cache` prints (what was committed is right, the rest is read
//! again).
//!
//! Needs tmux: under `CI=true` a missing tmux fails the test; elsewhere it is skipped with a
//! notice.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::index::{Rng, header, message};
use common::tmux::{Tmux, quote, sandbox_env};

const SESSIONS: usize = 300;

/// `n` pi sessions of `pairs` user/assistant pairs each in `root/s/--w--`.
fn corpus(root: &Path, n: usize, pairs: usize) -> PathBuf {
    let dir = root.join("s/--w--");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(7);
    for i in 0..n {
        let id = format!("{i:04x}beef");
        let mut s = header(&id) + "\n";
        let mut parent: Option<String> = None;
        for j in 0..pairs {
            let (u, a) = (format!("{:.4}u{j:03x}", id), format!("{:.4}a{j:03x}", id));
            s += &message(&u, parent.as_deref(), "user", &rng.text(30));
            s += "\n";
            s += &message(&a, Some(&u), "assistant", &rng.text(60));
            s += "\n";
            parent = Some(a);
        }
        std::fs::write(dir.join(format!("s{i:04}.jsonl")), s).unwrap();
    }
    root.join("s")
}

/// `grove --session-dir S list --all --json` with the sandbox's cache: (stdout, stderr).
fn list(root: &Path, extra: &[&str]) -> (Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grove"))
        .arg("--session-dir")
        .arg(root.join("s"))
        .args(extra)
        .args(["list", "--all", "--json"])
        .env("HOME", root.join("home"))
        .env("XDG_CONFIG_HOME", root.join("config"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("XDG_CACHE_HOME", root.join("cache"))
        .env("GROVE_CONFIG", "")
        .env("GROVE_INDEX_STATS", "1")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("ATOMIC_CODING_AGENT_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The browser on `root/s` with an empty cache, in tmux.
fn browser(root: &Path, name: &str) -> Tmux {
    let _ = std::fs::remove_dir_all(root.join("cache"));
    let command = format!(
        "exec {env} GROVE_WATCH=off {bin} --session-dir {s} --all",
        env = sandbox_env(root),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        s = quote(root.join("s")),
    );
    Tmux::start(name, 120, 30, &command).with_timeout(Duration::from_secs(60))
}

/// SIGKILL to the pane's process (grove: the pane runs it by `exec`), and waits for it to go.
fn kill(t: &Tmux) {
    let pid = t.format("#{pane_pid}");
    let pid = pid.trim();
    assert!(!pid.is_empty(), "no pane pid");
    let ok = Command::new("kill").args(["-KILL", pid]).status().unwrap();
    assert!(ok.success());
    let start = Instant::now();
    while Path::new(&format!("/proc/{pid}")).exists() && start.elapsed() < Duration::from_secs(10) {
        // The pane's process is reaped by tmux.
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_browser_killed_once_it_shows_the_whole_list_leaves_a_full_index() {
    if !common::tmux::tmux_available("the index kill end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    corpus(root, SESSIONS, 20);
    let expected = list(root, &["--no-cache"]).0;
    let t = browser(root, "kill-full");
    t.wait_for("All");
    t.wait_until("the listing to finish", || !t.screen().contains("Loading"));
    kill(&t);
    let (out, err) = list(root, &[]);
    assert!(err.contains(&format!("cached: {SESSIONS}")), "{err}");
    assert_eq!(out, expected);
}

/// The `k` of the title's "Loading k/N", while the list is read.
fn loading(screen: &str) -> Option<usize> {
    let at = screen.find("Loading ")? + "Loading ".len();
    let k: String = screen[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    k.parse().ok()
}

/// Killed while it lists, with half the sessions on screen: the rows read until a moment
/// before are in the cache (a listing commits as it goes), not lost with the last transaction.
#[test]
fn a_browser_killed_with_half_the_list_shown_leaves_the_rows_it_had_read() {
    if !common::tmux::tmux_available("the index kill end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let n = 2000;
    corpus(root, n, 12);
    let expected = list(root, &["--no-cache"]).0;
    let t = browser(root, "kill-half");
    let start = Instant::now();
    let shown = loop {
        let screen = t.screen();
        match loading(&screen) {
            Some(k) if k >= n / 2 => break k,
            Some(_) => {}
            None if screen.contains("All") && !screen.contains("Loading") => {
                panic!("the listing ended before half of it was seen: {screen}")
            }
            None => {}
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{screen}");
        std::thread::sleep(Duration::from_millis(5));
    };
    kill(&t);
    let (out, err) = list(root, &[]);
    assert_eq!(out, expected);
    let cached: usize = err
        .split("cached: ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    // A listing commits at least every 256 rows (`COMMIT_ROWS`), however fast it reads.
    assert!(
        cached + 256 >= shown && cached <= n,
        "{shown} of {n} shown when killed; the next listing found {cached} in the cache: {err}"
    );
}

#[test]
fn a_browser_killed_while_it_fills_the_index_never_leaves_a_wrong_listing() {
    if !common::tmux::tmux_available("the index kill end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    corpus(root, SESSIONS, 20);
    let expected = list(root, &["--no-cache"]).0;
    for (i, delay_ms) in [0u64, 40, 120, 250, 500, 900].into_iter().enumerate() {
        let t = browser(root, &format!("kill-{i}"));
        std::thread::sleep(Duration::from_millis(delay_ms));
        kill(&t);
        drop(t);
        let (out, _) = list(root, &[]);
        assert_eq!(out, expected, "after a kill at {delay_ms} ms");
        let (out, err) = list(root, &[]);
        assert_eq!(out, expected);
        assert!(err.contains(&format!("cached: {SESSIONS}")), "{err}");
    }
}
