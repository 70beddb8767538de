//! A grown session is resumed without loading its stored entry ids (issue "Storage", round
//! five): the new lines mark the ids they name, one pass over the stored id chunks gives those
//! ids' stored flags, and the leaf count follows. The listings after growths that branch, move
//! the leaf, name an id before its entry, repeat an id, escape one, label and name entries, and
//! tear the last line, equal the listing read from the start, leaf count included.

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use common::index::{assert_same, header, list, list_with, message};
use grove::storage::index::Index;

fn append(path: &Path, text: &str) {
    let mut f = OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn line(ty: &str, id: &str, parent: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"{ty}","id":"{id}","parentId":"{parent}","timestamp":"2025-01-02T03:06:00.000Z"{extra}}}
"#
    )
}

#[test]
fn growths_resume_without_the_stored_ids_and_list_as_a_cold_scan_does() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join("a.jsonl");
    let mut s = header("resume01") + "\n";
    let mut parent: Option<String> = None;
    for i in 0..40 {
        let id = format!("e{i:03}");
        s += &message(
            &id,
            parent.as_deref(),
            if i % 2 == 0 { "user" } else { "assistant" },
            "words",
        );
        s += "\n";
        parent = Some(id);
    }
    fs::write(&p, s).unwrap();
    let (first, stats) = list(&cache, &dir);
    assert_eq!(stats.scanned, 1);
    assert_eq!(first.sessions[0].leaf_count, 1);

    let growths: Vec<(&str, String, u64)> = vec![
        ("a child of the leaf", message("e040", Some("e039"), "user", "next"), 1),
        ("a branch off an old entry", message("b001", Some("e010"), "user", "branch"), 2),
        ("a child of the branch", message("b002", Some("b001"), "assistant", "on"), 2),
        ("a parent named before its entry", message("c001", Some("fwd1"), "user", "early"), 3),
        ("the entry named before", message("fwd1", Some("e005"), "assistant", "late"), 3),
        ("an old id again", message("e020", Some("e040"), "user", "again"), 2),
        (
            "an escaped id and its child",
            r#"{"type":"message","id":"q\u0041z","parentId":"b002","message":{"role":"user","content":"esc"}}
{"type":"message","id":"r001","parentId":"qAz","message":{"role":"assistant","content":"ok"}}
"#
            .to_owned(),
            2,
        ),
        (
            "a label and a name",
            line("label", "l001", "r001", r#","targetId":"e003","label":"keep""#)
                + &line("session_info", "n001", "l001", r#","name":"grown""#),
            2,
        ),
        ("an entry that is its own parent", message("self", Some("self"), "user", "loop"), 3),
    ];
    for (what, text, leaves) in growths {
        let text = if text.ends_with('\n') {
            text
        } else {
            text + "\n"
        };
        append(&p, &text);
        let (warm, stats) = list(&cache, &dir);
        let cold = list_with(&mut Index::disabled(), &dir).0;
        assert_same(what, &warm, &cold);
        assert_eq!(stats.resumed, 1, "{what}: {stats:?}");
        assert_eq!(
            stats.ids_loaded, 0,
            "{what}: resumed without the stored ids"
        );
        assert_eq!(warm.sessions[0].leaf_count, leaves, "{what}");
    }

    // A torn last line: its marks count in the listing, not in the stored state, so that resume
    // loads the ids; the line completed, the next resumes without them again.
    let torn = message("t001", Some("e030"), "user", "torn");
    let (head, tail) = torn.split_at(torn.len() / 2);
    append(&p, head);
    let (warm, stats) = list(&cache, &dir);
    assert_same(
        "a torn line",
        &warm,
        &list_with(&mut Index::disabled(), &dir).0,
    );
    assert!(stats.ids_loaded > 0, "{stats:?}");
    append(&p, &format!("{tail}\n"));
    let (warm, stats) = list(&cache, &dir);
    assert_eq!(stats.resumed, 1, "{stats:?}");
    assert_same(
        "the torn line completed",
        &warm,
        &list_with(&mut Index::disabled(), &dir).0,
    );
    assert_eq!(warm.sessions[0].leaf_count, 4);
    append(
        &p,
        &(message("t002", Some("t001"), "assistant", "after") + "\n"),
    );
    let (warm, stats) = list(&cache, &dir);
    assert_same(
        "after the torn line",
        &warm,
        &list_with(&mut Index::disabled(), &dir).0,
    );
    assert_eq!(stats.ids_loaded, 0, "{stats:?}");
}
