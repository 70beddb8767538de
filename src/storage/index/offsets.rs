//! Where each entry's line starts, for large session files: kept by the listing that reads the
//! file anyway, so that a checkout to an old entry, or the leaf branch of a session whose leaf
//! hangs from an entry far back, costs a positioned read instead of a backward scan.
//!
//! # Stored
//! A table of its own (`entry_offsets`, created here when missing, separate from the rows'
//! schema), keyed by the file's path and a chunk number; each chunk holds the records of the
//! lines one scan read, `\nID\tOFFSET` in file order, and the file's key (device, inode, size,
//! mtime, ctime) when that scan ended. A file read from the start replaces its chunks; a file
//! that grew and was read from where its last scan stopped adds a chunk when its last chunk's
//! key is the one the scan resumed from, and otherwise loses them (until it is read whole).
//!
//! # Trusted as hints only
//! The chunks are used only while the last one's key equals the file's `stat` now, and an
//! offset is used only after the line read there turns out to be that entry (its own `id`):
//! a stale or crafted table costs a fallback to the backward scan, never a wrong answer. The
//! id recorded for a line is the first `"id":"…"` in its first bytes (pi and Atomic write
//! `type`, `id`, `parentId` first); a line without one there is not recorded, so a missing id
//! means "not known here", never "not in the file".

use std::io;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use super::db::{FileKey, path_bytes};
use crate::model::entry::{Entry, EntryKind};
use crate::model::parse::{LineValue, MAX_LINE_BYTES, RawLine, entry_from, parse_line};

/// Files smaller than this get no offsets (their backward scans are short, and the listing of
/// many small sessions writes nothing more).
pub const MIN_FILE_BYTES: u64 = crate::storage::read::SLIM_LOAD_MIN_BYTES;
/// Bytes at the start of a line searched for its id.
const ID_WITHIN: usize = 256;
/// Bytes read at a time for a line.
const BLOCK: u64 = 64 << 10;

const CREATE: &str = "CREATE TABLE IF NOT EXISTS entry_offsets(
    path BLOB NOT NULL,
    seq INTEGER NOT NULL,
    dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY(path, seq)
) WITHOUT ROWID";

/// The line offsets of a file's entries, by id (see the module docs).
#[derive(Debug, Default)]
pub struct EntryOffsets {
    chunks: Vec<Vec<u8>>,
}

impl EntryOffsets {
    /// Offsets of these records (as [`OffsetsBuilder`] writes them).
    pub fn from_chunks(chunks: Vec<Vec<u8>>) -> EntryOffsets {
        EntryOffsets { chunks }
    }

    /// Where the line of the last entry recorded with this id starts.
    pub fn line_of(&self, id: &str) -> Option<u64> {
        if !plain(id) {
            return None;
        }
        let mut needle = Vec::with_capacity(id.len() + 2);
        needle.push(b'\n');
        needle.extend_from_slice(id.as_bytes());
        needle.push(b'\t');
        let finder = memchr::memmem::FinderRev::new(&needle);
        self.chunks.iter().rev().find_map(|c| {
            let at = finder.rfind(c)? + needle.len();
            let digits = c[at..].iter().take_while(|b| b.is_ascii_digit()).take(20);
            let mut n: u64 = 0;
            let mut any = false;
            for b in digits {
                n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                any = true;
            }
            any.then_some(n)
        })
    }

    /// The entry `id` read where the offsets say its line is, between `start` (the end of
    /// the header line) and `end` (the file's size, a line end), with `read_at` (a positioned
    /// read); `None` when it is not recorded, or the line there is not that entry (the
    /// caller then searches). With the entry, where its line starts.
    pub fn entry(
        &self,
        read_at: &mut dyn FnMut(&mut [u8], u64) -> io::Result<()>,
        id: &str,
        start: u64,
        end: u64,
    ) -> Option<(u64, Entry)> {
        let at = self.line_of(id).filter(|&at| at >= start && at < end)?;
        let mut line = Vec::new();
        loop {
            let from = line.len();
            let n = (end - at - from as u64).min(BLOCK);
            if n == 0 || from >= MAX_LINE_BYTES {
                return None;
            }
            line.resize(from + n as usize, 0);
            read_at(&mut line[from..], at + from as u64).ok()?;
            if let Some(i) = memchr::memchr(b'\n', &line[from..]) {
                line.truncate(from + i);
                break;
            }
        }
        let raw = RawLine {
            offset: at,
            number: 0,
            bytes: &line,
            terminated: true,
        };
        match parse_line(&raw) {
            LineValue::Object(map, _) => {
                let e = entry_from(map, 0);
                (e.id == id && !(e.kind == EntryKind::Other && e.type_name() == "session"))
                    .then_some((at, e))
            }
            _ => None,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }
}

/// Whether an id can be recorded (and so looked up): no quote, backslash, tab or newline.
fn plain(id: &str) -> bool {
    !id.is_empty()
        && !id
            .bytes()
            .any(|b| matches!(b, b'"' | b'\\' | b'\t' | b'\n' | b'\r'))
}

/// Collects the records of the lines a scan reads.
#[derive(Debug, Default)]
pub struct OffsetsBuilder {
    data: Vec<u8>,
}

impl OffsetsBuilder {
    /// One complete line starting at `offset`.
    pub fn line(&mut self, offset: u64, line: &[u8]) {
        let head = &line[..line.len().min(ID_WITHIN)];
        let Some(at) = memchr::memmem::find(head, b"\"id\":\"") else {
            return;
        };
        let rest = &line[at + 6..];
        let Some(end) = memchr::memchr(b'"', &rest[..rest.len().min(ID_WITHIN)]) else {
            return;
        };
        let Ok(id) = std::str::from_utf8(&rest[..end]) else {
            return;
        };
        if !plain(id) {
            return;
        }
        self.data.push(b'\n');
        self.data.extend_from_slice(id.as_bytes());
        self.data.push(b'\t');
        self.data.extend_from_slice(offset.to_string().as_bytes());
    }

