//! End to end: the terminal is always given back (issue 11). The real binary runs from a plain
//! shell (`sh`: no line editor of its own, so what echoes is the terminal's echo) in a tmux
//! pane on a private socket; the test sends it signals from outside and then looks at the pane:
//! alternate screen and mouse reporting off, the cursor shown, `stty` in line mode with echo,
//! typed text echoed. Pipes: `grove | head -c 100` and `grove --print | cat` get no escape code.
//!
//! Needs tmux: under `CI=true` a missing tmux fails the test; elsewhere it is skipped with a
//! notice.

mod common;

use std::fs;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::tmux::Tmux;

const TIMEOUT: Duration = Duration::from_secs(30);
/// A session title of the demo corpus: the picker is drawn when it shows.
const DEMO_TITLE: &str = "PR #42 review";

fn tmux_available() -> bool {
    common::tmux::tmux_available("the terminal tests")
}

/// A tmux server of its own with one pane (`t`) running `sh`, and a sandbox with a copy of the
/// demo sessions. The harness's methods (screen, keys, wait…) act on that pane.
struct Pane {
    tmux: Tmux,
    sandbox: tempfile::TempDir,
}

impl Deref for Pane {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.tmux
    }
}

impl Pane {
    fn new(name: &str) -> Pane {
        let sandbox = tempfile::tempdir().unwrap();
        let sessions = sandbox.path().join("sessions");
        grove::storage::demo::copy_dir(&grove::storage::demo::demo_source(), &sessions).unwrap();
        for d in ["home", "config", "data", "cache"] {
            fs::create_dir_all(sandbox.path().join(d)).unwrap();
        }
        let shell = "env PS1='$ ' TERM=xterm-256color sh";
        let tmux = Tmux::server(&format!("term-{name}"), "t", 120, 35, Some(shell))
            .with_key_delay(Duration::from_millis(100))
            .with_poll(Duration::from_millis(50))
            .with_timeout(TIMEOUT);
        let pane = Pane { tmux, sandbox };
        pane.wait("the shell's prompt", |s| s.contains('$'));
        pane
    }

    fn root(&self) -> &Path {
        self.sandbox.path()
    }

    /// The command line that runs grove on the demo copy, isolated from the user's files,
    /// writing its pid to `pid` first (`exec`: the pid is grove's). `env` adds variables
    /// (`NAME=value ...`); `roots` replaces the demo's session folders when not empty.
    fn grove_command(&self, env: &str, roots: &str, args: &str) -> String {
        let root = self.root().display().to_string();
        assert!(!root.contains(['\'', ' ']), "{root}");
        let roots = if roots.is_empty() {
            "--session-dir sessions/pi-agent/sessions --session-dir sessions/atomic-agent/sessions"
        } else {
            roots
        };
        format!(
            "cd {root} && sh -c 'echo $$ > pid; exec env -u PI_CODING_AGENT_DIR \
             -u PI_CODING_AGENT_SESSION_DIR -u ATOMIC_CODING_AGENT_DIR \
             -u ATOMIC_CODING_AGENT_SESSION_DIR HOME={root}/home XDG_CONFIG_HOME={root}/config \
             XDG_DATA_HOME={root}/data XDG_CACHE_HOME={root}/cache GROVE_CONFIG= {env} {bin} \
             {roots} --all {args}'",
            bin = common::grove_bin().display(),
        )
    }

    /// Starts grove from the shell and waits for its first frame.
    fn start_grove(&self, args: &str, redirect: &str) -> u32 {
        self.start_grove_with("", "", args, redirect, DEMO_TITLE)
    }

    /// [`Pane::start_grove`] with variables, roots, and the text that shows it is up.
    fn start_grove_with(
        &self,
        env: &str,
        roots: &str,
        args: &str,
        redirect: &str,
        up: &str,
    ) -> u32 {
        let _ = fs::remove_file(self.root().join("pid"));
        self.line(&format!(
            "{}{redirect}",
            self.grove_command(env, roots, args)
        ));
        self.wait(&format!("grove to show {up:?}"), |s| s.contains(up));
        self.wait_until("the alternate screen", || {
            self.format("#{alternate_on}") == "1"
        });
        let pid = fs::read_to_string(self.root().join("pid")).unwrap();
        pid.trim().parse().unwrap()
    }

