//! Blob chains: a grown session's text and scan state are stored as delta records after its
//! previous ones, so the bytes appended to the blob log follow the bytes the session grew by,
//! not its size. Sizes are asserted in bytes (as reported and as found on disk), never in time.
//! Every test uses its own cache folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use grove::storage::index::{CHAIN_MAX_LINKS, Index};
use grove::storage::scan::list_sessions;

mod common;
use common::index::{Rng, append, assert_same, list, list_with, roots, set_mtime};

/// A session being written: its entry ids so far (for parents, labels and branches).
struct Session {
    path: PathBuf,
    ids: Vec<String>,
    next: u64,
}

impl Session {
    fn create(dir: &Path, name: &str, entries: usize, rng: &mut Rng) -> Session {
        fs::create_dir_all(dir).unwrap();
        let path = dir.join(format!("{name}.jsonl"));
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{name}","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/w"}}"#
        );
        fs::write(&path, header + "\n").unwrap();
        let mut s = Session {
            path,
            ids: Vec::new(),
            next: 0,
        };
        let lines = s.lines(rng, entries);
        s.append(lines.as_bytes());
        s
    }

    fn append(&self, bytes: &[u8]) {
        append(&self.path, bytes);
    }

    /// `n` complete lines of most entry kinds the listing reads: messages of every role (some
    /// with large tool output), names set and cleared, labels set and removed, branches,
    /// compactions.
    fn lines(&mut self, rng: &mut Rng, n: usize) -> String {
        let mut out = String::new();
        for _ in 0..n {
            self.next += 1;
            let id = format!("e{:07x}", self.next);
            let parent = match self.ids.len() {
                0 => "null".to_string(),
                len if rng.below(10) == 0 => {
                    format!("\"{}\"", self.ids[rng.below(len as u64) as usize])
                }
                len => format!("\"{}\"", self.ids[len - 1]),
            };
            let ts = format!(
                "2025-02-03T10:{:02}:{:02}.000Z",
                self.next / 60 % 60,
                self.next % 60
            );
            let line = match rng.below(14) {
                0..=4 => format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"user","content":"{}","timestamp":{}}}}}"#,
                    rng.text(40),
                    1_738_000_000_000u64 + self.next * 1000
                ),
                5..=8 => format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}}],"usage":{{"totalTokens":{},"cost":{{"total":{}}}}}}}}}"#,
                    rng.text(60),
                    rng.below(5000),
                    rng.next() as f64 / u64::MAX as f64 / 7.0
                ),
                9 | 10 => format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{{"type":"text","text":"{}"}}],"isError":false}}}}"#,
                    "out ".repeat(rng.below(400) as usize)
                ),
                11 => format!(
                    r#"{{"type":"session_info","id":"{id}","parentId":{parent},"timestamp":"{ts}","name":"{}"}}"#,
                    if rng.below(3) == 0 {
                        String::new()
                    } else {
                        rng.text(3)
                    }
                ),
                12 => format!(
                    r#"{{"type":"label","id":"{id}","parentId":{parent},"timestamp":"{ts}","targetId":"{}","label":"{}"}}"#,
                    self.ids
                        .get(rng.below(self.ids.len() as u64) as usize)
                        .cloned()
                        .unwrap_or_default(),
                    if rng.below(3) == 0 { "" } else { "keep" }
                ),
                _ => format!(
                    r#"{{"type":"compaction","id":"{id}","parentId":{parent},"timestamp":"{ts}","summary":"{}","firstKeptEntryId":"{}","tokensBefore":100,"usage":{{"totalTokens":{},"cost":{{"total":0.25}}}}}}"#,
                    rng.text(30),
                    self.ids.last().cloned().unwrap_or_default(),
                    rng.below(900)
                ),
            };
            self.ids.push(id);
            out += &line;
            out.push('\n');
        }
        out
    }

    /// Appends about `bytes` bytes of complete lines; returns how many were appended.
    fn grow(&mut self, rng: &mut Rng, bytes: usize) -> u64 {
        let mut lines = String::new();
        while lines.len() < bytes {
            lines += &self.lines(rng, 1);
        }
        self.append(lines.as_bytes());
        lines.len() as u64
    }
}

