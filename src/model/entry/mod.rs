//! Session header and entries, kept as the JSON objects they were stored as.
//!
//! Entries keep their whole JSON object ([`Entry::raw`]), so unknown types and fields survive
//! untouched and messages can be handed out exactly as stored. The few fields every view needs
//! are lifted out once at parse time: ids, kind, role, time, and of a message the
//! [`MessageDigest`] the tree's rows, search and filters read.
//!
//! # Slim entries
//! A large session is loaded *slim* (see `storage::read::load_session`): each entry keeps only
//! what the tree, its search and the session list look at, and remembers where its line is.
//! [`Entry::raw`] reads and parses that line again the first time the whole object is asked
//! for (a transcript, an export, a fork), so memory follows the number of entries rather than
//! the size of tool outputs, images and usage records. What a slim entry keeps
//! ([`Entry::slim`]): every top-level field but `message` (string `type`, `id`, `parentId` and
//! `timestamp` held by the entry's own fields rather than JSON), and of a string longer than
//! [`ELIDE_OVER`] bytes nested below a top-level field's direct children, its first
//! [`ELIDE_KEEP`] bytes (on through its first non-whitespace character); of a `message`, only
//! its digest, which the slim parser (`model::scan::skim`) reads straight off the line
//! without building the message.

use std::fmt;
use std::io;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::digest::MessageDigest;
use super::parse::line::{LineValue, RawLine, Skimmed, parse_line};

pub(crate) mod kind;
mod timestamp;

pub use kind::{EntryKind, JsonMap, Role};
pub use timestamp::{format_iso_ms, iso_ms_bytes, parse_iso_ms};

/// The first line of a session file.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// 1-based line number in the file.
    pub line: usize,
    /// `version` as stored; absent means 1.
    pub version: u32,
    pub id: String,
    pub timestamp: String,
    /// `cwd` when it is a string (pi uses `""` otherwise).
    pub cwd: String,
    pub parent_session: Option<String>,
    pub raw: JsonMap,
}

/// Atomic's workflow linkage of an internal session.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workflow {
    pub run_id: String,
    pub stage_id: String,
    pub stage_name: String,
}

impl Header {
    /// The header's workflow linkage when it classifies the session as an internal workflow
    /// session: `internal` is exactly `true` and `runId`, `stageId`, `stageName` are non-blank
    /// strings. Anything else (malformed markers) leaves the session visible.
    pub fn workflow(&self) -> Option<Workflow> {
        if self.raw.get("internal") != Some(&Value::Bool(true)) {
            return None;
        }
        let wf = self.raw.get("workflow")?.as_object()?;
        let field = |k: &str| {
            wf.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned)
        };
        Some(Workflow {
            run_id: field("runId")?,
            stage_id: field("stageId")?,
            stage_name: field("stageName")?,
        })
    }

    pub fn is_internal(&self) -> bool {
        self.workflow().is_some()
    }
}

/// One entry of the tree (every non-header line that parsed).
#[derive(Clone, Debug)]
pub struct Entry {
    /// 1-based line number in the file (0 for entries grove synthesised).
    pub line: usize,
    pub kind: EntryKind,
    /// `id`; empty when the line had none.
    pub id: String,
    /// `parentId` when it is a string; `null`, missing or non-string all mean "no parent".
    pub parent_id: Option<String>,
    /// `timestamp` parsed as milliseconds since the epoch.
    pub timestamp_ms: Option<i64>,
    /// The message role, read once: views ask for it per entry per frame or filter change,
    /// and two map lookups per entry add up to seconds on a session of hundreds of thousands.
    pub role: Role,
    /// What the views read of a `message` entry's message, taken out at load.
    digest: Option<Box<MessageDigest>>,
    /// The object as loaded: whole, or slim when `elided` is set (a slim entry's `message`
    /// is only in `digest`).
    slim: SlimMap,
    elided: Option<Box<Elided>>,
}

/// An entry's object: most slim objects are empty once their ids, type and time are lifted
/// out, so an empty one takes no map (a map is 72 bytes even empty; a large session has
/// hundreds of thousands of entries).
#[derive(Clone, Debug, Default)]
struct SlimMap(Option<Box<JsonMap>>);

static EMPTY_MAP: std::sync::LazyLock<JsonMap> = std::sync::LazyLock::new(JsonMap::new);

