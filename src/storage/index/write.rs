//! Writes that cost the new bytes, not the session: `label`, `rename` and `checkout` with a
//! current index row need the file's last entry id and the target's existence, not a load of
//! the whole file.
//!
//! The entry ids come from the row's scan state (the index first reads whatever the file added
//! since its last scan, see [`Index::refresh`]). From the file itself: its size and identity
//! (they must equal the row's key), its header line (its id must be the row's: a crafted
//! cache cannot send a write to another file), the last complete line (the new entry's
//! `parentId`), and for a checkout the target's line, found by searching back from the end for
//! its `"id":"…"` (cost: the bytes after the target) unless the index's entry offsets
//! ([`super::offsets`]) say where it is (cost: one positioned read). The line is written by
//! [`super::super::append`]'s writer with its checks (size unchanged since read, verified after).
//! Anything unusual (an old-version file, a torn last line, a header line that is not the
//! first line, lines over [`MAX_LINE`]) falls back to the whole-file path, which explains
//! itself.

use crate::storage::fsutil::read_exact_at;
use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::Path;

use serde_json::Value;

use super::Index;
use super::db::FileKey;
use super::ids::EntryIds;
pub(crate) use super::ids::IndexedIds;
use crate::model::context::Dialect;
use crate::model::entry::{Entry, EntryKind, JsonMap};
use crate::model::parse::{LineValue, RawLine, entry_from, header_from, parse_line};
use crate::storage::append::{Appended, NewEntry, WriteError, append_entry, fresh_id, now_ms};

/// Lines longer than this are not searched here (the whole-file path handles them).
pub const MAX_LINE: usize = 64 << 20;
/// Bytes read at a time when searching back from the end.
const STEP: usize = 256 << 10;
const ATTEMPTS: usize = 5;

/// How a write was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritePath {
    /// From the index and the file's tail.
    Indexed,
    /// The file was loaded whole (no current index row, or something unusual).
    WholeFile,
}

/// Resolves an entry id or unique id prefix among the ids (the whole-file path's rule); the
/// error is the number of matches (0, or more than 1).
pub fn resolve_id(ids: &EntryIds, arg: &str) -> Result<String, usize> {
    if ids.contains(arg) {
        return Ok(arg.to_owned());
    }
    let mut matches = ids.with_prefix(arg);
    match matches.len() {
        1 => Ok(matches.remove(0)),
        n => Err(n),
    }
}

/// The session's current ids from the index, reading what the file added since the last scan.
pub(super) fn indexed(
    index: &mut Index,
    path: &Path,
    agent: Option<Dialect>,
) -> Option<IndexedIds> {
    if let Some(ids) = index.current_ids(path) {
        return Some(ids);
    }
    index.refresh(path, agent);
    index.current_ids(path)
}

/// The entry ids of a session, for resolving a prefix given on the command line: from the
/// index when its row is current, else `None` (the caller loads the file).
pub fn entry_ids(
    index: &mut Index,
    path: &Path,
    agent: Option<Dialect>,
) -> Option<std::sync::Arc<EntryIds>> {
    indexed(index, path, agent).map(|i| i.ids)
}

/// A session's current index row and the file, checked to agree ([`check_file`]): what a
/// write, and the question whether it would change anything, start from. Made once and
/// handed from the question to the write, so the ids, offsets and file are read once.
pub struct IndexedSession {
    pub(super) ids: IndexedIds,
    pub(super) file: CheckedFile,
}

/// The session at `path` as its index row and the file say, with the entry offsets when
/// `with_offsets` (a check-out and the "changes nothing?" check use them); `None` without a
/// current row, or when the file is not exactly what the row says.
pub fn prepare(
    index: &mut Index,
    path: &Path,
    agent: Option<Dialect>,
    with_offsets: bool,
) -> Option<IndexedSession> {
    let mut ids = indexed(index, path, agent)?;
    if with_offsets {
        ids.offsets = index.entry_offsets(path).map(std::sync::Arc::new);
    }
    let file = check_file(path, &ids).ok()??;
    Some(IndexedSession { ids, file })
}

