//! Correctness at scale: the cached, incremental and cold listings of a generated corpus are
//! identical, before and after the corpus is modified (appends, renames, deletes, truncation,
//! files replaced by different ones of the same size and mtime).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use grove::storage::index::Index;
use grove::storage::scan::list_sessions;

mod common;
use common::index::{Rng, append, assert_same, list_with, roots, set_mtime};

/// One session as JSONL lines, with most entry kinds the listing cares about.
fn session_lines(rng: &mut Rng, n: usize, id: &str) -> Vec<String> {
    let mut lines = vec![format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2025-0{}-1{}T10:00:00.000Z","cwd":"/work/p{}"}}"#,
        1 + rng.below(9),
        rng.below(10),
        rng.below(5)
    )];
    let mut ids: Vec<String> = Vec::new();
    let entries = 2 + rng.below(40) as usize;
    for i in 0..entries {
        let eid = format!("{:08x}", rng.next() as u32);
        // Mostly a chain, sometimes a branch from an earlier entry.
        let parent = match ids.len() {
            0 => "null".to_string(),
            len if rng.below(8) == 0 => format!("\"{}\"", ids[rng.below(len as u64) as usize]),
            len => format!("\"{}\"", ids[len - 1]),
        };
        let ts = format!("2025-02-0{}T1{}:{:02}:00.000Z", 1 + n % 9, i % 10, i % 60);
        let cost = rng.next() as f64 / u64::MAX as f64 / 7.0;
        let line = match rng.below(12) {
            0..=3 => format!(
                r#"{{"type":"message","id":"{eid}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"user","content":"{}","timestamp":{}}}}}"#,
                rng.text(12),
                1_738_000_000_000u64 + rng.below(10_000_000)
            ),
            4..=6 => format!(
                r#"{{"type":"message","id":"{eid}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"{}"}},{{"type":"text","text":"{}"}},{{"type":"toolCall","id":"c","name":"bash","arguments":{{"cmd":"ls"}}}}],"usage":{{"input":5,"output":7,"totalTokens":{},"cost":{{"input":0.001,"total":{cost}}}}},"stopReason":"toolUse","timestamp":{}}}}}"#,
                rng.text(5),
                rng.text(20),
                rng.below(5000),
                1_738_000_000_000u64 + rng.below(10_000_000)
            ),
            7 | 8 => format!(
                r#"{{"type":"message","id":"{eid}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{{"type":"text","text":"{}"}},{{"type":"image","data":"{}","mimeType":"image/png"}}],"isError":false}}}}"#,
                rng.text(200),
                "QUJD".repeat(rng.below(300) as usize)
            ),
            9 => format!(
                r#"{{"type":"session_info","id":"{eid}","parentId":{parent},"timestamp":"{ts}","name":"{}"}}"#,
                if rng.below(3) == 0 {
                    String::new()
                } else {
                    rng.text(3)
                }
            ),
            10 => format!(
                r#"{{"type":"label","id":"{eid}","parentId":{parent},"timestamp":"{ts}","targetId":"{}","label":"{}"}}"#,
                ids.first().cloned().unwrap_or_default(),
                if rng.below(3) == 0 { "" } else { "keep" }
            ),
            _ => format!(
                r#"{{"type":"compaction","id":"{eid}","parentId":{parent},"timestamp":"{ts}","summary":"{}","firstKeptEntryId":"{}","tokensBefore":100,"usage":{{"totalTokens":{},"cost":{{"total":{cost}}}}}}}"#,
                rng.text(30),
                ids.last().cloned().unwrap_or_default(),
                rng.below(900)
            ),
        };
        ids.push(eid);
        lines.push(line);
    }
    lines
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut s = lines.join("\n");
    s.push('\n');
    fs::write(path, s).unwrap();
}

fn generate(dir: &Path, sessions: usize, seed: u64) -> Vec<PathBuf> {
    let mut rng = Rng(seed);
    let mut paths = Vec::new();
    for n in 0..sessions {
        let sub = dir.join(format!("--work-p{}--", n % 7));
        fs::create_dir_all(&sub).unwrap();
        let path = sub.join(format!("2025-02-01T10-00-00-000Z_{n:04}.jsonl"));
        write_lines(&path, &session_lines(&mut rng, n, &format!("sess-{n:04}")));
        paths.push(path);
    }
    paths
}

