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

use common::tmux::{Tmux, quote, sandbox_env};

const WIDTH: u16 = 140;
const HEIGHT: u16 = 40;
const TIMEOUT: Duration = Duration::from_secs(30);

/// The hostile payload: OSC 52 (clipboard), clear screen, OSC 0 (title), alternate screen, a C1
/// CSI, a bidi override, zero-width characters, a tab and a carriage return.
const PAYLOAD: &str = "\u{1b}]52;c;SGVsbG8=\u{7} \u{1b}[2J \u{1b}]0;pwned\u{7} \u{1b}[?1049h \u{9b}31m \u{202E}desrever\u{202C} zero\u{200B}width\u{FEFF} tab\there \rCR";

fn tmux_available() -> bool {
    common::tmux::tmux_available("the browser hardening end-to-end tests")
}

/// A tmux server of its own (`ctl` the first window), with the clipboard open to
/// applications, so an OSC 52 that got through would show up as a paste buffer.
fn server(name: &str) -> Tmux {
    let t = Tmux::server(&format!("e2e-{name}"), "ctl", WIDTH, HEIGHT, None)
        .with_key_delay(Duration::from_millis(80))
        .with_poll(Duration::from_millis(50))
        .with_timeout(TIMEOUT);
    t.cmd(&["set-option", "-g", "set-clipboard", "on"]);
    t
}

