//! The index on SQLite: a grown session adds a chunk (bytes written follow the bytes added),
//! an in-place edit that also grew the file is rescanned, crafted rows are bounded by the real
//! file, two processes list at once, a listing killed mid-write leaves a usable cache, and
//! pi's mtime fallback is rounded as Node rounds it.

mod common;

use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use grove::storage::index::Index;
use grove::storage::index::db::{Db, Row};
use grove::storage::scan::list_sessions;

use common::index::{Rng, append, assert_same, header, list, list_with, message, roots};

/// A session of `n` message pairs; returns its path.
fn write_session(dir: &Path, name: &str, id: &str, n: usize, rng: &mut Rng) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let mut s = header(id) + "\n";
    let mut parent: Option<String> = None;
    for i in 0..n {
        let uid = format!("{id:.4}u{i:03x}");
        let aid = format!("{id:.4}a{i:03x}");
        s += &message(&uid, parent.as_deref(), "user", &rng.text(30));
        s += "\n";
        s += &message(&aid, Some(&uid), "assistant", &rng.text(60));
        s += "\n";
        parent = Some(aid);
    }
    let p = dir.join(name);
    fs::write(&p, s).unwrap();
    p
}

/// An assistant line calling `bash` with `command`.
fn tool_call(id: &str, command: &str) -> String {
    serde_json::json!({
        "type": "message", "id": id, "parentId": null,
        "timestamp": "2025-01-02T03:04:05.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "running it"},
                {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"command": command}},
            ],
            "stopReason": "toolUse",
            "timestamp": 1_735_787_045_000_i64,
        },
    })
    .to_string()
        + "\n"
}

fn db_count(cache: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(cache.join("index.sqlite3")).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_grown_session_appends_a_chunk_in_proportion_to_the_bytes_added() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(7);
    let big = write_session(&dir, "big.jsonl", "big00000", 3000, &mut rng);
    write_session(&dir, "small.jsonl", "small000", 3, &mut rng);
    // Tool-heavy: ~40 KB of tool-call text, which a growth must not rewrite (the row held it).
    let mut tools = String::new();
    for i in 0..1200 {
        tools += &tool_call(&format!("t{i:07x}"), &format!("cargo test --lib module{i}"));
    }
    append(&big, tools.as_bytes());
    let (_, first) = list(&cache, &dir);
    assert!(first.bytes_written > 500_000, "{first:?}");
    let chunks = || db_count(&cache, "SELECT count(*) FROM texts");
    let tool_chunks = || db_count(&cache, "SELECT count(*) FROM tools");
    let (before, tools_before) = (chunks(), tool_chunks());
    for round in 0..5 {
        let mut added = tool_call(&format!("c{round}000000"), "git status");
        while added.len() < 4096 {
            let id = format!("g{round}{:06x}", added.len());
            added += &message(&id, None, "user", &rng.text(40));
            added += "\n";
        }
        append(&big, added.as_bytes());
        let (listing, stats) = list(&cache, &dir);
        assert_eq!((stats.resumed, stats.cached), (1, 1), "{stats:?}");
        assert!(
            stats.bytes_written < 4 * added.len() as u64 + 4096,
            "round {round}: {} bytes written for {} added",
            stats.bytes_written,
            added.len()
        );
        assert!(stats.bytes_read < 2 * added.len() as u64, "{stats:?}");
        assert_same("resumed", &listing, &list_sessions(&roots(&dir)));
        assert_eq!(chunks(), before + round + 1, "one text chunk per growth");
        assert_eq!(
            tool_chunks(),
            tools_before + round + 1,
            "one tool chunk per growth"
        );
    }
    // And a cached listing after the growths gives the same text.
    let (again, stats) = list(&cache, &dir);
    assert_eq!(stats.cached, 2);
    assert_same("cached", &again, &list_sessions(&roots(&dir)));
}