#[test]
fn cached_incremental_and_cold_listings_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions");
    let cache = tmp.path().join("cache");
    let mut paths = generate(&dir, 200, 7);

    // Cold, then cached: identical.
    let cold = list_sessions(&roots(&dir));
    assert_eq!(cold.sessions.len(), 200);
    let mut index = Index::open_at(&cache);
    let (first, stats) = list_with(&mut index, &dir);
    assert_eq!(stats.scanned, 200);
    assert_same("first indexed", &first, &cold);
    let (warm, stats) = list_with(&mut Index::open_at(&cache), &dir);
    assert_eq!(stats.cached, 200);
    assert_same("warm", &warm, &cold);

    let mut rng = Rng(99);
    // Appends: whole lines to 20 files, a torn half line to 3 more.
    for (k, p) in paths.iter().enumerate().take(20) {
        let extra = session_lines(&mut rng, k, "ignored")[1..].join("\n") + "\n";
        append(p, extra.as_bytes());
    }
    for p in &paths[20..23] {
        append(
            p,
            br#"{"type":"message","id":"torn0001","parentId":null,"message":{"role":"user","cont"#,
        );
    }
    // Renames and deletes.
    for p in paths.iter_mut().skip(30).take(5) {
        let to = p.with_file_name(format!(
            "renamed-{}",
            p.file_name().unwrap().to_string_lossy()
        ));
        fs::rename(&*p, &to).unwrap();
        *p = to;
    }
    for p in &paths[40..45] {
        fs::remove_file(p).unwrap();
    }
    // Truncated in the middle of a line.
    for p in &paths[50..53] {
        let len = fs::metadata(p).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(p)
            .unwrap()
            .set_len(len * 2 / 3)
            .unwrap();
    }
    // Replaced by a different session of the same size and mtime: rewritten in place, and
    // swapped in by rename (a new inode).
    for (k, p) in paths[60..64].iter().enumerate() {
        let meta = fs::metadata(p).unwrap();
        let mtime = meta.modified().unwrap();
        let text = fs::read_to_string(p).unwrap();
        // Same length: swap two ASCII letters everywhere and reuse the id's length.
        let changed = text.replace("parser", "PARSER").replace("sess-", "SESS-");
        assert_eq!(changed.len(), text.len());
        assert_ne!(changed, text);
        if k % 2 == 0 {
            fs::write(p, &changed).unwrap();
        } else {
            let tmp_path = p.with_extension("tmp");
            fs::write(&tmp_path, &changed).unwrap();
            fs::rename(&tmp_path, p).unwrap();
        }
        set_mtime(p, mtime);
        let after = fs::metadata(p).unwrap();
        assert_eq!(
            (after.len(), after.modified().unwrap()),
            (meta.len(), mtime)
        );
    }
    // Touched only.
    for p in &paths[70..72] {
        set_mtime(p, SystemTime::now() + Duration::from_secs(5));
    }
    // A new file, and one that is not a session.
    let new_dir = dir.join("--work-new--");
    fs::create_dir_all(&new_dir).unwrap();
    write_lines(
        &new_dir.join("new.jsonl"),
        &session_lines(&mut rng, 1, "sess-new"),
    );
    fs::write(new_dir.join("junk.jsonl"), "not a session\n").unwrap();

    let cold = list_sessions(&roots(&dir));
    assert_eq!(cold.sessions.len(), 200 - 5 + 1);
    assert_eq!(cold.problems.len(), 1);
    // Incremental: the same index object, which resumes the appended files.
    let (incremental, stats) = list_with(&mut index, &dir);
    assert_same("incremental", &incremental, &cold);
    assert_eq!(stats.resumed, 23, "{stats:?}");
    // The cache it wrote, read by another process.
    let (cached, stats) = list_with(&mut Index::open_at(&cache), &dir);
    assert_same("cached after changes", &cached, &cold);
    assert_eq!(stats.cached, 200 - 5 + 2, "{stats:?}");
    // A fresh cache.
    let (fresh, _) = list_with(&mut Index::open_at(&tmp.path().join("cache2")), &dir);
    assert_same("fresh", &fresh, &cold);

    // Complete the torn lines, append again: resumed again, still identical.
    for p in &paths[20..23] {
        append(p, b"ent\":\"done\"}}\n");
    }
    for p in &paths[0..5] {
        append(
            p,
            format!("{}\n", session_lines(&mut rng, 3, "x")[1]).as_bytes(),
        );
    }
    let cold = list_sessions(&roots(&dir));
    let (incremental, stats) = list_with(&mut Index::open_at(&cache), &dir);
    assert_eq!(stats.resumed, 8, "{stats:?}");
    assert_same("second round", &incremental, &cold);
}
