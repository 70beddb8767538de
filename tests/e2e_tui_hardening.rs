//! End to end hardening of the browser (issue 5), with the real binary in tmux on a private
//! socket (`-L grove-e2e-…`), HOME and the XDG folders in a temp dir:
//!
//! * browsing (picker, scope, sort, every kind of search, preview, the session view with its
//!   filters, folds, searches, expand and help) never changes a byte, a size or an mtime of the
//!   corpus, and adds no file;
//! * hostile session text reaches the real terminal only in its escaped form: the pane title,
//!   the clipboard (tmux buffers) and the screen stay as grove drew them;
//! * `--print` refuses to print a path with control characters;
//! * holding a key down (tmux `send-keys -N`) on ten thousand sessions and on a long session
//!   leaves the browser responsive, with every key applied.
//!
//! Skipped (with a notice) when tmux is not installed.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const WIDTH: &str = "140";
const HEIGHT: &str = "40";
const TIMEOUT: Duration = Duration::from_secs(30);

/// The hostile payload: OSC 52 (clipboard), clear screen, OSC 0 (title), alternate screen, a C1
/// CSI, a bidi override, zero-width characters, a tab and a carriage return.
const PAYLOAD: &str = "\u{1b}]52;c;SGVsbG8=\u{7} \u{1b}[2J \u{1b}]0;pwned\u{7} \u{1b}[?1049h \u{9b}31m \u{202E}desrever\u{202C} zero\u{200B}width\u{FEFF} tab\there \rCR";

fn tmux_available() -> bool {
    if Command::new("tmux").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "tmux is required for this test under CI"
    );
    eprintln!("NOTICE: tmux is not installed; skipping the end-to-end test");
    false
}

/// A tmux server of its own; killed (that server only) on drop.
struct Tmux {
    socket: String,
    /// The socket file, removed on drop (kill-server leaves it behind).
    socket_path: PathBuf,
}

