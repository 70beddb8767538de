//! Candidate: the listing's line parser as one entry line read with serde_json straight into the few fields
//! [`EntryFacts`] names, borrowing strings from the line, everything else validated and dropped.
//!
//! # Why it cannot differ from the full parse
//!
//! The full parse reads a line into a `serde_json::Value` and takes the facts from it. This one
//! runs the same deserializer (`serde_json::from_str`, the same crate features) over the same
//! bytes, so grammar, escapes, numbers, nesting and trailing bytes are judged by serde_json
//! itself. It differs only in what it keeps, and each reader here does what the `Value` path
//! does with the value:
//!
//! * values are read with `deserialize_any`, exactly as `Value` reads them, never with
//!   `deserialize_ignored_any`: serde_json's ignored-value path does not check nesting depth,
//!   lone-surrogate escapes or numbers out of range, which the `Value` parse rejects (measured:
//!   skipping with `IgnoredAny` was no faster, see `docs/bench.md`);
//! * a string field is `as_str` (another kind of value gives `None`), a number `as_f64`;
//! * a repeated key keeps its last value, as `Value`'s map does;
//! * the line is checked for UTF-8 first (`simdutf8`): the full parse repairs invalid UTF-8,
//!   so such a line goes there.
//!
//! Any error sends the line to the full parse, which reports or repairs it. The differential
//! tests (`tests/fastscan_differential.rs`) and the fuzz target `scan_line` check the listing
//! both ways.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, Deserialize, MapAccess, SeqAccess, Visitor};

use grove::model::entry::EntryKind;
use grove::model::info::{EntryFacts, MessageFacts, UsageFacts};
use grove::model::search::{TOOL_ARG_KEYS, tool_call_line};

/// One entry line, reduced to what [`EntryFacts`] needs.
#[derive(Debug, Default, PartialEq)]
pub struct LineFacts<'a> {
    pub ty: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    parent_id: Option<Cow<'a, str>>,
    timestamp: Option<Cow<'a, str>>,
    /// `Some(None)`: a `message` key whose value is not an object.
    message: Option<Option<MessageLine<'a>>>,
    name: Option<Cow<'a, str>>,
    target_id: Option<Cow<'a, str>>,
    label: Option<Cow<'a, str>>,
    usage: Option<UsageFacts>,
    strategy: Option<Cow<'a, str>>,
    summary: Option<Cow<'a, str>>,
    summarized_through_id: Option<Cow<'a, str>>,
}

#[derive(Debug, Default, PartialEq)]
struct MessageLine<'a> {
    role: Option<Cow<'a, str>>,
    timestamp: Option<f64>,
    usage: Option<UsageFacts>,
    has_content: bool,
    text: Option<Cow<'a, str>>,
    tools: Option<String>,
    stop_reason: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    response_model: Option<Cow<'a, str>>,
}

/// Reads one line; `None` when serde_json refuses it or it is not valid UTF-8 (the line then
/// takes the full parse).
pub fn parse_line_facts(bytes: &[u8]) -> Option<LineFacts<'_>> {
    let s = simdutf8::basic::from_utf8(bytes).ok()?;
    serde_json::from_str::<LineFacts>(s).ok()
}

impl LineFacts<'_> {
    /// The facts [`super::info::InfoBuilder`] takes, as [`EntryFacts::of_entry`] reads them.
    pub fn facts(&self) -> EntryFacts<'_> {
        let kind = EntryKind::from_type(self.ty.as_deref().unwrap_or(""));
        let message = match kind {
            EntryKind::Message => self.message.as_ref().and_then(Option::as_ref).map(|m| {
                let listed = matches!(m.role.as_deref(), Some("user" | "assistant"));
                MessageFacts {
                    role: m.role.as_deref(),
                    timestamp: m.timestamp,
                    usage: m.usage,
                    has_content: m.has_content,
                    text: m.text.as_deref().filter(|_| listed),
                    tools: m.tools.as_deref(),
                    stop_reason: m.stop_reason.as_deref(),
                    model: m.response_model.as_deref().or(m.model.as_deref()),
                }
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

// ---------------------------------------------------------------------------------------------
// Values as `Value` reads them, without building it.

/// How one field's value is read: what each kind of JSON value gives (`Default` for the kinds
/// the field does not take, after validating them as `Value` does).
pub(crate) trait Reader<'de> {
    type Out: Default;
    fn borrowed_str(s: &'de str) -> Self::Out {
        Self::str(s)
    }
    fn str(_: &str) -> Self::Out {
        Self::Out::default()
    }
    fn num(_: f64) -> Self::Out {
        Self::Out::default()
    }
    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self::Out, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Self::Out::default())
    }
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Self::Out, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Self::Out::default())
    }
}