/// The listing and every session's text (as `Index::text` reads it from the blob log) agree
/// with a cold scan, in `index` and in the cache as another process opens it.
#[track_caller]
fn assert_matches_cold(what: &str, index: &mut Index, cache: &Path, dir: &Path) {
    let cold = list_sessions(&roots(dir));
    let (listing, _) = list_with(index, dir);
    assert_same(what, &listing, &cold);
    let mut reopened = Index::open_at(cache);
    let (replayed, stats) = list_with(&mut reopened, dir);
    assert_same(&format!("{what}, reopened"), &replayed, &cold);
    assert_eq!(
        stats.cached, stats.files,
        "{what}: all rows current: {stats:?}"
    );
    for s in &cold.sessions {
        assert_eq!(
            reopened.text(&s.path).as_deref(),
            Some(s.all_messages_text.as_str()),
            "{what}: text of {}",
            s.path.display()
        );
    }
}

/// The size of the current blob log (named in the rows file).
fn log_size(cache: &Path) -> u64 {
    fs::metadata(cache.join(log_name(cache))).unwrap().len()
}

/// The blob log's name, from the rows file: magic, version, id, then the name (u64 length).
fn log_name(cache: &Path) -> String {
    let rows = fs::read(cache.join("index.bin")).unwrap();
    let len = u64::from_le_bytes(rows[16..24].try_into().unwrap()) as usize;
    String::from_utf8(rows[24..24 + len].to_vec()).unwrap()
}

/// Flips a byte in the middle of the last occurrence of `needle` in the blob log.
fn damage_last(cache: &Path, needle: &[u8]) {
    let path = cache.join(log_name(cache));
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes
        .windows(needle.len())
        .rposition(|w| w == needle)
        .unwrap_or_else(|| panic!("{} not in the log", String::from_utf8_lossy(needle)));
    bytes[at + needle.len() / 2] ^= 0x20;
    fs::write(&path, bytes).unwrap();
}

/// A corpus of 20 small sessions and one large one of `entries` entries (~500 bytes each).
fn corpus(dir: &Path, rng: &mut Rng, entries: usize) -> Session {
    for i in 0..20 {
        Session::create(dir, &format!("small{i:02}"), 30, rng);
    }
    Session::create(dir, "large", entries, rng)
}

#[test]
fn a_few_kb_appended_to_a_large_session_append_blob_bytes_in_proportion() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(1);
    let mut large = corpus(&dir, &mut rng, 3000);
    let mut index = Index::open_at(&cache);
    let (_, cold_stats) = list_with(&mut index, &dir);
    assert_eq!(cold_stats.scanned, 21);

    // The large session alone, filled from nothing: its full text and state records.
    let only = tmp.path().join("only");
    fs::create_dir_all(&only).unwrap();
    fs::copy(&large.path, only.join("large.jsonl")).unwrap();
    let (_, alone) = list(&tmp.path().join("cache-only"), &only);
    let full_bytes = alone.blob_bytes_written;
    eprintln!(
        "large session: {} bytes, full records {full_bytes} bytes",
        fs::metadata(&large.path).unwrap().len()
    );
    assert!(full_bytes > 300_000, "a large session: {alone:?}");

    for round in 0..3 {
        let before = log_size(&cache);
        let appended = large.grow(&mut rng, 4096);
        let (_, stats) = list_with(&mut index, &dir);
        assert_eq!((stats.resumed, stats.cached), (1, 20), "{stats:?}");
        assert!(
            stats.blob_bytes_written <= 2 * appended + 512,
            "round {round}: {} blob bytes for {appended} bytes appended (the session's full \
             records: {full_bytes})",
            stats.blob_bytes_written
        );
        assert!(stats.blob_bytes_written * 50 < full_bytes, "{stats:?}");
        assert_eq!(
            log_size(&cache) - before,
            stats.blob_bytes_written,
            "the log grew by what was reported"
        );
    }
    assert_matches_cold("after three growths", &mut index, &cache, &dir);
}

