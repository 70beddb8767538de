//! The listing scan: one streaming pass over a session file that feeds [`InfoBuilder`], with a
//! fast path that does the least work per line that still gives the same result as a full parse.
//!
//! # Why the fast path cannot differ from the full parse
//!
//! The full path parses each line into a `serde_json::Value` and hands the entry to the builder.
//! The fast path deserializes the same line with serde_json into small borrowed structs that keep
//! only the fields [`EntryFacts`] names; everything else goes through [`Skip`], which visits every
//! value with `deserialize_any` exactly as `Value` does (same string validation, lone-surrogate
//! check, number range check and nesting limit) but allocates nothing. serde's `IgnoredAny` is
//! deliberately not used: it skips strings without checking their escapes, so a line the full
//! parse rejects could be accepted.
//!
//! So the fast parse accepts exactly the lines the strict full parse accepts, and extracts the
//! same facts. Whenever it cannot (invalid UTF-8, a repaired line, a duplicate key, a non-object,
//! the first object of the file which may be the header), it returns `None` and the line goes
//! through the full path. Key order only decides how much is skipped: once `type` or `role` is
//! known, fields irrelevant to it are validated but not collected.
//!
//! A differential test (`tests/fastscan_differential.rs`) checks fast == full for every fixture
//! and for generated sessions.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::read::{ReadError, mtime_ms, open_regular};
use crate::model::context::Dialect;
use crate::model::entry::EntryKind;
use crate::model::info::{EntryFacts, InfoBuilder, MessageFacts, SessionInfo, UsageFacts};
use crate::model::parse::{LineValue, RawLine, entry_from, for_each_line, header_from, parse_line};

/// Which line parser to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseMode {
    /// Fast path with full-parse fallback (the default).
    Fast,
    /// Every line parsed into a `serde_json::Value` (the reference).
    Full,
}

/// Everything a scan has accumulated after some prefix of a file: enough to finish the listing
/// fields, or to continue reading from `offset` when the file grows.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScanState {
    builder: InfoBuilder,
    issues: u64,
    first_issue: Option<String>,
    objects: u64,
    header_seen: bool,
    /// Lines consumed (the next line's number is `lines + 1`).
    lines: usize,
    /// Byte offset just past the last `\n`-terminated line consumed.
    offset: u64,
}

impl ScanState {
    /// Byte offset at which a resumed scan continues.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The agent the content points to: Atomic when it holds Atomic-only records.
    pub fn detected_agent(&self) -> Dialect {
        if self.builder.has_atomic_markers() {
            Dialect::Atomic
        } else {
            Dialect::Pi
        }
    }

    /// The text gathered so far.
    pub fn builder_text(&self) -> &str {
        self.builder.text()
    }

    /// Takes the text out (an index stores it once, as the listing's text).
    pub fn take_builder_text(&mut self) -> String {
        self.builder.take_text()
    }

    /// Puts back the text taken with [`ScanState::take_builder_text`].
    pub fn restore_builder_text(&mut self, text: String) {
        self.builder.restore_text(text);
    }

    fn line(&mut self, line: &RawLine<'_>, mode: ParseMode) {
        if mode == ParseMode::Fast
            && self.objects > 0
            && let Some(entry) = parse_lite(line.bytes)
        {
            self.objects += 1;
            if entry.ty.as_deref() == Some("session") {
                self.issues += 1;
            } else {
                self.builder.facts(&entry.facts());
            }
            return;
        }
        match parse_line(line) {
            LineValue::Blank => {}
            LineValue::Bad(issue) => {
                self.issues += 1;
                self.first_issue
                    .get_or_insert_with(|| format!("line {}: {}", issue.line, issue.message));
            }
            LineValue::Object(map, repaired) => {
                if repaired.is_some() {
                    self.issues += 1;
                }
                self.objects += 1;
                if self.objects == 1 {
                    match header_from(map, line.number) {
                        Ok(h) => {
                            self.builder.header(&h);
                            self.header_seen = true;
                        }
                        Err(map) => self.builder.entry(&entry_from(map, line.number)),
                    }
                } else if map.get("type").and_then(|t| t.as_str()) == Some("session") {
                    self.issues += 1;
                } else {
                    self.builder.entry(&entry_from(map, line.number));
                }
            }
        }
    }