    pub fn finish(self) -> Vec<u8> {
        self.data
    }
}

fn create(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(CREATE)
}

/// The offsets stored for `path`, if its last chunk's key is `now` (the file's key now).
pub(crate) fn load(conn: &Connection, path: &Path, now: &FileKey) -> Option<EntryOffsets> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT dev, ino, size, mtime_ns, ctime_ns, data FROM entry_offsets
             WHERE path = ?1 ORDER BY seq",
        )
        .ok()?;
    let rows = stmt
        .query_map([path_bytes(path)], |r| {
            Ok((
                key_of(r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                r.get::<_, Vec<u8>>(5)?,
            ))
        })
        .ok()?;
    let mut chunks = Vec::new();
    let mut last = None;
    let mut held = 0u64;
    for row in rows {
        let (key, data) = row.ok()?;
        held = held.saturating_add(data.len() as u64);
        // Never more than the file could give (a record per line, each shorter than the
        // line plus its offset's digits).
        if held > now.size.saturating_mul(2).saturating_add(1 << 20) {
            return None;
        }
        chunks.push(data);
        last = Some(key);
    }
    (last.as_ref() == Some(now)).then(|| EntryOffsets::from_chunks(chunks))
}

fn key_of(dev: i64, ino: i64, size: i64, mtime_ns: i64, ctime_ns: i64) -> FileKey {
    FileKey {
        dev: dev as u64,
        ino: ino as u64,
        size: size as u64,
        mtime_ns,
        ctime_ns,
    }
}

/// Stores the records a scan of `path` collected, the file's key being `key` after it. A
/// resumed scan (`resumed_from`: the key it resumed from) adds a chunk if the stored chunks
/// end at that key; otherwise the stored ones are replaced (a whole scan) or dropped.
pub(crate) fn put(
    conn: &Connection,
    path: &Path,
    key: &FileKey,
    data: &[u8],
    resumed_from: Option<&FileKey>,
) -> rusqlite::Result<u64> {
    create(conn)?;
    let p = path_bytes(path);
    let next = match resumed_from {
        None => {
            conn.execute("DELETE FROM entry_offsets WHERE path = ?1", [&p])?;
            0
        }
        Some(from) => {
            let last: Option<(i64, i64, i64, i64, i64, i64)> = conn
                .query_row(
                    "SELECT seq, dev, ino, size, mtime_ns, ctime_ns FROM entry_offsets
                     WHERE path = ?1 ORDER BY seq DESC LIMIT 1",
                    [&p],
                    |r| {
                        Ok((
                            r.get(0)?,
                            r.get(1)?,
                            r.get(2)?,
                            r.get(3)?,
                            r.get(4)?,
                            r.get(5)?,
                        ))
                    },
                )
                .optional()?;
            match last {
                Some((seq, d, i, s, m, c)) if key_of(d, i, s, m, c) == *from => seq + 1,
                Some(_) => {
                    conn.execute("DELETE FROM entry_offsets WHERE path = ?1", [&p])?;
                    return Ok(0);
                }
                None => return Ok(0),
            }
        }
    };
    conn.execute(
        "INSERT INTO entry_offsets(path, seq, dev, ino, size, mtime_ns, ctime_ns, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            p,
            next,
            key.dev as i64,
            key.ino as i64,
            key.size as i64,
            key.mtime_ns,
            key.ctime_ns,
            data
        ],
    )?;
    Ok(data.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_give_the_last_line_of_an_id() {
        let mut b = OffsetsBuilder::default();
        b.line(10, br#"{"type":"message","id":"ab12","parentId":null}"#);
        b.line(60, br#"{"type":"message","id":"cd34","parentId":"ab12"}"#);
        b.line(120, br#"{"type":"label","no id here":1}"#);
        b.line(150, br#"{"type":"x","id":"we\"ird"}"#);
        let first = b.finish();
        let mut b = OffsetsBuilder::default();
        b.line(200, br#"{"type":"message","id":"ab12"}"#);
        let o = EntryOffsets::from_chunks(vec![first, b.finish()]);
        assert_eq!(o.line_of("cd34"), Some(60));
        assert_eq!(o.line_of("ab12"), Some(200), "the later duplicate");
        assert_eq!(o.line_of("ab1"), None);
        assert_eq!(o.line_of("b12"), None);
        assert_eq!(o.line_of("we\"ird"), None, "not recorded");
        assert_eq!(o.line_of(""), None);
    }

    #[test]
    fn damaged_records_give_nothing_or_a_number_to_check() {
        let o = EntryOffsets::from_chunks(vec![
            b"\nab\t\ncd\t99999999999999999999999\nef\t12x".to_vec(),
        ]);
        assert_eq!(o.line_of("ab"), None);
        assert_eq!(o.line_of("cd"), None);
        assert_eq!(o.line_of("ef"), Some(12));
    }
}
