//! End to end: the real binary in tmux on a copy of the demo sessions, with HOME and the XDG
//! folders in a temp dir. Search, rename, delete, undo, quit; then check the files on disk.
//! Skipped (with a notice) when tmux is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PR_FILE: &str = "atomic-agent/sessions/--home-demo-code-tern--/2026-11-10T12-08-19-644Z_01a1c55b-f1bc-7b0a-b4b2-2704dd7911f1.jsonl";

struct Tmux {
    socket: String,
    /// The socket file, removed on drop (kill-server leaves it behind).
    socket_path: std::cell::RefCell<String>,
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
        std::thread::sleep(Duration::from_millis(150));
    }

    fn text(&self, text: &str) {
        self.cmd(&["send-keys", "-t", "grove", "-l", text]);
        std::thread::sleep(Duration::from_millis(150));
    }

    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
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
        let socket = self.socket_path.borrow();
        if !socket.is_empty() {
            let _ = std::fs::remove_file(socket.as_str());
        }
    }
}

fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn shell_quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
}

#[test]
fn search_rename_delete_undo_quit() {
    if Command::new("tmux").arg("-V").output().is_err() {
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
    let pr = sessions.join(PR_FILE);
    let lines_before = std::fs::read_to_string(&pr).unwrap().lines().count();
    let exit_file = root.join("exit");
    let command = format!(
        "cd {root} && env HOME={home} XDG_CONFIG_HOME={config} XDG_DATA_HOME={data} XDG_CACHE_HOME={cache} \
         GROVE_CONFIG= TERM=xterm-256color {bin} --session-dir {pi} --session-dir {atomic} --all; echo $? > {exit}",
        root = shell_quote(root),
        home = shell_quote(&root.join("home")),
        config = shell_quote(&root.join("config")),
        data = shell_quote(&root.join("data")),
        cache = shell_quote(&root.join("cache")),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        pi = shell_quote(&sessions.join("pi-agent/sessions")),
        atomic = shell_quote(&sessions.join("atomic-agent/sessions")),
        exit = shell_quote(&exit_file),
    );
    let tmux = Tmux {
        socket_path: Default::default(),
        socket: format!("grove-e2e-{}", std::process::id()),
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
    let socket_path = tmux
        .cmd(&["display-message", "-p", "#{socket_path}"])
        .stdout;
    *tmux.socket_path.borrow_mut() = String::from_utf8_lossy(&socket_path).trim().to_owned();

    // Everything loaded.
    tmux.wait_for("PR #42 review: colour output");
    wait_until("the scan to finish", || !tmux.screen().contains("Loading"));

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
    wait_until("grove to exit", || exit_file.exists());
    wait_until("the exit status", || {
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