/// A value read by `R`.
pub(crate) struct Read<'de, R: Reader<'de>>(pub(crate) R::Out);

impl<'de, R: Reader<'de>> Deserialize<'de> for Read<'de, R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ReadVisitor::<R>(std::marker::PhantomData))
            .map(Read)
    }
}

struct ReadVisitor<R>(std::marker::PhantomData<R>);

impl<'de, R: Reader<'de>> Visitor<'de> for ReadVisitor<R> {
    type Value = R::Out;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }
    fn visit_i64<E>(self, v: i64) -> Result<R::Out, E> {
        Ok(R::num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<R::Out, E> {
        Ok(R::num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<R::Out, E> {
        Ok(R::num(v))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<R::Out, E> {
        Ok(R::borrowed_str(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<R::Out, E> {
        Ok(R::str(s))
    }
    fn visit_unit<E>(self) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<R::Out, A::Error> {
        R::seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R::Out, A::Error> {
        R::map(map)
    }
}

/// Any value, validated as `Value` validates it (with `deserialize_any`, see the module docs),
/// then dropped.
pub(crate) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Read::<SkipR>::deserialize(d).map(|_| Skip)
    }
}

struct SkipR;
impl Reader<'_> for SkipR {
    type Out = ();
}

/// `as_str`: borrowed when the string holds no escapes.
pub(crate) struct StrR;
impl<'de> Reader<'de> for StrR {
    type Out = Option<Cow<'de, str>>;
    fn borrowed_str(s: &'de str) -> Self::Out {
        Some(Cow::Borrowed(s))
    }
    fn str(s: &str) -> Self::Out {
        Some(Cow::Owned(s.to_owned()))
    }
}

/// `as_f64`.
struct NumR;
impl Reader<'_> for NumR {
    type Out = Option<f64>;
    fn num(v: f64) -> Self::Out {
        Some(v)
    }
}

/// A key, borrowed when it holds no escapes (compared unescaped, as `Value`'s map holds it).
pub(crate) struct Key<'a>(pub(crate) Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(s))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s.to_owned()))
            }
        }
        d.deserialize_str(KeyVisitor).map(Key)
    }
}

pub(crate) fn value<'de, R: Reader<'de>, A: MapAccess<'de>>(
    map: &mut A,
) -> Result<R::Out, A::Error> {
    map.next_value::<Read<'de, R>>().map(|r| r.0)
}