    /// [`ScanState::finish`] without consuming the state (copies the text).
    pub fn snapshot(
        &self,
        path: &Path,
        agent: Option<Dialect>,
        bytes: u64,
        mtime_ms: i64,
    ) -> Result<SessionInfo, ReadError> {
        if !self.header_seen {
            return Err(ReadError::NoHeader {
                path: path.to_path_buf(),
            });
        }
        let agent = agent.unwrap_or(if self.builder.has_atomic_markers() {
            Dialect::Atomic
        } else {
            Dialect::Pi
        });
        self.builder
            .snapshot(
                path.to_path_buf(),
                agent,
                bytes,
                mtime_ms,
                self.issues,
                self.first_issue.clone(),
            )
            .ok_or(ReadError::NoHeader {
                path: path.to_path_buf(),
            })
    }

    /// The listing fields of the file scanned so far.
    pub fn finish(
        self,
        path: &Path,
        agent: Option<Dialect>,
        bytes: u64,
        mtime_ms: i64,
    ) -> Result<SessionInfo, ReadError> {
        if !self.header_seen {
            return Err(ReadError::NoHeader {
                path: path.to_path_buf(),
            });
        }
        let agent = agent.unwrap_or(if self.builder.has_atomic_markers() {
            Dialect::Atomic
        } else {
            Dialect::Pi
        });
        self.builder
            .finish(
                path.to_path_buf(),
                agent,
                bytes,
                mtime_ms,
                self.issues,
                self.first_issue,
            )
            .ok_or(ReadError::NoHeader {
                path: path.to_path_buf(),
            })
    }
}

/// What one scan produced.
#[derive(Debug)]
pub struct Scanned {
    pub info: Result<SessionInfo, ReadError>,
    /// State after the last complete line (a torn last line is left for the next scan).
    pub state: ScanState,
    /// Bytes read in this scan (from `state.offset` of the resumed state, or 0).
    pub bytes_read: u64,
    /// Metadata taken before reading.
    pub meta: std::fs::Metadata,
    /// The agent the content points to (used when the root does not decide it).
    pub detected_agent: Dialect,
    /// Whether `state` kept its text: only when a torn last line made the listing's text
    /// differ; otherwise the text was moved into `info` and must be restored from it
    /// ([`ScanState::restore_builder_text`]) before resuming.
    pub state_has_text: bool,
}

/// Scans a file from the start, or from `resume` (a state saved by an earlier scan of the same
/// file's prefix). Only I/O errors (and "not a regular file") are errors; content problems are
/// counted in the listing.
pub fn scan(
    path: &Path,
    agent: Option<Dialect>,
    mode: ParseMode,
    resume: Option<ScanState>,
) -> Result<Scanned, ReadError> {
    let (mut file, meta) = open_regular(path)?;
    let io_err = |e| ReadError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut state = resume.unwrap_or_default();
    if state.offset > 0 {
        file.seek(SeekFrom::Start(state.offset)).map_err(io_err)?;
    }
    // `tail` is the state including a torn last line, which `state` must not contain.
    let mut tail: Option<ScanState> = None;
    let remaining = meta.len().saturating_sub(state.offset);
    let bytes_read = read_lines(&mut file, state.offset, state.lines, remaining, |line| {
        if line.terminated {
            state.line(&line, mode);
            state.lines = line.number;
            state.offset = line.offset + line.bytes.len() as u64 + 1;
        } else {
            let mut t = state.clone();
            t.line(&line, mode);
            tail = Some(t);
        }
    })
    .map_err(io_err)?;
    let detected_agent = tail.as_ref().unwrap_or(&state).detected_agent();
    let state_has_text = tail.is_some();
    let info = match tail {
        Some(t) => t.finish(path, agent, meta.len(), mtime_ms(&meta)),
        None => {
            // The listing's text is the state's: move it rather than copy it.
            let text = state.take_builder_text();
            state
                .snapshot(path, agent, meta.len(), mtime_ms(&meta))
                .map(|mut info| {
                    info.all_messages_text = text;
                    info
                })
        }
    };
    Ok(Scanned {
        info,
        state,
        bytes_read,
        meta,
        detected_agent,
        state_has_text,
    })
}