impl Tmux {
    fn new(name: &str) -> Tmux {
        let mut t = Tmux {
            socket: format!("grove-e2e-{}-{name}", std::process::id()),
            socket_path: PathBuf::new(),
        };
        // A server with the clipboard open to applications, so an OSC 52 that got through
        // would show up as a paste buffer.
        let out = t.cmd(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "ctl",
            "-x",
            WIDTH,
            "-y",
            HEIGHT,
        ]);
        assert!(out.status.success(), "tmux: {}", stderr(&out));
        t.cmd(&["set-option", "-g", "set-clipboard", "on"]);
        t.socket_path = PathBuf::from(t.format("ctl", "#{socket_path}"));
        t
    }

    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Runs `command` in a new window `target`.
    fn spawn(&self, target: &str, command: &str) {
        let out = self.cmd(&["new-window", "-d", "-n", target, command]);
        assert!(out.status.success(), "tmux: {}", stderr(&out));
    }

    fn screen(&self, target: &str) -> String {
        stdout(&self.cmd(&["capture-pane", "-p", "-t", target]))
    }

    fn format(&self, target: &str, format: &str) -> String {
        stdout(&self.cmd(&["display-message", "-p", "-t", target, format]))
            .trim_end()
            .to_owned()
    }

    fn buffers(&self) -> String {
        stdout(&self.cmd(&["list-buffers"]))
    }

    /// Sends keys one by one, apart: a lone Esc followed at once by another key reads as Alt+key.
    fn keys(&self, target: &str, keys: &[&str]) {
        for k in keys {
            self.cmd(&["send-keys", "-t", target, k]);
            std::thread::sleep(Duration::from_millis(80));
        }
    }

    /// The same key `n` times in one burst (as a held key).
    fn repeat(&self, target: &str, key: &str, n: usize) {
        let n = n.to_string();
        let out = self.cmd(&["send-keys", "-t", target, "-N", &n, key]);
        assert!(out.status.success(), "send-keys -N: {}", stderr(&out));
    }

    fn text(&self, target: &str, text: &str) {
        self.cmd(&["send-keys", "-t", target, "-l", text]);
        std::thread::sleep(Duration::from_millis(60));
    }

    fn wait_for(&self, target: &str, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let s = self.screen(target);
            if cond(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_text(&self, target: &str, needle: &str) -> String {
        self.wait_for(target, &format!("{needle:?}"), |s| s.contains(needle))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
        if self.socket_path.file_name().is_some() {
            let _ = fs::remove_file(&self.socket_path);
        }
    }
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn quote(p: impl AsRef<std::ffi::OsStr>) -> String {
    format!("'{}'", p.as_ref().to_string_lossy().replace('\'', "'\\''"))
}

/// A sandbox: `sessions/` (the corpus) next to home, config, data and cache folders.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "config", "data", "cache", "out"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Sandbox { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn sessions(&self) -> PathBuf {
        self.root().join("sessions")
    }

    fn out(&self, name: &str) -> PathBuf {
        self.root().join("out").join(name)
    }

    /// The shell command that runs grove on `roots` with `args`; its exit status goes to
    /// `out/exit`, and stdout/stderr to `out/stdout` / `out/stderr` when `capture`.
    fn grove(&self, roots: &[PathBuf], args: &[&str], capture: bool) -> String {
        let sandbox = self.root();
        let mut cmd = format!(
            "cd {root} && env -u PI_CODING_AGENT_DIR -u PI_CODING_AGENT_SESSION_DIR \
             -u ATOMIC_CODING_AGENT_DIR -u ATOMIC_CODING_AGENT_SESSION_DIR \
             HOME={home} XDG_CONFIG_HOME={config} XDG_DATA_HOME={data} XDG_CACHE_HOME={cache} \
             GROVE_CONFIG= TERM=xterm-256color {bin}",
            root = quote(sandbox),
            home = quote(sandbox.join("home")),
            config = quote(sandbox.join("config")),
            data = quote(sandbox.join("data")),
            cache = quote(sandbox.join("cache")),
            bin = quote(common::grove_bin()),
        );
        for r in roots {
            cmd.push_str(&format!(" --session-dir {}", quote(r)));
        }
        for a in args {
            cmd.push_str(&format!(" {a}"));
        }
        if capture {
            cmd.push_str(&format!(
                " >{} 2>{}",
                quote(self.out("stdout")),
                quote(self.out("stderr"))
            ));
        }
        cmd.push_str(&format!(
            "; echo $? > {}; sleep 600",
            quote(self.out("exit"))
        ));
        cmd
    }

    /// Waits for grove to exit; its exit status.
    fn exit_status(&self) -> String {
        let exit = self.out("exit");
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Ok(s) = fs::read_to_string(&exit)
                && !s.trim().is_empty()
            {
                return s.trim().to_owned();
            }
            assert!(Instant::now() < deadline, "grove did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn read_out(&self, name: &str) -> String {
        fs::read_to_string(self.out(name)).unwrap_or_default()
    }
}

/// A pi session whose name, cwd, first message, assistant text, tool call and tool output all
/// carry [`PAYLOAD`].
fn hostile_session() -> String {
    let msg = |id: &str, parent: Option<&str>, message: serde_json::Value| {
        serde_json::json!({
            "type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-11-01T10:00:00.000Z", "message": message,
        })
        .to_string()
    };
    let usage = serde_json::json!({"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
        "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    let lines = [
        serde_json::json!({"type": "session", "version": 3, "id": "0e0e0e0e-0000-7000-8000-000000000000",
            "timestamp": "2026-11-01T10:00:00.000Z", "cwd": format!("/home/demo/evil{PAYLOAD}")})
        .to_string(),
        msg("a0000001", None, serde_json::json!({"role": "user",
            "content": format!("HOSTILE-FIRST {PAYLOAD} END-FIRST"), "timestamp": 1_793_527_200_000_i64})),
        msg("a0000002", Some("a0000001"), serde_json::json!({"role": "assistant",
            "content": [{"type": "text", "text": format!("ASSISTANT-SAYS {PAYLOAD}")},
                        {"type": "toolCall", "id": "call1", "name": "bash",
                         "arguments": {"command": format!("printf '{PAYLOAD}'")}}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-test",
            "usage": usage, "stopReason": "toolUse", "timestamp": 1_793_527_201_000_i64})),
        msg("a0000003", Some("a0000002"), serde_json::json!({"role": "toolResult",
            "toolCallId": "call1", "toolName": "bash",
            "content": [{"type": "text", "text": format!("TOOL-OUTPUT {PAYLOAD}\nsecond line\r\n")}],
            "isError": false, "timestamp": 1_793_527_202_000_i64})),
        serde_json::json!({"type": "session_info", "id": "a0000004", "parentId": "a0000003",
            "timestamp": "2026-11-01T10:00:03.000Z", "name": format!("EVIL-NAME {PAYLOAD}")})
        .to_string(),
    ];
    common::jsonl(&lines)
}

/// The file name of the hostile session: it carries escape sequences too.
const HOSTILE_FILE: &str = "2026-11-01T10-00-00-000Z_evil\u{1b}]0;pwned\u{7}\u{1b}[2J.jsonl";

/// The demo sessions plus odd and hostile files in `--odd--` under the pi root.
fn corpus(sb: &Sandbox) -> Vec<PathBuf> {
    let sessions = sb.sessions();
    grove::storage::demo::copy_dir(&grove::storage::demo::demo_source(), &sessions).unwrap();
    let pi = sessions.join("pi-agent/sessions");
    let odd = pi.join("--odd--");
    fs::create_dir_all(&odd).unwrap();
    common::write_file(&odd, HOSTILE_FILE, hostile_session());
    common::write_file(&odd, "empty.jsonl", "");
    common::write_file(&odd, "not-json.jsonl", "this is not JSON\n{\"half\":\n");
    common::write_file(
        &odd,
        "invalid-utf8.jsonl",
        b"\xff\xfe\x00garbage\n".as_slice(),
    );
    let mut torn = common::small_session("torn", "/home/demo/torn");
    torn.push_str("{\"type\":\"message\",\"id\":\"dead");
    common::write_file(&odd, "torn.jsonl", torn);
    let ro = common::write_file(
        &odd,
        "readonly.jsonl",
        common::small_session("readonly", "/home/demo/ro"),
    );
    common::chmod(&ro, 0o444);
    fs::create_dir(odd.join("a-folder.jsonl")).unwrap();
    std::os::unix::fs::symlink(&ro, odd.join("link.jsonl")).unwrap();
    common::write_file(&odd, "notes.txt", "not a session\n");
    let fifo = odd.join("fifo.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    vec![pi, sessions.join("atomic-agent/sessions")]
}

#[test]
fn browsing_never_changes_a_byte() {
    if !tmux_available() {
        return;
    }
    let sb = Sandbox::new();
    let roots = corpus(&sb);
    // mtimes have a resolution: make any write show up as a later time.
    std::thread::sleep(Duration::from_millis(20));
    let before = common::snapshot(&sb.sessions());
    let tmux = Tmux::new("browse");
    let g = "grove";
    tmux.spawn(g, &sb.grove(&roots, &[], false));

    // The picker, in the current folder's scope (empty), then all.
    tmux.wait_text(g, "No sessions in current folder");
    tmux.keys(g, &["Tab"]);
    tmux.wait_text(g, "PR #42 review: colour output");
    tmux.wait_for(g, "the scan to finish", |s| !s.contains("Loading"));
    for _ in 0..2 {
        tmux.keys(g, &["Tab"]);
    }
    // Sort, named-only, path and preview toggles, each all the way round.
    for (key, cycle) in [("C-s", 6), ("C-n", 2), ("C-p", 2), ("C-t", 2)] {
        for _ in 0..cycle {
            tmux.keys(g, &[key]);
        }
    }
    tmux.wait_text(g, "Name: All  Sort: Threaded");
    // Searches: fuzzy, phrase, regex, an invalid regex.
    tmux.text(g, "colour outpt");
    tmux.wait_text(g, "PR #42 review");
    tmux.keys(g, &["Escape"]);
    tmux.text(g, "\"colour output\"");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["Escape"]);
    tmux.text(g, "re:colou?r\\s+out");
    tmux.wait_text(g, "PR #42 review");
    tmux.keys(g, &["Escape"]);
    tmux.text(g, "re:(unclosed");
    tmux.wait_text(g, "invalid regex");
    tmux.keys(g, &["Escape"]);
    // The preview of several rows, the hostile one among them.
    tmux.text(g, "HOSTILE");
    tmux.wait_text(g, "EVIL-NAME");
    tmux.keys(g, &["Escape"]);
    for _ in 0..5 {
        tmux.keys(g, &["Down"]);
    }
    tmux.keys(g, &["Up", "End", "Home", "PageDown", "PageUp"]);
    // The picker's help.
    tmux.keys(g, &["?"]);
    tmux.keys(g, &["Escape"]);

    // Into the session view of the PR review (it has branches and tool output).
    tmux.text(g, "\"colour output\"");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["Enter"]);
    tmux.wait_text(g, "┌ Tree (");
    for k in ["C-t", "C-u", "C-l", "C-a", "C-o", "C-o", "C-d"] {
        tmux.keys(g, &[k]);
    }
    for k in [
        "Up", "Up", "C-Left", "C-Left", "C-Right", "C-Right", "Home", "End",
    ] {
        tmux.keys(g, &[k]);
    }
    // The tree search, confirmed, its hits walked, cleared.
    tmux.keys(g, &["/"]);
    tmux.text(g, "colour");
    tmux.keys(g, &["Enter"]);
    tmux.keys(g, &["n", "n", "N", "Escape"]);
    // The transcript: its search, expand all, expand one, help.
    tmux.keys(g, &["Tab"]);
    tmux.keys(g, &["/"]);
    tmux.text(g, "the");
    tmux.keys(g, &["Enter", "n", "N"]);
    tmux.keys(g, &["x", "x", "Enter", "PageUp", "PageDown"]);
    tmux.keys(g, &["?"]);
    tmux.wait_text(g, "Session view keys");
    tmux.keys(g, &["Escape"]);
    // Esc clears the transcript search, then leaves the transcript, then the view.
    tmux.keys(g, &["Escape", "Escape", "Escape"]);
    // Back in the picker, the query kept; Esc clears it. The hostile session's view too.
    tmux.wait_text(g, "View Session");
    tmux.keys(g, &["Escape"]);
    tmux.wait_text(g, "type to search");
    tmux.text(g, "HOSTILE");
    tmux.wait_text(g, "EVIL-NAME");
    tmux.keys(g, &["Enter"]);
    tmux.wait_text(g, "┌ Tree (");
    // Opened on the search's hit, the transcript search is seeded: Esc clears it first.
    tmux.keys(g, &["Tab", "x", "Escape", "Escape", "Escape"]);
    tmux.wait_text(g, "View Session");
    tmux.wait_text(g, "EVIL-NAME");
    // Quit: Esc clears the query, Esc again leaves.
    tmux.keys(g, &["Escape"]);
    tmux.keys(g, &["Escape"]);
    assert_eq!(sb.exit_status(), "0", "{}", tmux.screen(g));

    let after = common::snapshot(&sb.sessions());
    assert!(after.len() >= 30, "the corpus is there: {}", after.len());
    common::assert_unchanged(&before, &after);
}

#[test]
fn hostile_text_never_reaches_the_terminal() {
    if !tmux_available() {
        return;
    }
    let sb = Sandbox::new();
    let odd = sb.sessions().join("--odd--");
    fs::create_dir_all(&odd).unwrap();
    // Plain file name here: the picker is what is tested; the file name has its own test.
    common::write_file(&odd, "evil.jsonl", hostile_session());
    let tmux = Tmux::new("inject");

    // The checks below can see an attack: a raw payload printed in a pane sets its title, puts
    // the clipboard text in a tmux buffer and clears the screen.
    tmux.spawn(
        "control",
        &format!(
            "printf 'CONTROL-LINE\\n'; printf {}; sleep 600",
            quote(PAYLOAD)
        ),
    );
    tmux.wait_for("control", "the control payload", |_| {
        tmux.format("control", "#{pane_title}") == "pwned"
    });
    assert!(
        tmux.buffers().contains("Hello") || tmux.buffers().contains("SGVsbG8"),
        "the control OSC 52 did not reach tmux's buffers: {:?}",
        tmux.buffers()
    );
    assert!(!tmux.screen("control").contains("CONTROL-LINE"));
    tmux.cmd(&["delete-buffer"]);
    assert_eq!(tmux.buffers(), "");

    let g = "grove";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all"], false));
    let title = tmux.format(g, "#{pane_title}");
    assert_ne!(title, "pwned");
    let check = |what: &str, screen: &str| {
        assert_eq!(
            tmux.format(g, "#{pane_title}"),
            title,
            "{what}: the pane title changed"
        );
        assert_eq!(tmux.buffers(), "", "{what}: the clipboard was written");
        assert!(!screen.contains("pwned\n"), "{what}: {screen}");
        common::assert_inert(what, screen.as_bytes());
    };

    // The picker row and the preview.
    let s = tmux.wait_text(g, "EVIL-NAME");
    tmux.wait_for(g, "the preview", |s| s.contains("TOOL-OUTPUT"));
    let s2 = tmux.screen(g);
    check("picker", &s2);
    assert!(s.lines().next().unwrap().starts_with("View Session"), "{s}");
    assert!(
        s2.lines().next().unwrap().starts_with("View Session"),
        "header cleared:\n{s2}"
    );
    assert!(s2.lines().any(|l| l.contains("type to search")), "{s2}");
    assert!(s2.contains("^[]0;pwned^G"), "escaped OSC 0 shown:\n{s2}");
    assert!(
        s2.contains("^[]52;c;SGVsbG8=^G"),
        "escaped OSC 52 shown:\n{s2}"
    );
    assert!(s2.contains("^[[2J"), "{s2}");
    assert!(s2.contains("<U+202E>"), "{s2}");
    assert!(s2.contains("<U+200B>"), "{s2}");

    // The session view: tree, transcript (expanded), the tool output.
    tmux.keys(g, &["Enter"]);
    let s = tmux.wait_text(g, "┌ Tree (");
    check("session view", &s);
    tmux.keys(g, &["Tab", "x"]);
    let s = tmux.wait_text(g, "TOOL-OUTPUT");
    check("transcript", &s);
    for needle in [
        "^[]0;pwned^G",
        "^[]52;c;SGVsbG8=^G",
        "^[[2J",
        "^[[?1049h",
        "<U+009B>31m",
        "<U+202E>desrever<U+202C>",
        "zero<U+200B>width<U+FEFF>",
        "^MCR",
        "ASSISTANT-SAYS",
    ] {
        assert!(s.contains(needle), "{needle:?} not shown:\n{s}");
    }
    assert!(
        s.lines().next().unwrap().starts_with("EVIL-NAME ^[]52;"),
        "header:\n{s}"
    );
    assert!(s.contains("Transcript"), "{s}");
    // The view's help over it, then back and quit.
    tmux.keys(g, &["?"]);
    tmux.wait_text(g, "Session view keys");
    tmux.keys(g, &["Escape", "Escape", "Escape"]);
    let s = tmux.wait_text(g, "type to search");
    check("picker again", &s);
    tmux.keys(g, &["Escape"]);
    assert_eq!(sb.exit_status(), "0");
    // The terminal is back to normal: main screen, cursor shown, no mouse reporting.
    tmux.wait_for(g, "the main screen", |_| {
        tmux.format(g, "#{alternate_on}") == "0"
    });
    assert_eq!(tmux.format(g, "#{cursor_flag}"), "1");
    assert_eq!(tmux.format(g, "#{mouse_any_flag}"), "0");
    assert_eq!(tmux.format(g, "#{pane_title}"), title);
    assert_eq!(tmux.buffers(), "");
}

#[test]
fn print_refuses_a_path_with_control_characters() {
    if !tmux_available() {
        return;
    }
    let sb = Sandbox::new();
    let odd = sb.sessions().join("--odd--");
    fs::create_dir_all(&odd).unwrap();
    common::write_file(&odd, HOSTILE_FILE, hostile_session());
    let clean = common::write_file(
        &odd,
        "2026-11-01T09-00-00-000Z_clean.jsonl",
        common::small_session("clean", "/home/demo/clean"),
    );
    let tmux = Tmux::new("print");

    // A clean path is printed as it is, for scripts.
    let g = "clean";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all", "--print"], true));
    tmux.wait_text(g, "message 0");
    tmux.text(g, "\"message 0\"");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["Enter"]);
    assert_eq!(sb.exit_status(), "0", "{}", sb.read_out("stderr"));
    assert_eq!(sb.read_out("stdout"), format!("{}\n", clean.display()));

    // A hostile file name is refused: status 2, a clear message, nothing raw anywhere.
    fs::remove_file(sb.out("exit")).unwrap();
    let g = "hostile";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all", "--print"], true));
    let title = tmux.format(g, "#{pane_title}");
    tmux.wait_text(g, "EVIL-NAME");
    tmux.text(g, "HOSTILE");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["Enter"]);
    assert_eq!(sb.exit_status(), "2");
    assert_eq!(sb.read_out("stdout"), "", "nothing printed for scripts");
    let err = sb.read_out("stderr");
    common::assert_inert("stderr", err.as_bytes());
    assert!(err.contains("not printing the session's path"), "{err}");
    assert!(err.contains("evil^[]0;pwned^G^[[2J.jsonl"), "{err}");
    assert_eq!(tmux.format(g, "#{pane_title}"), title);
    assert_eq!(tmux.buffers(), "");

    // From the session view (print mode's resume prints "path entry-id"): refused the same way.
    fs::remove_file(sb.out("exit")).unwrap();
    let g = "hostile-view";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all", "--print"], true));
    tmux.wait_text(g, "EVIL-NAME");
    tmux.text(g, "HOSTILE");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["C-v"]);
    tmux.wait_text(g, "┌ Tree (");
    // The view opens on the search's hit; `r` there would offer a check-out first: the leaf.
    tmux.keys(g, &["End"]);
    tmux.keys(g, &["r"]);
    assert_eq!(sb.exit_status(), "2");
    assert_eq!(sb.read_out("stdout"), "");
    assert!(sb.read_out("stderr").contains("not printing"));
}

