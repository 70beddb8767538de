//! Entry offsets in the index (`storage::index::offsets`): the listing keeps, for a large
//! session file, where each entry's line starts; a checkout to an entry far back and the leaf
//! branch of a session whose leaf hangs from an old entry then cost a positioned read, not a
//! backward scan. Offsets are hints: stale or wrong ones fall back, never give a wrong entry.
//! Bytes read are counted through the readers (no timing).

mod common;

use std::path::Path;

use common::index::{append, header, list_with, message};
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use grove::storage::append::NewEntry;
use grove::storage::index::Index;
use grove::storage::index::offsets::{EntryOffsets, OffsetsBuilder};
use grove::storage::index::write::{WritePath, append_indexed};
use grove::storage::leaf::{LeafOptions, leaf_branch_from, leaf_branch_from_with};

fn id(i: usize) -> String {
    format!("m{i:07x}")
}

/// A session whose leaf branch jumps far back: `m0000000`…`m00000c7` (200 entries), then a
/// side branch of `side` entries of `filler` bytes each hanging from `m0000010`, then the main
/// branch again from `m00000c7` to `m00000ff` (the leaf).
fn jumping_session(side: usize, filler: usize) -> Vec<u8> {
    let mut lines = vec![header("big-1")];
    let mut parent: Option<String> = None;
    for i in 0..200 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        lines.push(message(
            &id(i),
            parent.as_deref(),
            role,
            &format!("main {i}"),
        ));
        parent = Some(id(i));
    }
    let text = "x".repeat(filler);
    let mut side_parent = id(0x10);
    for k in 0..side {
        let sid = format!("s{k:07x}");
        lines.push(message(&sid, Some(&side_parent), "user", &text));
        side_parent = sid;
    }
    for i in 200..256 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        lines.push(message(
            &id(i),
            parent.as_deref(),
            role,
            &format!("main {i}"),
        ));
        parent = Some(id(i));
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

/// The offsets a scan of `bytes` records.
fn offsets_of(bytes: &[u8]) -> EntryOffsets {
    let mut b = OffsetsBuilder::default();
    let mut at = 0;
    for line in bytes.split_inclusive(|&c| c == b'\n') {
        b.line(at as u64, line.strip_suffix(b"\n").unwrap_or(line));
        at += line.len();
    }
    EntryOffsets::from_chunks(vec![b.finish()])
}

fn ids(s: &Session) -> Vec<String> {
    s.entries().iter().map(|e| e.id.clone()).collect()
}

/// The last `k` ids of the whole load's leaf branch.
fn whole_branch_tail(bytes: &[u8], k: usize) -> Vec<String> {
    let s = Session::new(ParsedSession::from_bytes(bytes));
    let path = s.tree.path_to(s.tree.leaf.unwrap());
    let ids: Vec<String> = path.iter().map(|&i| s.entries()[i].id.clone()).collect();
    ids[ids.len().saturating_sub(k)..].to_vec()
}

/// A positioned reader over `bytes` counting what it reads.
fn reader<'a>(
    bytes: &'a [u8],
    read: &'a mut u64,
) -> impl FnMut(&mut [u8], u64) -> std::io::Result<()> + 'a {
    move |buf: &mut [u8], at: u64| {
        *read += buf.len() as u64;
        buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
        Ok(())
    }
}

#[test]
fn the_leaf_branch_follows_a_jump_back_with_a_few_reads() {
    // 3,000 side entries of 2 KB: the jump back is 6 MB, more than the 2 MiB allowed here.
    let bytes = jumping_session(3_000, 2_000);
    let size = bytes.len() as u64;
    let opts = LeafOptions {
        entries: 150,
        max_bytes: 2 << 20,
    };
    // Without offsets the backward read gives up: the 56 entries after the jump only.
    let mut read = 0;
    let alone = leaf_branch_from(&mut reader(&bytes, &mut read), size, opts).unwrap();
    assert_eq!(alone.session.entries().len(), 56);
    // With them: the branch as the whole load has it, across the jump.
    let offsets = offsets_of(&bytes);
    let mut read = 0;
    let first =
        leaf_branch_from_with(&mut reader(&bytes, &mut read), size, opts, Some(&offsets)).unwrap();
    assert_eq!(ids(&first.session), whole_branch_tail(&bytes, 150));
    assert!(!first.complete);
    // The tail, the 1 MiB searched before looking the parent up, and a block or two there.
    assert!(
        read < (1 << 20) + (2 << 20) / 2,
        "read {read} of {size} bytes"
    );
    assert_eq!(first.bytes_read, read);
}

