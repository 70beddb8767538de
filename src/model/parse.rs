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

/// Something in a file that grove skipped or repaired. Never fatal.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParseIssue {
    /// 1-based line number (0 for file-level issues).
    pub line: usize,
    pub kind: IssueKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum IssueKind {
    /// The line is not JSON; skipped.
    InvalidJson,
    /// The last line has no newline and does not parse: probably still being written.
    TornLastLine,
    /// Valid JSON but not an object; skipped.
    NotAnObject,
    /// Loaded after replacing lone surrogate escapes or invalid UTF-8 with U+FFFD.
    Repaired,
    /// The first object in the file is not a session header.
    NoHeader,
    /// A session header after the first object; ignored.
    ExtraHeader,
    /// The tree has a problem (cycle, duplicate id, …); see the message.
    Tree,
    /// A line of [`MAX_LINE_BYTES`] or more; skipped without being read into memory.
    LineTooLong,
}

/// One line of a file: where it starts, its number, and its bytes without the `\n`.
pub struct RawLine<'a> {
    pub offset: u64,
    pub number: usize,
    pub bytes: &'a [u8],
    /// False only for a last line that is not terminated by `\n`.
    pub terminated: bool,
}

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

/// What one line turned out to be.
pub enum LineValue {
    Blank,
    Object(JsonMap, Option<ParseIssue>),
    Bad(ParseIssue),
}

/// Parses one line into a JSON object, repairing what can be repaired.
pub fn parse_line(line: &RawLine<'_>) -> LineValue {
    let mut bytes = line.bytes;
    if line.offset == 0 {
        // A UTF-8 byte-order mark before the header (Atomic can list such files but not open them).
        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return LineValue::Blank;
    }
    let first_error = match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => return object_or_issue(v, line.number, None),
        Err(e) => e,
    };
    // Repair in memory: invalid UTF-8 and lone surrogate escapes become U+FFFD.
    let text = String::from_utf8_lossy(bytes);
    let repaired = repair_lone_surrogates(&text);
    let changed = matches!(text, std::borrow::Cow::Owned(_)) || repaired.is_some();
    if changed {
        let candidate = repaired.as_deref().unwrap_or(&text);
        if let Ok(v) = serde_json::from_str::<Value>(candidate) {
            let issue = ParseIssue {
                line: line.number,
                kind: IssueKind::Repaired,
                message: "lone surrogate or invalid UTF-8 replaced with U+FFFD".into(),
            };
            return object_or_issue(v, line.number, Some(issue));
        }
    }
    let (kind, message) = if line.terminated {
        (
            IssueKind::InvalidJson,
            format!("not valid JSON: {first_error}"),
        )
    } else {
        (
            IssueKind::TornLastLine,
            format!("last line is incomplete (no newline, {first_error})"),
        )
    };
    LineValue::Bad(ParseIssue {
        line: line.number,
        kind,
        message,
    })
}

fn object_or_issue(v: Value, line: usize, repaired: Option<ParseIssue>) -> LineValue {
    match v {
        Value::Object(map) => LineValue::Object(map, repaired),
        other => LineValue::Bad(ParseIssue {
            line,
            kind: IssueKind::NotAnObject,
            message: format!("JSON {} instead of an object", json_kind(&other)),
        }),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Replaces `\uD800`-`\uDFFF` escapes that are not part of a valid pair with `\uFFFD`.
/// Returns `None` when nothing needed replacing.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => {
                if b.get(i + 1) == Some(&b'u') {
                    let hi = hex4(b, i + 2);
                    match hi {
                        Some(h) if (0xD800..0xDC00).contains(&h) => {
                            let lo = if b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u')
                            {
                                hex4(b, i + 8)
                            } else {
                                None
                            };
                            if matches!(lo, Some(l) if (0xDC00..0xE000).contains(&l)) {
                                i += 12;
                            } else {
                                let o = out.get_or_insert_with(|| String::with_capacity(b.len()));
                                o.push_str(&text[copied..i]);
                                o.push_str("\\ufffd");
                                i += 6;
                                copied = i;
                            }
                        }
                        Some(h) if (0xDC00..0xE000).contains(&h) => {
                            let o = out.get_or_insert_with(|| String::with_capacity(b.len()));
                            o.push_str(&text[copied..i]);
                            o.push_str("\\ufffd");
                            i += 6;
                            copied = i;
                        }
                        _ => i += 2,
                    }
                } else {
                    i += 2;
                }
            }
            _ => i += 1,
        }
    }
    out.map(|mut o| {
        o.push_str(&text[copied.min(text.len())..]);
        o
    })
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    let s = std::str::from_utf8(s).ok()?;
    u32::from_str_radix(s, 16).ok()
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

