//! Data safety of grove's only write, the one-line append: a concurrent writer, torn last
//! lines, and failed writes (injected through the `AppendSink` seam and real ones from the OS)
//! never lose or glue a byte.

mod common;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use common::*;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use grove::storage::append::{
    AppendSink, NewEntry, WriteError, append_entry, append_entry_with, now_ms,
};
use serde_json::Value;

fn label(target: &str, text: &str) -> NewEntry {
    NewEntry::Label {
        target_id: target.into(),
        label: Some(text.into()),
    }
}

fn rename(name: &str) -> NewEntry {
    NewEntry::Rename { name: name.into() }
}

/// Every line of the file: a JSON object, newline-terminated.
fn all_lines_parse(path: &Path) -> Vec<serde_json::Map<String, Value>> {
    let bytes = fs::read(path).unwrap();
    assert!(bytes.ends_with(b"\n"), "file does not end with a newline");
    bytes[..bytes.len() - 1]
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| match serde_json::from_slice::<Value>(l) {
            Ok(Value::Object(m)) => m,
            other => panic!(
                "line {} does not parse as an object ({other:?}): {:?}",
                i + 1,
                String::from_utf8_lossy(l)
            ),
        })
        .collect()
}

fn str_of<'a>(m: &'a serde_json::Map<String, Value>, k: &str) -> Option<&'a str> {
    m.get(k).and_then(Value::as_str)
}

/// Writes one line with one `write` on an `O_APPEND` descriptor, as pi's `appendFileSync` does.
fn pi_like_append(file: &mut File, line: &str) {
    let bytes = format!("{line}\n");
    let n = file.write(bytes.as_bytes()).unwrap();
    assert_eq!(n, bytes.len(), "the writer's own write was short");
}

/// The writer's entries: `w{i}` chained to `w{i-1}`; pi keeps its leaf in memory and never
/// re-reads the file, so grove's lines must not change what the writer chains to.
fn writer_line(i: usize) -> String {
    let parent = if i == 0 {
        "m0000003".to_owned()
    } else {
        format!("w{:07}", i - 1)
    };
    message(
        &format!("w{i:07}"),
        Some(&parent),
        if i.is_multiple_of(2) {
            "user"
        } else {
            "assistant"
        },
        &format!("writer line {i} {}", "x".repeat(i % 300)),
    )
}

fn run_writer(path: &Path, count: usize, pause: Duration) {
    let mut f = OpenOptions::new().append(true).open(path).unwrap();
    for i in 0..count {
        pi_like_append(&mut f, &writer_line(i));
        thread::sleep(pause);
    }
}

/// Grove appends labels and renames until `stop`; returns how many landed and how many were
/// refused (a refusal is fine: the file was left alone).
fn grove_appends(path: &Path, stop: &AtomicBool) -> (usize, usize) {
    let (mut ok, mut refused) = (0, 0);
    let mut i = 0usize;
    while !stop.load(Ordering::Relaxed) || ok == 0 {
        let entry = if i.is_multiple_of(3) {
            rename(&format!("name {i}"))
        } else {
            label("m0000001", &format!("label {i}"))
        };
        match append_entry(path, entry) {
            Ok(_) => ok += 1,
            Err(WriteError::Changed { .. } | WriteError::TornLastLine { .. }) => refused += 1,
            Err(e) => panic!("unexpected append error: {e}"),
        }
        i += 1;
    }
    (ok, refused)
}

