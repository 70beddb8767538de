//! A large session's leaf branch is read first, from the end of the file: the first result
//! holds the leaf and its nearest ancestors, exactly as the whole load has them, and was read
//! without reading the whole file (bytes counted through the reader, not timed).

mod common;

use common::{chain, header, jsonl, message};
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use grove::storage::leaf::{LeafOptions, leaf_branch_from, load_leaf_branch};

/// A session of `n` chained messages, with a side branch of 200 messages forked early and a
/// label, then the main chain continued (so the leaf's branch skips the side branch).
fn session_bytes(n: usize) -> Vec<u8> {
    let mut lines = vec![header("s-1", "/w")];
    let main = chain(n, None);
    lines.extend(main[..n / 2].iter().cloned());
    let fork_at = format!("m{:07x}", 10);
    let mut parent = fork_at.clone();
    for i in 0..200 {
        let id = format!("side{i:04}");
        lines.push(message(
            &id,
            Some(&parent),
            "user",
            &"side text ".repeat(20),
        ));
        parent = id;
    }
    lines.push(
        serde_json::json!({"type": "label", "id": "lab00001",
            "parentId": format!("m{:07x}", n / 2 - 1), "timestamp": "2025-01-01T00:00:02.000Z",
            "targetId": "m0000003", "label": "checkpoint"})
        .to_string(),
    );
    // The main chain continues after the label (its first entry's parent is the label).
    let mut rest: Vec<String> = main[n / 2..].to_vec();
    rest[0] = rest[0].replace(&format!("\"m{:07x}\"", n / 2 - 1), "\"lab00001\"");
    lines.extend(rest);
    jsonl(&lines).into_bytes()
}

/// The ids of the leaf's branch in the whole load, oldest first, the last `k` of them.
fn whole_branch_tail(bytes: &[u8], k: usize) -> Vec<String> {
    let s = Session::new(ParsedSession::from_bytes(bytes));
    let path = s.tree.path_to(s.tree.leaf.unwrap());
    let ids: Vec<String> = path.iter().map(|&i| s.entries()[i].id.clone()).collect();
    ids[ids.len().saturating_sub(k)..].to_vec()
}

fn ids(s: &Session) -> Vec<String> {
    s.entries().iter().map(|e| e.id.clone()).collect()
}

#[test]
fn the_first_result_is_the_leaf_branch_read_from_the_end_only() {
    let bytes = session_bytes(20_000);
    let size = bytes.len() as u64;
    let mut read = 0u64;
    let mut reader = |buf: &mut [u8], at: u64| {
        read += buf.len() as u64;
        buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
        Ok(())
    };
    let opts = LeafOptions {
        entries: 300,
        ..LeafOptions::default()
    };
    let first = leaf_branch_from(&mut reader, size, opts).unwrap();
    assert_eq!(ids(&first.session), whole_branch_tail(&bytes, 300));
    assert!(!first.complete);
    assert_eq!(first.bytes_read, read);
    // The header and the last blocks only: far less than the file.
    assert!(read * 4 < size, "read {read} of {size} bytes");
    let whole = Session::new(ParsedSession::from_bytes(&bytes));
    assert_eq!(first.session.leaf_id(), whole.leaf_id());
    assert_eq!(
        first.session.parsed.header.as_ref().map(|h| &h.id),
        whole.parsed.header.as_ref().map(|h| &h.id)
    );
}

#[test]
fn a_short_branch_is_read_whole_skipping_other_branches() {
    let bytes = session_bytes(400);
    let opts = LeafOptions {
        entries: 10_000,
        ..LeafOptions::default()
    };
    let mut reader = |buf: &mut [u8], at: u64| {
        buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
        Ok(())
    };
    let first = leaf_branch_from(&mut reader, bytes.len() as u64, opts).unwrap();
    assert!(first.complete);
    let branch = ids(&first.session);
    assert_eq!(branch, whole_branch_tail(&bytes, usize::MAX));
    assert!(branch.contains(&"lab00001".to_owned()));
    assert!(!branch.iter().any(|id| id.starts_with("side")));
    assert_eq!(first.session.issues().count(), 0);
}

#[test]
fn a_file_on_disk_loads_its_leaf_branch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, session_bytes(2_000)).unwrap();
    let first = load_leaf_branch(&path, LeafOptions::default()).unwrap();
    assert_eq!(first.session.leaf_id(), Some("m00007cf"));
    assert_eq!(
        first.session.entries().len(),
        LeafOptions::default().entries
    );
    // Odd files (empty, a first line that is no header, no newline at the end, lines that
    // are not JSON): the same entries as the whole load.
    for content in [
        &b""[..],
        b"{\"type\":\"session\"}",
        b"x\ny\n",
        b"x\n{\"id\":\"a\"}\n{\"id\":\"b\",\"parentId\":\"a\"}",
    ] {
        std::fs::write(&path, content).unwrap();
        let first = load_leaf_branch(&path, LeafOptions::default()).unwrap();
        let whole = Session::new(ParsedSession::from_bytes(content));
        let expected = match whole.tree.leaf {
            Some(_) => whole_branch_tail(content, usize::MAX),
            None => Vec::new(),
        };
        assert_eq!(ids(&first.session), expected, "{content:?}");
    }
}
