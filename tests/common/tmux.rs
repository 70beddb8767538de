//! The one tmux harness of the end-to-end tests: the real `grove` binary in a pane of a tmux
//! server of its own (a private socket, `tmux -L grove-NAME-PID`), driven by keys and read back
//! with `capture-pane`.
//!
//! ```ignore
//! if !tmux_available("the live end-to-end tests") { return; }
//! let t = Tmux::start("live", 120, 30, &command);   // runs `command` in session "grove"
//! t.text("alpha");                                   // typed literally
//! t.keys(&["Down", "Enter"]);                        // tmux key names, sent one by one
//! let screen = t.wait_for("Tree (");                 // polls until the text shows
//! ```
//!
//! Every method acts on the default target (the session `Tmux::start` made, or the one given to
//! [`Tmux::server`]); the `*_in` variants take a target (a window name) for tests that run
//! several windows. The server is killed, and its socket file removed, on drop.
//!
//! Timing: each key and each text is followed by a pause (`key_delay`, 150 ms by default: a lone
//! Esc followed at once by another key reads as Alt+key); waits poll every `poll` (100 ms) and
//! fail after `timeout` (30 s) with the screen in the message. Change them with the `with_*`
//! builders.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The session (and default target) [`Tmux::start`] creates.
pub const SESSION: &str = "grove";

/// Whether tmux can run. Without it the test should return early — except under `CI=true`,
/// where this fails the test instead: a test that cannot run must not pass silently there.
/// `what` names the test(s) in the notice and the failure.
pub fn tmux_available(what: &str) -> bool {
    if Command::new("tmux").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "tmux is needed for {what} (CI=true): install tmux"
    );
    eprintln!("NOTICE: tmux is not installed; skipping {what}");
    false
}

/// `p` quoted for a POSIX shell (single quotes).
pub fn quote(p: impl AsRef<OsStr>) -> String {
    format!("'{}'", p.as_ref().to_string_lossy().replace('\'', "'\\''"))
}

/// Creates `home`, `config`, `data` and `cache` under `root` and returns the `env …` prefix of
/// a shell command that points HOME and the XDG folders at them, unsets the agents' own
/// folder variables and the grove config, and sets `TERM=xterm-256color`. Append variables
/// and the program: `format!("{} {}", sandbox_env(root), quote(grove_bin()))`.
pub fn sandbox_env(root: &Path) -> String {
    for d in ["home", "config", "data", "cache"] {
        std::fs::create_dir_all(root.join(d)).expect("create the sandbox folders");
    }
    format!(
        "env -u PI_CODING_AGENT_DIR -u PI_CODING_AGENT_SESSION_DIR -u ATOMIC_CODING_AGENT_DIR \
         -u ATOMIC_CODING_AGENT_SESSION_DIR HOME={home} XDG_CONFIG_HOME={config} \
         XDG_DATA_HOME={data} XDG_CACHE_HOME={cache} GROVE_CONFIG= TERM=xterm-256color",
        home = quote(root.join("home")),
        config = quote(root.join("config")),
        data = quote(root.join("data")),
        cache = quote(root.join("cache")),
    )
}

/// A tmux server of its own; see the module docs.
pub struct Tmux {
    socket: String,
    /// The socket file, removed on drop (kill-server leaves it behind).
    socket_path: PathBuf,
    target: String,
    key_delay: Duration,
    poll: Duration,
    timeout: Duration,
}