/// What must hold after a writer and grove appended to the same file concurrently.
fn check_concurrent_result(path: &Path, writer_count: usize, grove_ok: usize) {
    let lines = all_lines_parse(path);
    let writer: Vec<_> = lines
        .iter()
        .filter(|m| str_of(m, "id").is_some_and(|id| id.starts_with('w')))
        .collect();
    assert_eq!(
        writer.len(),
        writer_count,
        "a writer line was lost or glued"
    );
    for (i, m) in writer.iter().enumerate() {
        let want_parent = if i == 0 {
            "m0000003".to_owned()
        } else {
            format!("w{:07}", i - 1)
        };
        assert_eq!(str_of(m, "id"), Some(format!("w{i:07}").as_str()));
        assert_eq!(str_of(m, "parentId"), Some(want_parent.as_str()));
    }
    // grove's lines: each hangs off an entry that precedes it; count how many hang off the
    // line right before them (the file's last entry when grove read it).
    let mut seen = std::collections::HashSet::new();
    let mut grove_lines = 0;
    let mut stale = 0;
    let mut prev_id: Option<&str> = None;
    for m in &lines {
        let id = str_of(m, "id");
        let is_grove = matches!(str_of(m, "type"), Some("label" | "session_info"));
        if is_grove {
            grove_lines += 1;
            let parent = str_of(m, "parentId").expect("grove line without parentId");
            assert!(
                seen.contains(parent),
                "grove line hangs off unknown {parent}"
            );
            if Some(parent) != prev_id {
                stale += 1;
            }
        }
        if let Some(id) = id {
            seen.insert(id);
        }
        prev_id = id;
    }
    assert_eq!(
        grove_lines, grove_ok,
        "grove reported appends it did not make"
    );
    // The window between grove's size check and its write is microseconds wide; without the
    // re-read every append made during the writer's run would hang off a stale entry.
    assert!(
        stale * 10 <= grove_ok.max(10),
        "{stale} of {grove_ok} grove lines hang off a stale entry"
    );
    // Finally grove appends once more: its line must continue the writer's branch, so the
    // leaf on resume still has the writer's whole conversation.
    append_entry(path, label("m0000001", "after")).unwrap();
    let s = Session::new(ParsedSession::from_bytes(&fs::read(path).unwrap()));
    let path_ids: Vec<&str> = s
        .tree
        .path_to(s.tree.leaf.unwrap())
        .into_iter()
        .map(|i| s.entries()[i].id.as_str())
        .collect();
    let last_writer = format!("w{:07}", writer_count - 1);
    assert!(
        path_ids.contains(&last_writer.as_str()),
        "the leaf no longer reaches the writer's last entry"
    );
    assert!(path_ids.contains(&"w0000000"));
    assert_eq!(s.parsed.issues.len(), 0, "{:?}", s.parsed.issues);
}

fn fresh_session() -> (tempfile::TempDir, PathBuf) {
    let (dir, _root, folder) = session_root();
    let p = write_file(&folder, "s.jsonl", small_session("sess-1", "/work"));
    (dir, p)
}

#[test]
fn concurrent_writer_thread_and_grove_appends() {
    let (_dir, path) = fresh_session();
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(2));
    let count = 400;
    let writer = {
        let (path, stop, start) = (path.clone(), stop.clone(), start.clone());
        thread::spawn(move || {
            start.wait();
            run_writer(&path, count, Duration::from_millis(3));
            stop.store(true, Ordering::Relaxed);
        })
    };
    start.wait();
    let (ok, refused) = grove_appends(&path, &stop);
    writer.join().unwrap();
    eprintln!("grove appended {ok} lines, {refused} refused while the writer ran");
    assert!(ok > 0);
    check_concurrent_result(&path, count, ok);
}

/// The writer as another process (the test binary re-run with `GROVE_TEST_WRITER` set).
#[test]
fn concurrent_writer_process_and_grove_appends() {
    let (_dir, path) = fresh_session();
    let count = 300;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "writer_process_entry_point",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("GROVE_TEST_WRITER", &path)
        .env("GROVE_TEST_WRITER_COUNT", count.to_string())
        .spawn()
        .unwrap();
    // Wait for the writer's first line so the two really overlap.
    while fs::read(&path)
        .unwrap()
        .windows(8)
        .all(|w| w != b"w0000000")
    {
        thread::sleep(Duration::from_millis(1));
    }
    let stop = AtomicBool::new(false);
    let grove = thread::scope(|s| {
        let h = s.spawn(|| grove_appends(&path, &stop));
        let status = child.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
        assert!(status.success(), "writer process failed");
        h.join().unwrap()
    });
    eprintln!("grove appended {} lines, {} refused", grove.0, grove.1);
    check_concurrent_result(&path, count, grove.0);
}

