//! Helpers shared by the hardening and adversarial tests: building session files, running the
//! real `grove` binary in an isolated environment, snapshots of a corpus (to prove nothing was
//! written), and checks that output is inert on a terminal.
//!
//! Each test binary uses a different subset, hence the `dead_code` allowance.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

pub mod index;
pub mod tmux;

/// The header line of a v3 session (no trailing newline).
pub fn header(id: &str, cwd: &str) -> String {
    serde_json::json!({
        "type": "session",
        "version": 3,
        "id": id,
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": cwd,
    })
    .to_string()
}

/// A message entry line (no trailing newline).
pub fn message(id: &str, parent: Option<&str>, role: &str, text: &str) -> String {
    let message = if role == "assistant" {
        serde_json::json!({
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "provider": "anthropic",
            "model": "claude-test",
            "api": "anthropic-messages",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop",
            "timestamp": 1_735_689_600_000_i64,
        })
    } else {
        serde_json::json!({"role": role, "content": text, "timestamp": 1_735_689_600_000_i64})
    };
    serde_json::json!({
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": message,
    })
    .to_string()
}

/// A linear conversation of `n` messages with ids `m0000000`, `m0000001`, … (alternating
/// user/assistant), starting after `first_parent`.
pub fn chain(n: usize, first_parent: Option<&str>) -> Vec<String> {
    let mut parent = first_parent.map(str::to_owned);
    (0..n)
        .map(|i| {
            let id = format!("m{i:07x}");
            let role = if i.is_multiple_of(2) {
                "user"
            } else {
                "assistant"
            };
            let line = message(&id, parent.as_deref(), role, &format!("message {i}"));
            parent = Some(id);
            line
        })
        .collect()
}

/// Joins lines with `\n`, with a trailing newline.
pub fn jsonl(lines: &[String]) -> String {
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A small valid session: header plus a four-message chain.
pub fn small_session(id: &str, cwd: &str) -> String {
    let mut lines = vec![header(id, cwd)];
    lines.extend(chain(4, None));
    jsonl(&lines)
}

/// A session root (`root/--cwd--/`) in a fresh temp dir; returns (tempdir, root, cwd folder).
pub fn session_root() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("sessions");
    let folder = root.join("--work--");
    fs::create_dir_all(&folder).expect("mkdir");
    (dir, root, folder)
}

/// Writes `content` to `folder/name`, returning the path.
pub fn write_file(folder: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = folder.join(name);
    fs::write(&p, content).expect("write session");
    p
}

/// The real binary.
pub fn grove_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_grove"))
}

/// A `grove` command that cannot see the user's sessions, cache or trash: HOME and the XDG
/// folders point into `sandbox`, and the agents' variables are cleared. Stdin is null (not a
/// terminal), so nothing waits for confirmation.
pub fn grove_cmd(sandbox: &Path) -> Command {
    let mut c = Command::new(grove_bin());
    isolate(&mut c, sandbox);
    c
}

/// Points HOME and the XDG folders of `c` into `sandbox` and clears the agents' variables.
pub fn isolate(c: &mut Command, sandbox: &Path) {
    let home = sandbox.join("home");
    let data = sandbox.join("data");
    let cache = sandbox.join("cache");
    for d in [&home, &data, &cache] {
        let _ = fs::create_dir_all(d);
    }
    c.env("HOME", &home)
        .env("XDG_DATA_HOME", &data)
        .env("XDG_CACHE_HOME", &cache)
        .env("XDG_CONFIG_HOME", sandbox.join("config"))
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("ATOMIC_CODING_AGENT_DIR")
        .env_remove("ATOMIC_CODING_AGENT_SESSION_DIR")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
}

/// Runs grove with `--session-dir root` and `args`.
pub fn grove(sandbox: &Path, root: &Path, args: &[&str]) -> Output {
    grove_cmd(sandbox)
        .arg("--session-dir")
        .arg(root)
        .args(args)
        .output()
        .expect("run grove")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// What one file looked like: size, mtime, permissions and a SHA-256 of its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    pub len: u64,
    pub modified: Option<SystemTime>,
    pub mode: u32,
    pub sha256: String,
}

/// Every file and folder under `dir` (symlinks recorded by target text, not followed).
pub type Snapshot = BTreeMap<PathBuf, FileState>;

/// Snapshots a corpus: run it before and after something that must not write, then
/// [`assert_unchanged`].
pub fn snapshot(dir: &Path) -> Snapshot {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = fs::read_dir(&d) else { continue };
        for e in read.flatten() {
            let p = e.path();
            let Ok(meta) = fs::symlink_metadata(&p) else {
                continue;
            };
            let ft = meta.file_type();
            let sha256 = if ft.is_file() {
                hex(&Sha256::digest(fs::read(&p).unwrap_or_default()))
            } else if ft.is_symlink() {
                format!(
                    "link:{}",
                    fs::read_link(&p).unwrap_or_default().to_string_lossy()
                )
            } else if ft.is_dir() {
                stack.push(p.clone());
                "dir".into()
            } else {
                "special".into()
            };
            out.insert(
                p,
                FileState {
                    len: meta.len(),
                    // A folder's mtime changes when grove only reads it? It must not.
                    modified: meta.modified().ok(),
                    mode: mode_of(&meta),
                    sha256,
                },
            );
        }
    }
    out
}

#[cfg(unix)]
fn mode_of(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode()
}