impl Tmux {
    /// A server on socket `grove-NAME-PID` with session [`SESSION`], `width`×`height`, running
    /// `command` (through the default shell).
    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        Tmux::server(name, SESSION, width, height, Some(command))
    }

    /// A server with session `session` (the default target), running `command` or, without
    /// one, the default shell.
    pub fn server(
        name: &str,
        session: &str,
        width: u16,
        height: u16,
        command: Option<&str>,
    ) -> Tmux {
        let mut t = Tmux {
            socket: format!("grove-{name}-{}", std::process::id()),
            socket_path: PathBuf::new(),
            target: session.to_owned(),
            key_delay: Duration::from_millis(150),
            poll: Duration::from_millis(100),
            timeout: Duration::from_secs(30),
        };
        let (w, h) = (width.to_string(), height.to_string());
        let mut args = vec![
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            &w,
            "-y",
            &h,
        ];
        args.extend(command);
        let out = t.cmd(&args);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t.socket_path = PathBuf::from(t.format("#{socket_path}"));
        t
    }

    /// The pause after each key and text (150 ms by default).
    pub fn with_key_delay(mut self, delay: Duration) -> Tmux {
        self.key_delay = delay;
        self
    }

    /// How long a wait lasts before it fails (30 s by default).
    pub fn with_timeout(mut self, timeout: Duration) -> Tmux {
        self.timeout = timeout;
        self
    }

    /// How often a wait looks again (100 ms by default).
    pub fn with_poll(mut self, poll: Duration) -> Tmux {
        self.poll = poll;
        self
    }

    /// Runs a tmux command on this server.
    pub fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Runs `command` in a new window named `target` (not selected).
    pub fn spawn(&self, target: &str, command: &str) {
        let out = self.cmd(&["new-window", "-d", "-n", target, command]);
        assert!(
            out.status.success(),
            "tmux new-window: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The visible text of the default target.
    pub fn screen(&self) -> String {
        self.screen_in(&self.target)
    }

    pub fn screen_in(&self, target: &str) -> String {
        let out = self.cmd(&["capture-pane", "-p", "-t", target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A tmux format (`#{alternate_on}`, `#{pane_title}`…) of the default target, trimmed.
    pub fn format(&self, format: &str) -> String {
        self.format_in(&self.target, format)
    }

    pub fn format_in(&self, target: &str, format: &str) -> String {
        let out = self.cmd(&["display-message", "-p", "-t", target, format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Sends tmux key names (`Enter`, `C-d`, `M-p`, `q`…) one by one, each followed by the key
    /// delay.
    pub fn keys(&self, keys: &[&str]) {
        self.keys_in(&self.target, keys);
    }

    pub fn keys_in(&self, target: &str, keys: &[&str]) {
        for k in keys {
            self.cmd(&["send-keys", "-t", target, k]);
            std::thread::sleep(self.key_delay);
        }
    }

    /// Types `text` literally, then the key delay.
    pub fn text(&self, text: &str) {
        self.text_in(&self.target, text);
    }

    pub fn text_in(&self, target: &str, text: &str) {
        self.cmd(&["send-keys", "-t", target, "-l", text]);
        std::thread::sleep(self.key_delay);
    }

    /// Types `text` and Enter (a shell command line).
    pub fn line(&self, text: &str) {
        self.text(text);
        self.keys(&["Enter"]);
    }

    /// The same key `n` times in one burst, as a held key (`send-keys -N`).
    pub fn repeat_in(&self, target: &str, key: &str, n: usize) {
        let n = n.to_string();
        let out = self.cmd(&["send-keys", "-t", target, "-N", &n, key]);
        assert!(
            out.status.success(),
            "send-keys -N: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Waits until the screen satisfies `cond`; that screen.
    pub fn wait(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        self.wait_in(&self.target, what, cond)
    }

    pub fn wait_in(&self, target: &str, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + self.timeout;
        loop {
            let s = self.screen_in(target);
            if cond(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(self.poll);
        }
    }

    /// Waits until the screen contains `needle`; that screen.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_for_in(&self.target, needle)
    }

    pub fn wait_for_in(&self, target: &str, needle: &str) -> String {
        self.wait_in(target, &format!("{needle:?}"), |s| s.contains(needle))
    }

    /// Waits until `cond` holds (files on disk, a format…); fails with the screen.
    pub fn wait_until(&self, what: &str, cond: impl Fn() -> bool) {
        let deadline = Instant::now() + self.timeout;
        while !cond() {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(self.poll);
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
        if self.socket_path.file_name().is_some() {
            let _ = std::fs::remove_file(&self.socket_path);
        }
    }
}