/// Not a test on its own: the writer process of the test above.
#[test]
fn writer_process_entry_point() {
    let Some(path) = std::env::var_os("GROVE_TEST_WRITER") else {
        return;
    };
    let count: usize = std::env::var("GROVE_TEST_WRITER_COUNT")
        .unwrap()
        .parse()
        .unwrap();
    run_writer(Path::new(&path), count, Duration::from_millis(3));
}

#[test]
fn torn_last_line_is_refused_and_file_untouched() {
    let (dir, _root, folder) = session_root();
    let mut content = small_session("sess-torn", "/work");
    content.push_str(r#"{"type":"message","id":"half","parentId":"m0000003","mess"#);
    let path = write_file(&folder, "torn.jsonl", &content);
    let before = fs::read(&path).unwrap();

    let err = append_entry(&path, rename("x")).unwrap_err();
    assert!(matches!(err, WriteError::TornLastLine { .. }), "{err:?}");
    assert!(err.to_string().contains("incomplete"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), before);

    // The CLI says so too, and exits non-zero.
    let out = grove(
        dir.path(),
        &folder,
        &["rename", path.to_str().unwrap(), "x", "--json"],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("incomplete"), "{}", stderr(&out));
    let out = grove(
        dir.path(),
        &folder,
        &["label", path.to_str().unwrap(), "m0000001", "y", "--json"],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("incomplete"), "{}", stderr(&out));
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// After a torn line grove never reaches the write at all (its line would be glued on).
#[test]
fn torn_line_never_reaches_the_writer() {
    struct TearFirst;
    impl AppendSink for TearFirst {
        fn write_once(&mut self, _file: &mut File, _line: &[u8]) -> io::Result<usize> {
            unreachable!("grove must not write after a torn line appeared")
        }
    }
    let (_dir, path) = fresh_session();
    // A writer died mid-line after a complete file; every retry sees the torn line.
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"{\"type\":\"mess").unwrap();
    let before = fs::read(&path).unwrap();
    let err = append_entry_with(&path, rename("x"), &mut TearFirst, now_ms()).unwrap_err();
    assert!(matches!(err, WriteError::TornLastLine { .. }), "{err:?}");
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// A sink that fails like the OS would.
struct Failing(io::Error);

impl AppendSink for Failing {
    fn write_once(&mut self, _file: &mut File, _line: &[u8]) -> io::Result<usize> {
        Err(io::Error::new(self.0.kind(), self.0.to_string()))
    }
}

#[test]
fn injected_write_failures_leave_the_file_identical_and_say_why() {
    for (errno, why) in [
        (28, "No space left on device"),
        (13, "Permission denied"),
        (30, "Read-only file system"),
        (5, "Input/output error"),
    ] {
        let (_dir, path) = fresh_session();
        let before = fs::read(&path).unwrap();
        let mut sink = Failing(io::Error::from_raw_os_error(errno));
        let err = append_entry_with(&path, rename("x"), &mut sink, now_ms()).unwrap_err();
        assert!(matches!(err, WriteError::Failed { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(why), "{text}");
        assert!(text.contains("unchanged"), "{text}");
        assert!(text.contains(path.to_str().unwrap()), "{text}");
        assert_eq!(fs::read(&path).unwrap(), before, "errno {errno}");
    }
}

/// A short write (disk filled up mid-line): grove removes its own partial line.
#[test]
fn short_write_is_rolled_back() {
    struct Half;
    impl AppendSink for Half {
        fn write_once(&mut self, file: &mut File, line: &[u8]) -> io::Result<usize> {
            file.write(&line[..line.len() / 2])
        }
    }
    struct Zero;
    impl AppendSink for Zero {
        fn write_once(&mut self, _file: &mut File, _line: &[u8]) -> io::Result<usize> {
            Ok(0)
        }
    }
    let sinks: [&mut dyn AppendSink; 2] = [&mut Half, &mut Zero];
    for sink in sinks {
        let (_dir, path) = fresh_session();
        let before = fs::read(&path).unwrap();
        let err = append_entry_with(&path, rename("x"), sink, now_ms()).unwrap_err();
        assert!(matches!(err, WriteError::Failed { .. }), "{err:?}");
        assert!(err.to_string().contains("short write"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), before);
    }
}

/// Another program appends right after a failed write: grove must not truncate its line
/// (a failed `write` wrote nothing, so there is nothing of grove's to remove).
#[test]
fn failed_write_never_cuts_another_writers_line() {
    struct FailAfterOther {
        path: PathBuf,
    }
    impl AppendSink for FailAfterOther {
        fn write_once(&mut self, _file: &mut File, _line: &[u8]) -> io::Result<usize> {
            let mut other = OpenOptions::new().append(true).open(&self.path)?;
            pi_like_append(&mut other, &writer_line(0));
            Err(io::Error::from_raw_os_error(28))
        }
    }
    let (_dir, path) = fresh_session();
    let before = fs::read(&path).unwrap();
    let err = append_entry_with(
        &path,
        rename("x"),
        &mut FailAfterOther { path: path.clone() },
        now_ms(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("No space left"), "{err}");
    let after = fs::read(&path).unwrap();
    let mut want = before.clone();
    want.extend_from_slice(format!("{}\n", writer_line(0)).as_bytes());
    assert_eq!(after, want, "the other writer's line was cut");
}

/// A short write followed by another writer's line: grove leaves both (cutting back would
/// remove the other line) and says so.
#[test]
fn short_write_then_other_writer_is_left_in_place() {
    struct HalfThenOther {
        path: PathBuf,
    }
    impl AppendSink for HalfThenOther {
        fn write_once(&mut self, file: &mut File, line: &[u8]) -> io::Result<usize> {
            let n = file.write(&line[..10])?;
            let mut other = OpenOptions::new().append(true).open(&self.path)?;
            pi_like_append(&mut other, &writer_line(0));
            Ok(n)
        }
    }
    let (_dir, path) = fresh_session();
    let before = fs::read(&path).unwrap();
    let err = append_entry_with(
        &path,
        rename("x"),
        &mut HalfThenOther { path: path.clone() },
        now_ms(),
    )
    .unwrap_err();
    assert!(
        matches!(err, WriteError::FailedNotRestored { .. }),
        "{err:?}"
    );
    let after = fs::read(&path).unwrap();
    assert!(after.starts_with(&before));
    assert!(
        after.ends_with(format!("{}\n", writer_line(0)).as_bytes()),
        "the other writer's line was cut"
    );
}

/// `grove rename`/`label` on a file the OS refuses to write: a real failure, not an injected
/// one. Root ignores permission bits, so the check runs as `nobody` (via setpriv) when this
/// runs as root, and is skipped with a notice when that is impossible.
#[cfg(unix)]
#[test]
fn read_only_file_is_refused_by_the_os_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    open_up(dir.path(), 0o755);
    let folder = dir.path().join("sessions");
    fs::create_dir(&folder).unwrap();
    open_up(&folder, 0o755);
    let path = write_file(&folder, "ro.jsonl", small_session("sess-ro", "/work"));
    chmod(&path, 0o444);
    let before = fs::read(&path).unwrap();

    let mut cmd = if permissions_are_bypassed(&path) {
        match as_unprivileged(&grove_bin()) {
            Some(c) => c,
            None => {
                eprintln!("NOTICE: running as root without setpriv; read-only check skipped");
                return;
            }
        }
    } else {
        Command::new(grove_bin())
    };
    let sandbox = dir.path().join("sandbox");
    fs::create_dir(&sandbox).unwrap();
    open_up(&sandbox, 0o777);
    isolate(&mut cmd, &sandbox);
    for d in ["home", "data", "cache"] {
        open_up(&sandbox.join(d), 0o777);
    }
    let out = cmd
        .args(["rename", path.to_str().unwrap(), "new name", "--json"])
        .output()
        .unwrap();
    let err = stderr(&out);
    if err.contains("Permission denied (os error 13)") && err.contains("exec") {
        eprintln!("NOTICE: cannot run the binary as nobody ({err}); read-only check skipped");
        return;
    }
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// Even root cannot write an immutable file (`chattr +i`): a real EPERM on open.
#[cfg(target_os = "linux")]
#[test]
fn immutable_file_is_refused_and_reported() {
    let (dir, _root, folder) = session_root();
    let path = write_file(&folder, "imm.jsonl", small_session("sess-imm", "/work"));
    let set = Command::new("chattr").arg("+i").arg(&path).output();
    if !set.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("NOTICE: chattr +i is not available here; immutable-file check skipped");
        return;
    }
    struct Unset(PathBuf);
    impl Drop for Unset {
        fn drop(&mut self) {
            let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        }
    }
    let _unset = Unset(path.clone());
    let before = fs::read(&path).unwrap();
    let err = append_entry(&path, rename("x")).unwrap_err();
    assert!(err.to_string().contains("Operation not permitted"), "{err}");
    let out = grove(
        dir.path(),
        &folder,
        &["rename", path.to_str().unwrap(), "x", "--json"],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Operation not permitted"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// A real failed write from the kernel: a file-size limit (`ulimit -f`) makes `write` fail with
/// EFBIG (file already past the limit) or write short (limit inside the line). Either way the
/// file ends byte-identical and the error says why.
#[cfg(target_os = "linux")]
#[test]
fn file_size_limit_failures_from_the_kernel() {
    if !Path::new("/bin/bash").exists() {
        eprintln!("NOTICE: no bash; ulimit check skipped");
        return;
    }
    // bash counts `ulimit -f` in 1024-byte blocks; the limit here is 2048 bytes.
    for (size, expect) in [(3000usize, "File too large"), (2000, "short write")] {
        let (dir, _root, folder) = session_root();
        let mut content = small_session("sess-lim", "/work");
        let pad = |n: usize, k: usize| {
            format!(
                "{}\n",
                message(&format!("p{n:07}"), None, "user", &"x".repeat(k))
            )
        };
        let empty_len = pad(0, 0).len();
        while content.len() + 2 * empty_len + 300 < size {
            content.push_str(&pad(content.len(), 200));
        }
        content.push_str(&pad(content.len(), size - content.len() - empty_len));
        assert_eq!(content.len(), size);
        let path = write_file(&folder, "lim.jsonl", &content);
        let before = fs::read(&path).unwrap();
        let mut cmd = Command::new("/bin/bash");
        cmd.arg("-c")
            .arg("trap '' XFSZ; ulimit -f 2 || exit 97; exec \"$0\" \"$@\"")
            .arg(grove_bin())
            .args(["rename", path.to_str().unwrap(), &"n".repeat(200), "--json"]);
        isolate(&mut cmd, dir.path());
        let out = cmd.output().unwrap();
        if out.status.code() == Some(97) {
            eprintln!("NOTICE: cannot set a file-size limit; check skipped");
            return;
        }
        let err = stderr(&out);
        assert!(!out.status.success(), "size {size}: {err}");
        assert!(err.contains(expect), "size {size}: {err}");
        assert_eq!(fs::read(&path).unwrap(), before, "size {size}");
    }
}
