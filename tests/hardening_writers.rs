//! Issue 12, item 9: two writers. grove processes serialize their appends with an advisory
//! lock on the session file, so their lines form a chain. A writer that takes no lock (the
//! agent) can still slip a line in between grove's check and its write; grove reads back what
//! precedes its line and, when its line would hide the agent's last entry from a resume (pi
//! resumes from the file's last line), appends a `grove.checkout` hanging off the agent's line.

mod common;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use common::*;
use grove::storage::append::{AppendSink, NewEntry, append_entry, append_entry_with, now_ms};
use grove::storage::read::load_session;
use serde_json::Value;

fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The ids on the path from the entry pi resumes from (the file's last line) to the root.
fn resumed_path(path: &Path) -> Vec<String> {
    let s = load_session(path).unwrap();
    let leaf = s.tree.leaf.expect("a leaf");
    s.tree
        .path_to(leaf)
        .into_iter()
        .map(|i| s.entries()[i].id.clone())
        .collect()
}

#[test]
fn two_grove_processes_writing_labels_form_one_chain() {
    let (dir, _root, folder) = session_root();
    let path = write_file(&folder, "s.jsonl", small_session("sess-2w", "/w"));
    let sandbox = dir.path().to_path_buf();
    let workers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|who| {
            let (path, sandbox) = (path.clone(), sandbox.clone());
            std::thread::spawn(move || {
                for i in 0..50 {
                    let out = grove_cmd(&sandbox)
                        .args([
                            "label",
                            path.to_str().unwrap(),
                            "m0000001",
                            &format!("{who}{i}"),
                            "--json",
                        ])
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{}", stderr(&out));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let all = lines(&path);
    assert_eq!(all.len(), 1 + 4 + 100);
    for pair in all[1..].windows(2) {
        assert_eq!(
            pair[1]["parentId"], pair[0]["id"],
            "siblings instead of a chain: {} after {}",
            pair[1], pair[0]
        );
    }
}

/// Before grove's line, an agent-like writer (no lock, O_APPEND, its own in-memory leaf)
/// appends its next message: exactly the interleaving that hid the agent's message.
struct AgentSlipsIn {
    agent_line: String,
}

impl AppendSink for AgentSlipsIn {
    fn write_once(&mut self, file: &mut File, line: &[u8]) -> io::Result<usize> {
        if !self.agent_line.is_empty() {
            let mut agent = OpenOptions::new().append(true).open(file_path(file))?;
            agent.write_all(self.agent_line.as_bytes())?;
            self.agent_line.clear();
        }
        file.write(line)
    }
}

fn file_path(file: &File) -> std::path::PathBuf {
    use std::os::fd::AsRawFd;
    fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap()
}

#[test]
fn an_agent_line_slipped_in_before_groves_keeps_the_agents_leaf() {
    for entry in [
        NewEntry::Rename { name: "x".into() },
        NewEntry::Label {
            target_id: "m0000001".into(),
            label: Some("l".into()),
        },
    ] {
        let (_dir, _root, folder) = session_root();
        let path = write_file(&folder, "s.jsonl", small_session("sess-agent", "/w"));
        let agent = message(
            "agent001",
            Some("m0000003"),
            "user",
            "the agent's own last message",
        );
        let mut sink = AgentSlipsIn {
            agent_line: format!("{agent}\n"),
        };
        let a = append_entry_with(&path, entry, &mut sink, now_ms()).unwrap();
        let note = a.note.expect("grove says what happened");
        assert!(
            note.contains("agent001") && note.contains("checkout"),
            "{note}"
        );
        let all = lines(&path);
        let last = all.last().unwrap();
        assert_eq!(last["customType"], "grove.checkout", "{last}");
        assert_eq!(last["parentId"], "agent001");
        let resumed = resumed_path(&path);
        assert!(
            resumed.contains(&"agent001".to_string()),
            "a resumed agent skips its own last message: {resumed:?}"
        );
    }
}

#[test]
fn against_a_fast_writer_without_a_lock_the_agent_resumes_from_its_own_last_message() {
    let (_dir, _root, folder) = session_root();
    let path = write_file(&folder, "s.jsonl", small_session("sess-fast", "/w"));
    let agent_path = path.clone();
    let agent = std::thread::spawn(move || {
        let mut f = OpenOptions::new().append(true).open(&agent_path).unwrap();
        let mut parent = "m0000003".to_string();
        let mut last = String::new();
        for i in 0..3000 {
            let id = format!("a{i:07x}");
            let line = format!("{}\n", message(&id, Some(&parent), "assistant", "tick"));
            f.write_all(line.as_bytes()).unwrap();
            parent = id.clone();
            last = id;
        }
        last
    });
    // grove keeps writing until the agent has stopped, so its writes race the agent's last.
    let mut written = 0;
    while !agent.is_finished() {
        if append_entry(
            &path,
            NewEntry::Rename {
                name: format!("n{written}"),
            },
        )
        .is_ok()
        {
            written += 1;
        }
    }
    let agent_last = agent.join().unwrap();
    let resumed = resumed_path(&path);
    assert!(
        resumed.contains(&agent_last),
        "the resumed path lost the agent's last message {agent_last}"
    );
}

/// The lock is real: while another grove process holds it (here, the test), `grove label`
/// waits instead of writing, then writes once it is released.
#[test]
fn a_grove_write_waits_for_the_lock_held_by_another_grove_process() {
    let (dir, _root, folder) = session_root();
    let path = write_file(&folder, "s.jsonl", small_session("sess-lock", "/w"));
    let before = fs::read(&path).unwrap();
    let held = File::open(&path).unwrap();
    rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let mut child = grove_cmd(dir.path())
        .args([
            "label",
            path.to_str().unwrap(),
            "m0000001",
            "waited",
            "--json",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let still_waiting = child.try_wait().unwrap().is_none();
    let unchanged = fs::read(&path).unwrap() == before;
    drop(held);
    let status = child.wait().unwrap();
    assert!(
        still_waiting && unchanged,
        "grove wrote while the lock was held"
    );
    assert!(status.success());
    assert!(fs::read_to_string(&path).unwrap().contains("\"waited\""));
}
