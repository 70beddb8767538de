//! End to end in tmux: mark two sessions with Space, trash both with one confirmation, undo
//! both with one Ctrl+Z — checked on disk, byte for byte — then pin one and find it pinned by
//! `grove list`. HOME and the XDG folders live in a temp dir. Under `CI=true` a missing tmux
//! is a failure, not a skip.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::tmux::{Tmux, quote, sandbox_env, tmux_available};
use sha2::{Digest, Sha256};

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
    if !tmux_available("the organise end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let sessions = root.join("sessions");
    grove::storage::demo::copy_dir(&grove::storage::demo::demo_source(), &sessions).unwrap();
    let pi = sessions.join("pi-agent/sessions");
    let before = all_hashes(&sessions);
    let exit_file = root.join("exit");
    let command = format!(
        "cd {root} && {env} {bin} --session-dir {pi} --all; echo $? > {exit}",
        root = quote(root),
        env = sandbox_env(root),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        pi = quote(&pi),
        exit = quote(&exit_file),
    );
    let tmux = Tmux::start("e2e-org", 120, 35, &command).with_key_delay(Duration::from_millis(200));
    tmux.wait_for("View Session");
    tmux.wait_until("the scan to finish", || !tmux.screen().contains("Loading"));

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
    tmux.wait_until("both files to be restored", || {
        all_hashes(&sessions) == before
    });
    tmux.wait_for("restored");

    // Pin the first row; after quitting, `grove list` has it first and pinned.
    tmux.keys(&["Home"]);
    tmux.keys(&["M-p"]);
    tmux.wait_for("Session pinned");
    tmux.keys(&["C-c"]);
    tmux.wait_until("grove to exit", || exit_file.exists());
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