/// Appends `entry` to the session at `path` using the index when it can (see the module docs),
/// else the whole-file path; says which. `prepared` is the session as [`prepare`] found it
/// (the first attempt starts from it; the writer's own check that the file's size is
/// unchanged, under the lock, covers the time between).
pub fn append_indexed(
    index: &mut Index,
    path: &Path,
    agent: Option<Dialect>,
    entry: NewEntry,
    mut prepared: Option<IndexedSession>,
) -> Result<(Appended, WritePath), WriteError> {
    use crate::storage::append::{OsSink, restore_agent_leaf, write_line};
    use crate::storage::safe_fs::{PinnedDir, lock_exclusive};
    let io_err = |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    // The same guards as the whole-file path: the file opened through its folder, and the
    // advisory lock other grove processes wait on, held for the whole append.
    let dir = PinnedDir::open(path, None)?;
    let mut file = dir.open_append()?;
    lock_exclusive(&file).map_err(io_err)?;
    let checkout = matches!(entry, NewEntry::Checkout { .. });
    for _ in 0..ATTEMPTS {
        let Some(session) = prepared
            .take()
            .or_else(|| prepare(index, path, agent, checkout))
        else {
            break;
        };
        let Some(tail) = read_tail(&session).ok() else {
            break;
        };
        let ids = &session.ids;
        let now = now_ms();
        let (map, appended) = match line_for(path, &session, &tail, entry.clone(), now) {
            Ok(Some(x)) => x,
            Ok(None) => break,
            Err(e) => return Err(e),
        };
        let mut line = serde_json::to_string(&Value::Object(map)).map_err(|e| WriteError::Io {
            path: path.to_path_buf(),
            source: io::Error::other(e),
        })?;
        line.push('\n');
        match write_line(path, &mut file, ids.key.size, line.as_bytes(), &mut OsSink) {
            Ok(landed) => {
                let repair = !matches!(entry, NewEntry::Checkout { .. });
                let note = restore_agent_leaf(
                    path,
                    &mut file,
                    &landed,
                    &appended.id,
                    repair,
                    &mut OsSink,
                    now,
                );
                let appended = Appended {
                    line,
                    note,
                    ..appended
                };
                return Ok((appended, WritePath::Indexed));
            }
            // Another program appended meanwhile: read its lines into the index and retry.
            Err(WriteError::Changed { .. } | WriteError::TornLastLine { .. }) => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => return Err(e),
        }
    }
    // The whole-file path takes the lock itself.
    drop(file);
    append_entry(path, entry).map(|a| (a, WritePath::WholeFile))
}

/// The id in the file's header line (its first line), read from the file.
pub fn header_id(path: &Path) -> Option<String> {
    let (file, meta) = crate::storage::read::open_regular(path).ok()?;
    let (first, _) = first_line(&file, meta.len().min(MAX_LINE as u64)).ok()??;
    match parse_line(&RawLine {
        offset: 0,
        number: 1,
        bytes: &first,
        terminated: true,
    }) {
        LineValue::Object(map, _) => header_from(map, 1).ok().map(|h| h.id),
        _ => None,
    }
}

/// What the file itself says, read at its start and end.
struct Tail {
    last: Option<Entry>,
}

/// The file opened and found to be exactly what the index row says.
pub(super) struct CheckedFile {
    pub file: File,
    /// Where the line after the header starts.
    pub header_end: u64,
}

/// Opens the file and checks it against the index row: its size and identity, version 3 or
/// later, the header's id and version, the hashes of the bytes the row was read from. `None`
/// when it is not exactly what the row says, or is unusual (see the module docs).
pub(super) fn check_file(path: &Path, ids: &IndexedIds) -> io::Result<Option<CheckedFile>> {
    let (file, meta) = match crate::storage::read::open_regular(path) {
        Ok(x) => x,
        Err(_) => return Ok(None),
    };
    if FileKey::of(&meta) != ids.key || ids.end != ids.key.size || ids.version < 3 {
        return Ok(None);
    }
    // The header: the first line, whose id must be the row's.
    let Some((first, header_end)) = first_line(&file, ids.key.size)? else {
        return Ok(None);
    };
    let header = match parse_line(&RawLine {
        offset: 0,
        number: 1,
        bytes: &first,
        terminated: true,
    }) {
        LineValue::Object(map, _) => header_from(map, 1).ok(),
        _ => None,
    };
    let Some(header) = header else {
        return Ok(None);
    };
    if header.id != ids.header_id || header.version != ids.version {
        return Ok(None);
    }
    if super::fresh::hashes(path, ids.end).ok() != Some((ids.head_hash, ids.tail_hash)) {
        return Ok(None);
    }
    Ok(Some(CheckedFile { file, header_end }))
}

