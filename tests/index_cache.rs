//! The index cache: reused when files are unchanged, resumed when they grow, rebuilt silently
//! when deleted, truncated or filled with garbage. Every test uses its own cache folder.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use grove::model::context::Dialect;
use grove::storage::index::{Index, IndexEvent, ListOptions};
use grove::storage::roots::SessionRoot;
use grove::storage::scan::{Listing, list_sessions};

mod common;
use common::index::{append, header, message, roots};

fn write_session(dir: &Path, name: &str, n: usize) -> PathBuf {
    let sub = dir.join("--w--");
    fs::create_dir_all(&sub).unwrap();
    let path = sub.join(name);
    let mut s = header(name) + "\n";
    let mut parent: Option<String> = None;
    for i in 0..n {
        let id = format!("{i:08x}");
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        s += &message(&id, parent.as_deref(), role, &format!("text {i} of {name}"));
        s.push('\n');
        parent = Some(id);
    }
    fs::write(&path, s).unwrap();
    path
}

fn list(cache: &Path, dir: &Path, with_text: bool) -> (Listing, grove::storage::index::ListStats) {
    let mut index = Index::open_at(cache);
    let listing = index.list(&roots(dir), ListOptions { with_text }, |_| {});
    (listing, index.stats().clone())
}

fn cold(dir: &Path) -> Listing {
    list_sessions(&roots(dir))
}

fn assert_same(a: &Listing, b: &Listing) {
    assert_eq!(a.sessions, b.sessions);
    assert_eq!(a.problems, b.problems);
}

#[test]
fn unchanged_files_come_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    for i in 0..5 {
        write_session(&dir, &format!("s{i}.jsonl"), 3 + i);
    }
    let (first, stats) = list(&cache, &dir, true);
    assert_eq!((stats.scanned, stats.cached), (5, 0));
    assert!(stats.persisted, "{stats:?}");
    assert_same(&first, &cold(&dir));
    let (second, stats) = list(&cache, &dir, true);
    assert_eq!((stats.scanned, stats.cached, stats.bytes_read), (0, 5, 0));
    assert!(!stats.persisted);
    assert_same(&second, &first);
    // Without text, the same rows minus the text.
    let (lean, _) = list(&cache, &dir, false);
    assert!(lean.sessions.iter().all(|s| s.all_messages_text.is_empty()));
    assert_eq!(lean.sessions.len(), 5);
}

#[test]
fn cached_rows_are_reported_before_scanned_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    for i in 0..3 {
        write_session(&dir, &format!("s{i}.jsonl"), 2);
    }
    list(&cache, &dir, false);
    write_session(&dir, "new.jsonl", 2);
    let mut events = Vec::new();
    let mut index = Index::open_at(&cache);
    index.list(&roots(&dir), ListOptions::default(), |e| {
        events.push(match e {
            IndexEvent::Found(n) => format!("found {n}"),
            IndexEvent::Listed(rows) => format!("listed {}", rows.len()),
            IndexEvent::Cached(rows) => format!("cached {}", rows.len()),
            IndexEvent::Scanned(s) => format!("scanned {}", s.id),
            IndexEvent::Problem(p) => format!("problem {}", p.reason),
        })
    });
    assert_eq!(events, vec!["found 4", "cached 3", "scanned new.jsonl"]);
}

#[test]
fn a_grown_file_is_resumed_from_where_the_scan_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let path = write_session(&dir, "g.jsonl", 40);
    write_session(&dir, "other.jsonl", 4);
    list(&cache, &dir, true);
    let before = fs::metadata(&path).unwrap().len();
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    let added = message("zz000001", Some("00000027"), "user", "appended later") + "\n";
    f.write_all(added.as_bytes()).unwrap();
    drop(f);
    let (listing, stats) = list(&cache, &dir, true);
    assert_eq!((stats.resumed, stats.scanned, stats.cached), (1, 0, 1));
    assert_eq!(stats.bytes_read, added.len() as u64);
    assert!(fs::metadata(&path).unwrap().len() > before);
    assert_same(&listing, &cold(&dir));
    assert!(
        listing
            .sessions
            .iter()
            .any(|s| s.all_messages_text.ends_with("appended later")),
        "{:?}",
        listing.sessions
    );
}

#[test]
fn a_torn_last_line_is_reread_once_complete() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let path = write_session(&dir, "t.jsonl", 4);
    let line = message("zz000002", Some("00000003"), "assistant", "finished");
    let (head, rest) = line.split_at(30);
    append(&path, head.as_bytes());
    let (torn, _) = list(&cache, &dir, true);
    assert_eq!(torn.sessions[0].parse_issues, 1);
    assert_same(&torn, &cold(&dir));
    append(&path, format!("{rest}\n").as_bytes());
    let (done, stats) = list(&cache, &dir, true);
    assert_eq!(stats.resumed, 1);
    assert_eq!(done.sessions[0].parse_issues, 0);
    assert_same(&done, &cold(&dir));
}