#[test]
fn many_growths_give_the_cold_listing_and_text_and_stay_proportional() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(2);
    let mut large = corpus(&dir, &mut rng, 600);
    let mut small = Session {
        path: dir.join("small03.jsonl"),
        ids: Vec::new(),
        next: 1000,
    };
    let mut index = Index::open_at(&cache);
    list_with(&mut index, &dir);

    let rounds = 3 * CHAIN_MAX_LINKS as usize + 5;
    let (mut appended_total, mut written_total) = (0, 0);
    for round in 0..rounds {
        let size = 1 + rng.below(6000) as usize;
        let mut appended = match round % 7 {
            // Lines without searchable text: the text chain is kept as it is.
            3 => {
                let line = format!(
                    r#"{{"type":"message","id":"t{round:07}","parentId":null,"message":{{"role":"toolResult","content":"quiet"}}}}"#
                ) + "\n";
                large.append(line.as_bytes());
                line.len() as u64
            }
            // A torn last line (the state leaves it out, the listing's text does not), then
            // completed next round.
            5 => {
                let appended = large.grow(&mut rng, 500);
                let torn = format!(
                    r#"{{"type":"message","id":"x{round:07}","parentId":null,"message":{{"role":"user","content":"torn {round}"}}}}"#
                );
                large.append(torn.as_bytes());
                appended + torn.len() as u64
            }
            6 => {
                large.append(b"\n");
                1 + large.grow(&mut rng, size)
            }
            _ => large.grow(&mut rng, size),
        };
        if round % 4 == 0 {
            appended += small.grow(&mut rng, 300);
        }
        let (listing, stats) = list_with(&mut index, &dir);
        assert_eq!(
            stats.scanned, 0,
            "round {round}: resumed, never rescanned: {stats:?}"
        );
        assert_same(
            &format!("round {round}"),
            &listing,
            &list_sessions(&roots(&dir)),
        );
        appended_total += appended;
        written_total += stats.blob_bytes_written;
        if round % 10 == 9 {
            assert_matches_cold(&format!("round {round}"), &mut index, &cache, &dir);
        }
    }
    assert_matches_cold("last round", &mut index, &cache, &dir);

    // What the sessions' full records take now: at most one full rewrite per
    // CHAIN_MAX_LINKS growths, or after deltas adding up to the full record.
    let (_, fresh) = list(&tmp.path().join("fresh"), &dir);
    let rewrites = (rounds as u64).div_ceil(u64::from(CHAIN_MAX_LINKS)) + 2;
    assert!(
        written_total <= 3 * appended_total + rewrites * fresh.blob_bytes_written,
        "{written_total} blob bytes written for {appended_total} bytes appended over {rounds} \
         growths (all sessions' full records: {} bytes)",
        fresh.blob_bytes_written
    );
    eprintln!(
        "{rounds} growths: {appended_total} bytes appended, {written_total} blob bytes written; \
         full records now {} bytes",
        fresh.blob_bytes_written
    );
    // Rewriting the whole text and state at every growth would have cost much more.
    assert!(written_total * 4 < rounds as u64 * fresh.blob_bytes_written / 2);
}

#[test]
fn a_damaged_link_makes_the_session_rescanned_with_the_cold_result() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(3);
    let mut large = corpus(&dir, &mut rng, 600);
    let mut index = Index::open_at(&cache);
    list_with(&mut index, &dir);
    let mut grow_marked = |large: &mut Session, index: &mut Index, mark: &str| {
        let line = format!(
            r#"{{"type":"message","id":"{mark}","parentId":null,"message":{{"role":"user","content":"marker {mark} text"}}}}"#
        ) + "\n";
        large.append(line.as_bytes());
        large.grow(&mut rng, 2000);
        let (_, stats) = list_with(index, &dir);
        assert_eq!(stats.resumed, 1, "{stats:?}");
    };
    for mark in ["m0000001", "m0000002", "m0000003", "m0000004"] {
        grow_marked(&mut large, &mut index, mark);
    }

    // A text delta in the middle of the chain: the listing with text rescans the session.
    damage_last(&cache, b"marker m0000002 text");
    let mut index = Index::open_at(&cache);
    assert_eq!(
        index.text(&large.path),
        None,
        "a broken chain reads as missing"
    );
    let (listing, stats) = list_with(&mut index, &dir);
    assert_eq!((stats.scanned, stats.cached), (1, 20), "{stats:?}");
    assert_same("text link damaged", &listing, &list_sessions(&roots(&dir)));
    assert_matches_cold("text link damaged", &mut index, &cache, &dir);

    // A state delta (the ids it adds): the next growth cannot resume, and rescans.
    grow_marked(&mut large, &mut index, "m0000005");
    grow_marked(&mut large, &mut index, "m0000006");
    damage_last(&cache, b"\"m0000005\"");
    let mut index = Index::open_at(&cache);
    let (listing, stats) = list_with(&mut index, &dir);
    assert_eq!(
        stats.cached, 21,
        "a warm listing never reads the state: {stats:?}"
    );
    assert_same("state link damaged", &listing, &list_sessions(&roots(&dir)));
    large.grow(&mut rng, 1000);
    let (listing, stats) = list_with(&mut index, &dir);
    assert_eq!((stats.resumed, stats.scanned), (0, 1), "{stats:?}");
    assert_same(
        "state link damaged, grown",
        &listing,
        &list_sessions(&roots(&dir)),
    );
    // Rescanned: full records again, and the next growth is a delta after them.
    large.grow(&mut rng, 1000);
    let (_, stats) = list_with(&mut index, &dir);
    assert_eq!(stats.resumed, 1, "{stats:?}");
    assert!(stats.blob_bytes_written < 4000, "{stats:?}");
    assert_matches_cold("after rescan", &mut index, &cache, &dir);
}