/// Lines are parsed in parallel in blocks of about this many bytes: big sessions open in a
/// fraction of the time, and only a few blocks of raw lines are held at once.
const BLOCK_BYTES: usize = 8 << 20;

/// A line parsed slim.
#[derive(Clone, Debug, PartialEq)]
pub struct Skimmed {
    /// The object, without `message` when that was read into `message`.
    pub object: JsonMap,
    /// A `message` entry's message: the role it names and its digest.
    pub message: Option<(super::entry::Role, super::digest::MessageDigest)>,
    /// Whether anything was left out (the message, or part of a long string).
    pub elided: bool,
}

/// What a slim load needs: the file to read whole entries back from (lines are parsed slim by
/// [`super::scan::skim::skim_line`]).
#[derive(Clone, Copy)]
pub struct SlimLoad<'a> {
    pub source: &'a std::sync::Arc<dyn super::entry::LineSource>,
    /// The file's size, to make room for its entries at once rather than by doubling.
    pub expected_bytes: u64,
}

/// A line's parse: an object (as an entry when it may be one), or why there is none.
enum Parsed {
    Blank,
    Bad(ParseIssue),
    /// The first line of the file: maybe the header, kept as an object.
    First(JsonMap, Option<ParseIssue>),
    Entry(Entry, Option<ParseIssue>),
}

/// Consecutive whole lines of the file (the last block may end without a newline), or one
/// line too long to hold (`data` then empty).
struct Block {
    data: Vec<u8>,
    offset: u64,
    too_long: Option<LongLine>,
}

/// Reads `reader` in blocks of whole lines of about [`BLOCK_BYTES`] (a longer line makes a
/// longer block, up to [`MAX_LINE_BYTES`]; a line past that is read past in blocks and handed
/// on as a [`Block`] of its own, `too_long`), handing each to `f`; buffers sent back on `spare`
/// are reused, so a big file does not fault in fresh memory for every block. Returns the bytes
/// read and whether they ended with `\n`.
fn read_blocks<R: Read>(
    mut reader: R,
    spare: &std::sync::mpsc::Receiver<Vec<u8>>,
    mut f: impl FnMut(Block),
) -> io::Result<(u64, bool)> {
    let mut carry: Vec<u8> = Vec::new();
    let mut offset = 0u64;
    let mut total = 0u64;
    let mut last_newline = true;
    loop {
        let mut data = spare.try_recv().unwrap_or_default();
        data.clear();
        data.append(&mut carry);
        // Doubling for a line longer than a block: no quadratic copying.
        let want = data.len().max(BLOCK_BYTES) as u64;
        // Room for the whole read at once: growing by steps copies the block each time.
        data.reserve_exact(want as usize + 1);
        let n = (&mut reader).take(want).read_to_end(&mut data)? as u64;
        total += n;
        let eof = n < want;
        if n > 0 {
            last_newline = data.last() == Some(&b'\n');
        }
        if !eof {
            match memchr::memrchr(b'\n', &data) {
                // Keep the partial last line for the next block.
                Some(end) => {
                    carry.extend_from_slice(&data[end + 1..]);
                    data.truncate(end + 1);
                }
                None if data.len() >= MAX_LINE_BYTES => {
                    let (long, rest, n, eof) = skip_long_line(&mut reader, data, offset)?;
                    total += n;
                    last_newline = rest.last().map_or(long.terminated, |&b| b == b'\n');
                    offset += long.bytes + u64::from(long.terminated);
                    f(Block {
                        data: Vec::new(),
                        offset: long.offset,
                        too_long: Some(long),
                    });
                    if eof && rest.is_empty() {
                        break;
                    }
                    carry = rest;
                    continue;
                }
                None => {
                    carry = data;
                    continue;
                }
            }
        }
        if data.is_empty() {
            break;
        }
        let block_len = data.len() as u64;
        f(Block {
            data,
            offset,
            too_long: None,
        });
        offset += block_len;
        if eof {
            break;
        }
    }
    Ok((total, last_newline))
}