/// Reads the last entry of the checked file.
fn read_tail(s: &IndexedSession) -> io::Result<Tail> {
    let f = &s.file;
    let last = last_entry(&f.file, f.header_end, s.ids.key.size, |_| true, |_| true)?;
    Ok(Tail {
        last: last.map(|(_, e)| e),
    })
}

/// The first line (without its newline) and where the next starts; `None` when there is no
/// newline within [`MAX_LINE`] bytes.
fn first_line(file: &File, size: u64) -> io::Result<Option<(Vec<u8>, u64)>> {
    let mut buf = Vec::new();
    let mut at = 0u64;
    while at < size && buf.len() < MAX_LINE {
        let n = (size - at).min(STEP as u64) as usize;
        let start = buf.len();
        buf.resize(start + n, 0);
        read_exact_at(file, &mut buf[start..], at)?;
        if let Some(i) = memchr::memchr(b'\n', &buf[start..]) {
            buf.truncate(start + i);
            return Ok(Some((buf, (start + i + 1) as u64)));
        }
        at += n as u64;
    }
    Ok(None)
}

/// Searching back from `end` (a line end) to `stop` (a line start): the last line for which
/// `want` is true that the whole-file path keeps as an entry `accept`ed, with where it starts.
/// An error for a line longer than [`MAX_LINE`].
pub(super) fn last_entry(
    file: &File,
    stop: u64,
    end: u64,
    mut want: impl FnMut(&[u8]) -> bool,
    mut accept: impl FnMut(&Entry) -> bool,
) -> io::Result<Option<(u64, Entry)>> {
    // `buf` holds the bytes [pos, pos + buf.len()): the lines not yet looked at, ending with
    // a newline (or empty).
    let mut pos = end;
    let mut buf: Vec<u8> = Vec::new();
    loop {
        while let Some(body_end) = buf.len().checked_sub(1) {
            let start = match memchr::memrchr(b'\n', &buf[..body_end]) {
                Some(nl) => nl + 1,
                None if pos == stop => 0,
                None => break,
            };
            let at = pos + start as u64;
            if let Some(e) = consider(&buf[start..body_end], at, &mut want)
                && accept(&e)
            {
                return Ok(Some((at, e)));
            }
            buf.truncate(start);
        }
        if pos <= stop {
            return Ok(None);
        }
        if buf.len() > MAX_LINE {
            return Err(io::Error::other("line too long"));
        }
        let n = (pos - stop).min(STEP as u64) as usize;
        pos -= n as u64;
        let mut chunk = vec![0u8; n];
        read_exact_at(file, &mut chunk, pos)?;
        chunk.extend_from_slice(&buf);
        buf = chunk;
    }
}

/// A line as the whole-file path reads it: an entry, or `None` to look further back (not
/// wanted, blank, broken, or a second header, which that path ignores).
fn consider(line: &[u8], offset: u64, want: &mut impl FnMut(&[u8]) -> bool) -> Option<Entry> {
    if !want(line) {
        return None;
    }
    match parse_line(&RawLine {
        offset,
        number: 0,
        bytes: line,
        terminated: true,
    }) {
        LineValue::Object(map, _) => {
            let e = entry_from(map, 0);
            (!(e.kind == EntryKind::Other && e.type_name() == "session")).then_some(e)
        }
        _ => None,
    }
}

/// The last entry with this id and where its line starts: where the index's entry offsets say
/// (checked to be the entry), else the last line with `"id":"ID"` searched back from the end
/// (`None` when that line is not the entry itself: only a whole load can tell then).
pub(super) fn locate(
    f: &CheckedFile,
    ids: &IndexedIds,
    id: &str,
) -> io::Result<Option<(u64, Entry)>> {
    let end = ids.key.size;
    if let Some(o) = ids.offsets.as_deref() {
        let read = &mut |buf: &mut [u8], at: u64| read_exact_at(&f.file, buf, at);
        if let Some(found) = o.entry(read, id, f.header_end, end) {
            return Ok(Some(found));
        }
    }
    let needle = format!("\"id\":{}", serde_json::to_string(id).unwrap_or_default());
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let found = last_entry(
        &f.file,
        f.header_end,
        end,
        |line| finder.find(line).is_some(),
        |_| true,
    )?;
    Ok(found.filter(|(_, e)| e.id == id))
}