    /// The pane's terminal settings, as `stty -a` shows them.
    fn stty(&self) -> String {
        let tty = self.format("#{pane_tty}");
        let out = Command::new("stty")
            .args(["-a", "-F", &tty])
            .output()
            .expect("stty");
        common::stdout(&out)
    }

    /// The pane is as a shell wants it: everything grove turned on is off again.
    fn assert_restored(&self, what: &str) {
        for flag in [
            "alternate_on",
            "mouse_any_flag",
            "mouse_button_flag",
            "mouse_standard_flag",
            "mouse_sgr_flag",
            "mouse_all_flag",
        ] {
            assert_eq!(
                self.format(&format!("#{{{flag}}}")),
                "0",
                "{what}: {flag} is still on; screen:\n{}",
                self.screen()
            );
        }
        assert_eq!(self.format("#{cursor_flag}"), "1", "{what}: cursor hidden");
        let stty = words(&self.stty());
        for mode in ["icanon", "echo", "icrnl", "isig"] {
            assert!(
                stty.contains(&mode.to_owned()),
                "{what}: the terminal is not in line mode ({mode} off): {stty:?}"
            );
        }
        // The shell reads a line again, and what is typed echoes.
        self.line("echo typed-$((6*7))");
        self.wait(&format!("{what}: typed text to echo"), |s| {
            s.contains("echo typed-$((6*7))") && s.contains("\ntyped-42")
        });
    }

    fn assert_raw(&self, what: &str) {
        let stty = words(&self.stty());
        for mode in ["-icanon", "-echo"] {
            assert!(
                stty.contains(&mode.to_owned()),
                "{what}: not in raw mode: {stty:?}"
            );
        }
        assert_eq!(self.format("#{alternate_on}"), "1", "{what}");
        assert_eq!(self.format("#{mouse_any_flag}").len(), 1);
    }
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn kill(pid: u32, signal: &str) {
    // The shell's builtin: no procps needed.
    let out = Command::new("sh")
        .args(["-c", &format!("kill -{signal} {pid}")])
        .output()
        .expect("kill");
    assert!(out.status.success(), "kill -{signal} {pid} failed");
}

fn exited(pid: u32) -> bool {
    // A zombie counts as gone (its parent, the pane's shell, reaps it).
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

/// SIGTERM, SIGHUP, SIGINT (sent from outside) and SIGQUIT each end grove with the terminal
/// given back, and the shell reports `128 + signal`.
#[test]
fn terminating_signals_restore_the_terminal() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::new("quit");
    for (signal, status) in [("TERM", 143), ("HUP", 129), ("INT", 130), ("QUIT", 131)] {
        let pid = pane.start_grove("", "");
        pane.assert_raw(&format!("before SIG{signal}"));
        // Mouse reporting is on while the browser runs.
        assert_eq!(pane.format("#{mouse_any_flag}"), "1");
        kill(pid, signal);
        pane.wait_until(&format!("grove to end on SIG{signal}"), || exited(pid));
        pane.line("echo status=$?");
        pane.wait("the exit status", |s| {
            s.contains(&format!("status={status}"))
        });
        pane.assert_restored(&format!("after SIG{signal}"));
        pane.line("clear");
    }
}

/// `mouse = false` in the config: the browser runs without mouse reporting, so the terminal
/// keeps its own selection.
#[test]
fn mouse_capture_can_be_turned_off() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::new("nomouse");
    let config = pane.root().join("config.toml");
    fs::write(&config, "mouse = false\n").unwrap();
    let pid = pane.start_grove_with(
        &format!("GROVE_CONFIG={}", config.display()),
        "",
        "",
        "",
        DEMO_TITLE,
    );
    assert_eq!(pane.format("#{alternate_on}"), "1");
    assert_eq!(pane.format("#{mouse_any_flag}"), "0");
    pane.keys(&["Escape"]);
    pane.wait_until("grove to quit", || exited(pid));
}