/// Reads past the rest of a line that starts at `offset` and whose first `data.len()` bytes
/// (no newline among them) are in `data`, reusing `data` as the read buffer. Returns the line,
/// the bytes read after its end (in `data`), the bytes read here and whether the input ended.
/// The line's number is left 0: lines are numbered by the parser.
fn skip_long_line<R: Read>(
    reader: &mut R,
    mut data: Vec<u8>,
    offset: u64,
) -> io::Result<(LongLine, Vec<u8>, u64, bool)> {
    let mut len = data.len() as u64;
    let mut read = 0u64;
    data.resize(BLOCK_BYTES, 0);
    loop {
        let n = match reader.read(&mut data) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        read += n as u64;
        if n == 0 {
            data.clear();
            let long = LongLine {
                offset,
                number: 0,
                bytes: len,
                terminated: false,
            };
            return Ok((long, data, read, true));
        }
        if let Some(pos) = memchr::memchr(b'\n', &data[..n]) {
            data.truncate(n);
            let rest = data.split_off(pos + 1);
            let long = LongLine {
                offset,
                number: 0,
                bytes: len + pos as u64,
                terminated: true,
            };
            return Ok((long, rest, read, false));
        }
        len += n as u64;
    }
}

/// The number of entries a file of `load.expected_bytes` holds, extrapolated from the entries
/// of its first block, plus 5%; held to one per 128 bytes in case that block is not like the
/// rest (what is reserved beyond what is used is address space, never touched).
fn expected_entries(first: &Block, entries: usize, load: SlimLoad<'_>) -> usize {
    let bytes = first.data.len().max(1) as u64;
    let estimate = load.expected_bytes.saturating_mul(entries as u64) / bytes;
    let cap = load.expected_bytes / 128;
    estimate.saturating_add(estimate / 20).min(cap) as usize
}

impl Block {
    /// Parses every line of the block (in parallel when it is big), in file order; the first
    /// is line number `first_line`.
    fn parse(&self, first_line: usize, slim: Option<SlimLoad<'_>>) -> Vec<(usize, Parsed)> {
        use rayon::prelude::*;
        if let Some(long) = self.too_long {
            let long = LongLine {
                number: first_line,
                ..long
            };
            return vec![(first_line, Parsed::Bad(long.issue()))];
        }
        let mut lines = Vec::new();
        let mut start = 0usize;
        let mut number = first_line;
        for end in memchr::memchr_iter(b'\n', &self.data) {
            lines.push((start, end, number, true));
            start = end + 1;
            number += 1;
        }
        if start < self.data.len() {
            lines.push((start, self.data.len(), number, false));
        }
        let parse = |&(start, end, number, terminated): &(usize, usize, usize, bool)| {
            if end - start >= MAX_LINE_BYTES {
                // Held only because it ended within a read: skipped all the same.
                let long = LongLine {
                    offset: self.offset + start as u64,
                    number,
                    bytes: (end - start) as u64,
                    terminated,
                };
                return (number, Parsed::Bad(long.issue()));
            }
            let line = RawLine {
                offset: self.offset + start as u64,
                number,
                bytes: &self.data[start..end],
                terminated,
            };
            (number, parse_one(&line, slim))
        };
        if self.data.len() >= 1 << 20 {
            lines.par_iter().map(parse).collect()
        } else {
            lines.iter().map(parse).collect()
        }
    }
}

