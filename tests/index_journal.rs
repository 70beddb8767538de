//! The rows journal: a listing that changed a few rows appends one record proportional to those
//! rows instead of rewriting the rows file; the journal is replayed on open (a torn or foreign
//! tail ignored), folded into a new rows file when it grows, and shared safely by two indexes.
//! Sizes are asserted in bytes, never in time. Every test uses its own cache folder.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use grove::storage::index::{Index, ListOptions};
use grove::storage::scan::list_sessions;

mod common;
use common::index::{
    append, assert_same, grove_at, header, list, list_with, message, roots, set_mtime,
};

/// `n` sessions `s0000.jsonl`.. of 6 messages each; returns their paths.
fn corpus(dir: &Path, n: usize) -> Vec<PathBuf> {
    let sub = dir.join("--w--");
    fs::create_dir_all(&sub).unwrap();
    (0..n)
        .map(|i| {
            let name = format!("s{i:04}");
            let path = sub.join(format!("{name}.jsonl"));
            let mut s = header(&name) + "\n";
            for k in 0..6 {
                let parent = (k > 0).then(|| format!("{:08x}", k - 1));
                let role = if k % 2 == 0 { "user" } else { "assistant" };
                s += &message(&format!("{k:08x}"), parent.as_deref(), role, &name);
                s.push('\n');
            }
            fs::write(&path, s).unwrap();
            path
        })
        .collect()
}

/// Appends one complete message line (~250 bytes) to a session.
fn grow(path: &Path, tag: &str) {
    let line = message(
        &format!("g{tag:0>7}"),
        None,
        "user",
        &format!("grown {tag}"),
    ) + "\n";
    append(path, line.as_bytes());
}

/// A changed mtime: the file is rescanned, its row rewritten.
fn touch(path: &Path, secs: u64) {
    set_mtime(path, SystemTime::now() + Duration::from_secs(secs));
}

/// The cache as it is on disk agrees with a cold scan and with a cache built from nothing, and
/// every row in it is current (all files come from the cache).
#[track_caller]
fn assert_cache_current(what: &str, cache: &Path, dir: &Path) {
    let cold = list_sessions(&roots(dir));
    let (replayed, stats) = list(cache, dir);
    assert_same(what, &replayed, &cold);
    assert_eq!(
        (stats.cached, stats.files, stats.persisted),
        (
            stats.files,
            cold.sessions.len() + cold.problems.len(),
            false
        ),
        "{what}: every row current: {stats:?}"
    );
    let rebuilt = tempfile::tempdir().unwrap();
    let (full, _) = list(rebuilt.path(), dir);
    assert_same(what, &replayed, &full);
}

fn rows_file(cache: &Path) -> Vec<u8> {
    fs::read(cache.join("index.bin")).unwrap()
}

/// The journal files in the cache: `(name, size)`.
fn journals(cache: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<_> = fs::read_dir(cache)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".journal")
                .then(|| (name, e.metadata().unwrap().len()))
        })
        .collect();
    v.sort();
    v
}

/// The journal of the current rows file (its id is the u64 after magic and version).
fn journal_path(cache: &Path) -> PathBuf {
    let rows = rows_file(cache);
    let id = u64::from_le_bytes(rows[8..16].try_into().unwrap());
    cache.join(format!("index-{id:016x}.journal"))
}

fn journal_len(cache: &Path) -> u64 {
    fs::metadata(journal_path(cache)).map_or(0, |m| m.len())
}

#[test]
fn a_grown_session_appends_a_record_the_size_of_its_row() {
    // The same change with 40 and 400 rows: the record is the same size; the rows file is not
    // touched.
    let mut records = Vec::new();
    for n in [40, 400] {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
        let paths = corpus(&dir, n);
        let (_, stats) = list(&cache, &dir);
        assert!(stats.rows_rewritten, "{stats:?}");
        assert_eq!(stats.rows_bytes_written, rows_file(&cache).len() as u64);
        let base = rows_file(&cache);
        let base_meta = fs::metadata(cache.join("index.bin")).unwrap();

        grow(&paths[7], "1");
        let (listing, stats) = list(&cache, &dir);
        assert_eq!((stats.resumed, stats.cached), (1, n - 1), "{stats:?}");
        assert!(stats.persisted && !stats.rows_rewritten, "{stats:?}");
        assert_eq!(rows_file(&cache), base, "the rows file is unchanged");
        let meta = fs::metadata(cache.join("index.bin")).unwrap();
        assert_eq!(meta.modified().unwrap(), base_meta.modified().unwrap());
        assert_eq!(journal_len(&cache), stats.rows_bytes_written);
        assert!(
            stats.rows_bytes_written * 20 < base.len() as u64 / n as u64 * 40,
            "one record ({} bytes) is about one row ({} bytes per row)",
            stats.rows_bytes_written,
            base.len() / n
        );
        assert_same("grown", &listing, &list_sessions(&roots(&dir)));
        records.push(stats.rows_bytes_written);

        // A new session: one more record, the same size.
        let extra = corpus(&tmp.path().join("t"), 1).remove(0);
        fs::rename(&extra, dir.join("--w--/s9999.jsonl")).unwrap();
        let (_, stats) = list(&cache, &dir);
        assert_eq!(stats.scanned, 1, "{stats:?}");
        assert!(!stats.rows_rewritten, "{stats:?}");
        assert_eq!(
            journal_len(&cache),
            records[records.len() - 1] + stats.rows_bytes_written
        );
        assert_eq!(rows_file(&cache), base);
        assert_cache_current("after a new session", &cache, &dir);
    }
    assert_eq!(
        records[0], records[1],
        "a record does not grow with the number of rows"
    );
}