#[test]
fn a_broken_cache_is_rebuilt_silently() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    for i in 0..4 {
        write_session(&dir, &format!("s{i}.jsonl"), 5);
    }
    let expected = cold(&dir);
    let db = cache.join("index.sqlite3");
    let damage: Vec<Box<dyn Fn()>> = vec![
        Box::new(|| fs::remove_dir_all(&cache).unwrap()),
        Box::new(|| {
            let len = fs::metadata(&db).unwrap().len();
            fs::OpenOptions::new()
                .write(true)
                .open(&db)
                .unwrap()
                .set_len(len / 2)
                .unwrap();
        }),
        Box::new(|| fs::write(&db, b"\x00garbage\xff\n{\"magic\":1}\n").unwrap()),
        Box::new(|| fs::write(&db, b"").unwrap()),
        Box::new(|| {
            // Every page after the first overwritten with garbage (the page size from the
            // header).
            let mut bytes = fs::read(&db).unwrap();
            let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
            let len = bytes.len();
            bytes[page.min(len)..len].fill(0x5a);
            fs::write(&db, bytes).unwrap();
        }),
        Box::new(|| {
            // A schema written by a newer grove.
            let c = rusqlite::Connection::open(&db).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }),
        Box::new(|| {
            // A table of the right name with other columns.
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch("DROP TABLE texts; DROP TABLE state_nodes; DROP TABLE sessions; CREATE TABLE sessions(x);")
                .unwrap();
        }),
        Box::new(|| {
            // A flipped byte in the database header (its page size).
            let mut bytes = fs::read(&db).unwrap();
            bytes[16] ^= 0x20;
            fs::write(&db, bytes).unwrap();
        }),
        Box::new(|| {
            // One flipped byte in every row's listing fields.
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch(
                "UPDATE sessions SET fields = substr(fields, 1, 3)
                    || CASE WHEN substr(fields, 4, 1) = x'7f' THEN x'7e' ELSE x'7f' END
                    || substr(fields, 5)",
            )
            .unwrap();
        }),
    ];
    for (i, damage) in damage.iter().enumerate() {
        let (fresh, _) = list(&cache, &dir, true);
        assert_same(&fresh, &expected);
        damage();
        let (rebuilt, _) = list(&cache, &dir, true);
        assert_same(&rebuilt, &expected);
        let (again, stats) = list(&cache, &dir, true);
        assert_same(&again, &expected);
        assert_eq!(stats.cached, 4, "damage {i}: the rebuilt cache is used");
    }
}

#[test]
fn no_cache_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    write_session(&dir, "a.jsonl", 2);
    let mut index = Index::disabled();
    let listing = index.list(&roots(&dir), ListOptions { with_text: true }, |_| {});
    assert_same(&listing, &cold(&dir));
    assert!(!index.stats().persisted);
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
}

#[test]
fn a_file_without_header_is_remembered_as_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    write_session(&dir, "ok.jsonl", 2);
    fs::write(dir.join("--w--/bad.jsonl"), "{\"type\":\"message\"}\n").unwrap();
    let (first, _) = list(&cache, &dir, false);
    assert_eq!(first.problems.len(), 1);
    let (second, stats) = list(&cache, &dir, false);
    assert_eq!(stats.cached, 2);
    assert_eq!(second.problems, first.problems);
}

#[test]
fn the_root_agent_is_applied_to_cached_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    write_session(&dir, "p.jsonl", 2);
    let atomic = write_session(&dir, "a.jsonl", 2);
    append(
        &atomic,
        b"{\"type\":\"session_summary\",\"id\":\"ss\",\"summary\":\"s\"}\n",
    );
    for agent in [Some(Dialect::Pi), None, Some(Dialect::Atomic), None] {
        let roots = vec![SessionRoot {
            path: dir.clone(),
            agent,
        }];
        let cold = list_sessions(&roots);
        let mut index = Index::open_at(&cache);
        let listing = index.list(&roots, ListOptions { with_text: true }, |_| {});
        assert_same(&listing, &cold);
    }
    let listing = Index::open_at(&cache).list(
        &roots(&dir)
            .iter()
            .map(|r| SessionRoot {
                agent: None,
                ..r.clone()
            })
            .collect::<Vec<_>>(),
        ListOptions::default(),
        |_| {},
    );
    let agents: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.clone(), s.agent))
        .collect();
    assert!(
        agents.contains(&("a.jsonl".to_string(), Dialect::Atomic)),
        "{agents:?}"
    );
    assert!(
        agents.contains(&("p.jsonl".to_string(), Dialect::Pi)),
        "{agents:?}"
    );
}