/// One line: slim when a slim load takes it, else whole.
fn parse_one(line: &RawLine<'_>, slim: Option<SlimLoad<'_>>) -> Parsed {
    // The first line (the header, maybe after a byte-order mark) is always whole.
    if let Some(load) = slim
        && line.offset > 0
        && let Some(skimmed) = super::scan::skim::skim_line(line.bytes)
    {
        return Parsed::Entry(
            if skimmed.elided {
                let at = (line.offset, line.bytes.len());
                Entry::new_slim(skimmed, line.number, at, load.source.clone())
            } else {
                Entry::new(skimmed.object, line.number)
            },
            None,
        );
    }
    match parse_line(line) {
        LineValue::Blank => Parsed::Blank,
        LineValue::Bad(issue) => Parsed::Bad(issue),
        LineValue::Object(map, repaired) if line.offset == 0 => Parsed::First(map, repaired),
        LineValue::Object(map, repaired) => Parsed::Entry(Entry::new(map, line.number), repaired),
    }
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

/// v1 → v2: a linear chain in file order with generated ids; `firstKeptEntryIndex` (an index
/// into pi's array that has the header at 0) becomes `firstKeptEntryId`.
///
/// pi generates random ids (and rewrites the file); grove derives them from the session id and
/// position so they are stable across runs and can be named on the command line.
fn migrate_v1_to_v2(session_id: &str, entries: &mut [Entry]) {
    let mut used = std::collections::HashSet::new();
    let ids: Vec<String> = (0..entries.len())
        .map(|i| {
            let mut salt = 0u64;
            loop {
                let id = format!("{:08x}", stable_hash(session_id, i as u64, salt) as u32);
                if used.insert(id.clone()) {
                    return id;
                }
                salt += 1;
            }
        })
        .collect();
    let mut prev: Option<String> = None;
    for (i, e) in entries.iter_mut().enumerate() {
        e.id = ids[i].clone();
        e.parent_id = prev.clone();
        let id = Value::String(e.id.clone());
        e.raw_mut().insert("id".into(), id);
        e.raw_mut().insert(
            "parentId".into(),
            prev.clone().map_or(Value::Null, Value::String),
        );
        prev = Some(e.id.clone());
    }
    for e in entries.iter_mut() {
        if e.kind != EntryKind::Compaction {
            continue;
        }
        let raw = e.raw_mut();
        let Some(index) = raw.get("firstKeptEntryIndex").and_then(Value::as_u64) else {
            raw.remove("firstKeptEntryIndex");
            continue;
        };
        raw.remove("firstKeptEntryIndex");
        // Index 0 is the header in pi's array.
        if index >= 1
            && let Some(target) = ids.get(index as usize - 1)
        {
            raw.insert("firstKeptEntryId".into(), Value::String(target.clone()));
        }
    }
}

fn stable_hash(s: &str, i: u64, salt: u64) -> u64 {
    // FNV-1a: tiny, deterministic across platforms and runs.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes().chain(i.to_le_bytes()).chain(salt.to_le_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out a few bytes at a time.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 = self.1 % 7 + 1;
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn reading_in_any_pieces_gives_the_same_session() {
        let data = "\n{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/\"}\n\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\nnot json\n{\"type\":\"label\",\"id\":\"b\",\"parentId\":\"a\",\"targetId\":\"a\",\"label\":\"x\"}\n{\"type\":\"mess";
        let whole = ParsedSession::from_bytes(data.as_bytes());
        let pieces = ParsedSession::read(Trickle(data.as_bytes(), 0)).unwrap();
        assert_eq!(whole.entries, pieces.entries);
        assert_eq!(whole.issues, pieces.issues);
        assert_eq!(whole.header, pieces.header);
        assert_eq!(
            (whole.bytes, whole.ends_with_newline),
            (pieces.bytes, pieces.ends_with_newline)
        );
        assert_eq!(whole.entries.len(), 2);
        assert_eq!(whole.entries[1].line, 6);
        assert!(!whole.ends_with_newline);
        assert_eq!(whole.issues.len(), 2, "{:?}", whole.issues);
        let empty = ParsedSession::from_bytes(b"");
        assert!(empty.ends_with_newline && empty.issues.is_empty());
    }

    #[test]
    fn lines_keep_their_numbers_across_blocks() {
        // Several blocks, parsed in parallel, with blank, bad, repaired and torn lines among
        // the entries: every entry and issue keeps its own line number.
        let mut data = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n",
        );
        let mut expected = Vec::new();
        let mut line = 1;
        let pad = "z".repeat(300);
        for i in 0..60_000 {
            line += 1;
            match i % 1000 {
                7 => data.push('\n'),
                8 => data.push_str("not json\n"),
                9 => data.push_str("{\"type\":\"custom\",\"id\":\"r\",\"data\":\"\\udc00\"}\n"),
                _ => {
                    data.push_str(&format!(
                        "{{\"type\":\"message\",\"id\":\"m{i}\",\"message\":{{\"role\":\"user\",\"content\":\"{pad}\"}}}}\n"
                    ));
                    expected.push((format!("m{i}"), line));
                }
            }
        }
        data.push_str("{\"type\":\"mess");
        let s = ParsedSession::from_bytes(data.as_bytes());
        assert!(data.len() > 2 * BLOCK_BYTES);
        let got: Vec<(String, usize)> = s
            .entries
            .iter()
            .filter(|e| e.id.starts_with('m'))
            .map(|e| (e.id.clone(), e.line))
            .collect();
        assert_eq!(got, expected);
        let repaired: Vec<usize> = s
            .entries
            .iter()
            .filter(|e| e.id == "r")
            .map(|e| e.line)
            .collect();
        assert_eq!(repaired, (0..60).map(|k| k * 1000 + 11).collect::<Vec<_>>());
        let issue_lines = |kind: IssueKind| -> Vec<usize> {
            s.issues
                .iter()
                .filter(|i| i.kind == kind)
                .map(|i| i.line)
                .collect()
        };
        assert_eq!(
            issue_lines(IssueKind::InvalidJson),
            (0..60).map(|k| k * 1000 + 10).collect::<Vec<_>>()
        );
        assert_eq!(issue_lines(IssueKind::Repaired), repaired);
        assert_eq!(issue_lines(IssueKind::TornLastLine), vec![60_002]);
    }

    #[test]
    fn room_for_entries_is_estimated_from_entries_and_bounded() {
        #[derive(Debug)]
        struct NoLines;
        impl super::super::entry::LineSource for NoLines {
            fn read_line(&self, _: u64, _: usize) -> io::Result<Vec<u8>> {
                Err(io::ErrorKind::NotFound.into())
            }
        }
        let source: std::sync::Arc<dyn super::super::entry::LineSource> =
            std::sync::Arc::new(NoLines);
        let load = SlimLoad {
            source: &source,
            expected_bytes: 1 << 30,
        };
        let block = Block {
            data: vec![b'\n'; 8 << 20],
            offset: 0,
            too_long: None,
        };
        // 2,000 entries in 8 MiB: 256,000 in 1 GiB, plus 5%.
        assert_eq!(expected_entries(&block, 2_000, load), 268_800);
        // A first block of blank lines asks for nothing; one of tiny entries, at most one per
        // 128 bytes of the file.
        assert_eq!(expected_entries(&block, 0, load), 0);
        assert_eq!(expected_entries(&block, 1 << 22, load), (1 << 30) / 128);
    }

    #[test]
    fn lone_surrogates_are_repaired() {
        let line = br#"{"type":"message","id":"a","message":{"role":"user","content":"x\ud83d y \udc00 ok \ud83d\ude00 \\ud83d"}}"#;
        let s = ParsedSession::from_bytes(
            &[
                br#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#.as_slice(),
                b"\n",
                line,
                b"\n",
            ]
            .concat(),
        );
        assert_eq!(s.entries.len(), 1);
        let msg = s.entries[0].message().unwrap();
        let content = msg["content"].as_str().unwrap();
        assert_eq!(content, "x\u{fffd} y \u{fffd} ok 😀 \\ud83d");
        assert!(s.issues.iter().any(|i| i.kind == IssueKind::Repaired));
    }

    #[test]
    fn lines_split_on_newline_only() {
        let data = "a\u{2028}b\nc\r\n\nd";
        let mut lines = vec![];
        let (n, nl) = for_each_line(data.as_bytes(), 0, 0, |l| {
            let Line::Whole(l) = l else {
                panic!("no line is too long here")
            };
            lines.push((
                l.number,
                l.offset,
                String::from_utf8_lossy(l.bytes).into_owned(),
                l.terminated,
            ))
        })
        .unwrap();
        assert_eq!(n, data.len() as u64);
        assert!(!nl);
        assert_eq!(
            lines,
            vec![
                (1, 0, "a\u{2028}b".to_string(), true),
                (2, 6, "c\r".to_string(), true),
                (3, 9, String::new(), true),
                (4, 10, "d".to_string(), false)
            ]
        );
    }

    #[test]
    fn torn_last_line_is_an_issue_not_an_error() {
        let s = ParsedSession::from_bytes(
            b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n{\"type\":\"mess",
        );
        assert!(s.header.is_some());
        assert!(!s.ends_with_newline);
        assert_eq!(s.issues[0].kind, IssueKind::TornLastLine);
        assert_eq!(s.issues[0].line, 2);
    }

    #[test]
    fn v1_gets_a_stable_linear_chain() {
        let data = b"{\"type\":\"session\",\"id\":\"s1\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"cwd\":\"/\"}\n\
{\"type\":\"message\",\"timestamp\":\"2024-01-01T00:00:01Z\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n\
{\"type\":\"message\",\"timestamp\":\"2024-01-01T00:00:02Z\",\"message\":{\"role\":\"hookMessage\",\"content\":\"b\"}}\n\
{\"type\":\"compaction\",\"timestamp\":\"2024-01-01T00:00:03Z\",\"summary\":\"s\",\"firstKeptEntryIndex\":2}\n";
        let a = ParsedSession::from_bytes(data);
        let b = ParsedSession::from_bytes(data);
        assert_eq!(a.migrated_from, Some(1));
        assert_eq!(a.entries[0].parent_id, None);
        assert_eq!(
            a.entries[1].parent_id.as_deref(),
            Some(a.entries[0].id.as_str())
        );
        assert_eq!(a.entries[0].id.len(), 8);
        assert_eq!(a.entries[0].id, b.entries[0].id);
        assert_eq!(a.entries[1].role(), Some("custom"));
        assert_eq!(
            a.entries[2].str_field("firstKeptEntryId"),
            Some(a.entries[1].id.as_str())
        );
        assert!(!a.entries[2].raw().contains_key("firstKeptEntryIndex"));
    }
}