/// SIGTSTP gives the terminal back and stops grove; `fg` (SIGCONT) brings the browser back
/// in raw mode, redrawn and taking keys; then it quits with the terminal restored.
#[test]
fn stop_and_continue() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::new("stop");
    let pid = pane.start_grove("", "");
    kill(pid, "TSTP");
    pane.wait_until("grove to stop", || {
        fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('T'))
        })
    });
    pane.wait_until("the shell to take over", || {
        pane.format("#{alternate_on}") == "0"
    });
    pane.assert_restored("after SIGTSTP");
    pane.line("fg");
    pane.wait("the picker again", |s| s.contains(DEMO_TITLE));
    pane.wait_until("raw mode again", || {
        words(&pane.stty()).contains(&"-icanon".to_owned())
    });
    pane.assert_raw("after fg");
    // Keys arrive one by one (not on Enter) and act: typing searches.
    pane.keys(&["c"]);
    pane.keys(&["o"]);
    pane.keys(&["l"]);
    pane.wait("the typed query", |s| s.contains("col"));
    pane.keys(&["Escape"]);
    pane.keys(&["Escape"]);
    pane.wait_until("grove to quit", || exited(pid));
    pane.assert_restored("after quitting");
}

fn has_escape(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b == 0x1b || b == 0x9b)
}

/// With stdout a pipe the browser draws on the terminal (/dev/tty); nothing but what is
/// printed on purpose reaches the pipe, and a reader that goes away is not an error.
#[test]
fn pipes_get_no_escape_codes() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::new("pipe");
    let root = pane.root().to_path_buf();
    let pid = pane.start_grove("2>err1", " | head -c 100 > out1; echo done1");
    pane.keys(&["Escape"]);
    pane.wait("the first pipe to finish", |s| s.contains("\ndone1"));
    assert!(exited(pid));
    let out = fs::read(root.join("out1")).unwrap();
    assert!(!has_escape(&out), "escape codes in the pipe: {out:?}");
    assert!(out.is_empty(), "{:?}", String::from_utf8_lossy(&out));
    let err = fs::read_to_string(root.join("err1")).unwrap();
    assert!(
        !err.contains("Broken pipe") && !has_escape(err.as_bytes()),
        "{err}"
    );
    pane.assert_restored("after grove | head");

    let pid = pane.start_grove("--print 2>err2", " | cat > out2; echo done2");
    pane.keys(&["Enter"]);
    pane.wait("the second pipe to finish", |s| s.contains("\ndone2"));
    assert!(exited(pid));
    let out = fs::read(root.join("out2")).unwrap();
    assert!(!has_escape(&out), "escape codes in the pipe: {out:?}");
    let out = String::from_utf8(out).unwrap();
    let path = out.strip_suffix('\n').expect("one line");
    assert!(!path.contains('\n'), "{out:?}");
    assert!(path.ends_with(".jsonl"), "{out:?}");
    assert!(root.join(path).is_file(), "{out:?}");
    let err = fs::read_to_string(root.join("err2")).unwrap();
    assert!(!has_escape(err.as_bytes()), "{err}");
    pane.assert_restored("after grove --print | cat");
}