/// `usage`: `totalTokens` and `cost.total` (`UsageFacts::from_value`).
struct UsageR;
impl<'de> Reader<'de> for UsageR {
    type Out = UsageFacts;
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<UsageFacts, A::Error> {
        let mut u = UsageFacts::default();
        while let Some(Key(k)) = map.next_key()? {
            match &*k {
                "totalTokens" => u.total_tokens = value::<NumR, _>(&mut map)?,
                "cost" => u.cost_total = value::<CostR, _>(&mut map)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(u)
    }
}

/// `cost.total`.
struct CostR;
impl<'de> Reader<'de> for CostR {
    type Out = Option<f64>;
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Option<f64>, A::Error> {
        let mut total = None;
        while let Some(Key(k)) = map.next_key()? {
            match &*k {
                "total" => total = value::<NumR, _>(&mut map)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(total)
    }
}

/// `details.strategy`.
struct DetailsR;
impl<'de> Reader<'de> for DetailsR {
    type Out = Option<Cow<'de, str>>;
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Self::Out, A::Error> {
        let mut strategy = None;
        while let Some(Key(k)) = map.next_key()? {
            match &*k {
                "strategy" => strategy = value::<StrR, _>(&mut map)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(strategy)
    }
}

/// `content`: [`super::entry::content_text`] without the copies, and the `toolCall` blocks'
/// [`tool_call_line`]s, one a line (empty ones left out), as the listing's fast path reads them.
struct ContentR;
impl<'de> Reader<'de> for ContentR {
    type Out = (Option<Cow<'de, str>>, Option<String>);
    fn borrowed_str(s: &'de str) -> Self::Out {
        (Some(Cow::Borrowed(s)), None)
    }
    fn str(s: &str) -> Self::Out {
        (Some(Cow::Owned(s.to_owned())), None)
    }
    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self::Out, A::Error> {
        let mut out: Option<Cow<'de, str>> = None;
        let mut tools: Option<String> = None;
        while let Some(Read((text, tool))) = seq.next_element::<Read<'de, BlockR>>()? {
            if let Some(tool) = tool {
                crate::push_tool_line(&mut tools, tool);
            }
            let Some(t) = text else { continue };
            out = Some(match out.take() {
                None => t,
                Some(prev) => {
                    let mut s = prev.into_owned();
                    s.push(' ');
                    s.push_str(&t);
                    Cow::Owned(s)
                }
            });
        }
        Ok((Some(out.unwrap_or(Cow::Borrowed(""))), tools))
    }
}

/// A content block's `text` when its `type` is `"text"`, its [`tool_call_line`] when it is
/// `"toolCall"`.
struct BlockR;
impl<'de> Reader<'de> for BlockR {
    type Out = (Option<Cow<'de, str>>, Option<String>);
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Self::Out, A::Error> {
        let (mut ty, mut text, mut name, mut args) = (None, None, None, Default::default());
        while let Some(Key(k)) = map.next_key()? {
            match &*k {
                "type" => ty = value::<StrR, _>(&mut map)?,
                "text" => text = value::<StrR, _>(&mut map)?,
                "name" => name = value::<StrR, _>(&mut map)?,
                "arguments" => args = value::<ArgsR, _>(&mut map)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(match ty.as_deref() {
            Some("text") => (text, None),
            Some("toolCall") => {
                let args: [Option<Cow<'de, str>>; 4] = args;
                let line = tool_call_line(
                    name.as_deref().unwrap_or(""),
                    [0, 1, 2, 3].map(|i| args[i].as_deref()),
                );
                (None, Some(line))
            }
            _ => (None, None),
        })
    }
}

/// The string values of a tool call's [`TOOL_ARG_KEYS`] arguments (none for a non-object).
struct ArgsR;
impl<'de> Reader<'de> for ArgsR {
    type Out = [Option<Cow<'de, str>>; 4];
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Self::Out, A::Error> {
        let mut found: Self::Out = Default::default();
        while let Some(Key(k)) = map.next_key()? {
            match TOOL_ARG_KEYS.iter().position(|key| *key == k) {
                Some(i) => found[i] = value::<StrR, _>(&mut map)?,
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(found)
    }
}

/// A `message` object; `None` for another kind of value.
struct MessageR;
impl<'de> Reader<'de> for MessageR {
    type Out = Option<MessageLine<'de>>;
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Self::Out, A::Error> {
        let mut m = MessageLine::default();
        let listed =
            |role: &Option<Cow<str>>| matches!(role.as_deref(), Some("user" | "assistant"));
        // Text is only listed for user and assistant messages: once the role is known to be
        // another (pi writes it first), the content is only validated.
        let mut text_skipped = false;
        while let Some(Key(k)) = map.next_key()? {
            match &*k {
                "role" => m.role = value::<StrR, _>(&mut map)?,
                "timestamp" => m.timestamp = value::<NumR, _>(&mut map)?,
                "usage" => m.usage = Some(value::<UsageR, _>(&mut map)?),
                "stopReason" => m.stop_reason = value::<StrR, _>(&mut map)?,
                "model" => m.model = value::<StrR, _>(&mut map)?,
                "responseModel" => m.response_model = value::<StrR, _>(&mut map)?,
                "content" => {
                    m.has_content = true;
                    if m.role.is_some() && !listed(&m.role) {
                        map.next_value::<Skip>()?;
                        (m.text, m.tools) = (None, None);
                        text_skipped = true;
                    } else {
                        (m.text, m.tools) = value::<ContentR, _>(&mut map)?;
                        text_skipped = false;
                    }
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        if text_skipped && listed(&m.role) {
            // A repeated role named a listed one after the content: read the line whole.
            return Err(de::Error::custom("role repeated after the content"));
        }
        Ok(Some(m))
    }
}

/// The line's object (public for the measurement of other JSON crates over the same reader).
impl<'de> Deserialize<'de> for LineFacts<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct LineVisitor;
        impl<'de> Visitor<'de> for LineVisitor {
            type Value = LineFacts<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an entry object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut e = LineFacts::default();
                while let Some(Key(k)) = map.next_key()? {
                    match &*k {
                        "type" => e.ty = value::<StrR, _>(&mut map)?,
                        "id" => e.id = value::<StrR, _>(&mut map)?,
                        "parentId" => e.parent_id = value::<StrR, _>(&mut map)?,
                        "timestamp" => e.timestamp = value::<StrR, _>(&mut map)?,
                        "message" => e.message = Some(value::<MessageR, _>(&mut map)?),
                        "name" => e.name = value::<StrR, _>(&mut map)?,
                        "targetId" => e.target_id = value::<StrR, _>(&mut map)?,
                        "label" => e.label = value::<StrR, _>(&mut map)?,
                        "usage" => e.usage = Some(value::<UsageR, _>(&mut map)?),
                        "details" => e.strategy = value::<DetailsR, _>(&mut map)?,
                        "summary" => e.summary = value::<StrR, _>(&mut map)?,
                        "summarizedThroughId" => {
                            e.summarized_through_id = value::<StrR, _>(&mut map)?
                        }
                        _ => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(e)
            }
        }
        d.deserialize_map(LineVisitor)
    }
}
