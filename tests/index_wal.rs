//! What a growth costs the cache file (issue "Storage", round five): the listing after a ~4 KB
//! append writes the pages it changes once, into SQLite's WAL, and leaves the database file
//! alone (closing does not checkpoint), in 4 KB pages; the WAL is copied into the database and truncated once
//! a commit leaves it past 1 MiB, so it stays small and every page of many growths is copied
//! once.

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use common::index::{Rng, assert_same, header, list, list_with, message};
use grove::storage::index::Index;

const PAGE_FRAME: u64 = 4096 + 24;

fn wal_len(cache: &Path) -> u64 {
    fs::metadata(cache.join("index.sqlite3-wal")).map_or(0, |m| m.len())
}

#[test]
fn a_growth_writes_its_pages_once_into_a_bounded_wal() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(3);
    for i in 0..20 {
        let id = format!("{i:04x}wal0");
        let mut s = header(&id) + "\n";
        for j in 0..30 {
            s += &message(&format!("{id}{j:03}"), None, "user", &rng.text(40));
            s += "\n";
        }
        fs::write(dir.join(format!("s{i:02}.jsonl")), s).unwrap();
    }
    list(&cache, &dir);
    let page_size: i64 = rusqlite::Connection::open(cache.join("index.sqlite3"))
        .unwrap()
        .pragma_query_value(None, "page_size", |r| r.get(0))
        .unwrap();
    assert_eq!(page_size, 4096);
    let grown = dir.join("s07.jsonl");
    let mut resets = 0;
    let mut growth_frames = Vec::new();
    for g in 0..120 {
        let db_before = fs::read(cache.join("index.sqlite3")).unwrap();
        let wal_before = wal_len(&cache);
        let mut f = OpenOptions::new().append(true).open(&grown).unwrap();
        let text = format!("growth {g} {}", rng.text(600));
        writeln!(f, "{}", message(&format!("g{g:04}"), None, "user", &text)).unwrap();
        let (warm, stats) = list(&cache, &dir);
        assert_eq!(stats.resumed, 1);
        let wal_after = wal_len(&cache);
        assert!(
            wal_after <= (1 << 20) + 16 * PAGE_FRAME,
            "WAL {wal_after} bytes"
        );
        if wal_after >= wal_before {
            // The pages went into the WAL only, a dozen or so of them.
            assert!(
                fs::read(cache.join("index.sqlite3")).unwrap() == db_before,
                "growth {g}: the database file was written (a checkpoint at close?)"
            );
            // A B-tree page that splits adds a few pages now and then (where depends on the
            // rows' sizes, which hold the file's nanosecond times): a bound on every growth,
            // and a tighter one on the typical growth below.
            let frames = (wal_after - wal_before) / PAGE_FRAME;
            assert!(frames <= 24, "growth {g}: {frames} pages of WAL");
            growth_frames.push(frames);
        } else {
            resets += 1;
            assert_eq!(wal_after, 0, "a checkpoint truncates the WAL");
        }
        if g % 40 == 0 {
            assert_same("grown", &warm, &list_with(&mut Index::disabled(), &dir).0);
        }
    }
    assert!(resets >= 1, "the WAL was never checkpointed");
    growth_frames.sort_unstable();
    let median = growth_frames[growth_frames.len() / 2];
    assert!(
        median <= 12,
        "a typical growth wrote {median} pages: {growth_frames:?}"
    );
}
