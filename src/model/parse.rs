//! Reading session files line by line, leniently, without ever changing them.
//!
//! Rules (pi's, made safer): lines are split on `\n` only (not U+2028, unlike Node's readline),
//! blank lines are skipped, a line that does not parse is skipped and recorded as a
//! [`ParseIssue`] with its line number, and the rest of the file still loads. Two kinds of line
//! that strict JSON parsers refuse but real files contain are repaired in memory: escaped lone
//! surrogates (`"\ud83d"`) become U+FFFD, and invalid UTF-8 bytes become U+FFFD.

use std::io::{self, Read};

use serde_json::Value;

use super::entry::{Entry, EntryKind, Header, JsonMap, parse_iso_ms};

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

/// Calls `f` for every line of `reader`, streaming in 1 MiB chunks (a line longer than that is
/// assembled in a growing buffer). Returns the total number of bytes read and whether the data
/// ended with `\n` (true for empty input).
pub fn for_each_line<R: Read>(
    mut reader: R,
    start_offset: u64,
    start_line: usize,
    mut f: impl FnMut(RawLine<'_>),
) -> io::Result<(u64, bool)> {
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
    let mut chunk = vec![0u8; CHUNK];
    let mut offset = start_offset;
    let mut line_no = start_line;
    let mut total = 0u64;
    let mut last_byte_newline = true;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        last_byte_newline = chunk[n - 1] == b'\n';
        let mut data = &chunk[..n];
        while let Some(pos) = memchr::memchr(b'\n', data) {
            line_no += 1;
            if buf.is_empty() {
                f(RawLine {
                    offset,
                    number: line_no,
                    bytes: &data[..pos],
                    terminated: true,
                });
                offset += pos as u64 + 1;
            } else {
                buf.extend_from_slice(&data[..pos]);
                f(RawLine {
                    offset,
                    number: line_no,
                    bytes: &buf,
                    terminated: true,
                });
                offset += buf.len() as u64 + 1;
                buf.clear();
                if buf.capacity() > 4 * CHUNK {
                    // One huge line must not pin its buffer for the rest of the file.
                    buf = Vec::with_capacity(CHUNK);
                }
            }
            data = &data[pos + 1..];
        }
        buf.extend_from_slice(data);
    }
    if !buf.is_empty() {
        line_no += 1;
        f(RawLine {
            offset,
            number: line_no,
            bytes: &buf,
            terminated: false,
        });
    }
    Ok((total, last_byte_newline))
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
    let kind = EntryKind::from_type(raw.get("type").and_then(Value::as_str).unwrap_or(""));
    let id = raw
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let parent_id = raw
        .get("parentId")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let timestamp_ms = raw
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(parse_iso_ms);
    Entry {
        line,
        kind,
        id,
        parent_id,
        timestamp_ms,
        role: super::entry::Role::of(&raw),
        raw,
    }
}

/// Lines are parsed in parallel in batches of about this many bytes: big sessions open in a
/// fraction of the time, and only one batch of raw lines is held at once.
const PARALLEL_BATCH_BYTES: usize = 8 << 20;

/// Raw lines waiting to be parsed, in file order.
#[derive(Default)]
struct LineBatch {
    lines: Vec<(u64, usize, bool, Vec<u8>)>,
    bytes: usize,
}

impl LineBatch {
    fn push(&mut self, line: &RawLine<'_>) {
        self.bytes += line.bytes.len();
        self.lines.push((
            line.offset,
            line.number,
            line.terminated,
            line.bytes.to_vec(),
        ));
    }

    /// Parses every line (in parallel when there are many) and empties the batch.
    fn parse(&mut self) -> Vec<(usize, LineValue)> {
        use rayon::prelude::*;
        let lines = std::mem::take(&mut self.lines);
        let parse = |(offset, number, terminated, bytes): &(u64, usize, bool, Vec<u8>)| {
            let raw = RawLine {
                offset: *offset,
                number: *number,
                bytes,
                terminated: *terminated,
            };
            (*number, parse_line(&raw))
        };
        let out = if self.bytes >= 1 << 20 {
            lines.par_iter().map(parse).collect()
        } else {
            lines.iter().map(parse).collect()
        };
        self.bytes = 0;
        out
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
}

impl ParsedSession {
    /// Reads a session from any reader. Never fails on content; only I/O errors are errors.
    pub fn read<R: Read>(reader: R) -> io::Result<Self> {
        let mut s = ParsedSession::default();
        let mut objects_seen = 0usize;
        let mut batch = LineBatch::default();
        let mut apply = |s: &mut ParsedSession, number: usize, value: LineValue| match value {
            LineValue::Blank => {}
            LineValue::Bad(issue) => s.issues.push(issue),
            LineValue::Object(map, repaired) => {
                s.issues.extend(repaired);
                objects_seen += 1;
                s.push_object(map, number, objects_seen == 1);
            }
        };
        let (bytes, ends_nl) = for_each_line(reader, 0, 0, |line| {
            batch.push(&line);
            if batch.bytes >= PARALLEL_BATCH_BYTES {
                for (number, value) in batch.parse() {
                    apply(&mut s, number, value);
                }
            }
        })?;
        for (number, value) in batch.parse() {
            apply(&mut s, number, value);
        }
        s.bytes = bytes;
        s.ends_with_newline = ends_nl;
        if s.header.is_none() && (objects_seen > 0 || bytes > 0) {
            s.issues.push(ParseIssue {
                line: 0,
                kind: IssueKind::NoHeader,
                message: "no session header on the first line: not a valid session file".into(),
            });
        }
        s.migrate();
        Ok(s)
    }

    /// Reads a session from a byte slice.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        // Reading from a slice cannot fail.
        Self::read(bytes).unwrap_or_default()
    }

    fn push_object(&mut self, map: JsonMap, line: usize, first: bool) {
        let is_header = map.get("type").and_then(Value::as_str) == Some("session");
        if first {
            match header_from(map, line) {
                Ok(h) => self.header = Some(h),
                Err(map) => self.entries.push(entry_from(map, line)),
            }
            return;
        }
        if is_header {
            self.issues.push(ParseIssue {
                line,
                kind: IssueKind::ExtraHeader,
                message: "a second session header; ignored".into(),
            });
            return;
        }
        self.entries.push(entry_from(map, line));
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
        if version < 2 {
            migrate_v1_to_v2(&session_id, &mut self.entries);
        }
        for e in &mut self.entries {
            if e.kind != EntryKind::Message {
                continue;
            }
            if let Some(Value::Object(m)) = e.raw.get_mut("message")
                && m.get("role").and_then(Value::as_str) == Some("hookMessage")
            {
                m.insert("role".into(), Value::String("custom".into()));
                e.role = super::entry::Role::Custom;
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
        e.raw.insert("id".into(), Value::String(e.id.clone()));
        e.raw.insert(
            "parentId".into(),
            prev.clone().map_or(Value::Null, Value::String),
        );
        prev = Some(e.id.clone());
    }
    for e in entries.iter_mut() {
        if e.kind != EntryKind::Compaction {
            continue;
        }
        let Some(index) = e.raw.get("firstKeptEntryIndex").and_then(Value::as_u64) else {
            e.raw.remove("firstKeptEntryIndex");
            continue;
        };
        e.raw.remove("firstKeptEntryIndex");
        // Index 0 is the header in pi's array.
        if index >= 1
            && let Some(target) = ids.get(index as usize - 1)
        {
            e.raw
                .insert("firstKeptEntryId".into(), Value::String(target.clone()));
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
        assert!(!a.entries[2].raw.contains_key("firstKeptEntryIndex"));
    }
}