impl From<JsonMap> for SlimMap {
    fn from(map: JsonMap) -> SlimMap {
        SlimMap((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl std::ops::Deref for SlimMap {
    type Target = JsonMap;
    fn deref(&self) -> &JsonMap {
        self.0.as_deref().unwrap_or(&EMPTY_MAP)
    }
}

impl std::ops::DerefMut for SlimMap {
    fn deref_mut(&mut self) -> &mut JsonMap {
        self.0.get_or_insert_with(Default::default)
    }
}

/// A string longer than this many bytes, in a place [`Entry::slim`] may shorten, is shortened.
pub const ELIDE_OVER: usize = 2048;
/// How many bytes of a shortened string are kept (cut back to a character boundary).
pub const ELIDE_KEEP: usize = 1024;

/// Where a slim entry's line is, and its whole object once read.
#[derive(Clone, Debug)]
struct Elided {
    offset: u64,
    len: usize,
    source: Arc<dyn LineSource>,
    /// Boxed when read: most slim entries never are.
    whole: OnceLock<Box<Whole>>,
    /// Which of `type`, `id`, `parentId` ([`LIFTED_TYPE`], …) were strings, taken out of the
    /// slim object since the entry's own fields hold them.
    lifted: u8,
    /// `timestamp`, when it was a string taken out of the slim object.
    timestamp: Option<Box<str>>,
}

const LIFTED_TYPE: u8 = 1;
const LIFTED_ID: u8 = 2;
const LIFTED_PARENT: u8 = 4;

#[derive(Clone, Debug)]
enum Whole {
    Read(JsonMap),
    /// The line could not be read back as this entry (the file changed or went away): why,
    /// and what stands in for it (the slim object, with a message made from the digest).
    Unavailable(String, JsonMap),
}

/// Reads a line of a session file back by its byte range (a positional read: the file is
/// never written).
pub trait LineSource: Send + Sync + fmt::Debug {
    fn read_line(&self, offset: u64, len: usize) -> io::Result<Vec<u8>>;
}

impl PartialEq for Entry {
    /// Entries are equal when their data is: a slim entry equals the whole one it stands for.
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line
            && self.kind == other.kind
            && self.id == other.id
            && self.parent_id == other.parent_id
            && self.timestamp_ms == other.timestamp_ms
            && self.role == other.role
            && self.raw() == other.raw()
    }
}

impl Entry {
    /// An entry of a whole object (`line` is 1-based; 0 for entries grove synthesised).
    pub fn new(raw: JsonMap, line: usize) -> Entry {
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
            role: Role::of(&raw),
            digest: digest_of(kind, &raw),
            slim: SlimMap::from(raw),
            elided: None,
        }
    }

    /// Reads the role and digest of the message again, after it was changed in memory.
    pub fn refresh_message(&mut self) {
        self.role = Role::of(self.raw());
        self.digest = digest_of(self.kind, self.raw());
    }

    /// An entry loaded slim from the line at `(offset, len)` of `source`.
    pub fn new_slim(
        skimmed: Skimmed,
        line: usize,
        (offset, len): (u64, usize),
        source: Arc<dyn LineSource>,
    ) -> Entry {
        let Some((role, digest)) = skimmed.message else {
            return Self::new_slim_object(skimmed.object, line, (offset, len), source);
        };
        // A message entry (the slim parser took its message into the digest): one pass over
        // the object's few fields, which the entry's own fields hold when they are strings and
        // the rest of the object keeps in order (most slim objects are left empty). The same
        // as [`Entry::new`] followed by taking the lifted strings out, without a lookup per
        // field (the map hashes every key).
        let mut kind = EntryKind::Other;
        let (mut id, mut parent_id, mut timestamp) = (String::new(), None, None);
        let mut lifted = 0;
        let mut rest = JsonMap::new();
        for (key, value) in skimmed.object {
            match (key.as_str(), value) {
                ("type", Value::String(t)) => {
                    kind = EntryKind::from_type(&t);
                    if kind.type_name().is_some() {
                        lifted |= LIFTED_TYPE;
                    } else {
                        rest.insert(key, Value::String(t));
                    }
                }
                ("id", Value::String(v)) => {
                    id = v;
                    lifted |= LIFTED_ID;
                }
                ("parentId", Value::String(v)) => {
                    parent_id = Some(v);
                    lifted |= LIFTED_PARENT;
                }
                ("timestamp", Value::String(v)) => timestamp = Some(v.into_boxed_str()),
                (_, value) => {
                    rest.insert(key, value);
                }
            }
        }
        Entry {
            line,
            kind,
            id,
            parent_id,
            timestamp_ms: timestamp.as_deref().and_then(parse_iso_ms),
            role,
            digest: Some(Box::new(digest)),
            slim: SlimMap::from(rest),
            elided: Some(Box::new(Elided {
                offset,
                len,
                source,
                whole: OnceLock::new(),
                lifted,
                timestamp,
            })),
        }
    }

    /// [`Entry::new_slim`] of an object that is not a message entry's (a long string of it
    /// was shortened).
    fn new_slim_object(
        object: JsonMap,
        line: usize,
        (offset, len): (u64, usize),
        source: Arc<dyn LineSource>,
    ) -> Entry {
        let mut e = Entry::new(object, line);
        // The entry's own fields hold the ids, type and time: their JSON goes.
        let mut lifted = 0;
        if e.kind.type_name().is_some() && take_string(&mut e.slim, "type").is_some() {
            lifted |= LIFTED_TYPE;
        }
        if take_string(&mut e.slim, "id").is_some() {
            lifted |= LIFTED_ID;
        }
        if take_string(&mut e.slim, "parentId").is_some() {
            lifted |= LIFTED_PARENT;
        }
        let timestamp = take_string(&mut e.slim, "timestamp").map(String::into_boxed_str);
        // Rebuilt to fit (a map keeps its capacity when keys are removed).
        e.slim = SlimMap::from(
            std::mem::take(&mut *e.slim)
                .into_iter()
                .collect::<JsonMap>(),
        );
        e.elided = Some(Box::new(Elided {
            offset,
            len,
            source,
            whole: OnceLock::new(),
            lifted,
            timestamp,
        }));
        e
    }

    /// The whole JSON object, as stored. For a slim entry the first call reads its line back.
    pub fn raw(&self) -> &JsonMap {
        let Some(el) = &self.elided else {
            return &self.slim;
        };
        match &**el.whole.get_or_init(|| Box::new(self.read_whole(el))) {
            Whole::Read(map) => map,
            Whole::Unavailable(_, stand_in) => stand_in,
        }
    }

    /// The whole object like [`Entry::raw`], but a slim entry's line read back is not kept:
    /// for walks over many entries that each look once (a transcript window, a search, a
    /// streamed `context --json`), so memory stays that of one entry. With it, why the line
    /// could not be read back (the object is then the stand-in [`Entry::raw`] would give).
    pub fn raw_transient(&self) -> (std::borrow::Cow<'_, JsonMap>, Option<String>) {
        use std::borrow::Cow;
        let Some(el) = &self.elided else {
            return (Cow::Borrowed(&self.slim), None);
        };
        if let Some(whole) = el.whole.get() {
            return match &**whole {
                Whole::Read(map) => (Cow::Borrowed(map), None),
                Whole::Unavailable(why, stand_in) => (Cow::Borrowed(stand_in), Some(why.clone())),
            };
        }
        match self.read_whole(el) {
            Whole::Read(map) => (Cow::Owned(map), None),
            Whole::Unavailable(why, stand_in) => (Cow::Owned(stand_in), Some(why)),
        }
    }

    fn read_whole(&self, el: &Elided) -> Whole {
        let bytes = match el.source.read_line(el.offset, el.len) {
            Ok(b) => b,
            Err(e) => {
                return self.unavailable_whole(format!("cannot read line {}: {e}", self.line));
            }
        };
        let line = RawLine {
            offset: el.offset,
            number: self.line,
            bytes: &bytes,
            terminated: true,
        };
        match parse_line(&line) {
            LineValue::Object(map, _)
                if map.get("id").and_then(Value::as_str).unwrap_or_default() == self.id
                    && map.get("type").and_then(Value::as_str) == self.str_field("type") =>
            {
                Whole::Read(map)
            }
            _ => self.unavailable_whole(format!(
                "line {} no longer holds entry {:?}: the file changed since it was opened",
                self.line, self.id
            )),
        }
    }

    fn unavailable_whole(&self, why: String) -> Whole {
        let mut stand_in = JsonMap::new();
        for key in ["type", "id", "parentId", "timestamp"] {
            if self.slim.get(key).is_none()
                && let Some(v) = self.str_field(key)
            {
                stand_in.insert(key.into(), Value::String(v.to_owned()));
            }
        }
        stand_in.extend(self.slim.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(d) = self.digest() {
            stand_in.insert("message".into(), Value::Object(d.stand_in(self.role())));
        }
        Whole::Unavailable(why, stand_in)
    }

    /// The object as loaded: for a slim entry, only what the module docs list, long strings
    /// shortened. For views that only look at what a slim entry keeps exactly.
    pub fn slim(&self) -> &JsonMap {
        &self.slim
    }

    /// True for an entry loaded slim.
    pub fn is_slim(&self) -> bool {
        self.elided.is_some()
    }

    /// Why a slim entry's whole object could not be read back, once [`Entry::raw`] was asked.
    pub fn unavailable(&self) -> Option<&str> {
        match &**self.elided.as_ref()?.whole.get()? {
            Whole::Unavailable(why, _) => Some(why),
            Whole::Read(_) => None,
        }
    }

    /// Reads a slim entry's whole object now and keeps only it (before changing it in memory).
    pub fn make_whole(&mut self) {
        if self.elided.is_some() {
            let whole = self.raw().clone();
            self.slim = SlimMap::from(whole);
            self.elided = None;
        }
    }

    /// The whole object, to change in memory (migration); makes a slim entry whole first.
    pub fn raw_mut(&mut self) -> &mut JsonMap {
        self.make_whole();
        &mut self.slim
    }

    pub fn type_name(&self) -> &str {
        self.str_field("type").unwrap_or("")
    }

    /// A top-level string field (top-level fields are never shortened).
    pub fn str_field(&self, key: &str) -> Option<&str> {
        if let Some(v) = self.slim.get(key) {
            return v.as_str();
        }
        let el = self.elided.as_deref()?;
        let lifted = |bit: u8| el.lifted & bit != 0;
        match key {
            "type" if lifted(LIFTED_TYPE) => self.kind.type_name(),
            "id" if lifted(LIFTED_ID) => Some(&self.id),
            "parentId" if lifted(LIFTED_PARENT) => self.parent_id.as_deref(),
            "timestamp" => el.timestamp.as_deref(),
            _ => None,
        }
    }

    pub fn timestamp(&self) -> &str {
        self.str_field("timestamp").unwrap_or("")
    }

    /// The whole `message` object of a `message` entry.
    pub fn message(&self) -> Option<&JsonMap> {
        if self.kind != EntryKind::Message {
            return None;
        }
        self.raw().get("message").and_then(Value::as_object)
    }

    /// What the views read of a `message` entry's message (`None` for other entries, and for
    /// a message entry whose `message` is not an object).
    pub fn digest(&self) -> Option<&MessageDigest> {
        self.digest.as_deref()
    }

    /// The role of a `message` entry.
    pub fn role(&self) -> Option<&str> {
        match self.role {
            Role::None => None,
            Role::Other => self.digest()?.other_role.as_deref(),
            known => known.as_str(),
        }
    }

    /// A label entry's target and label (`None` label = clear).
    pub fn label_change(&self) -> Option<(&str, Option<&str>)> {
        if self.kind != EntryKind::Label {
            return None;
        }
        let target = self.str_field("targetId")?;
        let label = self.str_field("label").filter(|l| !l.is_empty());
        Some((target, label))
    }

    /// True for user and assistant messages, the ones listings take text and times from.
    pub fn is_conversation_message(&self) -> bool {
        matches!(self.role(), Some("user" | "assistant"))
    }
}

/// Removes `key` from `map` when its value is a string, and returns that string.
fn take_string(map: &mut JsonMap, key: &str) -> Option<String> {
    if !map.get(key)?.is_string() {
        return None;
    }
    match map.shift_remove(key)? {
        Value::String(s) => Some(s),
        _ => None,
    }
}

fn digest_of(kind: EntryKind, raw: &JsonMap) -> Option<Box<MessageDigest>> {
    if kind != EntryKind::Message {
        return None;
    }
    let m = raw.get("message")?.as_object()?;
    Some(Box::new(MessageDigest::of(m)))
}

/// Joins the `text` blocks of a message `content` (string or block array) with spaces, as pi's
/// listing does. Returns `None` when there is no content key or it holds no text.
pub fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let mut out = String::new();
            let mut first = true;
            for b in blocks {
                if b.get("type").and_then(Value::as_str) == Some("text")
                    && let Some(t) = b.get("text").and_then(Value::as_str)
                {
                    if !first {
                        out.push(' ');
                    }
                    out.push_str(t);
                    first = false;
                }
            }
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_text_joins_text_blocks() {
        let v: Value = serde_json::json!([{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]);
        assert_eq!(content_text(Some(&v)).as_deref(), Some("a b"));
        assert_eq!(content_text(Some(&Value::Null)), None);
    }
}