#[test]
fn compaction_rewrites_chains_readably() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(4);
    let mut large = corpus(&dir, &mut rng, 600);
    let mut grown = Session {
        path: dir.join("small07.jsonl"),
        ids: Vec::new(),
        next: 5000,
    };
    let mut index = Index::open_at(&cache);
    list_with(&mut index, &dir);
    for _ in 0..5 {
        grown.grow(&mut rng, 1500);
        large.grow(&mut rng, 1500);
        let (_, stats) = list_with(&mut index, &dir);
        assert_eq!(stats.resumed, 2, "{stats:?}");
    }

    // The large session rewritten in place (a new mtime): its old records become garbage,
    // until the log is mostly garbage and is compacted.
    let first_log = log_name(&cache);
    let mut touches = 0;
    while log_name(&cache) == first_log {
        touches += 1;
        assert!(touches < 20, "the log is compacted");
        set_mtime(
            &large.path,
            SystemTime::now() + Duration::from_secs(touches),
        );
        let (_, stats) = list_with(&mut index, &dir);
        assert_eq!(stats.scanned, 1, "{stats:?}");
    }
    let compacted = log_size(&cache);
    assert_matches_cold("compacted", &mut index, &cache, &dir);

    // The chains now start from full records in the new log: growth appends deltas there.
    for round in 0..3 {
        let before = log_size(&cache);
        let appended = grown.grow(&mut rng, 1500);
        let (_, stats) = list_with(&mut index, &dir);
        assert_eq!(stats.resumed, 1, "round {round}: {stats:?}");
        assert!(stats.blob_bytes_written <= 2 * appended + 512, "{stats:?}");
        assert_eq!(log_size(&cache) - before, stats.blob_bytes_written);
    }
    assert!(log_size(&cache) > compacted);
    assert_matches_cold("grown after compaction", &mut index, &cache, &dir);
}

#[test]
fn two_indexes_growing_the_same_chain_stay_correct() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    let mut rng = Rng(5);
    let mut large = corpus(&dir, &mut rng, 600);
    list(&cache, &dir);
    large.grow(&mut rng, 2000);
    list(&cache, &dir);

    // Both read the same rows, then each appends its own delta after the same record.
    let mut a = Index::open_at(&cache);
    let mut b = Index::open_at(&cache);
    large.grow(&mut rng, 2000);
    let (_, sa) = list_with(&mut a, &dir);
    let (_, sb) = list_with(&mut b, &dir);
    assert_eq!((sa.resumed, sb.resumed), (1, 1), "{sa:?} {sb:?}");
    assert!(sa.blob_bytes_written < 5000 && sb.blob_bytes_written < 5000);
    assert_matches_cold("after both", &mut a, &cache, &dir);
    large.grow(&mut rng, 2000);
    let (_, sa) = list_with(&mut a, &dir);
    assert_eq!(sa.resumed, 1, "{sa:?}");
    // `b` still has its own row (it reads the other's rows when it next writes): it resumes
    // from its own chain, which is as valid.
    let (listing, sb) = list_with(&mut b, &dir);
    assert_eq!(sb.resumed, 1, "{sb:?}");
    assert_same("b", &listing, &list_sessions(&roots(&dir)));
    assert_matches_cold("grown again", &mut b, &cache, &dir);
}
