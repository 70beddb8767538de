//! The JSON grove prints: listing rows (`info_json`, streamed by `write_sessions_json`), and
//! serialization with every character a terminal could act on escaped, so JSON output is inert.

use std::io::{self, Write};

use serde_json::ser::{CompactFormatter, Formatter};
use serde_json::{Value, json};

use super::output::path_json;
use crate::model::entry::{format_iso_ms, iso_ms_bytes};
use crate::model::info::SessionInfo;

/// The JSON of a listing row: pi's camelCase `SessionInfo` fields plus grove's.
pub fn info_json(s: &SessionInfo) -> Value {
    json!({
        "path": path_json(&s.path),
        "id": s.id,
        "cwd": s.cwd,
        "name": s.name,
        "parentSessionPath": s.parent_session_path,
        "created": s.created_iso(),
        "modified": s.modified_iso(),
        "messageCount": s.message_count,
        "firstMessage": s.first_message,
        "agent": s.agent,
        "version": s.version,
        "bytes": s.bytes,
        "entryCount": s.entry_count,
        "leafCount": s.leaf_count,
        "labelCount": s.label_count,
        "hasName": s.has_name,
        "internal": s.internal,
        "workflow": s.workflow,
        "summary": s.summary,
        "totalTokens": s.total_tokens,
        "cost": s.cost,
        "model": s.model,
        "outcome": outcome_of(s),
        "parseIssues": s.parse_issues,
    })
}

/// The last turn's outcome word (`done`, `aborted`, `error`, `cut off`, `unfinished`).
fn outcome_of(s: &SessionInfo) -> Option<&'static str> {
    crate::model::stats::outcome::Outcome::of(s.last_stop_reason.as_deref()).map(|o| o.label())
}

/// `write_json_array(out, sessions.map(info_json))`, byte for byte, in one pass: each row
/// written into one buffer as serde_json's pretty printer (indent of two spaces) lays it out,
/// the row's shape being fixed: every brace, comma, indent and key is a constant written whole
/// (`field!`), and each string escaped in one pass ([`RowWriter::str`]: serde_json's escapes,
/// then [`InertPretty`]'s). The buffer goes to `out` in blocks of [`BLOCK`] bytes.
pub(crate) fn write_sessions_json<W: Write>(
    mut out: W,
    sessions: &[&SessionInfo],
    pinned: &dyn Fn(&SessionInfo) -> bool,
) -> io::Result<()> {
    if sessions.is_empty() {
        return out.write_all(b"[]\n");
    }
    let mut w = RowWriter {
        buf: Vec::with_capacity(BLOCK + (BLOCK >> 2)),
    };
    w.buf.push(b'[');
    for (i, s) in sessions.iter().enumerate() {
        w.put(if i == 0 { b"\n  {" } else { b",\n  {" });
        w.session(s, pinned(s));
        w.put(b"\n  }");
        if w.buf.len() >= BLOCK {
            out.write_all(&w.buf)?;
            w.buf.clear();
        }
    }
    w.put(b"\n]\n");
    out.write_all(&w.buf)
}

/// How many bytes of rows are written to the output at a time.
const BLOCK: usize = 1 << 16;

/// A row's field after the first: the comma, the newline, the indent of a row's key (two
/// levels: the array, the row) and the key with its colon.
macro_rules! field {
    ($k:literal) => {
        concat!(",\n    \"", $k, "\": ").as_bytes()
    };
}

/// Writes listing rows into a buffer (see [`write_sessions_json`]).
struct RowWriter {
    buf: Vec<u8>,
}