#[test]
fn replaying_the_journal_gives_the_same_listing_as_a_full_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let paths = corpus(&dir, 120);
    list(&cache, &dir);
    let base = rows_file(&cache);
    let mut index = Index::open_at(&cache);
    let changes: Vec<Box<dyn Fn()>> = vec![
        Box::new(|| grow(&paths[0], "a")),
        Box::new(|| {
            grow(&paths[1], "b");
            grow(&paths[2], "c");
        }),
        Box::new(|| fs::remove_file(&paths[3]).unwrap()),
        Box::new(|| {
            fs::rename(&paths[4], paths[4].with_file_name("renamed.jsonl")).unwrap();
        }),
        Box::new(|| fs::write(dir.join("--w--/junk.jsonl"), "not a session\n").unwrap()),
        Box::new(|| {
            // A torn line, then the same file completed.
            let mut f = fs::OpenOptions::new().append(true).open(&paths[5]).unwrap();
            f.write_all(br#"{"type":"message","id":"t1","par"#).unwrap();
        }),
        Box::new(|| {
            let mut f = fs::OpenOptions::new().append(true).open(&paths[5]).unwrap();
            f.write_all(b"entId\":null}\n").unwrap();
        }),
        Box::new(|| {
            // Shrunk: rescanned from the start.
            let len = fs::metadata(&paths[6]).unwrap().len();
            let f = fs::OpenOptions::new().write(true).open(&paths[6]).unwrap();
            f.set_len(len / 2).unwrap();
        }),
        Box::new(|| grow(&paths[0], "d")),
    ];
    for (i, change) in changes.iter().enumerate() {
        change();
        let (listing, stats) = list_with(&mut index, &dir);
        assert!(
            stats.persisted && !stats.rows_rewritten,
            "change {i}: {stats:?}"
        );
        assert_same(
            &format!("change {i}"),
            &listing,
            &list_sessions(&roots(&dir)),
        );
        assert_cache_current(&format!("change {i}, replayed"), &cache, &dir);
    }
    assert_eq!(rows_file(&cache), base, "only the journal was written");
}

/// A cache with two journal records (for `paths[0]`, then `paths[1]`); returns the journal.
fn two_records(cache: &Path, dir: &Path, paths: &[PathBuf]) -> (PathBuf, Vec<u8>, u64) {
    list(cache, dir);
    grow(&paths[0], "1");
    let (_, first) = list(cache, dir);
    grow(&paths[1], "2");
    let (_, second) = list(cache, dir);
    assert!(!first.rows_rewritten && !second.rows_rewritten);
    let journal = journal_path(cache);
    let bytes = fs::read(&journal).unwrap();
    assert_eq!(
        bytes.len() as u64,
        first.rows_bytes_written + second.rows_bytes_written
    );
    (journal, bytes, first.rows_bytes_written)
}

