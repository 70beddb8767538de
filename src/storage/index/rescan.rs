//! Reading one new or changed file for the index: resumed from its stored state when the file
//! only grew (see [`super::fresh`]), and the state prepared for storage on the reading thread.

use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

use super::db::FileKey;
use super::fresh;
use crate::model::context::Dialect;
use crate::model::info::IdMap;
use crate::model::info::SessionInfo;
use crate::storage::fastscan::{ParseMode, ScanState, scan_with};
use crate::storage::open::ReadError;
use crate::storage::roots::FoundFile;

/// A stored row's state, ready for a resumed scan.
pub(super) struct Prior {
    pub(super) id: i64,
    pub(super) key: FileKey,
    pub(super) head_hash: u64,
    pub(super) tail_hash: u64,
    pub(super) resume_offset: u64,
    pub(super) state: ScanState,
    pub(super) nodes: Map<String, Value>,
    pub(super) had_text: bool,
    pub(super) had_tools: bool,
}

/// The stored row a scan resumed from: its id and key, and whether its text and tool text
/// were not empty (the state then began them with [`fresh::TEXT_MARK`]).
#[derive(Clone, Copy)]
pub(super) struct Resumed {
    pub(super) id: i64,
    pub(super) key: FileKey,
    pub(super) had_text: bool,
    pub(super) had_tools: bool,
}

/// The result of reading one file now, prepared for storage on the reading thread.
pub(super) struct Rescanned {
    pub(super) info: Result<SessionInfo, ReadError>,
    /// The state after the last complete line, ready to store, when the file did not change
    /// while it was read; with how many bytes of the listing's text are the state's.
    pub(super) stored: Option<(Stored, usize)>,
    pub(super) meta: fs::Metadata,
    pub(super) bytes_read: u64,
    pub(super) detected_agent: Dialect,
    /// The row resumed from.
    pub(super) resumed: Option<Resumed>,
    /// A large file's entry offsets read now ([`super::offsets`]), to store with the row.
    pub(super) offsets: Option<Vec<u8>>,
}

/// A state as stored (see [`fresh::split`]).
pub(super) struct Stored {
    pub(super) rest: Vec<u8>,
    pub(super) nodes_changed: Vec<u8>,
    pub(super) nodes_all: IdMap,
    /// `nodes_all` serialized here, on the reading thread, for a new row (stored whole); a
    /// resumed row's are serialized only if its chunks are folded.
    pub(super) nodes_all_json: Option<Vec<u8>>,
    /// The state's tool-call text (kept apart from `rest`).
    pub(super) tools: String,
    pub(super) offset: u64,
    pub(super) head_hash: u64,
    pub(super) tail_hash: u64,
}

/// The state of a scan ready to store: its JSON without nodes, the nodes changed since
/// `old_nodes` (a resumed file) and all nodes; `None` if it does not serialize or lost nodes.
fn prepare(
    state: &mut ScanState,
    head_hash: u64,
    tail_hash: u64,
    old_nodes: Option<&Map<String, Value>>,
) -> Option<Stored> {
    let offset = state.offset();
    let (rest, nodes, tools) = fresh::split(state)?;
    let (changed, all_json) = match old_nodes {
        Some(old) => (
            serde_json::to_vec(&fresh::changed(old, &nodes)?).ok()?,
            None,
        ),
        None => (Vec::new(), Some(fresh::nodes_json(&nodes))),
    };
    Some(Stored {
        rest,
        nodes_changed: changed,
        nodes_all: nodes,
        nodes_all_json: all_json,
        tools,
        offset,
        head_hash,
        tail_hash,
    })
}

/// Reads a new or changed file: resumed from the stored state when the file only grew and the
/// checked windows are unchanged (see [`fresh`]).
pub(super) fn rescan(
    file: &FoundFile,
    prior: Option<Prior>,
    keep_state: bool,
) -> Result<Rescanned, ReadError> {
    // A large file's entry offsets, gathered on the way (see `offsets`).
    let large = keep_state
        && fs::metadata(&file.path).is_ok_and(|m| m.len() >= super::offsets::MIN_FILE_BYTES);
    let mut offsets = super::offsets::OffsetsBuilder::default();
    let mut scan = |resume: Option<ScanState>| {
        offsets = Default::default();
        let mut on_line = |at: u64, line: &[u8]| {
            if large {
                offsets.line(at, line)
            }
        };
        scan_with(
            &file.path,
            file.agent,
            ParseMode::Fast,
            resume,
            &mut on_line,
        )
    };
    let (s, resumed, old_nodes) = match prior {
        Some(p)
            if fresh::hashes(&file.path, p.resume_offset).ok()
                == Some((p.head_hash, p.tail_hash)) =>
        {
            let s = scan(Some(p.state))?;
            let now = FileKey::of(&s.meta);
            if now.same_file(&p.key) && now.size >= p.key.size {
                let from = Resumed {
                    id: p.id,
                    key: p.key,
                    had_text: p.had_text,
                    had_tools: p.had_tools,
                };
                (s, Some(from), Some(p.nodes))
            } else {
                (scan(None)?, None, None)
            }
        }
        _ => (scan(None)?, None, None),
    };
    let mut state = s.state;
    // The state's own text (only kept apart when a torn last line made the listing's longer).
    let state_len = if s.state_has_text {
        let t = state.take_builder_text();
        t.len()
    } else {
        s.info.as_ref().map_or(0, |i| i.all_messages_text.len())
    };
    let stored = keep_state
        .then(|| settled(&file.path, &s.meta, &state))
        .flatten()
        .and_then(|(head, tail)| prepare(&mut state, head, tail, old_nodes.as_ref()))
        .map(|p| (p, state_len));
    let offsets = (large && stored.is_some()).then(|| offsets.finish());
    Ok(Rescanned {
        offsets,
        info: s.info,
        stored,
        meta: s.meta,
        bytes_read: s.bytes_read,
        detected_agent: s.detected_agent,
        resumed,
    })
}

/// The state with its hashes, if the file still looks as it did when it was read (a file
/// rewritten during the read must not get a state that resumes on the new content).
fn settled(path: &Path, before: &fs::Metadata, state: &ScanState) -> Option<(u64, u64)> {
    let (head, tail) = fresh::hashes(path, state.offset()).ok()?;
    let after = fs::metadata(path).ok()?;
    (FileKey::of(&after) == FileKey::of(before)).then_some((head, tail))
}