impl RowWriter {
    fn put(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// One listing row: [`info_json`]'s keys in its order (and `pinned` when set).
    fn session(&mut self, s: &SessionInfo, pinned: bool) {
        self.put(b"\n    \"path\": ");
        match s.path.to_str() {
            Some(p) => self.str(p),
            None => {
                let lossy = path_json(&s.path);
                self.object(&[
                    ("lossy", lossy["lossy"].as_str().unwrap_or_default()),
                    (
                        "bytesBase64",
                        lossy["bytesBase64"].as_str().unwrap_or_default(),
                    ),
                ]);
            }
        }
        self.put(field!("id"));
        self.str(&s.id);
        self.put(field!("cwd"));
        self.str(&s.cwd);
        self.put(field!("name"));
        self.opt_str(s.name.as_deref());
        self.put(field!("parentSessionPath"));
        self.opt_str(s.parent_session_path.as_deref());
        self.put(field!("created"));
        match s.created_ms {
            Some(ms) => self.time(ms),
            None => self.put(b"null"),
        }
        self.put(field!("modified"));
        self.time(s.modified_ms);
        self.put(field!("messageCount"));
        self.u64(s.message_count);
        self.put(field!("firstMessage"));
        self.str(&s.first_message);
        self.put(field!("agent"));
        self.str(s.agent.as_str());
        self.put(field!("version"));
        self.u64(u64::from(s.version));
        self.put(field!("bytes"));
        self.u64(s.bytes);
        self.put(field!("entryCount"));
        self.u64(s.entry_count);
        self.put(field!("leafCount"));
        self.u64(s.leaf_count);
        self.put(field!("labelCount"));
        self.u64(s.label_count);
        self.put(field!("hasName"));
        self.bool(s.has_name);
        self.put(field!("internal"));
        self.bool(s.internal);
        self.put(field!("workflow"));
        match &s.workflow {
            Some(wf) => self.object(&[
                ("runId", &wf.run_id),
                ("stageId", &wf.stage_id),
                ("stageName", &wf.stage_name),
            ]),
            None => self.put(b"null"),
        }
        self.put(field!("summary"));
        self.opt_str(s.summary.as_deref());
        self.put(field!("totalTokens"));
        self.u64(s.total_tokens);
        self.put(field!("cost"));
        if s.cost.is_finite() {
            // (A `Vec` takes every write.)
            let _ = CompactFormatter.write_f64(&mut self.buf, s.cost);
        } else {
            // As serde_json: NaN and infinities are `null`.
            self.put(b"null");
        }
        self.put(field!("model"));
        self.opt_str(s.model.as_deref());
        self.put(field!("outcome"));
        self.opt_str(outcome_of(s));
        self.put(field!("parseIssues"));
        self.u64(s.parse_issues);
        if pinned {
            self.put(field!("pinned"));
            self.bool(true);
        }
    }

    /// An object of string fields (never empty) as a row's value: its keys one level deeper.
    fn object(&mut self, fields: &[(&str, &str)]) {
        self.put(b"{");
        for (i, (k, v)) in fields.iter().enumerate() {
            // A key: one of this file's own names, plain ASCII letters, so it is written
            // whole (nothing in it to escape or to make inert).
            debug_assert!(k.bytes().all(|b| b.is_ascii_alphanumeric()), "{k}");
            self.put(if i == 0 {
                b"\n      \""
            } else {
                b",\n      \""
            });
            self.put(k.as_bytes());
            self.put(b"\": ");
            self.str(v);
        }
        self.put(b"\n    }");
    }

    /// A JSON string as serde_json writes it through [`InertPretty`]: serde_json's escapes
    /// for `"`, `\\` and C0 controls, `\u` escapes for the characters [`needs_json_escape`],
    /// in one pass. All of those are ASCII or start with a byte >= 0x7f ([`not_plain`]): the
    /// bytes up to the next such byte are found 16 at a time (a string without any, most of a
    /// listing, is written whole).
    fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        self.buf.reserve(b.len() + 2);
        self.buf.push(b'"');
        if is_plain(b) {
            self.buf.extend_from_slice(b);
            self.buf.push(b'"');
            return;
        }
        let (mut start, mut i) = (0, 0);
        while let Some(k) = b.get(i..).and_then(|rest| find_byte(rest, not_plain)) {
            i += k;
            let c = b[i];
            if c.is_ascii() {
                self.buf.extend_from_slice(&b[start..i]);
                match c {
                    b'"' => self.put(b"\\\""),
                    b'\\' => self.put(b"\\\\"),
                    b'\n' => self.put(b"\\n"),
                    b'\t' => self.put(b"\\t"),
                    b'\r' => self.put(b"\\r"),
                    0x08 => self.put(b"\\b"),
                    0x0c => self.put(b"\\f"),
                    // The other C0 controls, as serde_json writes them, and DEL, made inert.
                    _ => self.unicode_escape(u16::from(c)),
                }
                i += 1;
                start = i;
                continue;
            }
            // The start of a character (every byte before it was ASCII or a whole character).
            let Some(ch) = s.get(i..).and_then(|rest| rest.chars().next()) else {
                break;
            };
            if needs_json_escape(ch) {
                self.buf.extend_from_slice(&b[start..i]);
                let mut units = [0u16; 2];
                for &unit in ch.encode_utf16(&mut units).iter() {
                    self.unicode_escape(unit);
                }
                start = i + ch.len_utf8();
            }
            i += ch.len_utf8();
        }
        self.buf
            .extend_from_slice(b.get(start..).unwrap_or_default());
        self.buf.push(b'"');
    }

