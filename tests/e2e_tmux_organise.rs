//! End to end in tmux: mark two sessions with Space, trash both with one confirmation, undo
//! both with one Ctrl+Z — checked on disk, byte for byte — then pin one and find it pinned by
//! `grove list`. HOME and the XDG folders live in a temp dir. Under `CI=true` a missing tmux
//! is a failure, not a skip.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "grove"]).stdout)
            .into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "grove"];
        args.extend_from_slice(keys);
        self.cmd(&args);
        std::thread::sleep(Duration::from_millis(200));
    }

    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn shell_quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
}

fn hashes(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            hashes(&e.path(), out);
        } else {
            out.insert(
                e.path(),
                Sha256::digest(std::fs::read(e.path()).unwrap()).to_vec(),
            );
        }
    }
}

fn all_hashes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    hashes(dir, &mut out);
    out
}

#[test]
fn bulk_trash_and_one_undo_on_disk_then_pin() {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "tmux is needed for this test under CI"
        );
        eprintln!("NOTICE: tmux is not installed; skipping the end-to-end test");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let sessions = root.join("sessions");
    grove::storage::demo::copy_dir(&grove::storage::demo::demo_source(), &sessions).unwrap();
    for d in ["home", "config", "data", "cache"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let pi = sessions.join("pi-agent/sessions");
    let before = all_hashes(&sessions);
    let env = format!(
        "env HOME={home} XDG_CONFIG_HOME={config} XDG_DATA_HOME={data} XDG_CACHE_HOME={cache} GROVE_CONFIG=",
        home = shell_quote(&root.join("home")),
        config = shell_quote(&root.join("config")),
        data = shell_quote(&root.join("data")),
        cache = shell_quote(&root.join("cache")),
    );
    let exit_file = root.join("exit");
    let command = format!(
        "cd {root} && {env} TERM=xterm-256color {bin} --session-dir {pi} --all; echo $? > {exit}",
        root = shell_quote(root),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        pi = shell_quote(&pi),
        exit = shell_quote(&exit_file),
    );
    let tmux = Tmux {
        socket: format!("grove-e2e-org-{}", std::process::id()),
    };
    let out = tmux.cmd(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "grove",
        "-x",
        "120",
        "-y",
        "35",
        &command,
    ]);
    assert!(
        out.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    tmux.wait_for("View Session");
    wait_until("the scan to finish", || !tmux.screen().contains("Loading"));

    // Mark the first two rows; one confirmation names both.
    tmux.keys(&["Home"]);
    tmux.keys(&["Space"]);
    tmux.keys(&["Space"]);
    tmux.wait_for("2 marked");
    tmux.keys(&["C-d"]);
    tmux.wait_for("Move 2 sessions to trash?");
    tmux.keys(&["y"]);
    tmux.wait_for("2 sessions moved to trash");
    let after_trash = all_hashes(&sessions);
    let gone: Vec<&PathBuf> = before
        .keys()
        .filter(|p| !after_trash.contains_key(*p))
        .collect();
    assert_eq!(gone.len(), 2, "two session files left: {gone:?}");
    assert!(
        gone.iter()
            .all(|p| p.extension().is_some_and(|e| e == "jsonl"))
    );
    let trash = root.join("data/Trash/files");
    assert_eq!(
        std::fs::read_dir(&trash).unwrap().count(),
        2,
        "both are in the trash"
    );

    // One Ctrl+Z: both back, byte for byte.
    tmux.keys(&["C-z"]);
    wait_until("both files to be restored", || {
        all_hashes(&sessions) == before
    });
    tmux.wait_for("restored");

    // Pin the first row; after quitting, `grove list` has it first and pinned.
    tmux.keys(&["Home"]);
    tmux.keys(&["M-p"]);
    tmux.wait_for("Session pinned");
    tmux.keys(&["C-c"]);
    wait_until("grove to exit", || exit_file.exists());
    let list = Command::new(env!("CARGO_BIN_EXE_grove"))
        .args(["--session-dir"])
        .arg(&pi)
        .args(["list", "--all", "--json"])
        .env("HOME", root.join("home"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("XDG_CACHE_HOME", root.join("cache"))
        .env_remove("GROVE_DATA_DIR")
        .output()
        .unwrap();
    assert!(list.status.success());
    let rows: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let pinned: Vec<_> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["pinned"] == true)
        .collect();
    assert_eq!(pinned.len(), 1, "{rows:#}");
    assert_eq!(rows[0]["pinned"], true);
    assert!(root.join("data/grove/state.sqlite3").exists());
    assert_eq!(all_hashes(&sessions), before, "a session file changed");
}