/// The paste buffers of the server.
fn buffers(tmux: &Tmux) -> String {
    stdout(&tmux.cmd(&["list-buffers"]))
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
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
            "cd {root} && {env} {bin}",
            root = quote(sandbox),
            env = sandbox_env(sandbox),
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
    let tmux = server("browse");
    let g = "grove";
    tmux.spawn(g, &sb.grove(&roots, &[], false));

    // The picker, in the current folder's scope (empty), then all.
    tmux.wait_for_in(g, "No sessions in current folder");
    tmux.keys_in(g, &["Tab"]);
    tmux.wait_for_in(g, "PR #42 review: colour output");
    tmux.wait_in(g, "the scan to finish", |s| !s.contains("Loading"));
    for _ in 0..2 {
        tmux.keys_in(g, &["Tab"]);
    }
    // Sort, named-only, path and preview toggles, each all the way round.
    for (key, cycle) in [("C-s", 6), ("C-n", 2), ("C-p", 2), ("C-t", 2)] {
        for _ in 0..cycle {
            tmux.keys_in(g, &[key]);
        }
    }
    tmux.wait_for_in(g, "Name: All  Sort: Threaded");
    // Searches: fuzzy, phrase, regex, an invalid regex.
    tmux.text_in(g, "colour outpt");
    tmux.wait_for_in(g, "PR #42 review");
    tmux.keys_in(g, &["Escape"]);
    tmux.text_in(g, "\"colour output\"");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["Escape"]);
    tmux.text_in(g, "re:colou?r\\s+out");
    tmux.wait_for_in(g, "PR #42 review");
    tmux.keys_in(g, &["Escape"]);
    tmux.text_in(g, "re:(unclosed");
    tmux.wait_for_in(g, "invalid regex");
    tmux.keys_in(g, &["Escape"]);
    // The preview of several rows, the hostile one among them.
    tmux.text_in(g, "HOSTILE");
    tmux.wait_for_in(g, "EVIL-NAME");
    tmux.keys_in(g, &["Escape"]);
    for _ in 0..5 {
        tmux.keys_in(g, &["Down"]);
    }
    tmux.keys_in(g, &["Up", "End", "Home", "PageDown", "PageUp"]);
    // The picker's help.
    tmux.keys_in(g, &["?"]);
    tmux.keys_in(g, &["Escape"]);

    // Into the session view of the PR review (it has branches and tool output).
    tmux.text_in(g, "\"colour output\"");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["Enter"]);
    tmux.wait_for_in(g, "┌ Tree (");
    for k in ["C-t", "C-u", "C-l", "C-a", "C-o", "C-o", "C-d"] {
        tmux.keys_in(g, &[k]);
    }
    for k in [
        "Up", "Up", "C-Left", "C-Left", "C-Right", "C-Right", "Home", "End",
    ] {
        tmux.keys_in(g, &[k]);
    }
    // The tree search, confirmed, its hits walked, cleared.
    tmux.keys_in(g, &["/"]);
    tmux.text_in(g, "colour");
    tmux.keys_in(g, &["Enter"]);
    tmux.keys_in(g, &["n", "n", "N", "Escape"]);
    // The transcript: its search, expand all, expand one, help.
    tmux.keys_in(g, &["Tab"]);
    tmux.keys_in(g, &["/"]);
    tmux.text_in(g, "the");
    tmux.keys_in(g, &["Enter", "n", "N"]);
    tmux.keys_in(g, &["x", "x", "Enter", "PageUp", "PageDown"]);
    tmux.keys_in(g, &["?"]);
    tmux.wait_for_in(g, "Session view keys");
    tmux.keys_in(g, &["Escape"]);
    // Esc clears the transcript search, then leaves the transcript, then the view.
    tmux.keys_in(g, &["Escape", "Escape", "Escape"]);
    // Back in the picker, the query kept; Esc clears it. The hostile session's view too.
    tmux.wait_for_in(g, "View Session");
    tmux.keys_in(g, &["Escape"]);
    tmux.wait_for_in(g, "type to search");
    tmux.text_in(g, "HOSTILE");
    tmux.wait_for_in(g, "EVIL-NAME");
    tmux.keys_in(g, &["Enter"]);
    tmux.wait_for_in(g, "┌ Tree (");
    // Opened on the search's hit, the transcript search is seeded: Esc clears it first.
    tmux.keys_in(g, &["Tab", "x", "Escape", "Escape", "Escape"]);
    tmux.wait_for_in(g, "View Session");
    tmux.wait_for_in(g, "EVIL-NAME");
    // Quit: Esc clears the query, Esc again leaves.
    tmux.keys_in(g, &["Escape"]);
    tmux.keys_in(g, &["Escape"]);
    assert_eq!(sb.exit_status(), "0", "{}", tmux.screen_in(g));

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
    let tmux = server("inject");

    // The checks below can see an attack: a raw payload printed in a pane sets its title, puts
    // the clipboard text in a tmux buffer and clears the screen.
    tmux.spawn(
        "control",
        &format!(
            "printf 'CONTROL-LINE\\n'; printf {}; sleep 600",
            quote(PAYLOAD)
        ),
    );
    tmux.wait_in("control", "the control payload", |_| {
        tmux.format_in("control", "#{pane_title}") == "pwned"
    });
    assert!(
        buffers(&tmux).contains("Hello") || buffers(&tmux).contains("SGVsbG8"),
        "the control OSC 52 did not reach tmux's buffers: {:?}",
        buffers(&tmux)
    );
    assert!(!tmux.screen_in("control").contains("CONTROL-LINE"));
    tmux.cmd(&["delete-buffer"]);
    assert_eq!(buffers(&tmux), "");

    let g = "grove";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all"], false));
    let title = tmux.format_in(g, "#{pane_title}");
    assert_ne!(title, "pwned");
    let check = |what: &str, screen: &str| {
        assert_eq!(
            tmux.format_in(g, "#{pane_title}"),
            title,
            "{what}: the pane title changed"
        );
        assert_eq!(buffers(&tmux), "", "{what}: the clipboard was written");
        assert!(!screen.contains("pwned\n"), "{what}: {screen}");
        common::assert_inert(what, screen.as_bytes());
    };

    // The picker row and the preview.
    let s = tmux.wait_for_in(g, "EVIL-NAME");
    tmux.wait_in(g, "the preview", |s| s.contains("TOOL-OUTPUT"));
    let s2 = tmux.screen_in(g);
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
    tmux.keys_in(g, &["Enter"]);
    let s = tmux.wait_for_in(g, "┌ Tree (");
    check("session view", &s);
    tmux.keys_in(g, &["Tab", "x"]);
    let s = tmux.wait_for_in(g, "TOOL-OUTPUT");
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
    tmux.keys_in(g, &["?"]);
    tmux.wait_for_in(g, "Session view keys");
    tmux.keys_in(g, &["Escape", "Escape", "Escape"]);
    let s = tmux.wait_for_in(g, "type to search");
    check("picker again", &s);
    tmux.keys_in(g, &["Escape"]);
    assert_eq!(sb.exit_status(), "0");
    // The terminal is back to normal: main screen, cursor shown, no mouse reporting.
    tmux.wait_in(g, "the main screen", |_| {
        tmux.format_in(g, "#{alternate_on}") == "0"
    });
    assert_eq!(tmux.format_in(g, "#{cursor_flag}"), "1");
    assert_eq!(tmux.format_in(g, "#{mouse_any_flag}"), "0");
    assert_eq!(tmux.format_in(g, "#{pane_title}"), title);
    assert_eq!(buffers(&tmux), "");
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
    let tmux = server("print");

    // A clean path is printed as it is, for scripts.
    let g = "clean";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all", "--print"], true));
    tmux.wait_for_in(g, "message 0");
    tmux.text_in(g, "\"message 0\"");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["Enter"]);
    assert_eq!(sb.exit_status(), "0", "{}", sb.read_out("stderr"));
    assert_eq!(sb.read_out("stdout"), format!("{}\n", clean.display()));

    // A hostile file name is refused: status 2, a clear message, nothing raw anywhere.
    fs::remove_file(sb.out("exit")).unwrap();
    let g = "hostile";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all", "--print"], true));
    let title = tmux.format_in(g, "#{pane_title}");
    tmux.wait_for_in(g, "EVIL-NAME");
    tmux.text_in(g, "HOSTILE");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["Enter"]);
    assert_eq!(sb.exit_status(), "2");
    assert_eq!(sb.read_out("stdout"), "", "nothing printed for scripts");
    let err = sb.read_out("stderr");
    common::assert_inert("stderr", err.as_bytes());
    assert!(err.contains("not printing the session's path"), "{err}");
    assert!(err.contains("evil^[]0;pwned^G^[[2J.jsonl"), "{err}");
    assert_eq!(tmux.format_in(g, "#{pane_title}"), title);
    assert_eq!(buffers(&tmux), "");

    // From the session view (print mode's resume prints "path entry-id"): refused the same way.
    fs::remove_file(sb.out("exit")).unwrap();
    let g = "hostile-view";
    tmux.spawn(g, &sb.grove(&[sb.sessions()], &["--all", "--print"], true));
    tmux.wait_for_in(g, "EVIL-NAME");
    tmux.text_in(g, "HOSTILE");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["C-v"]);
    tmux.wait_for_in(g, "┌ Tree (");
    // The view opens on the search's hit; `r` there would offer a check-out first: the leaf.
    tmux.keys_in(g, &["End"]);
    tmux.keys_in(g, &["r"]);
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

    let tmux = server("burst");
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
    tmux.wait_in(g, "every session", |s| {
        !s.contains("Loading") && s.contains(&format!("/{total} "))
    });
    tmux.keys_in(g, &["Home"]);
    tmux.wait_for_in(g, &format!(" 1/{total} "));

    // Hold Down: every repeat is applied (nothing dropped), and the UI answers right after.
    tmux.repeat_in(g, "Down", 500);
    tmux.wait_for_in(g, &format!(" 501/{total} "));
    tmux.repeat_in(g, "Down", 1500);
    tmux.wait_for_in(g, &format!(" 2001/{total} "));
    tmux.repeat_in(g, "Up", 1000);
    tmux.wait_for_in(g, &format!(" 1001/{total} "));

    // Hold a letter in the search box, then erase it: one search for the final text.
    tmux.repeat_in(g, "z", 300);
    tmux.wait_for_in(g, "No sessions match");
    tmux.repeat_in(g, "BSpace", 300);
    tmux.wait_in(g, "the query erased", |s| s.contains("type to search"));
    tmux.text_in(g, "\"generated task 4242 \"");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["Escape"]);
    tmux.wait_for_in(g, "type to search");

    // The long session: hold Up in its tree; the transcript follows once it settles.
    tmux.text_in(g, "\"message 2999\"");
    tmux.wait_for_in(g, "1 match");
    tmux.keys_in(g, &["Enter"]);
    tmux.wait_in(g, "the view", |s| {
        s.contains("┌ Tree (") && s.contains("Transcript · 3000 messages")
    });
    tmux.repeat_in(g, "Up", 1000);
    tmux.wait_for_in(g, "Transcript · 2000 messages");
    tmux.repeat_in(g, "Down", 400);
    tmux.wait_for_in(g, "Transcript · 2400 messages");
    // Back to the picker (the query kept), clear it, leave.
    tmux.keys_in(g, &["Escape"]);
    tmux.wait_for_in(g, "View Session");
    tmux.keys_in(g, &["Escape"]);
    tmux.wait_for_in(g, "type to search");
    tmux.keys_in(g, &["Escape"]);
    assert_eq!(sb.exit_status(), "0");
}