/// The listing fields of one file, read streaming without keeping entries.
pub fn scan_info_with(
    path: &Path,
    agent: Option<Dialect>,
    mode: ParseMode,
) -> Result<SessionInfo, ReadError> {
    let (mut file, meta) = open_regular(path)?;
    let mut state = ScanState::default();
    read_lines(&mut file, 0, 0, meta.len(), |line| state.line(&line, mode)).map_err(|e| {
        ReadError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    })?;
    state.finish(path, agent, meta.len(), mtime_ms(&meta))
}

/// Files up to this size are read whole into a per-thread buffer that is reused from file to
/// file (no per-file allocation, no line copied across chunk boundaries); larger ones stream.
const WHOLE_FILE_MAX: u64 = 16 << 20;

thread_local! {
    static FILE_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`for_each_line`] with the small-file fast path; `expected` is the size still to read
/// according to the file's metadata. Returns the bytes read.
fn read_lines(
    file: &mut File,
    start_offset: u64,
    start_line: usize,
    expected: u64,
    mut f: impl FnMut(RawLine<'_>),
) -> std::io::Result<u64> {
    if expected > WHOLE_FILE_MAX {
        return for_each_line(file, start_offset, start_line, f).map(|(n, _)| n);
    }
    FILE_BUF.with(|cell| {
        let Ok(mut buf) = cell.try_borrow_mut() else {
            return for_each_line(&mut *file, start_offset, start_line, &mut f).map(|(n, _)| n);
        };
        buf.clear();
        // The file may have grown since it was stat'ed: read to the end, whatever its size.
        std::io::Read::read_to_end(file, &mut buf)?;
        let data: &[u8] = &buf;
        let mut offset = start_offset;
        let mut number = start_line;
        let mut rest = data;
        while let Some(pos) = memchr::memchr(b'\n', rest) {
            number += 1;
            f(RawLine {
                offset,
                number,
                bytes: &rest[..pos],
                terminated: true,
            });
            offset += pos as u64 + 1;
            rest = &rest[pos + 1..];
        }
        if !rest.is_empty() {
            f(RawLine {
                offset,
                number: number + 1,
                bytes: rest,
                terminated: false,
            });
        }
        let n = data.len() as u64;
        if buf.capacity() as u64 > WHOLE_FILE_MAX {
            // A file that grew past the limit while read: do not keep its buffer.
            *buf = Vec::new();
        }
        Ok(n)
    })
}

// ---------------------------------------------------------------------------------------------
// The lite parse.

/// One entry line, reduced to what [`EntryFacts`] needs.
#[derive(Default)]
struct LiteEntry<'a> {
    ty: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    parent_id: Option<Cow<'a, str>>,
    timestamp: Option<Cow<'a, str>>,
    message: Option<LiteMessage<'a>>,
    name: Option<Cow<'a, str>>,
    target_id: Option<Cow<'a, str>>,
    label: Option<Cow<'a, str>>,
    usage: Option<UsageFacts>,
    strategy: Option<Cow<'a, str>>,
    summary: Option<Cow<'a, str>>,
    summarized_through_id: Option<Cow<'a, str>>,
}

#[derive(Default)]
struct LiteMessage<'a> {
    role: Option<Cow<'a, str>>,
    timestamp: Option<f64>,
    usage: Option<UsageFacts>,
    has_content: bool,
    text: Option<Cow<'a, str>>,
}