#[test]
fn a_torn_or_damaged_journal_tail_is_ignored_and_the_rest_used() {
    let n = 60;
    // Torn in the second record: the first is used; the second file is resumed from its row
    // in the rows file.
    for cut in [1, 10, 21, 100] {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
        let paths = corpus(&dir, n);
        let (journal, bytes, first) = two_records(&cache, &dir, &paths);
        fs::write(&journal, &bytes[..bytes.len() - cut]).unwrap();
        assert!(bytes.len() - cut > first as usize);
        let (listing, stats) = list(&cache, &dir);
        assert_same("torn", &listing, &list_sessions(&roots(&dir)));
        assert_eq!(
            (stats.cached, stats.resumed),
            (n - 1, 1),
            "cut {cut}: {stats:?}"
        );
        // Appending after the torn bytes would be lost: a new rows file instead.
        assert!(stats.rows_rewritten, "{stats:?}");
        assert_cache_current("after a torn tail", &cache, &dir);
    }
    // Garbage after two good records: both used, nothing written; the next change starts a
    // new rows file.
    {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
        let paths = corpus(&dir, n);
        let (journal, mut bytes, _) = two_records(&cache, &dir, &paths);
        bytes.extend_from_slice(b"GRJ1\xff\xff\xff\xff\xff\xff\xff\x7fgarbage\n\x00");
        fs::write(&journal, &bytes).unwrap();
        let (listing, stats) = list(&cache, &dir);
        assert_same("garbage tail", &listing, &list_sessions(&roots(&dir)));
        assert_eq!((stats.cached, stats.persisted), (n, false), "{stats:?}");
        grow(&paths[2], "3");
        let (_, stats) = list(&cache, &dir);
        assert!(stats.rows_rewritten, "{stats:?}");
        assert_cache_current("after a garbage tail", &cache, &dir);
    }
    // A flipped byte in the first record: the replay stops there.
    {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
        let paths = corpus(&dir, n);
        let (journal, mut bytes, first) = two_records(&cache, &dir, &paths);
        bytes[first as usize / 2] ^= 0x04;
        fs::write(&journal, &bytes).unwrap();
        let (listing, stats) = list(&cache, &dir);
        assert_same("flipped", &listing, &list_sessions(&roots(&dir)));
        assert_eq!((stats.cached, stats.resumed), (n - 2, 2), "{stats:?}");
        assert_cache_current("after a flipped byte", &cache, &dir);
    }
    // Pure garbage as the journal.
    {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
        let paths = corpus(&dir, n);
        let (journal, bytes, _) = two_records(&cache, &dir, &paths);
        fs::write(&journal, vec![0x5a; bytes.len()]).unwrap();
        let (listing, stats) = list(&cache, &dir);
        assert_same("garbage", &listing, &list_sessions(&roots(&dir)));
        assert_eq!((stats.cached, stats.resumed), (n - 2, 2), "{stats:?}");
        assert_cache_current("after a garbage journal", &cache, &dir);
    }
}

#[test]
fn a_journal_of_an_older_rows_file_is_never_replayed() {
    let n = 40;
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let paths = corpus(&dir, n);
    list(&cache, &dir);
    grow(&paths[0], "1");
    list(&cache, &dir);
    let old_journal = journal_path(&cache);
    let old_bytes = fs::read(&old_journal).unwrap();
    assert!(!old_bytes.is_empty());
    // Grown again and half the files touched: a new rows file (new id).
    grow(&paths[0], "2");
    for p in &paths[1..n / 2] {
        touch(p, 5);
    }
    let (_, stats) = list(&cache, &dir);
    assert!(stats.rows_rewritten, "{stats:?}");
    assert_ne!(journal_path(&cache), old_journal);
    assert!(!old_journal.exists(), "the superseded journal is removed");
    assert_eq!(journals(&cache), vec![]);
    // The old journal's record (paths[0] before its second growth) put back, both under its
    // own name and under the new rows file's: neither is replayed.
    fs::write(&old_journal, &old_bytes).unwrap();
    fs::write(journal_path(&cache), &old_bytes).unwrap();
    let (listing, stats) = list(&cache, &dir);
    assert_same("old journal", &listing, &list_sessions(&roots(&dir)));
    assert_eq!((stats.cached, stats.resumed), (n, 0), "{stats:?}");
}

#[test]
fn the_journal_is_folded_into_a_new_rows_file_with_the_same_results() {
    let n = 30;
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let paths = corpus(&dir, n);
    list(&cache, &dir);
    let mut base = rows_file(&cache);
    let (mut appended, mut rewritten) = (0, 0);
    for round in 0..40 {
        grow(&paths[round % n], &round.to_string());
        let (listing, stats) = list(&cache, &dir);
        assert!(stats.persisted, "{stats:?}");
        assert_same(
            &format!("round {round}"),
            &listing,
            &list_sessions(&roots(&dir)),
        );
        let now = rows_file(&cache);
        if stats.rows_rewritten {
            rewritten += 1;
            assert_ne!(now, base);
            assert_eq!(journals(&cache), vec![], "a fresh journal");
        } else {
            appended += 1;
            assert_eq!(now, base);
            assert!(
                journal_len(&cache) <= now.len() as u64 / 4,
                "the journal stays under a quarter of the rows file"
            );
            assert_eq!(journals(&cache).len(), 1);
        }
        base = now;
        assert_cache_current(&format!("round {round}, replayed"), &cache, &dir);
    }
    assert!(
        appended >= 20 && rewritten >= 2,
        "{appended} appended, {rewritten} rewritten"
    );
}

