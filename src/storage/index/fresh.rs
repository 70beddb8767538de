//! What the index trusts about a file it has seen, and the stored scan state.
//!
//! A row is used as is when the file's device, inode, size, mtime and ctime all equal the
//! row's. A file that only grew (same device and inode, larger) is read from where the last
//! scan stopped (the end of its last complete line) when two windows of the old bytes hash as
//! they did: the first [`HEAD_BLOCK`] bytes (the header and the first entries: cwd, first
//! message) and the [`TAIL_BLOCK`] bytes before the resume offset. Anything else is a full
//! rescan. What is trusted, exactly: that a file which grew, kept its inode, and kept both
//! windows byte for byte, did not change in between. An edit in place that also grows the file
//! and changes only bytes outside the two windows goes unseen until the file is rewritten.

use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::info::IdMap;
use crate::storage::fastscan::ScanState;

/// Bytes at the start of a file hashed for the resume check.
pub const HEAD_BLOCK: u64 = 16 << 10;
/// Bytes before the resume offset hashed for the resume check.
pub const TAIL_BLOCK: u64 = 4 << 10;

/// A stable hash (foldhash's quality hasher with a fixed seed; only ever compared with hashes
/// this build wrote: another build's differ at worst, which costs a rescan).
pub fn hash(bytes: &[u8]) -> u64 {
    foldhash::quality::FixedState::with_seed(0x0067_726f_7665).hash_one(bytes)
}

/// Hash of the file's bytes `[start, end)`.
fn hash_range(file: &mut File, start: u64, end: u64) -> io::Result<u64> {
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity((end - start) as usize);
    file.take(end - start).read_to_end(&mut buf)?;
    if (buf.len() as u64) < end - start {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(hash(&buf))
}

/// The head and tail hashes of a file whose scan stopped at `offset`.
pub fn hashes(path: &Path, offset: u64) -> io::Result<(u64, u64)> {
    let mut f = File::open(path)?;
    let head = hash_range(&mut f, 0, offset.min(HEAD_BLOCK))?;
    let tail = hash_range(&mut f, offset.saturating_sub(TAIL_BLOCK), offset)?;
    Ok((head, tail))
}

/// Stands for a non-empty stored text while a grown file is resumed: the scanner only needs
/// to know that text came before (it then puts a space before the next message's), so the
/// stored text is neither read nor rewritten; the new text is what follows this mark.
pub const TEXT_MARK: &str = "\0";

/// The state split for storage: its JSON without the entry ids (`builder.nodes`) and without
/// its tool-call text (`builder.tools`); the ids (id -> flags), which a grown file adds to
/// chunk by chunk; and the tool-call text, stored in chunks of its own like the text (the row
/// of a tool-heavy session would otherwise be tens of KB, rewritten at every growth).
///
/// The ids and the tool text are moved out of `state` (which then serializes with an empty
/// map and an empty string in their place, what [`merge`] expects), and the rest is written
/// straight from the state: going through a `serde_json::Value` of the whole state cost an
/// allocation per id and per field (5% of the listing that fills the cache).
pub fn split(state: &mut ScanState) -> Option<(Vec<u8>, IdMap, String)> {
    let (nodes, tools) = state.take_nodes_and_tools();
    let rest = serde_json::to_vec(&*state).ok()?;
    Some((rest, nodes, tools))
}

/// The ids of [`split`] as stored: a compact JSON object of id -> flags (what
/// `index::ids::EntryIds` searches).
pub fn nodes_json(nodes: &IdMap) -> Vec<u8> {
    serde_json::to_vec(nodes).unwrap_or_default()
}

/// The state stored by [`split`], its node chunks applied in order and its tool-call text
/// stood for by [`TEXT_MARK`] when the stored one is not empty (as the text: the scanner only
/// needs to know that some came before); with the merged nodes.
pub fn merge(
    rest: &[u8],
    chunks: &[Vec<u8>],
    had_tools: bool,
) -> Option<(ScanState, Map<String, Value>)> {
    let mut v: Value = serde_json::from_slice(rest).ok()?;
    let mut nodes = Map::new();
    for c in chunks {
        let m: Map<String, Value> = serde_json::from_slice(c).ok()?;
        nodes.extend(m);
    }
    if let Some(slot) = v.pointer_mut("/builder/nodes") {
        *slot = Value::Object(nodes.clone());
    } else if !nodes.is_empty() {
        return None;
    }
    let tools = v.pointer_mut("/builder/tools")?;
    if tools.as_str() != Some("") {
        return None;
    }
    if had_tools {
        *tools = Value::String(TEXT_MARK.to_owned());
    }
    let state = ScanState::deserialize(v).ok()?;
    Some((state, nodes))
}

/// The nodes of `new` that `old` lacks or holds with other flags; `None` when `old` has one
/// that `new` lost (then all must be stored again).
pub fn changed(old: &Map<String, Value>, new: &IdMap) -> Option<Map<String, Value>> {
    if old.keys().any(|k| !new.contains_key(k.as_str())) {
        return None;
    }
    Some(
        new.iter()
            .filter(|(k, v)| old.get(k.as_str()).and_then(Value::as_u64) != Some(u64::from(**v)))
            .map(|(k, v)| (k.clone(), Value::from(*v)))
            .collect(),
    )
}

/// The entry ids in stored nodes (flag bit 1: an id seen; bit 2: some entry's parent).
pub fn entry_ids(nodes: &Map<String, Value>) -> impl Iterator<Item = &str> {
    nodes
        .iter()
        .filter(|(_, f)| f.as_u64().is_some_and(|f| f & 1 == 1))
        .map(|(k, _)| k.as_str())
}
