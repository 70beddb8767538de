//! Reading session files line by line, leniently, without ever changing them.
//!
//! Rules (pi's, made safer): lines are split on `\n` only (not U+2028, unlike Node's readline),
//! blank lines are skipped, a line that does not parse is skipped and recorded as a
//! [`ParseIssue`] with its line number, and the rest of the file still loads. Two kinds of line
//! that strict JSON parsers refuse but real files contain are repaired in memory: escaped lone
//! surrogates (`"\ud83d"`) become U+FFFD, and invalid UTF-8 bytes become U+FFFD.

use std::io::{self, Read};

use serde_json::Value;

use super::entry::{Entry, EntryKind, Header, JsonMap};
pub use super::lines::{Line, LongLine, MAX_LINE_BYTES, for_each_line_in};

mod blocks;
pub(crate) mod issue;
pub(crate) mod line;
mod migrate;

pub use blocks::SlimLoad;
use blocks::{Block, Parsed, expected_entries, read_blocks};
pub use issue::{IssueKind, ParseIssue};
pub use line::{LineValue, RawLine, Skimmed, parse_line, repair_lone_surrogates};
use migrate::migrate_v1_to_v2;

const CHUNK: usize = 1 << 20;

/// Calls `f` for every line of `reader`, streaming in 1 MiB chunks (a longer line is assembled
/// in a buffer grown up to [`MAX_LINE_BYTES`]; a line past that is skipped and reported as
/// [`Line::TooLong`]). Returns the total number of bytes read and whether the data ended with
/// `\n` (true for empty input).
pub fn for_each_line<R: Read>(
    reader: R,
    start_offset: u64,
    start_line: usize,
    f: impl FnMut(Line<'_>),
) -> io::Result<(u64, bool)> {
    let mut buf = Vec::new();
    for_each_line_in(reader, &mut buf, CHUNK, start_offset, start_line, f)
}

/// Builds the header from a parsed object, if it is one (`type` "session" with a string id).
pub fn header_from(map: JsonMap, line: usize) -> Result<Header, JsonMap> {
    if map.get("type").and_then(Value::as_str) != Some("session") {
        return Err(map);
    }
    let Some(id) = map.get("id").and_then(Value::as_str).map(str::to_owned) else {
        return Err(map);
    };
    let version = match map.get("version") {
        None | Some(Value::Null) => 1,
        Some(Value::Number(n)) => n
            .as_f64()
            .map_or(1, |f| f.clamp(0.0, u32::MAX as f64) as u32),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(1),
        Some(_) => 1,
    };
    Ok(Header {
        line,
        version,
        id,
        timestamp: map
            .get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        cwd: map
            .get("cwd")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        parent_session: map
            .get("parentSession")
            .and_then(Value::as_str)
            .map(str::to_owned),
        raw: map,
    })
}

/// Builds an entry from a parsed non-header object.
pub fn entry_from(raw: JsonMap, line: usize) -> Entry {
    Entry::new(raw, line)
}

/// A whole session file read into memory (the file itself is never touched).
#[derive(Clone, Debug, Default)]
pub struct ParsedSession {
    pub header: Option<Header>,
    pub entries: Vec<Entry>,
    pub issues: Vec<ParseIssue>,
    /// Bytes read.
    pub bytes: u64,
    /// False when the file does not end with `\n` (appending would glue onto the last line).
    pub ends_with_newline: bool,
    /// The version the entries were migrated from in memory (1 or 2), if any.
    pub migrated_from: Option<u32>,
    /// Objects read so far (the first may be the header).
    objects_seen: usize,
}

impl ParsedSession {
    /// Reads a session from any reader. Never fails on content; only I/O errors are errors.
    pub fn read<R: Read + Send>(reader: R) -> io::Result<Self> {
        Self::read_with(reader, None)
    }

    /// [`ParsedSession::read`], loading long lines slim when `slim` is given (`reader` must
    /// then read the file `slim.source` reads back from, from its start). The file is read on
    /// a second thread while the lines already read are parsed.
    pub fn read_with<R: Read + Send>(reader: R, slim: Option<SlimLoad<'_>>) -> io::Result<Self> {
        let mut s = ParsedSession::default();
        let (bytes, ends_nl) = std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Block>(1);
            let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
            let reading = scope.spawn(move || read_blocks(reader, &spare_rx, |b| drop(tx.send(b))));
            let mut next_line = 1;
            for block in rx {
                let parsed = block.parse(next_line, slim);
                if next_line == 1
                    && let Some(load) = slim
                {
                    let entries = parsed
                        .iter()
                        .filter(|(_, p)| matches!(p, Parsed::Entry(..)))
                        .count();
                    s.entries.reserve(expected_entries(&block, entries, load));
                }
                next_line += parsed.len();
                for (number, parsed) in parsed {
                    s.push(number, parsed);
                }
                // Back to the reader for the next block (it may have finished: then dropped).
                let _ = spare_tx.send(block.data);
            }
            reading
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the reading thread failed")))
        })?;
        s.bytes = bytes;
        s.ends_with_newline = ends_nl;
        if s.header.is_none() && (s.objects_seen > 0 || bytes > 0) {
            s.issues.push(ParseIssue {
                line: 0,
                kind: IssueKind::NoHeader,
                message: "no session header on the first line: not a valid session file".into(),
            });
        }
        s.migrate();
        Ok(s)
    }

    /// Adds one parsed line, in file order.
    fn push(&mut self, number: usize, parsed: Parsed) {
        let (object, repaired) = match parsed {
            Parsed::Blank => return,
            Parsed::Bad(issue) => return self.issues.push(issue),
            Parsed::First(map, repaired) => (Ok(map), repaired),
            Parsed::Entry(e, repaired) => (Err(e), repaired),
        };
        self.issues.extend(repaired);
        self.objects_seen += 1;
        let first = self.objects_seen == 1;
        match object {
            Ok(map) => self.push_object(map, number, first),
            // The first object may be the header even after blank lines: kept whole.
            Err(mut e) if first => {
                e.make_whole();
                self.push_object(e.raw().clone(), number, true);
            }
            Err(e) => self.push_entry(e),
        }
    }

    /// Reads a session from a byte slice.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        // Reading from a slice cannot fail.
        Self::read(bytes).unwrap_or_default()
    }

    fn push_object(&mut self, map: JsonMap, line: usize, first: bool) {
        if first {
            match header_from(map, line) {
                Ok(h) => self.header = Some(h),
                Err(map) => self.entries.push(entry_from(map, line)),
            }
            return;
        }
        self.push_entry(entry_from(map, line));
    }

    /// An object after the first: an entry, or a second header (ignored).
    fn push_entry(&mut self, e: Entry) {
        if e.kind == EntryKind::Other && e.type_name() == "session" {
            self.issues.push(ParseIssue {
                line: e.line,
                kind: IssueKind::ExtraHeader,
                message: "a second session header; ignored".into(),
            });
            return;
        }
        self.entries.push(e);
    }

    /// Migrates v1 and v2 sessions to v3 in memory, exactly as pi does on load, minus the
    /// rewrite of the file.
    fn migrate(&mut self) {
        let Some(header) = &self.header else { return };
        let version = header.version;
        if version >= 3 {
            return;
        }
        let session_id = header.id.clone();
        self.migrated_from = Some(version);
        // Migration changes entries in memory: it needs them whole (old files are small).
        for e in &mut self.entries {
            e.make_whole();
        }
        if version < 2 {
            migrate_v1_to_v2(&session_id, &mut self.entries);
        }
        for e in &mut self.entries {
            if e.kind != EntryKind::Message {
                continue;
            }
            if let Some(Value::Object(m)) = e.raw_mut().get_mut("message")
                && m.get("role").and_then(Value::as_str) == Some("hookMessage")
            {
                m.insert("role".into(), Value::String("custom".into()));
                e.refresh_message();
            }
        }
    }
}

#[cfg(test)]
mod tests;