    /// `\u` and four lowercase hex digits, as serde_json and [`InertPretty`] write them.
    fn unicode_escape(&mut self, unit: u16) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.put(b"\\u");
        for shift in [12, 8, 4, 0] {
            self.buf.push(HEX[usize::from((unit >> shift) & 0xf)]);
        }
    }

    /// A time as [`SessionInfo::modified_iso`] gives it (its digits written in place).
    fn time(&mut self, ms: i64) {
        match iso_ms_bytes(ms) {
            Some(iso) => {
                self.put(b"\"");
                self.put(&iso);
                self.put(b"\"");
            }
            None => self.str(&format_iso_ms(ms)),
        }
    }

    fn opt_str(&mut self, v: Option<&str>) {
        match v {
            Some(v) => self.str(v),
            None => self.put(b"null"),
        }
    }

    fn u64(&mut self, v: u64) {
        let _ = CompactFormatter.write_u64(&mut self.buf, v);
    }

    fn bool(&mut self, v: bool) {
        self.put(if v { b"true" } else { b"false" });
    }
}

/// Whether no byte of `b` is [`not_plain`], [`PLAIN_BLOCK`] bytes at a time,
/// the last bytes in a padded block.
fn is_plain(b: &[u8]) -> bool {
    let (blocks, tail) = b.as_chunks::<PLAIN_BLOCK>();
    if !blocks.iter().all(plain_block) {
        return false;
    }
    let mut pad = [b' '; PLAIN_BLOCK];
    pad[..tail.len()].copy_from_slice(tail);
    plain_block(&pad)
}

const PLAIN_BLOCK: usize = 16;

/// Whether no byte of the block is [`not_plain`]: no early exit within it, so the compiler
/// makes vector compares of it.
#[inline(always)]
fn plain_block(block: &[u8; PLAIN_BLOCK]) -> bool {
    !block.iter().fold(false, |any, &c| any | not_plain(c))
}

/// Whether a byte is one JSON escapes inside a string (quote, backslash, C0 control) or >= 0x7f
/// (one compare of the byte less 0x20, wrapping, for both ends of the range). A byte of a
/// multi-byte character is >= 0x80, so a split at the first such byte keeps `str` bounds.
#[inline(always)]
fn not_plain(c: u8) -> bool {
    (c.wrapping_sub(0x20) >= 0x5f) | (c == b'"') | (c == b'\\')
}

/// The position of the first byte of `b` that `pred` holds for, 16 bytes at a time: a fold
/// without an early exit per byte, which the compiler turns into vector compares. The last
/// bytes (all of a short string: most keys and values) are checked in a padded block too.
#[inline(always)]
fn find_byte(b: &[u8], pred: impl Fn(u8) -> bool) -> Option<usize> {
    const BLOCK: usize = 16;
    let any = |block: &[u8; BLOCK]| block.iter().fold(false, |any, &c| any | pred(c));
    let (blocks, tail) = b.as_chunks::<BLOCK>();
    let mut at = 0;
    for block in blocks {
        if any(block) {
            return block.iter().position(|&c| pred(c)).map(|k| at + k);
        }
        at += BLOCK;
    }
    // Padded with the tail's first byte, which is the answer if `pred` holds for it.
    let mut pad = [*tail.first()?; BLOCK];
    pad[..tail.len()].copy_from_slice(tail);
    if !any(&pad) {
        return None;
    }
    tail.iter().position(|&c| pred(c)).map(|k| at + k)
}