#[cfg(not(unix))]
fn mode_of(_: &fs::Metadata) -> u32 {
    0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Panics with the differences when two snapshots differ.
pub fn assert_unchanged(before: &Snapshot, after: &Snapshot) {
    let mut diffs = Vec::new();
    for (p, a) in before {
        match after.get(p) {
            None => diffs.push(format!("removed: {}", p.display())),
            Some(b) if a != b => diffs.push(format!("changed: {} {a:?} -> {b:?}", p.display())),
            _ => {}
        }
    }
    for p in after.keys() {
        if !before.contains_key(p) {
            diffs.push(format!("added: {}", p.display()));
        }
    }
    assert!(
        diffs.is_empty(),
        "the corpus changed:\n{}",
        diffs.join("\n")
    );
}

/// The first character a terminal could act on or that hides/reorders text, if any: C0
/// controls other than `\n`, DEL, C1 controls, bidi controls, zero-width and other invisible
/// format characters, U+2028/U+2029. Tabs count: they must have been expanded.
pub fn first_hostile_char(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| is_hostile(c))
}

pub fn is_hostile(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{9}' | '\u{B}'..='\u{1F}' | '\u{7F}'..='\u{9F}'
        | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}'
        | '\u{061C}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}'
        | '\u{2028}' | '\u{2029}')
}

/// Asserts that `bytes` (a process's stdout or stderr) are UTF-8 and inert.
pub fn assert_inert(what: &str, bytes: &[u8]) {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => panic!("{what}: output is not UTF-8: {e}"),
    };
    if let Some((at, c)) = first_hostile_char(text) {
        let start = text[..at]
            .char_indices()
            .rev()
            .nth(40)
            .map_or(0, |(i, _)| i);
        panic!(
            "{what}: raw {:?} (U+{:04X}) reaches the terminal at byte {at}: …{:?}…",
            c,
            c as u32,
            &text[start..(at + c.len_utf8()).min(text.len())]
        );
    }
}

/// Whether this process can still write a file whose permissions forbid it (root can): tests
/// of permission errors skip themselves, with a notice, when it can.
pub fn permissions_are_bypassed(path: &Path) -> bool {
    fs::OpenOptions::new().append(true).open(path).is_ok()
}

/// A command run as the `nobody` user through `setpriv`, when this process is root and
/// `setpriv` exists; `None` otherwise.
pub fn as_unprivileged(program: &Path) -> Option<Command> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    let mut c = Command::new(setpriv);
    c.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=-all",
    ])
    .arg(program);
    Some(c)
}

/// Makes `path` and its parents up to `/` traversable by others (for runs as `nobody`).
#[cfg(unix)]
pub fn open_up(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
}

/// Sets the permission bits of `path`.
#[cfg(unix)]
pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Runs `cmd` (stdout/stderr captured), killing it and panicking after `secs` seconds: a hang
/// is a failure, not a stuck test run.
pub fn output_within(mut cmd: Command, secs: u64, what: &str) -> Output {
    use std::io::Read;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    // Drain the pipes on threads so a chatty child cannot block on a full pipe.
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s (hang)");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    Output {
        status,
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
    }
}

/// [`grove`] with a deadline.
pub fn grove_within(sandbox: &Path, root: &Path, args: &[&str], secs: u64) -> Output {
    let mut c = grove_cmd(sandbox);
    c.arg("--session-dir").arg(root).args(args);
    output_within(c, secs, &format!("grove {}", args.join(" ")))
}

/// Every `.jsonl` file under `dir`, recursively.
pub fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// Bytes that matter to a JSON scanner: structure, escapes, digits, whitespace, control
/// characters and broken UTF-8.
pub const AWKWARD: &[u8] = b"\"\\u{}[],: \t\r\x01\x1f0-+.eEnt/\xff\xc3\xa9";

/// One edit of a mutation test: which line, where in it, insert / replace / remove, which
/// awkward byte.
pub type Edit = (
    proptest::sample::Index,
    proptest::sample::Index,
    u8,
    proptest::sample::Index,
);

/// A session file of `header` and `lines`, with each edit applied to its line.
pub fn mutated_session(header: &str, lines: &[String], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = header.as_bytes().to_vec();
    bytes.push(b'\n');
    for (n, l) in lines.iter().enumerate() {
        let mut line = l.as_bytes().to_vec();
        for (which, at, op, byte) in edits {
            if which.index(lines.len()) != n || line.is_empty() {
                continue;
            }
            let at = at.index(line.len());
            let b = AWKWARD[byte.index(AWKWARD.len())];
            match op {
                0 => line.insert(at, b),
                1 => line[at] = b,
                _ => {
                    line.remove(at);
                }
            }
        }
        bytes.extend_from_slice(&line);
        bytes.push(b'\n');
    }
    bytes
}

/// A JSON string body (without quotes) of at least `len` bytes made of `unit`s, which may be
/// escapes or multi-byte characters, so cuts fall inside and around them.
pub fn json_body(unit: &str, len: usize) -> String {
    let mut s = String::new();
    while s.len() < len {
        s.push_str(unit);
    }
    s
}

/// Whether `prlimit` (util-linux) can run, for the memory-limit tests; under `CI=true` its
/// absence fails the test instead of skipping it.
pub fn prlimit_available() -> bool {
    let ok = Command::new("prlimit")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "prlimit (util-linux) is needed for the memory-limit tests"
        );
        eprintln!("NOTICE: no prlimit; memory-limit check skipped");
    }
    ok
}

/// The names in the private trash of a sandbox.
pub fn trashed(sandbox: &Path) -> Vec<String> {
    fs::read_dir(sandbox.join("data/Trash/files"))
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}
