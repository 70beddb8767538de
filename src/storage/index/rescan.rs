//! Reading one new or changed file for the index: resumed from its stored state when the file
//! only grew (see [`super::fresh`]), and the state prepared for storage on the reading thread.
//!
//! A resume does not load the stored entry ids when it can settle without them (see
//! [`super::nodes`]): its cost is the new bytes and one pass over the stored id chunks, not a
//! map of every id of the session built, compared and serialized again.

use std::fs;
use std::path::Path;

use super::db::{Db, FileKey, MAX_CHUNKS, Row};
use super::nodes::{self, Delta};
use super::{fresh, state_bound};
use crate::model::context::Dialect;
use crate::model::info::{IdMap, SessionInfo};
use crate::storage::fastscan::{ParseMode, ScanState, Scanned, Texts, scan_with};
use crate::storage::open::ReadError;
use crate::storage::roots::FoundFile;

/// A stored row's state, ready for a resumed scan.
pub(super) struct Prior {
    pub(super) id: i64,
    pub(super) key: FileKey,
    pub(super) head_hash: u64,
    pub(super) tail_hash: u64,
    pub(super) resume_offset: u64,
    /// The stored state without its entry ids.
    pub(super) state: ScanState,
    /// The stored id chunks, as read.
    pub(super) chunks: Vec<Vec<u8>>,
    /// The stored ids' leaf count, when a resume can settle without loading them.
    pub(super) leaves: Option<u64>,
    pub(super) had_text: bool,
    pub(super) had_tools: bool,
}

impl Prior {
    /// The stored state of a row whose file may have only grown, for a resumed scan.
    pub(super) fn load(db: &Db, path: &Path, row: &Row) -> Option<Prior> {
        let info = row.info.as_ref()?;
        if !row.has_state {
            return None;
        }
        let meta = fs::metadata(path).ok()?;
        let now = FileKey::of(&meta);
        if !now.same_file(&row.key) || now.size <= row.key.size || row.resume_offset > now.size {
            return None;
        }
        let (rest, chunks) = db.state(row.id, state_bound(row.key.size)).ok()??;
        let had_tools = row.tools_len > 0;
        let mut state = nodes::rest_state(&rest, had_tools)?;
        if state.offset() != row.resume_offset {
            return None;
        }
        let had_text = row.text_len > 0;
        state.restore_builder_text(if had_text {
            fresh::TEXT_MARK.to_owned()
        } else {
            String::new()
        });
        // Without a torn last line the row's leaf count is the stored ids' (a version 1 file's
        // is not counted from ids; past MAX_CHUNKS the chunks are folded, which needs them all).
        let leaves = (info.version >= 2
            && row.resume_offset == row.key.size
            && chunks.len() < MAX_CHUNKS as usize)
            .then_some(info.leaf_count);
        Some(Prior {
            id: row.id,
            key: row.key,
            head_hash: row.head_hash,
            tail_hash: row.tail_hash,
            resume_offset: row.resume_offset,
            state,
            chunks,
            leaves,
            had_text,
            had_tools,
        })
    }
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
    /// How many stored entry ids were loaded to resume (0 when the resume settled without).
    pub(super) ids_loaded: u64,
}

/// A state as stored (see [`nodes::split`]).
pub(super) struct Stored {
    pub(super) rest: Vec<u8>,
    /// The ids changed since the stored state (a resumed file), as JSON.
    pub(super) nodes_changed: Vec<u8>,
    /// All ids, when they were loaded (not for a resume that settled without them).
    pub(super) nodes_all: Option<IdMap>,
    /// The state's tool-call text (kept apart from `rest`).
    pub(super) tools: String,
    pub(super) offset: u64,
    pub(super) head_hash: u64,
    pub(super) tail_hash: u64,
}

/// The stored ids a resumed scan is compared with.
enum OldIds {
    /// All of them, loaded into the state before the scan.
    All(IdMap),
    /// None were loaded: the scan's state holds the ids the new lines marked.
    Delta(Delta),
}

