//! grove's own state from the CLI: pins, archive, bookmark notes and tags, export/import, two
//! processes at once, a damaged database — and not one byte of a session file changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest, Sha256};

struct Sandbox {
    _tmp: tempfile::TempDir,
    sessions: PathBuf,
    root: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_owned();
        let sessions = root.join("sessions");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi-agent/sessions"),
            &sessions,
        );
        Sandbox {
            _tmp: tmp,
            sessions,
            root,
        }
    }

    /// grove with its data folder `data` (the state lives there).
    fn run_in(&self, data: &str, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_grove"))
            .arg("--session-dir")
            .arg(&self.sessions)
            .args(args)
            .env("XDG_CACHE_HOME", self.root.join("cache"))
            .env("GROVE_DATA_DIR", self.root.join(data))
            .output()
            .expect("run grove")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in("data", args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "grove {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).expect("JSON")
    }

    fn ids(&self, args: &[&str]) -> Vec<String> {
        self.json(args)
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Every file under the session folder, with its SHA-256.
    fn hashes(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        hash_dir(&self.sessions, &mut out);
        out
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn hash_dir(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            hash_dir(&e.path(), out);
        } else {
            let bytes = std::fs::read(e.path()).unwrap();
            out.insert(e.path(), Sha256::digest(&bytes).to_vec());
        }
    }
}

const LIST: &[&str] = &["list", "--all", "--json"];

#[test]
fn pins_come_first_and_archive_hides_without_touching_a_session_file() {
    let sb = Sandbox::new();
    let before = sb.hashes();
    let all = sb.ids(LIST);
    assert!(all.len() > 10);
    let (a, b, c) = (all[5].clone(), all[7].clone(), all[2].clone());

    sb.ok(&["pin", &a, &b]);
    let listed = sb.ids(LIST);
    assert_eq!(
        &listed[..2],
        &[all[5].clone(), all[7].clone()],
        "pinned first, in order"
    );
    assert_eq!(listed.len(), all.len());
    let rows = sb.json(LIST);
    let pinned: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["pinned"] == true)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(pinned, vec![a.as_str(), b.as_str()]);
    // Search results too: the pinned matches first, in ranking order.
    let found = sb.ids(&["list", "--all", "--query", "e", "--json"]);
    let pins_found = found.iter().filter(|i| **i == a || **i == b).count();
    assert!(pins_found > 0, "{found:?}");
    assert!(
        found[..pins_found].iter().all(|i| *i == a || *i == b),
        "{found:?}"
    );
    // The plain listing too (under its header line).
    let plain = sb.ok(&["list", "--all"]);
    assert!(
        plain.lines().nth(1).unwrap().starts_with(&a[..8]),
        "{plain}"
    );

    sb.ok(&["archive", &c, &b]);
    let listed = sb.ids(LIST);
    assert_eq!(listed.len(), all.len() - 2);
    assert!(!listed.contains(&c) && !listed.contains(&b));
    assert_eq!(listed[0], a);
    let archived = sb.ids(&["list", "--all", "--archived", "--json"]);
    // Still pinned: first among the archived.
    assert_eq!(archived, vec![b.clone(), c.clone()]);

    sb.ok(&["unarchive", &c]);
    sb.ok(&["unpin", &a]);
    let listed = sb.ids(LIST);
    assert!(listed.contains(&c));
    assert_eq!(listed.len(), all.len() - 1);
    assert_eq!(listed[0], all[0], "nothing pinned is listed first any more");

    assert_eq!(sb.hashes(), before, "a session file changed");
}