#[test]
fn an_in_place_edit_of_the_header_that_also_grew_the_file_is_rescanned() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(8);
    let p = write_session(&dir, "a.jsonl", "aaaa0000", 40, &mut rng);
    let (first, _) = list(&cache, &dir);
    assert_eq!(first.sessions[0].cwd, "/w");
    // Same inode: the cwd edited in place ("/w" -> "/x"), then a line appended.
    let bytes = fs::read(&p).unwrap();
    let at = memchr::memmem::find(&bytes, br#""cwd":"/w""#).unwrap() + 8;
    let mut f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.seek(SeekFrom::Start(at as u64)).unwrap();
    f.write_all(b"x").unwrap();
    drop(f);
    append(
        &p,
        (message("zz000001", None, "user", "later") + "\n").as_bytes(),
    );
    let (listing, stats) = list(&cache, &dir);
    assert_eq!(stats.resumed, 0, "{stats:?}");
    assert_eq!(listing.sessions[0].cwd, "/x");
    assert_same("rescanned", &listing, &list_sessions(&roots(&dir)));
}

#[test]
fn crafted_rows_are_bounded_by_the_real_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(9);
    for i in 0..3 {
        write_session(
            &dir,
            &format!("s{i}.jsonl"),
            &format!("{i}{i}{i}{i}0000"),
            4,
            &mut rng,
        );
    }
    let cold = list_sessions(&roots(&dir));
    list(&cache, &dir);
    type Edit = fn(&Path, &mut Row);
    let crafts: [(&str, &str, Edit); 6] = [
        (
            "a text longer than any file, in one chunk of 8 MB",
            "DELETE FROM texts;
             INSERT INTO texts(session, seq, data) SELECT id, 0, printf('%.*c', 8388608, 'x') FROM sessions",
            |_, r| r.text_len = 8388608,
        ),
        (
            "a tool text longer than any file, in one chunk of 8 MB",
            "DELETE FROM tools;
             INSERT INTO tools(session, seq, data) SELECT id, 0, printf('%.*c', 8388608, 'x') FROM sessions",
            |_, r| r.tools_len = 8388608,
        ),
        ("a stated text length beyond the file", "", |_, r| {
            r.text_len = 1099511627776
        }),
        ("a torn tool text beyond the file", "", |_, r| {
            r.torn_tools = "t".repeat(100_000)
        }),
        ("counts and names larger than the file", "", |_, r| {
            let i = r.info.as_mut().unwrap();
            i.message_count = 1000000000;
            i.first_message = "y".repeat(100_000);
        }),
        ("a resume offset past the end", "", |_, r| {
            r.resume_offset = 1099511627776
        }),
    ];
    for (what, sql, edit) in crafts {
        let c = rusqlite::Connection::open(cache.join("index.sqlite3")).unwrap();
        c.execute_batch(sql).unwrap();
        drop(c);
        Db::edit_rows_for_tests(&cache, edit).unwrap();
        let (listing, stats) = list(&cache, &dir);
        assert_eq!(stats.cached, 0, "{what}: {stats:?}");
        assert_same(what, &listing, &cold);
        let (_, stats) = list(&cache, &dir);
        assert_eq!(stats.cached, 3, "{what}: rebuilt rows are used");
    }
}

