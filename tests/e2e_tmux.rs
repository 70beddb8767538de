//! End to end: the real binary in tmux on a copy of the demo sessions, with HOME and the XDG
//! folders in a temp dir. Search, rename, delete, undo, quit; then check the files on disk.
//! Needs tmux: under `CI=true` a missing tmux fails the test; elsewhere it is skipped with a
//! notice.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::tmux::{Tmux, quote, sandbox_env, tmux_available};

const PR_FILE: &str = "atomic-agent/sessions/--home-demo-code-tern--/2026-11-10T12-08-19-644Z_01a1c55b-f1bc-7b0a-b4b2-2704dd7911f1.jsonl";

#[test]
fn search_rename_delete_undo_quit() {
    if !tmux_available("the end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let sessions = root.join("sessions");
    grove::storage::demo::copy_dir(&grove::storage::demo::demo_source(), &sessions).unwrap();
    let pr = sessions.join(PR_FILE);
    let lines_before = std::fs::read_to_string(&pr).unwrap().lines().count();
    let exit_file = root.join("exit");
    let command = format!(
        "cd {root} && {env} {bin} --session-dir {pi} --session-dir {atomic} --all; echo $? > {exit}",
        root = quote(root),
        env = sandbox_env(root),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        pi = quote(sessions.join("pi-agent/sessions")),
        atomic = quote(sessions.join("atomic-agent/sessions")),
        exit = quote(&exit_file),
    );
    let tmux = Tmux::start("e2e", 120, 35, &command).with_timeout(Duration::from_secs(20));

    // Everything loaded.
    tmux.wait_for("PR #42 review: colour output");
    tmux.wait_until("the scan to finish", || !tmux.screen().contains("Loading"));

    // Search with an exact phrase.
    tmux.text("\"colour output\"");
    let s = tmux.wait_for("1 match");
    assert!(s.contains("› PR #42 review: colour output"), "{s}");

    // Rename it.
    tmux.keys(&["C-r"]);
    tmux.wait_for("Rename session");
    tmux.keys(&["C-u"]);
    tmux.text("Reviewed colours");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Renamed to");
    let text = std::fs::read_to_string(&pr).unwrap();
    let last = text.lines().last().unwrap();
    assert_eq!(text.lines().count(), lines_before + 1);
    assert!(last.contains("\"type\":\"session_info\""), "{last}");
    assert!(last.contains("\"name\":\"Reviewed colours\""), "{last}");

    // Clear the search: the renamed session stays selected.
    tmux.keys(&["Escape"]);
    let s = tmux.wait_for("type to search");
    assert!(s.contains("› Reviewed colours"), "{s}");

    // Delete it: confirm, then it is in the trash, not on disk.
    tmux.keys(&["C-d"]);
    tmux.wait_for("Move session to trash?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("moved to trash");
    assert!(!pr.exists(), "the session file is still there");
    let trash_files = root.join("data/Trash/files");
    let in_trash: Vec<PathBuf> = std::fs::read_dir(&trash_files)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert_eq!(in_trash.len(), 1, "trash: {in_trash:?}");
    assert!(!tmux.screen().contains("Reviewed colours"));

    // Undo brings it back, rename included.
    tmux.keys(&["C-z"]);
    tmux.wait_for("restored");
    assert!(pr.exists(), "not restored");
    let text = std::fs::read_to_string(&pr).unwrap();
    assert_eq!(text.lines().count(), lines_before + 1);
    tmux.wait_for("Reviewed colours");

    // Esc with an empty query quits with status 0.
    tmux.keys(&["Escape"]);
    tmux.wait_until("grove to exit", || exit_file.exists());
    tmux.wait_until("the exit status", || {
        std::fs::read_to_string(&exit_file).is_ok_and(|s| !s.trim().is_empty())
    });
    assert_eq!(std::fs::read_to_string(&exit_file).unwrap().trim(), "0");
    // Every other session is untouched.
    let mut count = 0;
    for dir in ["pi-agent/sessions", "atomic-agent/sessions"] {
        for folder in std::fs::read_dir(sessions.join(dir)).unwrap().flatten() {
            for f in std::fs::read_dir(folder.path()).unwrap().flatten() {
                count += 1;
                let rel = f.path().strip_prefix(&sessions).unwrap().to_path_buf();
                if rel != Path::new(PR_FILE) {
                    let original = grove::storage::demo::demo_source().join(&rel);
                    assert_eq!(
                        std::fs::read(f.path()).unwrap(),
                        std::fs::read(original).unwrap(),
                        "{rel:?} changed"
                    );
                }
            }
        }
    }
    assert_eq!(count, 17);
}