#[test]
fn an_unknown_session_is_an_error_and_changes_nothing() {
    let sb = Sandbox::new();
    let out = sb.run(&["pin", "no-such-session"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session matches"));
    assert!(!sb.root.join("data/state.sqlite3").exists());
}

#[test]
fn bookmarks_notes_and_tags_survive_a_restart_and_an_export_import() {
    let sb = Sandbox::new();
    let before = sb.hashes();
    let marks = sb.json(&["bookmarks", "--json"]);
    let marks = marks.as_array().unwrap();
    assert!(marks.len() >= 3, "{marks:?}");
    let first = &marks[0];
    let (sid, eid) = (
        first["sessionId"].as_str().unwrap(),
        first["entryId"].as_str().unwrap(),
    );
    assert_eq!(first["note"], "");

    sb.ok(&[
        "bookmarks",
        "note",
        sid,
        &eid[..6],
        "the good baseline",
        "--tag",
        "perf",
        "--tag",
        "keep",
    ]);
    sb.ok(&[
        "bookmarks",
        "note",
        sid,
        eid,
        "--untag",
        "keep",
        "--tag",
        "ci",
    ]);
    let find = |v: &Value| -> Value {
        v.as_array()
            .unwrap()
            .iter()
            .find(|b| b["entryId"] == eid)
            .cloned()
            .unwrap()
    };
    // A new process: read back from the database.
    let b = find(&sb.json(&["bookmarks", "--json"]));
    assert_eq!(b["note"], "the good baseline");
    assert_eq!(b["tags"], serde_json::json!(["ci", "perf"]));
    let found = sb.json(&["bookmarks", "--json", "--query", "#perf baseline"]);
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert!(sb.ok(&["bookmarks"]).contains("the good baseline"));

    // An entry without a label is not a bookmark.
    let tree = sb.json(&["tree", sid, "--json"]);
    let unlabelled = find_unlabelled(&tree).expect("an unlabelled entry");
    let out = sb.run(&["bookmarks", "note", sid, &unlabelled, "x"]);
    assert!(!out.status.success());

    // Export, import into another data folder: the same notes.
    sb.ok(&["pin", sid]);
    let export = sb.root.join("backup.json");
    sb.ok(&["state", "export", "-o", export.to_str().unwrap()]);
    let out = sb.run_in("data2", &["state", "import", export.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = sb.run_in("data2", &["bookmarks", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(find(&v), b);
    let out = sb.run_in("data2", &["state", "export"]);
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        serde_json::from_str::<Value>(&std::fs::read_to_string(&export).unwrap()).unwrap()
    );
    // Export never overwrites.
    assert!(
        !sb.run(&["state", "export", "-o", export.to_str().unwrap()])
            .status
            .success()
    );

    assert_eq!(sb.hashes(), before, "a session file changed");
}

fn find_unlabelled(tree: &Value) -> Option<String> {
    fn walk(v: &Value, out: &mut Option<String>) {
        if out.is_some() {
            return;
        }
        match v {
            Value::Object(m) => {
                if let Some(Value::String(id)) = m.get("id")
                    && m.get("label").is_none_or(Value::is_null)
                    && m.get("type").and_then(Value::as_str) == Some("message")
                {
                    *out = Some(id.clone());
                    return;
                }
                for x in m.values() {
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = None;
    walk(tree, &mut out);
    out
}

/// Two grove processes pinning at once: every pin lands.
#[test]
fn two_processes_write_the_state_at_once() {
    let sb = Sandbox::new();
    let all = sb.ids(LIST);
    let (left, right) = all.split_at(all.len() / 2);
    let spawn = |ids: &[String]| {
        let ids = ids.to_vec();
        let sessions = sb.sessions.clone();
        let root = sb.root.clone();
        std::thread::spawn(move || {
            for id in ids {
                let out = Command::new(env!("CARGO_BIN_EXE_grove"))
                    .arg("--session-dir")
                    .arg(&sessions)
                    .args(["pin", &id])
                    .env("XDG_CACHE_HOME", root.join("cache"))
                    .env("GROVE_DATA_DIR", root.join("data"))
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        })
    };
    let (l, r) = (spawn(left), spawn(right));
    l.join().unwrap();
    r.join().unwrap();
    let rows = sb.json(LIST);
    assert!(
        rows.as_array().unwrap().iter().all(|r| r["pinned"] == true),
        "a pin was lost"
    );
}

#[test]
fn a_damaged_state_database_is_reported_and_left_alone() {
    let sb = Sandbox::new();
    let data = sb.root.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("state.sqlite3");
    let junk = b"not sqlite, but precious\n".repeat(300);
    std::fs::write(&db, &junk).unwrap();
    let id = sb.ids(LIST)[0].clone();
    let out = sb.run(&["pin", &id]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("damaged") && err.contains(&*db.to_string_lossy()),
        "{err}"
    );
    // A listing still works, and says why pins are missing.
    let out = sb.run(LIST);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("damaged"));
    assert_eq!(std::fs::read(&db).unwrap(), junk);
}