/// `grove` with the pi sessions of `home/pi-agent` and its cache in `home/cache`.
fn grove(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_grove"));
    c.args(args)
        .env("PI_CODING_AGENT_DIR", home.join("pi-agent"))
        .env("ATOMIC_CODING_AGENT_DIR", home.join("atomic-agent"))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("ATOMIC_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("GROVE_INDEX_STATS", "1");
    c
}

fn run(home: &Path, args: &[&str]) -> (Vec<u8>, String) {
    let out = grove(home, args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {err}");
    (out.stdout, err)
}

fn corpus(home: &Path, n: usize, pairs: usize) -> PathBuf {
    let dir = home.join("pi-agent/sessions/--w--");
    let mut rng = Rng(10);
    for i in 0..n {
        write_session(
            &dir,
            &format!("s{i:04}.jsonl"),
            &format!("{i:04x}cafe"),
            pairs,
            &mut rng,
        );
    }
    dir
}

#[test]
fn a_name_or_id_in_a_crafted_cache_does_not_send_a_write_to_another_file() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = corpus(home, 2, 3);
    let (a, b) = (dir.join("s0000.jsonl"), dir.join("s0001.jsonl"));
    append(&a, br#"{"type":"session_info","id":"nnnn0001","parentId":"0000u002","timestamp":"2025-01-02T03:06:00.000Z","name":"alpha"}
"#);
    run(home, &["list", "--all", "--json"]);
    let cache = home.join("cache/grove");
    // B's row claims A's name, A's row claims none; then B's row claims A's id.
    Db::edit_rows_for_tests(&cache, |p, r| {
        let i = r.info.as_mut().unwrap();
        if p.ends_with("s0001.jsonl") {
            i.name = Some("alpha".into());
        } else if p.ends_with("s0000.jsonl") {
            i.name = None;
        }
    })
    .unwrap();
    let b_before = fs::read(&b).unwrap();
    run(home, &["rename", "alpha", "beta", "--json"]);
    assert_eq!(fs::read(&b).unwrap(), b_before, "B untouched");
    assert!(String::from_utf8_lossy(&fs::read(&a).unwrap()).contains(r#""name":"beta""#));

    run(home, &["list", "--all", "--json"]);
    Db::edit_rows_for_tests(&cache, |p, r| {
        let i = r.info.as_mut().unwrap();
        if p.ends_with("s0001.jsonl") {
            i.id = "0000cafe".into();
        } else if p.ends_with("s0000.jsonl") {
            i.id = "ffffffff".into();
        }
    })
    .unwrap();
    run(home, &["label", "0000cafe", "0000u001", "here", "--json"]);
    assert_eq!(fs::read(&b).unwrap(), b_before, "B untouched");
    assert!(String::from_utf8_lossy(&fs::read(&a).unwrap()).contains(r#""label":"here""#));
}

/// The entry lines of a file, without the fields a write makes fresh (id, timestamp).
fn lines_without_fresh_fields(p: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if let Some(m) = v.as_object_mut() {
                m.remove("timestamp");
                if m.get("type").and_then(|t| t.as_str()) != Some("message") {
                    m.remove("id");
                }
                // A later write's parent is the fresh id of the one before.
                if m.get("type").and_then(|t| t.as_str()) != Some("message") {
                    m.remove("parentId");
                    if let Some(d) = m.get_mut("data").and_then(|d| d.as_object_mut()) {
                        d.remove("previousLeafId");
                    }
                }
            }
            v
        })
        .collect()
}

#[test]
fn writes_from_a_warm_index_equal_writes_from_the_whole_file() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = corpus(home, 1, 20);
    let p = dir.join("s0000.jsonl");
    let copy = tmp.path().join("copy.jsonl");
    fs::copy(&p, &copy).unwrap();
    run(home, &["list", "--all", "--json"]);
    let writes: [&[&str]; 5] = [
        &["label", "0000cafe", "0000u005", "first", "--json"],
        &["rename", "0000cafe", "a name", "--json"],
        &["checkout", "0000cafe", "0000a003", "--json"],
        // A user message: the leaf goes to its parent.
        &["checkout", "0000cafe", "0000u007", "--json"],
        &["label", "0000cafe", "0000a012", "exact", "--json"],
    ];
    for w in writes {
        let (out, err) = run(home, w);
        assert!(err.contains("write path Indexed"), "{w:?}: {err}");
        let copy_s = copy.to_string_lossy().into_owned();
        let mut slow: Vec<&str> = w.to_vec();
        slow[1] = &copy_s;
        let mut args = vec!["--no-cache"];
        args.extend(slow);
        let (slow_out, slow_err) = run(home, &args);
        assert!(slow_err.contains("write path WholeFile"), "{slow_err}");
        let parent = |o: &[u8]| {
            serde_json::from_slice::<serde_json::Value>(o).unwrap()["leafParentId"].clone()
        };
        assert_eq!(parent(&out), parent(&slow_out), "{w:?}");
        assert!(
            lines_without_fresh_fields(&p) == lines_without_fresh_fields(&copy),
            "{w:?}: the files differ"
        );
    }
    // Each write hangs off the previous one: a chain, as the whole-file path makes it.
    let text = fs::read_to_string(&p).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let n = lines.len();
    assert_eq!(lines[n - 4]["parentId"], lines[n - 5]["id"]);
    // An unknown entry is refused without writing.
    let before = fs::read(&p).unwrap();
    let out = grove(home, &["label", "0000cafe", "nope", "x", "--json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(fs::read(&p).unwrap(), before);
}

#[test]
fn two_processes_listing_at_once_both_succeed_and_the_cache_is_then_warm() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = corpus(home, 150, 20);
    let cold = run(home, &["--no-cache", "list", "--all", "--json"]).0;
    for round in 0..3 {
        if round == 1 {
            // Half the files grow between rounds: both processes resume them at once.
            for i in (0..150).step_by(2) {
                append(
                    &dir.join(format!("s{i:04}.jsonl")),
                    (message(&format!("r1{i:06x}"), None, "user", "more") + "\n").as_bytes(),
                );
            }
        }
        let expected = run(home, &["--no-cache", "list", "--all", "--json"]).0;
        let kids: Vec<_> = (0..2)
            .map(|_| {
                grove(home, &["list", "--all", "--json"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for k in kids {
            let out = k.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.stdout, expected, "round {round}");
        }
        let (out, err) = run(home, &["list", "--all", "--json"]);
        assert_eq!(out, expected);
        assert!(err.contains("cached: 150"), "{err}");
        // The first round's two new databases, written aside: one was put in place, neither
        // aside file is left.
        assert_eq!(
            cache_files(home),
            ["index.sqlite3", "index.sqlite3-shm", "index.sqlite3-wal"]
        );
        let _ = &cold;
    }
}

/// The files in grove's cache folder, sorted.
fn cache_files(home: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(home.join("cache/grove"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_listing_killed_while_it_fills_the_cache_leaves_a_correct_one() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    corpus(home, 400, 60);
    let expected = run(home, &["--no-cache", "list", "--all", "--json"]).0;
    for delay_ms in [30u64, 80, 150, 300] {
        let _ = fs::remove_dir_all(home.join("cache"));
        let mut child = grove(home, &["list", "--all", "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // A new database is written aside: none is in place before it is complete.
        let left = cache_files(home);
        assert!(
            left.iter().all(|f| f.starts_with("index.sqlite3.aside-"))
                || left.contains(&"index.sqlite3".to_owned()),
            "{left:?}"
        );
        let (out, _) = run(home, &["list", "--all", "--json"]);
        assert_eq!(out, expected, "after a kill at {delay_ms} ms");
        let (out, err) = run(home, &["list", "--all", "--json"]);
        assert_eq!(out, expected);
        assert!(err.contains("cached: 400"), "{err}");
    }
}

#[test]
fn the_mtime_fallback_is_rounded_to_the_nearest_millisecond_as_node_does() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    fs::create_dir_all(&dir).unwrap();
    // No message timestamps and an unparseable header time: `modified` is the file's mtime.
    let p = dir.join("a.jsonl");
    fs::write(
        &p,
        r#"{"type":"session","version":3,"id":"mmmm0000","timestamp":"not a time","cwd":"/w"}
{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi"}}
"#,
    )
    .unwrap();
    for (ns, want) in [
        (1_700_000_000_123_600_000u64, 1_700_000_000_124i64),
        (1_700_000_000_123_400_000, 1_700_000_000_123),
        (1_700_000_000_123_500_000, 1_700_000_000_124),
    ] {
        common::index::set_mtime(&p, UNIX_EPOCH + Duration::from_nanos(ns));
        let (listing, _) = list(&cache, &dir);
        assert_eq!(listing.sessions[0].modified_ms, want, "{ns} ns");
        let cold = list_with(&mut Index::disabled(), &dir).0;
        assert_eq!(cold.sessions[0].modified_ms, want, "{ns} ns, no cache");
    }
    let _ = SystemTime::now();
}

/// A cache written by the grove before this schema (version 2: the listing fields in columns,
/// the tool text in the row) is migrated on open and its rows read again: the listing is the
/// cold one, and the next is served from the new rows.
#[test]
fn an_old_schema_cache_is_rebuilt_silently() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(12);
    for i in 0..3 {
        write_session(
            &dir,
            &format!("s{i}.jsonl"),
            &format!("{i}{i}{i}{i}0000"),
            5,
            &mut rng,
        );
    }
    fs::create_dir_all(&cache).unwrap();
    let c = rusqlite::Connection::open(cache.join("index.sqlite3")).unwrap();
    c.execute_batch(
        "CREATE TABLE sessions(
            id INTEGER PRIMARY KEY, path BLOB NOT NULL UNIQUE,
            dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, head_hash INTEGER NOT NULL,
            problem TEXT, detected_agent INTEGER, info_id TEXT, cwd TEXT, name TEXT,
            parent_session_path TEXT, created_ms INTEGER, modified_ms INTEGER,
            message_count INTEGER, first_message TEXT, version INTEGER, entry_count INTEGER,
            leaf_count INTEGER, label_count INTEGER, has_name INTEGER, workflow TEXT,
            summary TEXT, total_tokens INTEGER, cost REAL, parse_issues INTEGER,
            first_issue TEXT, text_len INTEGER NOT NULL DEFAULT 0,
            torn_text TEXT NOT NULL DEFAULT '', state BLOB,
            resume_offset INTEGER NOT NULL DEFAULT 0, tail_hash INTEGER NOT NULL DEFAULT 0,
            row_hash INTEGER NOT NULL DEFAULT 0, tool_text TEXT NOT NULL DEFAULT '',
            last_stop_reason TEXT, model TEXT);
        CREATE TABLE texts(session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY(session, seq)) WITHOUT ROWID;
        CREATE TABLE state_nodes(session INTEGER NOT NULL REFERENCES sessions(id)
            ON DELETE CASCADE, seq INTEGER NOT NULL, data BLOB NOT NULL,
            PRIMARY KEY(session, seq)) WITHOUT ROWID;
        INSERT INTO sessions(id, path, dev, ino, size, mtime_ns, ctime_ns, head_hash, info_id,
            cwd, first_message, text_len, tool_text)
            VALUES (1, x'2f6e6f6e65', 1, 2, 3, 4, 5, 6, 'old', '/old', 'stale', 5, 'bash ls');
        INSERT INTO texts VALUES (1, 0, 'stale');
        PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(c);
    let cold = list_sessions(&roots(&dir));
    let (listing, stats) = list(&cache, &dir);
    assert_eq!((stats.cached, stats.scanned), (0, 3), "{stats:?}");
    assert_same("migrated", &listing, &cold);
    let (again, stats) = list(&cache, &dir);
    assert_eq!(stats.cached, 3, "{stats:?}");
    assert_same("cached after the migration", &again, &cold);
    let version = db_count(&cache, "PRAGMA user_version");
    assert_eq!(version, grove::storage::index::db::SCHEMA_VERSION);
    assert_eq!(
        db_count(&cache, "SELECT count(*) FROM texts WHERE data = 'stale'"),
        0
    );
}