/// Without a terminal at all (no controlling terminal, stdout a pipe) the browser refuses
/// with a clear message and writes nothing to stdout.
#[test]
fn no_terminal_refuses_and_writes_nothing() {
    let sandbox = tempfile::tempdir().unwrap();
    let sessions = sandbox.path().join("sessions");
    fs::create_dir_all(&sessions).unwrap();
    let mut cmd = Command::new("setsid");
    cmd.arg(common::grove_bin())
        .arg("--session-dir")
        .arg(&sessions);
    common::isolate(&mut cmd, sandbox.path());
    let out = common::output_within(cmd, 20, "grove without a terminal");
    assert!(out.stdout.is_empty(), "{:?}", common::stdout(&out));
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(!has_escape(err.as_bytes()), "{err:?}");
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A config with a TOML syntax error: the browser starts with the defaults and says, inside
/// the browser, what is wrong and where; the notice stays until dismissed.
#[test]
fn config_problems_are_shown_in_the_browser() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::new("config");
    let config = pane.root().join("config.toml");
    fs::write(
        &config,
        "[theme]\naccent = \"cyan\"\n[keys]\nrename = = \"alt+r\"\n",
    )
    .unwrap();
    let pid = pane.start_grove_with(
        &format!("GROVE_CONFIG={}", config.display()),
        "",
        "",
        "",
        "Config problem",
    );
    // The browser runs (and loads) under the notice.
    pane.wait("the notice over the loaded picker", |s| {
        s.contains("line 4, column 10") && s.contains(DEMO_TITLE)
    });
    // Keys do not reach what the notice covers.
    pane.keys(&["x"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(pane.screen().contains("Config problem"));
    assert!(!pane.screen().contains("> x"), "{}", pane.screen());
    pane.keys(&["Escape"]);
    pane.wait("the notice to go", |s| !s.contains("Config problem"));
    pane.keys(&["Escape"]);
    pane.wait_until("grove to quit", || exited(pid));
}

/// `GROVE_CONFIG` naming a FIFO or /dev/zero, and pi's settings.json as a FIFO or a link to
/// /dev/zero: the browser starts at once with a notice (nothing waits for a writer or reads
/// without end).
#[test]
fn special_files_as_config_or_settings_do_not_hang_the_browser() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::new("fifo");
    let root = pane.root().to_path_buf();
    let fifo = root.join("config.fifo");
    mkfifo(&fifo);
    for config in [fifo.clone(), PathBuf::from("/dev/zero")] {
        let pid = pane.start_grove_with(
            &format!("GROVE_CONFIG={}", config.display()),
            "",
            "",
            "",
            "Config problem",
        );
        pane.wait("the reason", |s| s.contains("not a regular file"));
        pane.keys(&["Escape"]);
        pane.wait("the picker", |s| {
            s.contains(DEMO_TITLE) && !s.contains("Config problem")
        });
        pane.keys(&["Escape"]);
        pane.wait_until("grove to quit", || exited(pid));
    }
    // pi's settings.json (read to find its sessions folder) as a FIFO, then as /dev/zero.
    let agent = root.join("agent");
    grove::storage::demo::copy_dir(
        &root.join("sessions/pi-agent/sessions"),
        &agent.join("sessions"),
    )
    .unwrap();
    let settings = agent.join("settings.json");
    mkfifo(&settings);
    for round in 0..2 {
        if round == 1 {
            fs::remove_file(&settings).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &settings).unwrap();
        }
        let pid = pane.start_grove_with(
            &format!("PI_CODING_AGENT_DIR={}", agent.display()),
            " ",
            "",
            "",
            "Config problem",
        );
        pane.wait("the reason", |s| {
            s.contains("settings are ignored") && s.contains("not a regular file")
        });
        pane.keys(&["Escape"]);
        pane.wait("the pi sessions", |s| s.contains("Set up rust-analyzer"));
        pane.keys(&["Escape"]);
        pane.wait_until("grove to quit", || exited(pid));
    }
}

/// `grove list` with the same files: done within the deadline, with a warning on stderr.
#[test]
fn special_files_as_config_or_settings_do_not_hang_grove_list() {
    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path();
    let agent = root.join("agent");
    fs::create_dir_all(agent.join("sessions")).unwrap();
    let fifo = root.join("config.fifo");
    mkfifo(&fifo);
    mkfifo(&agent.join("settings.json"));
    let run = |config: &Path| {
        let mut cmd = Command::new(common::grove_bin());
        common::isolate(&mut cmd, root);
        cmd.env("GROVE_CONFIG", config)
            .env("PI_CODING_AGENT_DIR", &agent)
            .args(["list", "--json", "--all"]);
        common::output_within(cmd, 10, "grove list")
    };
    for config in [fifo.as_path(), Path::new("/dev/zero")] {
        let out = run(config);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let err = common::stderr(&out);
        assert!(
            err.contains("warning: the agent's settings are ignored: not a regular file"),
            "{err}"
        );
    }
    fs::remove_file(agent.join("settings.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", agent.join("settings.json")).unwrap();
    let out = run(&fifo);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("not a regular file"));
}