#[test]
fn stale_offsets_fall_back_to_what_the_file_says() {
    let bytes = jumping_session(3_000, 2_000);
    // Offsets of another version of the file: every line moved by a few bytes, and one id
    // pointed at a line of another entry.
    let mut other = bytes.clone();
    other.splice(
        0..0,
        b"{\"type\":\"custom\",\"id\":\"zz\"}\n".iter().copied(),
    );
    let stale = offsets_of(&other);
    let opts = LeafOptions {
        entries: 150,
        max_bytes: 64 << 20,
    };
    let size = bytes.len() as u64;
    let mut read = 0;
    let first =
        leaf_branch_from_with(&mut reader(&bytes, &mut read), size, opts, Some(&stale)).unwrap();
    assert_eq!(ids(&first.session), whole_branch_tail(&bytes, 150));
    let mut read = 0;
    let wrong = stale.entry(&mut reader(&bytes, &mut read), &id(0x20), 0, size);
    assert!(wrong.is_none(), "a line that is not the entry is refused");
    let right = offsets_of(&bytes).entry(&mut reader(&bytes, &mut read), &id(0x20), 0, size);
    assert_eq!(right.map(|(_, e)| e.id), Some(id(0x20)));
}

/// Lists `dir` (one large session) into the index in `cache`.
fn listed(cache: &Path, dir: &Path) -> Index {
    let mut index = Index::open_at(cache);
    let (listing, stats) = list_with(&mut index, dir);
    assert_eq!(listing.sessions.len(), 1);
    assert!(stats.persisted, "{stats:?}");
    index
}

#[test]
fn a_warm_index_finds_a_far_checkout_target_with_one_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("s"), tmp.path().join("cache"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2025-01-02T03-04-05-000Z_big-1.jsonl");
    // 1,100 side entries of 31 KB: a 34 MB file, over the size that gets offsets.
    let bytes = jumping_session(1_100, 31_000);
    assert!(bytes.len() as u64 > grove::storage::index::offsets::MIN_FILE_BYTES);
    std::fs::write(&path, &bytes).unwrap();
    let mut index = listed(&cache, &dir);
    let offsets = index
        .entry_offsets(&path)
        .expect("offsets kept by the listing");
    // Each entry's line, as the file has it.
    let mut at = 0u64;
    for line in bytes.split_inclusive(|&c| c == b'\n').skip(1) {
        let e: serde_json::Value = serde_json::from_slice(line).unwrap();
        assert_eq!(
            offsets.line_of(e["id"].as_str().unwrap()),
            Some(at + line_start(&bytes))
        );
        at += line.len() as u64;
    }
    // The target far back costs one block, not the 34 MB after it.
    let mut read = 0;
    let header_end = line_start(&bytes);
    let e = offsets
        .entry(
            &mut reader(&bytes, &mut read),
            &id(0x21),
            header_end,
            bytes.len() as u64,
        )
        .unwrap();
    assert_eq!(e.1.id, id(0x21));
    assert!(read <= 64 << 10, "read {read} bytes");
    // The checkout itself takes the index's path and chains as the whole-file path does.
    let (a, how) = append_indexed(
        &mut index,
        &path,
        None,
        NewEntry::Checkout {
            target_id: id(0x21),
        },
        None,
    )
    .unwrap();
    assert_eq!(how, WritePath::Indexed);
    assert_eq!(
        a.parent_id.as_deref(),
        Some(id(0x21).as_str()),
        "an assistant message"
    );
    // The file changed: its offsets are no longer trusted until listed again.
    assert!(index.entry_offsets(&path).is_none());
    let (a, how) = append_indexed(
        &mut index,
        &path,
        None,
        NewEntry::Checkout {
            target_id: id(0x22),
        },
        None,
    )
    .unwrap();
    assert_eq!(how, WritePath::Indexed);
    assert_eq!(
        a.parent_id.as_deref(),
        Some(id(0x21).as_str()),
        "a user message: its parent"
    );
    // The grown file is resumed by the next listing, which adds the new lines' offsets.
    let index = listed(&cache, &dir);
    let offsets = index
        .entry_offsets(&path)
        .expect("offsets follow the growth");
    let grown = std::fs::read(&path).unwrap();
    let last_line = grown[..grown.len() - 1]
        .iter()
        .rposition(|&c| c == b'\n')
        .unwrap() as u64
        + 1;
    assert_eq!(offsets.line_of(&a.id), Some(last_line));
    // Appended by another program without a listing: stale again.
    append(
        &path,
        format!("{}\n", message("zzzz0001", Some(&a.id), "user", "hi")).as_bytes(),
    );
    assert!(index.entry_offsets(&path).is_none());
}

/// Where the second line starts.
fn line_start(bytes: &[u8]) -> u64 {
    bytes.iter().position(|&c| c == b'\n').unwrap() as u64 + 1
}