/// serde_json's pretty printer, writing every character a terminal could act on as its `\u`
/// escape: the output of [`escape_inert`] over the pretty text, without a second pass over
/// it (such characters only occur inside strings, which serde_json writes as fragments).
pub(crate) struct InertPretty<'a>(pub(crate) serde_json::ser::PrettyFormatter<'a>);

impl Formatter for InertPretty<'_> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, s: &str) -> io::Result<()> {
        // Every such character starts with a byte >= 0x7f: plain text up to the first one.
        let Some(first) = find_byte(s.as_bytes(), |b| b >= 0x7f) else {
            return w.write_all(s.as_bytes());
        };
        // (The first such byte starts a character: every byte before it is ASCII.)
        let rest = s.get(first..).unwrap_or_default();
        let mut start = 0;
        for (i, c) in rest.char_indices().map(|(i, c)| (first + i, c)) {
            if needs_json_escape(c) {
                w.write_all(&s.as_bytes()[start..i])?;
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    write!(w, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        w.write_all(&s.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Writes `[items]` exactly as `to_json(&Value::Array(items))` would, one item at a time
/// (the reference for [`write_sessions_json`]).
#[cfg(test)]
fn write_json_array(out: &mut dyn Write, items: impl Iterator<Item = Value>) -> io::Result<()> {
    let mut first = true;
    for item in items {
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        first = false;
        // Pretty JSON never has a raw newline inside a string: indenting by lines is exact.
        for (i, line) in to_json(&item).split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"  ")?;
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(if first { b"[]\n" } else { b"\n]\n" })
}

/// Serializes JSON with every character a terminal could act on escaped (C0/C1 controls,
/// bidi and zero-width characters), so the output is both valid JSON and inert.
pub fn to_json(v: &Value) -> String {
    escape_inert(&serde_json::to_string_pretty(v).unwrap_or_default())
}

/// Replaces, in serialized JSON, every character a terminal could act on with its `\u` escape.
/// Such characters only occur inside JSON strings, so the result is the same JSON.
pub fn escape_inert(s: &str) -> String {
    // Every such character starts with a byte >= 0x7f: a byte scan (vectorized) rules most
    // output out without decoding it.
    if !s.bytes().any(|b| b >= 0x7f) || !s.chars().any(needs_json_escape) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_json_escape(c) {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_json_escape(c: char) -> bool {
    // serde_json already escapes C0 controls inside strings; the rest only occur in strings.
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}' | '\u{061C}' | '\u{2028}' | '\u{2029}')
        || crate::text::sanitize::is_hidden_or_ignorable(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;
    use std::path::PathBuf;

    use proptest::prelude::*;

    use crate::model::context::Dialect;
    use crate::model::info::WorkflowInfo;

    #[test]
    fn the_session_writer_matches_the_value_writer() {
        let base = SessionInfo {
            path: PathBuf::from("/s/caf\u{e9} \u{202e}x.jsonl"),
            id: "id\u{1b}[31m".into(),
            cwd: "/w \"q\"".into(),
            name: Some("n\u{200b}\u{9b}".into()),
            parent_session_path: None,
            created_ms: None,
            modified_ms: -1,
            message_count: 3,
            first_message: "line\nbreak \u{1F600} \u{e0041}".into(),
            agent: Dialect::Atomic,
            version: 3,
            bytes: u64::MAX,
            entry_count: 7,
            leaf_count: 2,
            label_count: 1,
            has_name: true,
            internal: true,
            workflow: Some(WorkflowInfo {
                run_id: "r".into(),
                stage_id: "s".into(),
                stage_name: "t\u{2028}".into(),
            }),
            summary: Some(String::new()),
            total_tokens: 12,
            cost: 0.1 + 0.2,
            last_stop_reason: Some("length".into()),
            model: Some("m\u{1b}".into()),
            parse_issues: 4,
            first_issue: Some("line 2".into()),
            all_messages_text: "not listed".into(),
            tool_text: "not listed".into(),
        };
        let mut sessions = vec![base.clone()];
        for cost in [f64::NAN, f64::INFINITY, 0.0, -0.0, 1e300, 5e-324] {
            sessions.push(SessionInfo {
                cost,
                workflow: None,
                name: None,
                created_ms: Some(1_700_000_000_123),
                ..base.clone()
            });
        }
        // A path that is not UTF-8, and a workflow with characters to escape.
        sessions.push(SessionInfo {
            path: PathBuf::from(std::ffi::OsString::from_vec(b"/s/\xff\x1b.jsonl".to_vec())),
            ..base.clone()
        });
        let pinned = |s: &SessionInfo| s.cost == 0.0;
        for n in [0, 1, sessions.len()] {
            let refs: Vec<&SessionInfo> = sessions[..n].iter().collect();
            let mut fast = Vec::new();
            write_sessions_json(&mut fast, &refs, &pinned).unwrap();
            let mut reference = Vec::new();
            let items = refs.iter().map(|s| {
                let mut item = info_json(s);
                if pinned(s) {
                    item["pinned"] = Value::Bool(true);
                }
                item
            });
            write_json_array(&mut reference, items).unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(reference).unwrap()
            );
        }
    }

    /// [`RowWriter::str`], as a `String`.
    fn row_str(s: &str) -> String {
        let mut w = RowWriter { buf: Vec::new() };
        w.str(s);
        String::from_utf8(w.buf).unwrap()
    }

    /// serde_json's own escaping, then [`escape_inert`]: what `to_json` prints for a string.
    fn reference_str(s: &str) -> String {
        escape_inert(&serde_json::to_string(s).unwrap())
    }

    /// Strings made of the pieces escaping cares about, in runs long enough to cross the
    /// scan's 32-byte blocks.
    fn tricky_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => "[a-zA-Z0-9 /.:_-]{0,40}",
            1 => (0u8..0x20).prop_map(|b| char::from(b).to_string()),
            1 => prop::sample::select(vec![
                "\"", "\\", "/", "\u{7f}", "\u{80}", "\u{9b}", "\u{a0}", "\u{e9}",
                "\u{200b}", "\u{202e}", "\u{2028}", "\u{2029}", "\u{feff}", "\u{fff9}",
                "\u{e0041}", "\u{1f600}", "\u{10ffff}", "\u{61c}", "\u{ad}", "\u{34f}",
            ])
            .prop_map(str::to_owned),
            1 => any::<char>().prop_map(|c| c.to_string()),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn strings_are_written_as_serde_json_escapes_them(s in tricky_string()) {
            prop_assert_eq!(row_str(&s), reference_str(&s));
        }

        #[test]
        fn arbitrary_strings_are_written_as_serde_json_escapes_them(s in any::<String>()) {
            prop_assert_eq!(row_str(&s), reference_str(&s));
        }

        #[test]
        fn the_sanitizers_output_is_written_as_serde_json_escapes_it(s in tricky_string()) {
            for shown in [
                crate::text::sanitize::sanitize_line(&s),
                crate::text::sanitize::sanitize_path(&s),
                crate::text::sanitize::sanitize_multiline(&s, 4),
            ] {
                prop_assert_eq!(row_str(&shown), reference_str(&shown));
            }
        }
    }

    #[test]
    fn every_byte_at_every_block_position_is_escaped_as_serde_json_does() {
        for c in (0u32..0x100).filter_map(char::from_u32) {
            for at in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 70] {
                let mut s = "x".repeat(at);
                s.push(c);
                s.push_str("tail");
                assert_eq!(row_str(&s), reference_str(&s), "{c:?} at {at}");
            }
        }
    }
}
