//! Lines are read in bounded memory (issue "Hardening, round two", item 1): a line of
//! `MAX_LINE_BYTES` or more is reported and skipped without being held whole, and a bad file
//! never stops the others. Memory is bounded with `prlimit --as`, time with a deadline.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use grove::model::parse::{IssueKind, MAX_LINE_BYTES, ParsedSession};

/// Address space allowed to grove: a listing that held the 2 GiB line (or doubled a buffer
/// towards it) aborts under it.
const LIMIT: &str = "--as=1073741824";
/// Generous: reading 2 GiB of a sparse file costs about a second; holding it took 12-14 s.
const DEADLINE_S: u64 = 180;

fn prlimited(sandbox: &Path, root: &Path, args: &[&str]) -> std::process::Output {
    let prlimit = Path::new("/usr/bin/prlimit");
    // Never skipped: without the limit the test would prove nothing.
    assert!(
        prlimit.exists(),
        "prlimit (util-linux) is needed for the memory limit"
    );
    let mut c = Command::new(prlimit);
    isolate(&mut c, sandbox);
    c.arg(LIMIT)
        .arg("--")
        .arg(grove_bin())
        .arg("--session-dir")
        .arg(root)
        .args(args);
    output_within(c, DEADLINE_S, &format!("grove {}", args.join(" ")))
}

/// A session whose second entry is one line of more than `MAX_LINE_BYTES` bytes, between two good
/// messages.
fn session_with_a_huge_line(id: &str) -> Vec<u8> {
    let lines = chain(3, None);
    let mut data = format!("{}\n{}\n", header(id, "/work"), lines[0]).into_bytes();
    data.extend_from_slice(b"{\"type\":\"custom\",\"data\":\"");
    data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES));
    data.extend_from_slice(b"\"}\n");
    data.extend_from_slice(format!("{}\n{}\n", lines[1], lines[2]).as_bytes());
    data
}

#[test]
fn a_sparse_2_gib_file_of_nul_bytes_is_reported_and_the_others_listed() {
    let (dir, root, folder) = session_root();
    write_file(&folder, "good1.jsonl", small_session("good1", "/work"));
    write_file(&folder, "good2.jsonl", small_session("good2", "/work"));
    write_file(&folder, "huge-line.jsonl", session_with_a_huge_line("huge"));
    let nul = folder.join("nul.jsonl");
    // Sparse: no disk space used, 2 GiB of NUL bytes when read.
    std::fs::File::create(&nul)
        .and_then(|f| f.set_len(2 << 30))
        .expect("sparse file");
    let out = prlimited(
        dir.path(),
        &root,
        &["list", "--all", "--no-cache", "--json"],
    );
    assert!(out.status.success(), "{out:?}");
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ids: Vec<&str> = listed
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(
        {
            let mut ids = ids.clone();
            ids.sort();
            ids
        },
        ["good1", "good2", "huge"]
    );
    let err = stderr(&out);
    assert!(
        err.contains("nul.jsonl") && err.contains("no session header"),
        "{err}"
    );
    // The session with the huge line counts it as a problem and still lists its messages.
    let huge = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "huge")
        .unwrap();
    assert_eq!(huge["messageCount"], 3, "{huge}");
}

#[test]
fn the_session_loader_skips_a_huge_line_in_bounded_memory() {
    let (dir, root, folder) = session_root();
    let path = write_file(&folder, "huge-line.jsonl", session_with_a_huge_line("huge"));
    let out = prlimited(
        dir.path(),
        &root,
        &["tree", "--json", path.to_str().unwrap()],
    );
    assert!(out.status.success(), "{out:?}");
    let tree = stdout(&out);
    for id in ["m0000000", "m0000001", "m0000002"] {
        assert!(tree.contains(id), "{id} missing from {tree}");
    }
    // In process: the line is an issue with its number, the entries around it load.
    let s = ParsedSession::read(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(s.entries.len(), 3);
    let long: Vec<_> = s
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::LineTooLong)
        .map(|i| i.line)
        .collect();
    assert_eq!(long, [3]);
    assert_eq!(s.entries[1].line, 4);
}

#[test]
fn loading_a_sparse_2_gib_file_of_nul_bytes_fails_cleanly() {
    let (dir, root, folder) = session_root();
    let nul = folder.join("nul.jsonl");
    std::fs::File::create(&nul)
        .and_then(|f| f.set_len(2 << 30))
        .expect("sparse file");
    let out = prlimited(
        dir.path(),
        &root,
        &["tree", "--json", nul.to_str().unwrap()],
    );
    // Refused or shown empty, but never killed by the memory limit.
    assert!(out.status.code().is_some(), "killed: {out:?}");
    assert_ne!(out.status.code(), Some(101), "panicked: {out:?}");
}