impl LiteEntry<'_> {
    fn facts(&self) -> EntryFacts<'_> {
        let kind = EntryKind::from_type(self.ty.as_deref().unwrap_or(""));
        let message = match kind {
            EntryKind::Message => self.message.as_ref().map(|m| MessageFacts {
                role: m.role.as_deref(),
                timestamp: m.timestamp,
                usage: m.usage,
                has_content: m.has_content,
                text: m.text.as_deref(),
            }),
            _ => None,
        };
        EntryFacts {
            kind,
            id: self.id.as_deref().unwrap_or(""),
            parent_id: self.parent_id.as_deref(),
            timestamp: self.timestamp.as_deref(),
            message,
            name: self.name.as_deref(),
            target_id: self.target_id.as_deref(),
            label: self.label.as_deref(),
            usage: self.usage,
            strategy: self.strategy.as_deref(),
            summary: self.summary.as_deref(),
            summarized_through_id: self.summarized_through_id.as_deref(),
        }
    }
}

/// Parses an entry line on the fast path; `None` sends it to the full parse.
fn parse_lite(bytes: &[u8]) -> Option<LiteEntry<'_>> {
    // `from_str` after one UTF-8 check: the full parse rejects invalid UTF-8 in strings too
    // (and repairs it), so such lines take the full path.
    let text = std::str::from_utf8(bytes).ok()?;
    serde_json::from_str::<Root<'_>>(text).ok()?.0
}

/// How a JSON value of a given shape is read; any other kind of value is validated by
/// [`Skip`] and gives [`Shape::other`]. `deserialize_any` keeps the validation identical to
/// `serde_json::Value`.
trait Shape<'de>: Sized {
    fn other() -> Self;
    fn from_string(_: Cow<'de, str>) -> Self {
        Self::other()
    }
    fn from_f64(_: f64) -> Self {
        Self::other()
    }
    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        drain_map(map)?;
        Ok(Self::other())
    }
    fn from_seq<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        drain_seq(seq)?;
        Ok(Self::other())
    }
}

struct ShapeVisitor<T>(PhantomData<T>);