#[test]
fn two_indexes_persisting_interleaved_changes_end_consistent() {
    let n = 80;
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let paths = corpus(&dir, n);
    list(&cache, &dir);
    let cold = || list_sessions(&roots(&dir));
    let mut a = Index::open_at(&cache);
    let mut b = Index::open_at(&cache);
    list_with(&mut a, &dir);
    list_with(&mut b, &dir);

    grow(&paths[0], "a1");
    let (la, sa) = list_with(&mut a, &dir);
    grow(&paths[1], "b1");
    let (lb, sb) = list_with(&mut b, &dir);
    assert!(!sa.rows_rewritten && !sb.rows_rewritten, "{sa:?} {sb:?}");
    assert_same("b", &lb, &cold());
    assert_ne!(la.sessions, lb.sessions);
    assert_cache_current("a then b", &cache, &dir);

    // A has not seen B's record: it applies it before appending its own.
    grow(&paths[2], "a2");
    let (la, sa) = list_with(&mut a, &dir);
    assert_same("a", &la, &cold());
    assert_eq!((sa.resumed, sa.scanned), (2, 0), "{sa:?}");
    assert_cache_current("a again", &cache, &dir);

    // The same file grown twice, read by B, then by A: A's newer row wins over B's record.
    grow(&paths[4], "b3");
    list_with(&mut b, &dir);
    grow(&paths[4], "a4");
    let (la, sa) = list_with(&mut a, &dir);
    assert!(!sa.rows_rewritten, "{sa:?}");
    assert_same("a newer than b", &la, &cold());
    assert_cache_current("a newer than b", &cache, &dir);

    // B writes a new rows file (many new rows, from another root); A, still on the old one,
    // reads it and appends its one change to the new journal.
    let other = tmp.path().join("s2");
    corpus(&other, n / 2);
    let (_, sb) = list_with(&mut b, &other);
    assert!(sb.rows_rewritten, "{sb:?}");
    grow(&paths[3], "a3");
    let (la, sa) = list_with(&mut a, &dir);
    assert_eq!(sa.resumed, 1, "{sa:?}");
    assert!(!sa.rows_rewritten, "{sa:?}");
    assert_same("a after b rewrote", &la, &cold());
    assert_cache_current("after both", &cache, &dir);
    assert_cache_current("after both, b's root", &cache, &other);

    // B appends a row A never reads; A then writes a new rows file: B's row is in it.
    let grown_by_b = other.join("--w--/s0001.jsonl");
    grow(&grown_by_b, "b2");
    let (_, sb) = list_with(&mut b, &other);
    assert!(!sb.rows_rewritten, "{sb:?}");
    let third = tmp.path().join("s4");
    corpus(&third, n / 2);
    let (_, sa) = list_with(&mut a, &third);
    assert!(sa.rows_rewritten, "{sa:?}");
    assert_cache_current("b's row kept by a's rows file", &cache, &other);
    assert_cache_current("a's root", &cache, &dir);

    // Both at once, from two threads, on separate files: whatever the order, the cache on
    // disk ends consistent with the files.
    std::thread::scope(|s| {
        for (k, index) in [&mut a, &mut b].into_iter().enumerate() {
            let (dir, paths) = (&dir, &paths);
            s.spawn(move || {
                for round in 0..15 {
                    grow(&paths[20 + 2 * round + k], &format!("t{k}{round}"));
                    let listing = index.list(&roots(dir), ListOptions::default(), |_| {});
                    assert_eq!(listing.sessions.len(), n);
                    assert_eq!(index.stats().persist_error, None);
                }
            });
        }
    });
    let (listing, _) = list(&cache, &dir);
    assert_same("after threads", &listing, &cold());
    let (again, stats) = list(&cache, &dir);
    assert_same("after threads, again", &again, &cold());
    assert_eq!(stats.cached, n, "{stats:?}");
}

#[test]
fn cache_clear_removes_the_journal_and_no_cache_writes_none() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let sessions = home.join("pi-agent/sessions");
    let paths = corpus(&sessions, 20);
    let grove = |args: &[&str]| grove_at(home, args);
    let cache = home.join("cache/grove");
    grove(&["--no-cache", "list", "--all", "--json"]);
    assert!(!home.join("cache").exists(), "--no-cache writes nothing");
    let first = grove(&["list", "--all", "--json"]);
    grow(&paths[0], "x");
    grove(&["--no-cache", "list", "--all", "--json"]);
    assert_eq!(journals(&cache), vec![], "--no-cache appends nothing");
    let grown = grove(&["list", "--all", "--json"]);
    assert_ne!(grown, first);
    assert_eq!(journals(&cache).len(), 1);
    assert_eq!(grove(&["list", "--all", "--json"]), grown);
    grove(&["cache", "clear"]);
    assert!(!cache.exists(), "the rows, journal and blob log are gone");
    assert_eq!(grove(&["list", "--all", "--json"]), grown);
}