/// `n` small sessions in folders of 500 under `root`.
fn many_sessions(root: &Path, n: usize) {
    for i in 0..n {
        let folder = root.join(format!("--home-demo-p{:02}--", i / 500));
        if i % 500 == 0 {
            fs::create_dir_all(&folder).unwrap();
        }
        let mut lines = vec![common::header(
            &format!("{i:08x}-0000-7000-8000-000000000000"),
            &format!("/home/demo/p{:02}", i / 500),
        )];
        lines.push(common::message(
            "m0000000",
            None,
            "user",
            &format!("generated task {i} about gadgets"),
        ));
        lines.push(common::message(
            "m0000001",
            Some("m0000000"),
            "assistant",
            "done",
        ));
        // Distinct mtimes are not needed; distinct names are.
        fs::write(
            folder.join(format!("2026-11-01T00-00-00-000Z_{i:08x}.jsonl")),
            common::jsonl(&lines),
        )
        .unwrap();
    }
}

#[test]
fn held_keys_on_ten_thousand_sessions_stay_responsive() {
    if !tmux_available() {
        return;
    }
    const N: usize = 10_000;
    let sb = Sandbox::new();
    let many = sb.sessions().join("many");
    many_sessions(&many, N);
    // And one long session for the session view.
    let long = sb.sessions().join("long/--home-demo-long--");
    fs::create_dir_all(&long).unwrap();
    let mut lines = vec![common::header("long", "/home/demo/long")];
    lines.extend(common::chain(3_000, None));
    common::write_file(
        &long,
        "2026-11-02T00-00-00-000Z_long.jsonl",
        common::jsonl(&lines),
    );

    let tmux = Tmux::new("burst");
    let g = "grove";
    tmux.spawn(
        g,
        &sb.grove(
            &[many.clone(), sb.sessions().join("long")],
            &["--all"],
            false,
        ),
    );
    let total = N + 1;
    tmux.wait_for(g, "every session", |s| {
        !s.contains("Loading") && s.contains(&format!("/{total} "))
    });
    tmux.keys(g, &["Home"]);
    tmux.wait_text(g, &format!(" 1/{total} "));

    // Hold Down: every repeat is applied (nothing dropped), and the UI answers right after.
    tmux.repeat(g, "Down", 500);
    tmux.wait_text(g, &format!(" 501/{total} "));
    tmux.repeat(g, "Down", 1500);
    tmux.wait_text(g, &format!(" 2001/{total} "));
    tmux.repeat(g, "Up", 1000);
    tmux.wait_text(g, &format!(" 1001/{total} "));

    // Hold a letter in the search box, then erase it: one search for the final text.
    tmux.repeat(g, "z", 300);
    tmux.wait_text(g, "No sessions match");
    tmux.repeat(g, "BSpace", 300);
    tmux.wait_for(g, "the query erased", |s| s.contains("type to search"));
    tmux.text(g, "\"generated task 4242 \"");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["Escape"]);
    tmux.wait_text(g, "type to search");

    // The long session: hold Up in its tree; the transcript follows once it settles.
    tmux.text(g, "\"message 2999\"");
    tmux.wait_text(g, "1 match");
    tmux.keys(g, &["Enter"]);
    tmux.wait_for(g, "the view", |s| {
        s.contains("┌ Tree (") && s.contains("Transcript · 3000 messages")
    });
    tmux.repeat(g, "Up", 1000);
    tmux.wait_text(g, "Transcript · 2000 messages");
    tmux.repeat(g, "Down", 400);
    tmux.wait_text(g, "Transcript · 2400 messages");
    // Back to the picker (the query kept), clear it, leave.
    tmux.keys(g, &["Escape"]);
    tmux.wait_text(g, "View Session");
    tmux.keys(g, &["Escape"]);
    tmux.wait_text(g, "type to search");
    tmux.keys(g, &["Escape"]);
    assert_eq!(sb.exit_status(), "0");
}