/// The line to append, as the whole-file path builds it; `Ok(None)` to fall back to it.
fn line_for(
    path: &Path,
    session: &IndexedSession,
    tail: &Tail,
    entry: NewEntry,
    now: i64,
) -> Result<Option<(JsonMap, Appended)>, WriteError> {
    let ids = &session.ids;
    // A fresh id not among the file's (drawn until it is new; no set of borrowed ids built).
    let id = loop {
        let id = fresh_id(&HashSet::new());
        if !ids.ids.contains(&id) {
            break id;
        }
    };
    let last_id = tail
        .last
        .as_ref()
        .map(|e| e.id.clone())
        .filter(|s| !s.is_empty());
    // The last line's id must be one the index knows (else the index is behind the file).
    if let Some(l) = &last_id
        && !ids.ids.contains(l)
    {
        return Ok(None);
    }
    let unknown = |target: &str| WriteError::UnknownEntry {
        path: path.to_path_buf(),
        id: target.to_owned(),
    };
    let checkout_leaf = match &entry {
        NewEntry::Label { target_id, .. } => {
            if !ids.ids.contains(target_id) {
                return Err(unknown(target_id));
            }
            None
        }
        NewEntry::Rename { .. } => None,
        NewEntry::Checkout { target_id } => {
            if !ids.ids.contains(target_id) {
                return Err(unknown(target_id));
            }
            let Some((_, e)) = locate(&session.file, ids, target_id).ok().flatten() else {
                return Ok(None);
            };
            // As pi's /tree: choosing a user message (or custom message) puts its text back in
            // the editor, so the branch resumes from its parent.
            if e.role() == Some("user") || e.kind == EntryKind::CustomMessage {
                match e.parent_id.as_deref() {
                    Some(p) if p != e.id && ids.ids.contains(p) => Some(p.to_owned()),
                    Some(p) if p == e.id => return Ok(None),
                    _ => None,
                }
            } else {
                Some(e.id.clone())
            }
        }
    };
    let (m, parent_id) = crate::storage::append::entry_object(
        &entry,
        &id,
        last_id.as_deref(),
        checkout_leaf.as_deref(),
        now,
    );
    Ok(Some((
        m,
        Appended {
            id,
            parent_id,
            line: String::new(),
            note: None,
        },
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse::ParsedSession;

    #[test]
    fn ids_resolve_exactly_or_by_unique_prefix() {
        let ids = EntryIds::from_chunks(vec![br#"{"ab12":1,"ab34":1,"cd56":1}"#.to_vec()]).unwrap();
        assert_eq!(resolve_id(&ids, "ab12"), Ok("ab12".into()));
        assert_eq!(resolve_id(&ids, "cd"), Ok("cd56".into()));
        assert_eq!(resolve_id(&ids, "ab"), Err(2));
        assert_eq!(resolve_id(&ids, "zz"), Err(0));
    }

    /// The last entry found from the end is the one the whole-file path ends with, whatever
    /// blank, broken, second-header or long lines come last.
    #[test]
    fn the_last_entry_from_the_end_is_the_whole_files_last_entry() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/w"}"#;
        let entry = |id: &str| format!(r#"{{"type":"message","id":"{id}","parentId":null}}"#);
        let long = format!(
            r#"{{"type":"custom","id":"long","data":"{}"}}"#,
            "x".repeat(700_000)
        );
        let tails: Vec<Vec<String>> = vec![
            vec![],
            vec![entry("a")],
            vec![entry("a"), String::new(), "   ".into()],
            vec![entry("a"), "{not json".into()],
            vec![entry("a"), header.to_owned()],
            vec![entry("a"), "[1,2]".into(), entry("b"), "{broken".into()],
            vec![entry("a"), long.clone()],
            vec![long, entry("c")],
            vec![r#"{"type":"label","parentId":"a"}"#.into()],
        ];
        let dir = tempfile::tempdir().unwrap();
        for (i, tail) in tails.iter().enumerate() {
            let mut text = format!("{header}\n");
            for l in tail {
                text.push_str(l);
                text.push('\n');
            }
            let p = dir.path().join(format!("{i}.jsonl"));
            std::fs::write(&p, &text).unwrap();
            let whole = ParsedSession::from_bytes(text.as_bytes());
            let want = whole.entries.last().map(|e| e.id.clone());
            let file = File::open(&p).unwrap();
            let (_, header_end) = first_line(&file, text.len() as u64).unwrap().unwrap();
            let got = last_entry(&file, header_end, text.len() as u64, |_| true, |_| true)
                .unwrap()
                .map(|(at, e)| {
                    assert!(
                        text[at as usize..].starts_with('{'),
                        "case {i}: a line start"
                    );
                    e.id
                });
            assert_eq!(got, want, "case {i}");
        }
    }
}