impl<'de, T: Shape<'de>> Visitor<'de> for ShapeVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_i64<E>(self, v: i64) -> Result<T, E> {
        Ok(T::from_f64(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<T, E> {
        Ok(T::from_f64(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<T, E> {
        Ok(T::from_f64(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<T, E> {
        Ok(T::from_string(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<T, E> {
        Ok(T::from_string(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<T, E> {
        Ok(T::from_string(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_none<E>(self) -> Result<T, E> {
        Ok(T::other())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::from_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_map(map)
    }
}

macro_rules! deserialize_via_shape {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(ShapeVisitor::<Self>(PhantomData))
            }
        }
    )*};
}

/// Any JSON value, validated and dropped without allocating (strings without escapes are
/// borrowed; escaped ones go through serde_json's reused scratch buffer).
struct Skip;
impl Shape<'_> for Skip {
    fn other() -> Self {
        Skip
    }
}

/// A string value (`as_str`).
struct Str<'a>(Option<Cow<'a, str>>);
impl<'de> Shape<'de> for Str<'de> {
    fn other() -> Self {
        Str(None)
    }
    fn from_string(s: Cow<'de, str>) -> Self {
        Str(Some(s))
    }
}

/// A number value (`as_f64`).
struct Num(Option<f64>);
impl Shape<'_> for Num {
    fn other() -> Self {
        Num(None)
    }
    fn from_f64(v: f64) -> Self {
        Num(Some(v))
    }
}

/// A map key; keys are always strings in JSON.
struct Key<'a>(Cow<'a, str>);
impl<'de> Shape<'de> for Key<'de> {
    fn other() -> Self {
        Key(Cow::Borrowed(""))
    }
    fn from_string(s: Cow<'de, str>) -> Self {
        Key(s)
    }
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_key::<Skip>()?.is_some() {
        map.next_value::<Skip>()?;
    }
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Skip>()?.is_some() {}
    Ok(())
}

/// Stores a field once; a second occurrence sends the line to the full parse (which keeps the
/// last value), so duplicate keys can never make the paths differ.
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::custom("duplicate key"));
    }
    *slot = Some(value);
    Ok(())
}

/// Like [`once`] for fields kept as `Option` of the JSON value (absent vs. present-but-other).
fn once_seen<E: de::Error>(seen: &mut bool) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(E::custom("duplicate key"));
    }
    Ok(())
}

/// `usage`: `totalTokens` and `cost.total`.
struct Usage(UsageFacts);
impl<'de> Shape<'de> for Usage {
    fn other() -> Self {
        Usage(UsageFacts::default())
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let (mut total, mut cost) = (None, None);
        while let Some(Key(k)) = map.next_key::<Key>()? {
            match k.as_ref() {
                "totalTokens" => once(&mut total, map.next_value::<Num>()?.0)?,
                "cost" => once(&mut cost, map.next_value::<CostTotal>()?.0)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Usage(UsageFacts {
            total_tokens: total.flatten(),
            cost_total: cost.flatten(),
        }))
    }
}

/// `cost.total`.
struct CostTotal(Option<f64>);
impl<'de> Shape<'de> for CostTotal {
    fn other() -> Self {
        CostTotal(None)
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut total = None;
        while let Some(Key(k)) = map.next_key::<Key>()? {
            if k == "total" {
                once(&mut total, map.next_value::<Num>()?.0)?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(CostTotal(total.flatten()))
    }
}

/// `details.strategy`.
struct Strategy<'a>(Option<Cow<'a, str>>);
impl<'de> Shape<'de> for Strategy<'de> {
    fn other() -> Self {
        Strategy(None)
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut strategy = None;
        while let Some(Key(k)) = map.next_key::<Key>()? {
            if k == "strategy" {
                once(&mut strategy, map.next_value::<Str>()?.0)?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(Strategy(strategy.flatten()))
    }
}

/// `content`: a string, or the `text` blocks of an array joined with spaces
/// ([`crate::model::entry::content_text`]).
struct Content<'a>(Option<Cow<'a, str>>);
impl<'de> Shape<'de> for Content<'de> {
    fn other() -> Self {
        Content(None)
    }
    fn from_string(s: Cow<'de, str>) -> Self {
        Content(Some(s))
    }
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut out: Option<Cow<'de, str>> = None;
        while let Some(TextBlock(text)) = seq.next_element::<TextBlock>()? {
            let Some(t) = text else { continue };
            out = Some(match out {
                None => t,
                Some(prev) => {
                    let mut s = prev.into_owned();
                    s.push(' ');
                    s.push_str(&t);
                    Cow::Owned(s)
                }
            });
        }
        Ok(Content(Some(out.unwrap_or(Cow::Borrowed("")))))
    }
}

/// A content block's `text`, when its `type` is `"text"`.
struct TextBlock<'a>(Option<Cow<'a, str>>);
impl<'de> Shape<'de> for TextBlock<'de> {
    fn other() -> Self {
        TextBlock(None)
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut ty: Option<Option<Cow<'de, str>>> = None;
        let mut text: Option<Option<Cow<'de, str>>> = None;
        while let Some(Key(k)) = map.next_key::<Key>()? {
            match k.as_ref() {
                "type" => once(&mut ty, map.next_value::<Str>()?.0)?,
                // Only collected while the block may be a text block.
                "text" if ty.as_ref().is_none_or(|t| t.as_deref() == Some("text")) => {
                    once(&mut text, map.next_value::<Str>()?.0)?
                }
                "text" => once(&mut text, map.next_value::<Skip>().map(|_| None)?)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        let is_text = ty.flatten().as_deref() == Some("text");
        Ok(TextBlock(if is_text { text.flatten() } else { None }))
    }
}

/// The `message` object of a message entry.
struct Message<'a>(Option<LiteMessage<'a>>);
impl<'de> Shape<'de> for Message<'de> {
    fn other() -> Self {
        Message(None)
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut m = LiteMessage::default();
        let (mut role, mut ts, mut usage) = (None, None, None);
        let mut content: Option<Option<Cow<'de, str>>> = None;
        while let Some(Key(k)) = map.next_key::<Key>()? {
            match k.as_ref() {
                "role" => once(&mut role, map.next_value::<Str>()?.0)?,
                "timestamp" => once(&mut ts, map.next_value::<Num>()?.0)?,
                "usage" => once(&mut usage, map.next_value::<Usage>()?.0)?,
                "content" => {
                    // Text is only listed for user and assistant messages: once the role is
                    // known to be another (pi writes it first), the content is only validated.
                    let wanted = role.as_ref().is_none_or(|r: &Option<Cow<str>>| {
                        matches!(r.as_deref(), Some("user" | "assistant"))
                    });
                    let value = if wanted {
                        map.next_value::<Content>()?.0
                    } else {
                        map.next_value::<Skip>()?;
                        None
                    };
                    once(&mut content, value)?;
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        m.role = role.flatten();
        m.timestamp = ts.flatten();
        m.usage = usage;
        m.has_content = content.is_some();
        m.text = content.flatten();
        Ok(Message(Some(m)))
    }
}

/// A whole line: `Some` when it is an object (the only lines the fast path handles).
struct Root<'a>(Option<LiteEntry<'a>>);
impl<'de> Shape<'de> for Root<'de> {
    fn other() -> Self {
        Root(None)
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut e = LiteEntry::default();
        let mut seen_ty = false;
        let (mut seen_message, mut seen_usage, mut seen_details) = (false, false, false);
        let (mut id, mut parent, mut ts, mut name, mut target, mut label, mut summary, mut through) =
            (None, None, None, None, None, None, None, None);
        while let Some(Key(k)) = map.next_key::<Key>()? {
            // The entry type, when already read, decides which fields matter (pi writes `type`
            // first); before it is known every candidate field is kept.
            let kind = if seen_ty {
                Some(EntryKind::from_type(e.ty.as_deref().unwrap_or("")))
            } else {
                None
            };
            let wants = |k: EntryKind| kind.is_none_or(|kind| kind == k);
            let wants_usage = kind.is_none_or(|kind| {
                matches!(kind, EntryKind::Compaction | EntryKind::BranchSummary)
            });
            match k.as_ref() {
                "type" => {
                    once_seen(&mut seen_ty)?;
                    e.ty = map.next_value::<Str>()?.0;
                }
                "id" => once(&mut id, map.next_value::<Str>()?.0)?,
                "parentId" => once(&mut parent, map.next_value::<Str>()?.0)?,
                "timestamp" => once(&mut ts, map.next_value::<Str>()?.0)?,
                "message" => {
                    once_seen(&mut seen_message)?;
                    if wants(EntryKind::Message) {
                        e.message = map.next_value::<Message>()?.0;
                    } else {
                        map.next_value::<Skip>()?;
                    }
                }
                "name" if wants(EntryKind::SessionInfo) => {
                    once(&mut name, map.next_value::<Str>()?.0)?
                }
                "targetId" if wants(EntryKind::Label) => {
                    once(&mut target, map.next_value::<Str>()?.0)?
                }
                "label" if wants(EntryKind::Label) => once(&mut label, map.next_value::<Str>()?.0)?,
                "summary" if wants(EntryKind::SessionSummary) => {
                    once(&mut summary, map.next_value::<Str>()?.0)?
                }
                "summarizedThroughId" if wants(EntryKind::SessionSummary) => {
                    once(&mut through, map.next_value::<Str>()?.0)?
                }
                "usage" => {
                    once_seen(&mut seen_usage)?;
                    if wants_usage {
                        e.usage = Some(map.next_value::<Usage>()?.0);
                    } else {
                        map.next_value::<Skip>()?;
                    }
                }
                "details" => {
                    once_seen(&mut seen_details)?;
                    if wants(EntryKind::Compaction) {
                        e.strategy = map.next_value::<Strategy>()?.0;
                    } else {
                        map.next_value::<Skip>()?;
                    }
                }
                // Any other key, or one irrelevant to the known type. A duplicate of a skipped
                // key cannot change the facts, so it needs no check.
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        e.id = id.flatten();
        e.parent_id = parent.flatten();
        e.timestamp = ts.flatten();
        e.name = name.flatten();
        e.target_id = target.flatten();
        e.label = label.flatten();
        e.summary = summary.flatten();
        e.summarized_through_id = through.flatten();
        Ok(Root(Some(e)))
    }
}

deserialize_via_shape!(
    Skip,
    Str<'de>,
    Num,
    Key<'de>,
    Usage,
    CostTotal,
    Strategy<'de>,
    Content<'de>,
    TextBlock<'de>,
    Message<'de>,
    Root<'de>
);

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_equal(line: &str) {
        let lite = parse_lite(line.as_bytes()).expect("fast path takes the line");
        let raw = RawLine {
            offset: 1,
            number: 2,
            bytes: line.as_bytes(),
            terminated: true,
        };
        let LineValue::Object(map, None) = parse_line(&raw) else {
            panic!("full path parses the line")
        };
        let entry = entry_from(map, 2);
        let mut buf = None;
        let full = EntryFacts::of_entry(&entry, &mut buf);
        let mut fast = lite.facts();
        // The full path joins text for user/assistant only; the fast one may have it otherwise.
        if let (Some(m), Some(f)) = (&mut fast.message, &full.message)
            && !matches!(f.role, Some("user" | "assistant"))
        {
            m.text = f.text;
        }
        assert_eq!(fast, full, "{line}");
    }

    #[test]
    fn facts_match_the_full_parse() {
        facts_equal(
            r#"{"type":"message","id":"a","parentId":"b","timestamp":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"x\ny"},{"type":"image","data":"AAAA"},{"text":"z","type":"text"},{"type":"thinking","text":"no"}],"usage":{"totalTokens":12,"cost":{"total":0.5}},"timestamp":17}}"#,
        );
        facts_equal(
            r#"{"message":{"content":"hi","role":"user"},"type":"message","id":5,"parentId":null}"#,
        );
        facts_equal(
            r#"{"type":"compaction","id":"c","details":{"strategy":"verbatim-lines"},"usage":{"totalTokens":-3.5,"cost":[]}}"#,
        );
        facts_equal(r#"{"type":"label","id":"l","targetId":"a","label":""}"#);
        facts_equal(r#"{"type":"session_info","id":"n","name":"  x  "}"#);
        facts_equal(
            r#"{"type":"session_summary","id":"s","summary":"sum","summarizedThroughId":"a"}"#,
        );
        facts_equal(
            r#"{"type":"message","id":"t","message":{"role":"toolResult","content":[{"type":"text","text":"big"}]}}"#,
        );
    }

    #[test]
    fn lines_the_full_parse_rejects_or_repairs_take_the_full_path() {
        for line in [
            r#"{"type":"message","message":{"role":"toolResult","content":"\ud800"}}"#,
            r#"{"type":"message","x":1e400}"#,
            r#"{"type":"message","id":"a","id":"b"}"#,
            r#"[1,2]"#,
            r#"{"type":"message"} x"#,
            "",
        ] {
            assert!(parse_lite(line.as_bytes()).is_none(), "{line}");
        }
        let deep = format!(
            "{{\"type\":\"x\",\"a\":{}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(parse_lite(deep.as_bytes()).is_none());
        assert!(parse_lite(b"{\"type\":\"message\",\"x\":\"\xff\"}").is_none());
    }
}