/// Reads a new or changed file: resumed from the stored state when the file only grew and the
/// checked windows are unchanged (see [`fresh`]). Without `keep_state` nor `with_text` the
/// listing's text is not gathered (nothing would store or search it).
pub(super) fn rescan(
    file: &FoundFile,
    prior: Option<Prior>,
    keep_state: bool,
    with_text: bool,
) -> Result<Rescanned, ReadError> {
    let texts = if keep_state || with_text {
        Texts::Gather
    } else {
        Texts::Skip
    };
    let size = if keep_state {
        fs::metadata(&file.path).map_or(0, |m| m.len())
    } else {
        0
    };
    // A large file's entry offsets, gathered on the way (see `offsets`).
    let large = size >= super::offsets::MIN_FILE_BYTES;
    let mut offsets = super::offsets::OffsetsBuilder::default();
    // The bytes the stored state's hashes are of, as they go by.
    let mut windows = fresh::Windows::default();
    let mut scan = |resume: Option<ScanState>| {
        offsets = Default::default();
        windows = fresh::Windows::new(size);
        let mut on_line = |at: u64, line: &[u8]| {
            if large {
                offsets.line(at, line)
            }
            if keep_state {
                windows.line(at, line)
            }
        };
        scan_with(
            &file.path,
            file.agent,
            ParseMode::Fast,
            resume,
            texts,
            &mut on_line,
        )
    };
    let mut resumed_scan = None;
    if let Some(p) = prior
        && fresh::hashes(&file.path, p.resume_offset).ok() == Some((p.head_hash, p.tail_hash))
    {
        let from = Resumed {
            id: p.id,
            key: p.key,
            had_text: p.had_text,
            had_tools: p.had_tools,
        };
        if let Some((s, old)) = resume(&mut scan, p)? {
            let now = FileKey::of(&s.meta);
            if now.same_file(&from.key) && now.size >= from.key.size {
                resumed_scan = Some((s, from, old));
            }
        }
    }
    let (s, resumed, old) = match resumed_scan {
        Some((s, from, old)) => (s, Some(from), Some(old)),
        None => (scan(None)?, None, None),
    };
    let ids_loaded = match &old {
        Some(OldIds::All(all)) => all.len() as u64,
        _ => 0,
    };
    let mut state = s.state;
    let mut info = s.info;
    // The state's own text (only kept apart when a torn last line made the listing's longer).
    let state_len = if s.state_has_text {
        let t = state.take_builder_text();
        t.len()
    } else {
        info.as_ref().map_or(0, |i| i.all_messages_text.len())
    };
    let split = nodes::split(&mut state);
    let offset = state.offset();
    // The ids changed since the stored state (as JSON), and whether all ids are at hand.
    let (nodes_changed, have_all) = match (old, split.as_ref()) {
        (Some(OldIds::Delta(d)), Some((_, marked, _))) => match d.settle(marked) {
            Some(settled) => {
                // The listing's leaf count is that of all ids, not of the ones marked now.
                if let Ok(i) = &mut info {
                    i.leaf_count = settled.leaves;
                }
                (serde_json::to_vec(&settled.changed).ok(), false)
            }
            // Stored ids that do not read: the file is read whole.
            None => return rescan(file, None, keep_state, with_text),
        },
        (Some(OldIds::Delta(_)), None) => return rescan(file, None, keep_state, with_text),
        (Some(OldIds::All(old)), Some((_, ids, _))) => (
            nodes::changed(&old, ids).and_then(|c| serde_json::to_vec(&c).ok()),
            true,
        ),
        (None, _) => (Some(Vec::new()), true),
        (Some(OldIds::All(_)), None) => (None, true),
    };
    let stored = match (split, nodes_changed) {
        (Some((rest, ids, tools)), Some(nodes_changed)) if keep_state => {
            settled(&file.path, &s.meta, offset, &windows).map(|(head_hash, tail_hash)| {
                let stored = Stored {
                    rest,
                    nodes_changed,
                    nodes_all: have_all.then_some(ids),
                    tools,
                    offset,
                    head_hash,
                    tail_hash,
                };
                (stored, state_len)
            })
        }
        _ => None,
    };
    let offsets = (large && stored.is_some()).then(|| offsets.finish());
    Ok(Rescanned {
        offsets,
        info,
        stored,
        meta: s.meta,
        bytes_read: s.bytes_read,
        detected_agent: s.detected_agent,
        resumed,
        ids_loaded,
    })
}

/// Resumes the scan at the stored state: without the stored ids when it can settle without
/// them (see [`super::nodes`]), else with them all loaded; `None` when the stored ids do not
/// read (the file is then read whole).
fn resume(
    scan: &mut impl FnMut(Option<ScanState>) -> Result<Scanned, ReadError>,
    p: Prior,
) -> Result<Option<(Scanned, OldIds)>, ReadError> {
    let Prior {
        state,
        chunks,
        leaves,
        ..
    } = p;
    if let Some(leaves) = leaves {
        let before = state.clone();
        let s = scan(Some(state))?;
        if !s.state_has_text {
            return Ok(Some((s, OldIds::Delta(Delta { chunks, leaves }))));
        }
        // A torn last line: its marks are in the listing, not in the state; read again with
        // all ids.
        return resume_with_all(scan, before, &chunks);
    }
    resume_with_all(scan, state, &chunks)
}

fn resume_with_all(
    scan: &mut impl FnMut(Option<ScanState>) -> Result<Scanned, ReadError>,
    mut state: ScanState,
    chunks: &[Vec<u8>],
) -> Result<Option<(Scanned, OldIds)>, ReadError> {
    let Some(all) = nodes::all_ids(chunks) else {
        return Ok(None);
    };
    state.builder_mut().restore_nodes(all.clone());
    Ok(Some((scan(Some(state))?, OldIds::All(all))))
}

/// The hashes of a state that stopped at `offset` (of the bytes read when `windows` holds
/// them, else read again), if the file still looks as it did when it was read (a file
/// rewritten during the read must not get a state that resumes on the new content).
fn settled(
    path: &Path,
    before: &fs::Metadata,
    offset: u64,
    windows: &fresh::Windows,
) -> Option<(u64, u64)> {
    let (head, tail) = match windows.hashes(offset) {
        Some(h) => h,
        None => fresh::hashes(path, offset).ok()?,
    };
    let after = fs::metadata(path).ok()?;
    (FileKey::of(&after) == FileKey::of(before)).then_some((head, tail))
}
