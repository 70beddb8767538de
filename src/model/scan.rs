//! The listing's line parser: the fast path of the listing scan (`storage::fastscan`),
//! which does the least work per line that still gives the same result as a full parse.
//!
//! # Why the fast path cannot differ from the full parse
//!
//! The full path parses each line into a `serde_json::Value` and hands the entry to the builder.
//! The fast path walks the same line with a small hand-written scanner ([`Cursor`]) that keeps
//! only the fields [`EntryFacts`] names and validates everything else without allocating. It
//! takes a line only when it is sure serde_json would take it too, and gives up (`None`, the
//! line goes through the full path) on anything unusual, so it never has to copy serde_json's
//! error rules, only to be stricter:
//!
//! * the whole line is checked once for UTF-8 (`simdutf8`) and for control characters
//!   (bytes below 0x20): a line holding one gives up, since serde_json rejects them raw inside
//!   strings and the only ones it takes between tokens (tab, CR) are whitespace left to it;
//! * strings are scanned 64 bytes at a time with bitmasks of quotes and backslashes (SSE2 on
//!   x86-64, one byte at a time elsewhere), escapes resolved for the whole block at once (see
//!   "Strings, a block of bytes at a time" below); an escape other than
//!   `\" \\ \/ \b \f \n \r \t \uXXXX` and any `\u` escape of a surrogate (lone or paired) give
//!   up; keys with escapes give up;
//! * numbers are checked against the JSON grammar; one that may overflow (integer digits plus
//!   exponent above 300) goes through serde_json's own parse; a kept number in range is read
//!   with Rust's `f64` parse, which gives what serde_json's `as_f64` does (the nearest `f64`:
//!   serde_json reads integers exactly and converts them, other numbers with
//!   `float_roundtrip`; tested against it);
//! * whitespace other than spaces, nesting deeper than 100 (serde_json allows 128), trailing
//!   bytes and any structural error give up;
//! * a second occurrence of a key the facts depend on gives up (the full parse keeps the last);
//! * strings that are kept and hold escapes are unescaped the way serde_json does (the escapes
//!   were validated by the scan; tested against serde_json).
//!
//! The same lines also take the full path as before: invalid UTF-8 (repaired there), the first
//! object of the file (which may be the header), non-objects. Key order only decides how much
//! is skipped: once `type` or `role` is known, fields irrelevant to it are validated but not
//! collected.
//!
//! A differential test (`tests/fastscan_differential.rs`) checks fast == full for every fixture,
//! for generated and mutated sessions, for every one- and two-byte sequence of awkward bytes at
//! each kind of place in a line, and for quotes, backslashes, escapes and control characters at
//! every offset of the string scanner's blocks. Unit tests below check the block scanner against
//! a byte-at-a-time reference at every start offset, the SIMD masks against portable ones for
//! every byte at every position, and unescaping and numbers against serde_json.

use std::borrow::Cow;

use crate::model::entry::EntryKind;
use crate::model::info::{EntryFacts, MessageFacts, UsageFacts};
use crate::model::search::{TOOL_ARG_KEYS, tool_call_line};

pub mod skim;

// ---------------------------------------------------------------------------------------------
// The lite parse.

/// One entry line, reduced to what [`EntryFacts`] needs.
#[derive(Default)]
pub(crate) struct LiteEntry<'a> {
    pub(crate) ty: Option<Cow<'a, str>>,
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
    tools: Option<String>,
    stop_reason: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    response_model: Option<Cow<'a, str>>,
}

impl LiteEntry<'_> {
    pub(crate) fn facts(&self) -> EntryFacts<'_> {
        let kind = EntryKind::from_type(self.ty.as_deref().unwrap_or(""));
        let message = match kind {
            EntryKind::Message => self.message.as_ref().map(|m| MessageFacts {
                role: m.role.as_deref(),
                timestamp: m.timestamp,
                usage: m.usage,
                has_content: m.has_content,
                text: m.text.as_deref(),
                tools: m.tools.as_deref(),
                stop_reason: m.stop_reason.as_deref(),
                model: m.response_model.as_deref().or(m.model.as_deref()),
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
pub(crate) fn parse_lite(bytes: &[u8]) -> Option<LiteEntry<'_>> {
    let mut cur = Cursor::new(bytes)?;
    cur.ws();
    if cur.peek()? != b'{' {
        return None;
    }
    let entry = cur.root()?;
    cur.ws();
    (cur.i == bytes.len()).then_some(entry)
}

/// The characters that may follow a backslash, other than `u`.
const SIMPLE_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let chars = *b"\"\\/bfnrt";
    while k < chars.len() {
        t[chars[k] as usize] = true;
        k += 1;
    }
    t
};

/// Nesting deeper than this takes the full path (serde_json's own limit is 128).
const MAX_DEPTH: u32 = 100;

/// A position in one line, validated as UTF-8 and free of control characters (made only by
/// [`Cursor::new`], which checks both: the readers rely on it). Every reader returns `None` on
/// anything it does not take exactly as serde_json would (see the module docs), which sends the
/// line to the full parse.
struct Cursor<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `line`, if the line can take the fast path at all: valid UTF-8
    /// (the full parse rejects invalid UTF-8 in strings too, and repairs it) and no byte below
    /// 0x20 (serde_json rejects them raw in strings, and the only ones it takes between tokens,
    /// tab, CR and LF, are whitespace the fast path leaves to it). Each is checked once for the
    /// whole line, so the readers need not look for control characters. UTF-8 is checked with
    /// `simdutf8` (vector instructions chosen at run time; the same answer as `str::from_utf8`).
    fn new(line: &'a [u8]) -> Option<Cursor<'a>> {
        if has_control(line) {
            return None;
        }
        Some(Cursor {
            s: simdutf8::basic::from_utf8(line).ok()?,
            b: line,
            i: 0,
            depth: 0,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Spaces only: any other whitespace (tab, CR) is a byte below 0x20, which [`Cursor::new`]
    /// does not take, so such lines take the full path.
    fn ws(&mut self) {
        while self.b.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// Skips a string (at its opening quote); returns the range inside the quotes and whether
    /// it holds escapes. Escapes are checked as serde_json does, and `\u` escapes of
    /// surrogates (lone or paired) take the full path (control characters were ruled out for
    /// the whole line by [`Cursor::new`]). See [`string_end`].
    fn skip_str(&mut self) -> Option<(usize, usize, bool)> {
        let start = self.i + 1;
        let (end, escaped) = string_end(self.b, start)?;
        self.i = end + 1;
        Some((start, end, escaped))
    }

    /// A string value (at its opening quote): borrowed when it has no escapes, else unescaped.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let (start, end, escaped) = self.skip_str()?;
        let content = self.s.get(start..end)?;
        if escaped {
            unescape(content).map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(content))
        }
    }

    /// A number (at its first byte): validated by its grammar; any number that may be out of
    /// range through serde_json's own parse; the value when wanted.
    fn number(&mut self, want: bool) -> Option<Option<f64>> {
        let start = self.i;
        let b = self.b;
        let mut i = start;
        let digits = |mut i: usize| {
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            (i > from).then_some(i)
        };
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        if b.get(i) == Some(&b'0') {
            i += 1;
        } else {
            i = digits(i)?;
        }
        // serde_json rejects a number only when it overflows to infinity: below 10^300 (the
        // integer digits plus the exponent, fraction ignored) it cannot.
        let mut magnitude = (i - int_start) as i64;
        if b.get(i) == Some(&b'.') {
            i = digits(i + 1)?;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            let negative = b.get(i) == Some(&b'-');
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exp_start = i;
            i = digits(i)?;
            let exp = self.s.get(exp_start..i)?;
            magnitude = match exp.parse::<i64>() {
                Ok(e) if exp.len() <= 4 => magnitude + if negative { -e } else { e },
                _ => i64::MAX,
            };
        }
        let unusual = magnitude > 300;
        self.i = i;
        let text = self.s.get(start..i)?;
        if unusual {
            let value = serde_json::from_str::<serde_json::Value>(text).ok()?;
            return Some(value.as_f64().filter(|_| want));
        }
        if !want {
            return Some(None);
        }
        // serde_json's `as_f64` of a number in range: an integer read exactly then converted,
        // or (beyond u64/i64, or with a fraction or exponent) a correctly rounded parse
        // (`float_roundtrip`); either way the f64 nearest to the decimal value, which is what
        // Rust's own parse gives too.
        text.parse::<f64>().ok().map(Some)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// Validates and skips any value.
    fn skip(&mut self) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'"' => self.skip_str().map(|_| ()),
            b'{' => self.object(|c, _| c.skip()),
            b'[' => self.array(|c| c.skip()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(false).map(|_| ()),
            _ => None,
        }
    }

    /// An object (at `{`): `field` reads each value, given its key. Keys with escapes take the
    /// full path.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.delimited(b'}', |c| {
            if c.peek()? != b'"' {
                return None;
            }
            let (start, end, escaped) = c.skip_str()?;
            if escaped {
                return None;
            }
            let key = c.s.get(start..end)?;
            c.expect(b':')?;
            c.ws();
            field(c, key)
        })
    }

    /// An array (at `[`): `element` reads each value.
    fn array(&mut self, element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.delimited(b']', element)
    }

    /// The comma-separated items of an object or array, from its opening byte to `close`,
    /// nesting limited like serde_json's.
    fn delimited(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
        } else {
            loop {
                self.ws();
                item(self)?;
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    c if c == close => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// `as_str`: `Some(None)` for a value of another kind.
    fn str_value(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.peek()? == b'"' {
            self.string().map(Some)
        } else {
            self.skip().map(|_| None)
        }
    }

    /// `as_f64`.
    fn num_value(&mut self) -> Option<Option<f64>> {
        if matches!(self.peek()?, b'-' | b'0'..=b'9') {
            self.number(true)
        } else {
            self.skip().map(|_| None)
        }
    }

    /// `read` on an object, `other` (after validating it) for a value of another kind.
    fn object_or<T>(&mut self, other: T, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.peek()? == b'{' {
            read(self)
        } else {
            self.skip().map(|_| other)
        }
    }

    /// `usage`: `totalTokens` and `cost.total`; a non-object gives empty facts.
    fn usage(&mut self) -> Option<UsageFacts> {
        self.object_or(UsageFacts::default(), |c| {
            let (mut total, mut cost) = (None, None);
            c.object(|c, k| match k {
                "totalTokens" => once(&mut total, c.num_value()?),
                "cost" => {
                    let v = c.object_or(None, |c| {
                        let mut t = None;
                        c.object(|c, k| {
                            if k == "total" {
                                once(&mut t, c.num_value()?)
                            } else {
                                c.skip()
                            }
                        })?;
                        Some(t.flatten())
                    })?;
                    once(&mut cost, v)
                }
                _ => c.skip(),
            })?;
            Some(UsageFacts {
                total_tokens: total.flatten(),
                cost_total: cost.flatten(),
            })
        })
    }

    /// `details.strategy`.
    fn strategy(&mut self) -> Option<Option<Cow<'a, str>>> {
        self.object_or(None, |c| {
            let mut strategy = None;
            c.object(|c, k| {
                if k == "strategy" {
                    once(&mut strategy, c.str_value()?)
                } else {
                    c.skip()
                }
            })?;
            Some(strategy.flatten())
        })
    }

    /// `content`: a string, or the `text` blocks of an array joined with spaces
    /// ([`crate::model::entry::content_text`]); `None` for any other value. The `toolCall`
    /// blocks' [`tool_call_line`]s go to `tools`, one a line.
    fn content(&mut self, tools: &mut Option<String>) -> Option<Option<Cow<'a, str>>> {
        match self.peek()? {
            b'"' => self.string().map(Some),
            b'[' => {
                let mut out: Option<Cow<'a, str>> = None;
                self.array(|c| {
                    let (text, tool) = c.block()?;
                    if let Some(tool) = tool.filter(|t| !t.is_empty()) {
                        match tools {
                            Some(all) => {
                                all.push('\n');
                                all.push_str(&tool);
                            }
                            None => *tools = Some(tool),
                        }
                    }
                    let Some(t) = text else {
                        return Some(());
                    };
                    out = Some(match out.take() {
                        None => t,
                        Some(prev) => {
                            let mut s = prev.into_owned();
                            s.push(' ');
                            s.push_str(&t);
                            Cow::Owned(s)
                        }
                    });
                    Some(())
                })?;
                Some(Some(out.unwrap_or(Cow::Borrowed(""))))
            }
            _ => self.skip().map(|_| None),
        }
    }

    /// A content block's `text` when its `type` is `"text"`, its [`tool_call_line`] when it is
    /// `"toolCall"`.
    #[allow(clippy::type_complexity)]
    fn block(&mut self) -> Option<(Option<Cow<'a, str>>, Option<String>)> {
        self.object_or((None, None), |c| {
            let mut ty: Option<Option<Cow<'a, str>>> = None;
            let mut text: Option<Option<Cow<'a, str>>> = None;
            let mut name: Option<Option<Cow<'a, str>>> = None;
            let mut args: Option<[Option<Cow<'a, str>>; 4]> = None;
            let may_be = |ty: &Option<Option<Cow<'a, str>>>, want: &str| {
                ty.as_ref().is_none_or(|t| t.as_deref() == Some(want))
            };
            c.object(|c, k| match k {
                "type" => once(&mut ty, c.str_value()?),
                // Only collected while the block may be a text block.
                "text" if may_be(&ty, "text") => once(&mut text, c.str_value()?),
                "text" => {
                    c.skip()?;
                    once(&mut text, None)
                }
                // Only collected while the block may be a tool call.
                "name" if may_be(&ty, "toolCall") => once(&mut name, c.str_value()?),
                "name" => {
                    c.skip()?;
                    once(&mut name, None)
                }
                "arguments" if may_be(&ty, "toolCall") => once(&mut args, c.tool_args()?),
                "arguments" => {
                    c.skip()?;
                    once(&mut args, Default::default())
                }
                _ => c.skip(),
            })?;
            Some(match ty.flatten().as_deref() {
                Some("text") => (text.flatten(), None),
                Some("toolCall") => {
                    let name = name.flatten();
                    let args = args.unwrap_or_default();
                    let line = tool_call_line(
                        name.as_deref().unwrap_or(""),
                        [0, 1, 2, 3].map(|i| args[i].as_deref()),
                    );
                    (None, Some(line))
                }
                _ => (None, None),
            })
        })
    }

    /// The string values of a tool call's [`TOOL_ARG_KEYS`] arguments (none for a non-object).
    fn tool_args(&mut self) -> Option<[Option<Cow<'a, str>>; 4]> {
        self.object_or(Default::default(), |c| {
            let mut found: [Option<Option<Cow<'a, str>>>; 4] = Default::default();
            c.object(
                |c, k| match TOOL_ARG_KEYS.iter().position(|key| *key == k) {
                    Some(i) => once(&mut found[i], c.str_value()?),
                    None => c.skip(),
                },
            )?;
            Some(found.map(Option::flatten))
        })
    }

    /// The `message` object of a message entry; `None` for a non-object.
    fn message(&mut self) -> Option<Option<LiteMessage<'a>>> {
        self.object_or(None, |c| {
            let (mut role, mut ts, mut usage) = (None, None, None);
            let (mut stop, mut model, mut response_model) = (None, None, None);
            let mut content: Option<Option<Cow<'a, str>>> = None;
            let mut tools = None;
            c.object(|c, k| match k {
                "role" => once(&mut role, c.str_value()?),
                "timestamp" => once(&mut ts, c.num_value()?),
                "usage" => once(&mut usage, c.usage()?),
                "stopReason" => once(&mut stop, c.str_value()?),
                "model" => once(&mut model, c.str_value()?),
                "responseModel" => once(&mut response_model, c.str_value()?),
                "content" => {
                    // Text is only listed for user and assistant messages: once the role is
                    // known to be another (pi writes it first), the content is only validated.
                    let wanted = role.as_ref().is_none_or(|r: &Option<Cow<str>>| {
                        matches!(r.as_deref(), Some("user" | "assistant"))
                    });
                    let value = if wanted {
                        c.content(&mut tools)?
                    } else {
                        c.skip()?;
                        None
                    };
                    once(&mut content, value)
                }
                _ => c.skip(),
            })?;
            Some(Some(LiteMessage {
                role: role.flatten(),
                timestamp: ts.flatten(),
                usage,
                has_content: content.is_some(),
                text: content.flatten(),
                tools,
                stop_reason: stop.flatten(),
                model: model.flatten(),
                response_model: response_model.flatten(),
            }))
        })
    }

    /// The line's object (at `{`).
    fn root(&mut self) -> Option<LiteEntry<'a>> {
        let mut e = LiteEntry::default();
        let mut seen_ty = false;
        let (mut seen_message, mut seen_usage, mut seen_details) = (false, false, false);
        let (mut id, mut parent, mut ts, mut name, mut target, mut label, mut summary, mut through) =
            (None, None, None, None, None, None, None, None);
        self.object(|c, k| {
            // The entry type, when already read, decides which fields matter (pi writes `type`
            // first); before it is known every candidate field is kept.
            let kind = if seen_ty {
                Some(EntryKind::from_type(e.ty.as_deref().unwrap_or("")))
            } else {
                None
            };
            let wants = |k: EntryKind| kind.is_none_or(|kind| kind == k);
            let wants_usage = kind.is_none_or(|kind| {
                matches!(
                    kind,
                    EntryKind::Compaction | EntryKind::BranchSummary | EntryKind::Usage
                )
            });
            match k {
                "type" => {
                    once_seen(&mut seen_ty)?;
                    e.ty = c.str_value()?;
                    Some(())
                }
                "id" => once(&mut id, c.str_value()?),
                "parentId" => once(&mut parent, c.str_value()?),
                "timestamp" => once(&mut ts, c.str_value()?),
                "message" => {
                    once_seen(&mut seen_message)?;
                    if wants(EntryKind::Message) {
                        e.message = c.message()?;
                        Some(())
                    } else {
                        c.skip()
                    }
                }
                "name" if wants(EntryKind::SessionInfo) => once(&mut name, c.str_value()?),
                "targetId" if wants(EntryKind::Label) => once(&mut target, c.str_value()?),
                "label" if wants(EntryKind::Label) => once(&mut label, c.str_value()?),
                "summary" if wants(EntryKind::SessionSummary) => once(&mut summary, c.str_value()?),
                "summarizedThroughId" if wants(EntryKind::SessionSummary) => {
                    once(&mut through, c.str_value()?)
                }
                "usage" => {
                    once_seen(&mut seen_usage)?;
                    if wants_usage {
                        e.usage = Some(c.usage()?);
                        Some(())
                    } else {
                        c.skip()
                    }
                }
                "details" => {
                    once_seen(&mut seen_details)?;
                    if wants(EntryKind::Compaction) {
                        e.strategy = c.strategy()?;
                        Some(())
                    } else {
                        c.skip()
                    }
                }
                // Any other key, or one irrelevant to the known type. A duplicate of a skipped
                // key cannot change the facts, so it needs no check.
                _ => c.skip(),
            }
        })?;
        e.id = id.flatten();
        e.parent_id = parent.flatten();
        e.timestamp = ts.flatten();
        e.name = name.flatten();
        e.target_id = target.flatten();
        e.label = label.flatten();
        e.summary = summary.flatten();
        e.summarized_through_id = through.flatten();
        Some(e)
    }
}

// ---------------------------------------------------------------------------------------------
// Strings, a block of bytes at a time.
//
// A string is scanned in blocks of 64 bytes from just after its opening quote. Each block gives
// three bitmasks (bit k = byte k): its quotes, its backslashes, and its `n` and `t` bytes. Which
// bytes are escaped (the byte after a backslash that is not itself escaped) follows from the
// backslash mask alone, with one bit carried into the next block ([`escaped_bytes`]); the
// string ends at the first quote that is not escaped. Every escaped byte before it must be a
// valid escape character: the common ones (`" \ n t`) are recognized from the masks for the
// whole block at once, the others (`/ b f r u`) are checked one by one, `\u` needing four hex
// digits that do not name a surrogate. So the work per block does not depend on how many
// escapes it holds, and there is no branch per escape to mispredict. Most strings (keys, ids,
// short values) end within 16 bytes without an escape, which one 16-byte probe settles first.
// Control characters need no check here: lines holding any take the full path
// ([`Cursor::new`]).

/// The end of the string whose content starts at `start` (just after its opening quote): the
/// position of its closing quote and whether it holds escapes; `None` for an invalid escape, a
/// `\u` escape of a surrogate, or no closing quote. `b` must hold no byte below 0x20
/// ([`has_control`]); such bytes are not looked at.
fn string_end(b: &[u8], start: usize) -> Option<(usize, bool)> {
    if let Some(probe) = b.get(start..start + 16) {
        let m = simd::masks16(probe.try_into().ok()?);
        let first = m.quote & m.quote.wrapping_neg();
        if first != 0 && m.backslash & (first - 1) == 0 {
            return Some((start + first.trailing_zeros() as usize, false));
        }
    }
    let mut pad = [0u8; 64];
    let mut carry = 0;
    let mut has_escape = false;
    let mut i = start;
    loop {
        let block: &[u8; 64] = match b.get(i..i + 64) {
            Some(block) => block.try_into().ok()?,
            None => {
                // The line's last bytes, padded with NULs (neither quote nor backslash): a
                // string that does not end before them runs past the line and is rejected.
                let rest = b.get(i..)?;
                pad[..rest.len()].copy_from_slice(rest);
                &pad
            }
        };
        let m = block_masks(block);
        let escaped = escaped_bytes(m.backslash, &mut carry);
        let quote = m.quote & !escaped;
        let first = quote & quote.wrapping_neg();
        // The bytes before the end (all of them when the string goes on).
        let before = first.wrapping_sub(1);
        let escapes = escaped & before;
        if escapes != 0 {
            has_escape = true;
            let mut rare = escapes & !(m.quote | m.backslash | m.n_or_t);
            while rare != 0 {
                valid_rare_escape(b, i + rare.trailing_zeros() as usize)?;
                rare &= rare - 1;
            }
        }
        if first != 0 {
            let end = i + first.trailing_zeros() as usize;
            // A quote in the padding is impossible (NULs), but keep the end inside the line.
            return (end < b.len()).then_some((end, has_escape));
        }
        i += 64;
    }
}

/// The content of a string that [`string_end`] took (every escape valid, no surrogate) with its
/// escapes replaced, as serde_json does.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    unescaped_pieces(s, |piece| {
        out.push_str(piece);
        true
    })?;
    Some(out)
}

/// Hands the unescaped content of such a string to `piece` in order: runs of plain text and the
/// character of each escape. Stops early when `piece` returns false.
fn unescaped_pieces(s: &str, mut piece: impl FnMut(&str) -> bool) -> Option<()> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', b.get(i..)?) {
        let at = i + k;
        if !piece(s.get(i..at)?) {
            return Some(());
        }
        let (c, len) = match *b.get(at + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let mut v = 0u32;
                for &h in b.get(at + 2..at + 6)? {
                    v = v * 16 + char::from(h).to_digit(16)?;
                }
                (char::from_u32(v)?, 6)
            }
            _ => return None,
        };
        if !piece(c.encode_utf8(&mut [0u8; 4])) {
            return Some(());
        }
        i = at + len;
    }
    piece(s.get(i..)?);
    Some(())
}

/// Whether the escape character at `at` (after a backslash) is one of `/ b f r` or a `\u` with
/// four hex digits naming no surrogate (the common escape characters are checked before).
fn valid_rare_escape(b: &[u8], at: usize) -> Option<()> {
    let c = *b.get(at)?;
    if SIMPLE_ESCAPE[usize::from(c)] {
        return Some(());
    }
    if c != b'u' {
        return None;
    }
    let mut v = 0u32;
    for &h in b.get(at + 1..at + 5)? {
        v = v * 16 + char::from(h).to_digit(16)?;
    }
    (!(0xD800..0xE000).contains(&v)).then_some(())
}

/// The bytes escaped by a backslash, given the block's backslashes and whether its first byte
/// is escaped by a backslash that ended the block before (`carry`, updated for the next one).
/// A run of backslashes escapes every second byte from its start, so it escapes the byte after
/// it when its length is odd; the subtraction finds, for each run, where it ends (as in
/// simdjson's stage 1).
fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    if backslash == 0 {
        return std::mem::take(carry);
    }
    // Backslashes that start an escape: not escaped themselves by the previous block.
    let potential = backslash & !*carry;
    let maybe_escaped = potential << 1;
    let code = (maybe_escaped | ODD_BITS).wrapping_sub(potential) ^ ODD_BITS;
    let escaped = code ^ (backslash | *carry);
    let escaping = code & backslash;
    *carry = escaping >> 63;
    escaped
}

/// Bitmasks of a block's bytes (bit k = byte k).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// `n` or `t`: with quote and backslash, the common escape characters.
    n_or_t: u64,
}

/// Whether any byte is below 0x20 (a control character). The minimum of each byte position
/// over 16-byte blocks, looked at once at the end: two vector instructions per block.
fn has_control(b: &[u8]) -> bool {
    let (blocks, rest) = b.as_chunks::<16>();
    let mut min = [u8::MAX; 16];
    for block in blocks {
        for (m, &c) in min.iter_mut().zip(block) {
            *m = (*m).min(c);
        }
    }
    min.iter().chain(rest).any(|&c| c < 0x20)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod simd {
    //! SSE2 (always there on x86-64) through `safe_arch`'s safe wrappers.
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };

    use super::Masks;

    fn eq(v: m128i, c: u8) -> m128i {
        cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(i8::from_ne_bytes([c])))
    }

    fn mask(v: m128i) -> u64 {
        u64::from(move_mask_i8_m128i(v) as u16)
    }

    pub(super) fn masks16(b: &[u8; 16]) -> Masks {
        let v = load_unaligned_m128i(b);
        Masks {
            quote: mask(eq(v, b'"')),
            backslash: mask(eq(v, b'\\')),
            n_or_t: mask(bitor_m128i(eq(v, b'n'), eq(v, b't'))),
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
mod simd {
    //! Elsewhere, one byte at a time.
    pub(super) fn masks16(b: &[u8; 16]) -> super::Masks {
        super::masks16_portable(b)
    }
}

/// [`simd::masks16`] one byte at a time (the reference the SIMD version is tested against).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn masks16_portable(b: &[u8; 16]) -> Masks {
    let mut m = Masks::default();
    for (k, &c) in b.iter().enumerate() {
        m.quote |= u64::from(c == b'"') << k;
        m.backslash |= u64::from(c == b'\\') << k;
        m.n_or_t |= u64::from(c == b'n' || c == b't') << k;
    }
    m
}

fn block_masks(b: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (q, shift) in b.as_chunks::<16>().0.iter().zip([0, 16, 32, 48]) {
        let part = simd::masks16(q);
        m.quote |= part.quote << shift;
        m.backslash |= part.backslash << shift;
        m.n_or_t |= part.n_or_t << shift;
    }
    m
}

/// Stores a field once; a second occurrence sends the line to the full parse (which keeps the
/// last value), so duplicate keys can never make the paths differ.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

/// Like [`once`] for fields kept as `Option` of the JSON value (absent vs. present-but-other).
fn once_seen(seen: &mut bool) -> Option<()> {
    (!std::mem::replace(seen, true)).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse::{LineValue, RawLine, entry_from, parse_line};

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
        let mut full = EntryFacts::of_entry(&entry, &mut buf);
        // The tool calls of the full path are read by `InfoBuilder::entry`.
        let tools = crate::model::info::entry_tool_text(&entry);
        if let Some(m) = &mut full.message {
            m.tools = tools.as_deref();
        }
        let mut fast = lite.facts();
        // The full path joins text for user/assistant only; the fast one may have it otherwise.
        if let (Some(m), Some(f)) = (&mut fast.message, &full.message)
            && !matches!(f.role, Some("user" | "assistant"))
        {
            m.text = f.text;
        }
        assert_eq!(fast, full, "{line}");
    }

    /// The string rules one byte at a time: the reference for [`string_end`].
    fn string_end_reference(b: &[u8], start: usize) -> Option<(usize, bool)> {
        let mut i = start;
        let mut escaped = false;
        loop {
            match *b.get(i)? {
                b'"' => return Some((i, escaped)),
                b'\\' => {
                    escaped = true;
                    let c = *b.get(i + 1)?;
                    if matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                        i += 2;
                    } else if c == b'u' {
                        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                        if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                            return None;
                        }
                        let v = u32::from_str_radix(hex, 16).ok()?;
                        if (0xD800..0xE000).contains(&v) {
                            return None;
                        }
                        i += 6;
                    } else {
                        return None;
                    }
                }
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
    }

    /// What a string may hold, to put at every position of a block.
    const STRING_SNIPPETS: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\\\"",
        b"\\\\",
        b"\\\\\"",
        b"\\\\\\\"",
        b"\\n",
        b"\\t",
        b"\\/",
        b"\\b\\f\\r",
        b"\\u00e9",
        b"\\u00E9\\u0041",
        b"\\ud83d\\ude00",
        b"\\udfff",
        b"\\ue000",
        b"\\u12",
        b"\\u12g4",
        b"\\x",
        b"\\a",
        b"\\U0041",
        b"\\\x01",
        b"\x01",
        b"\x1f",
        b"\x00",
        b"\t",
        b"\x7f",
        b" ",
        b"\xc3\xa9",
        b"\xff",
    ];

    fn check_string_end(b: &[u8]) {
        if has_control(b) {
            // Such lines never reach the string scanner.
            assert!(Cursor::new(b).is_none());
            let clean: Vec<u8> = b.iter().map(|&c| c.max(0x20)).collect();
            return check_string_end(&clean);
        }
        for start in 0..=b.len() {
            assert_eq!(
                string_end(b, start),
                string_end_reference(b, start),
                "{:?} from {start}",
                String::from_utf8_lossy(b)
            );
        }
    }

    #[test]
    fn unescaping_matches_serde_json() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for a in STRING_SNIPPETS {
            for b in STRING_SNIPPETS {
                cases.push([&b"x"[..], a, b"yy", b, b"z"].concat());
                cases.push([*a, *b].concat());
            }
        }
        let mut taken = 0;
        for content in cases {
            let mut quoted = content.clone();
            quoted.push(b'"');
            if has_control(&quoted) {
                continue;
            }
            let Ok(text) = std::str::from_utf8(&content) else {
                continue;
            };
            let Some((end, true)) = string_end(&quoted, 0) else {
                continue;
            };
            if end != content.len() {
                continue;
            }
            let json = format!("\"{text}\"");
            let expected: String = serde_json::from_str(&json).expect(&json);
            assert_eq!(unescape(text).as_deref(), Some(expected.as_str()), "{json}");
            taken += 1;
        }
        assert!(taken > 300, "{taken}");
    }

    #[test]
    fn kept_numbers_have_serde_json_values() {
        let mut numbers: Vec<String> = [
            "0",
            "-0",
            "1",
            "-1",
            "0.1",
            "-0.0",
            "1e5",
            "1E+5",
            "1e-5",
            "2.5e-3",
            "0.00034920000000000003",
            "1.7976931348623157e308",
            "5e-324",
            "2.2250738585072011e-308",
            "1e-400",
            "-1e-400",
            "9007199254740993",
            "-9007199254740993",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "0.1e1",
            "1.00000000000000011102230246251565404",
            "1e300",
            "9.999999999999999e299",
            "12e-3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut state = 0x1234_5678_9abc_def1u64;
        for _ in 0..20000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mantissa = state % 10u64.pow((state >> 60) as u32 % 19 + 1);
            let frac = (state >> 20) % 100000;
            let exp = (state >> 40) as i64 % 330 - 165;
            numbers.push(format!("{mantissa}"));
            numbers.push(format!("-{mantissa}.{frac:05}"));
            numbers.push(format!("{mantissa}.{frac}e{exp}"));
        }
        for n in &numbers {
            let mut cur = Cursor::new(n.as_bytes()).unwrap();
            let got = cur.number(true);
            let expected = serde_json::from_str::<serde_json::Value>(n)
                .ok()
                .map(|v| v.as_f64());
            match (got, expected) {
                (Some(a), Some(b)) => {
                    assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{n}")
                }
                (None, _) => {}
                (Some(a), None) => panic!("{n}: fast {a:?}, serde_json rejects it"),
            }
        }
    }

    #[test]
    fn string_end_matches_the_reference_with_specials_at_every_offset() {
        // Before, across and after the 16-byte probe and the 64-byte blocks, with the string
        // ending right after the snippet, later, or not at all.
        for snippet in STRING_SNIPPETS {
            for at in 0..140 {
                for tail in [
                    &b""[..],
                    b"\"",
                    b"z\"",
                    b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\",1",
                ] {
                    let mut b = vec![b'a'; at];
                    b.extend_from_slice(snippet);
                    b.extend_from_slice(tail);
                    check_string_end(&b);
                }
            }
        }
    }

    #[test]
    fn string_end_matches_the_reference_for_backslash_runs_across_blocks() {
        for run in 1..140 {
            for at in [0, 1, 14, 15, 16, 17, 31, 62, 63, 64, 65, 127, 128] {
                for after in [&b"\""[..], b"n\"", b"x\"", b"u0041\"", b""] {
                    let mut b = vec![b'a'; at];
                    b.extend(std::iter::repeat_n(b'\\', run));
                    b.extend_from_slice(after);
                    b.extend_from_slice(b"tail\"");
                    check_string_end(&b);
                }
            }
        }
    }

    #[test]
    fn string_end_matches_the_reference_on_random_strings() {
        // A small deterministic generator (no dependency): strings dense with specials.
        let alphabet: &[u8] = b"aaaaaaaaaaaaaaaaaaaa\"\\\\\\nntu/bfr0D8e\x01\x1f\x7f \xc3\xa9";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let len = (next() % 300) as usize;
            let b: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            check_string_end(&b);
        }
    }

    #[test]
    fn simd_masks_match_the_portable_ones_for_every_byte_at_every_position() {
        for byte in 0..=255u8 {
            for at in 0..16 {
                let mut b = [b'a'; 16];
                b[at] = byte;
                assert_eq!(simd::masks16(&b), masks16_portable(&b), "{byte} at {at}");
                let mut b = [byte; 16];
                b[at] = b'a';
                assert_eq!(
                    simd::masks16(&b),
                    masks16_portable(&b),
                    "{byte} not at {at}"
                );
            }
        }
    }

    #[test]
    fn control_characters_are_found_at_every_position() {
        for len in [0, 1, 31, 32, 33, 64, 95, 100] {
            assert!(!has_control(&vec![b'a'; len]));
            for at in 0..len {
                for c in [0u8, 1, 9, 10, 13, 0x1f] {
                    let mut b = vec![0xffu8; len];
                    b[at] = c;
                    assert!(has_control(&b), "{c} at {at} of {len}");
                }
                let mut b = vec![b'a'; len];
                b[at] = 0x20;
                assert!(!has_control(&b));
            }
        }
    }

    #[test]
    fn escaped_bytes_follow_backslash_runs_across_blocks() {
        // Reference: walk the bits; a backslash that is not escaped escapes the next byte.
        let reference = |blocks: &[u64]| -> Vec<u64> {
            let mut out = vec![0u64; blocks.len()];
            let mut escape_next = false;
            for (n, &bs) in blocks.iter().enumerate() {
                for k in 0..64 {
                    if escape_next {
                        out[n] |= 1 << k;
                        escape_next = false;
                    } else if bs >> k & 1 == 1 {
                        escape_next = true;
                    }
                }
            }
            out
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut cases: Vec<Vec<u64>> = vec![
            vec![!0, !0, 0],
            vec![1 << 63, 0],
            vec![1 << 63, 1],
            vec![3 << 62, 1],
            vec![!0 >> 1, !0, 1],
        ];
        for _ in 0..5000 {
            // Dense runs: the AND/OR of random words.
            let n = 1 + (next() % 4) as usize;
            cases.push((0..n).map(|_| next() | next() | next()).collect());
            cases.push((0..n).map(|_| next() & next()).collect());
        }
        for blocks in cases {
            let mut carry = 0;
            let got: Vec<u64> = blocks
                .iter()
                .map(|&bs| escaped_bytes(bs, &mut carry))
                .collect();
            assert_eq!(got, reference(&blocks), "{blocks:x?}");
        }
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
    fn skipped_values_with_escapes_numbers_and_spaces_match_the_full_parse() {
        facts_equal(
            r#" { "type" : "message" , "id":"a\"b\\c\/\b\f\n\r\t\u00e9\u001b" ,"x":[ 1 , -0 , 0.5e-3 , 1E5 , -12.75 , true , false , null , { } , [ ] , "\u0000" ] , "message":{"role":"user","content":[{"type":"text","text":"a\u0041\n"},{"type":"toolCall","arguments":{"q":"\"}\\"}}],"timestamp":1.5e12,"usage":{"totalTokens":18446744073709551615,"cost":{"total":-0}}} } "#,
        );
        facts_equal(
            r#"{"type":"message","x":[1e-999,-2.5E-99999,0.00034920000000000003,1.7e308,5e-324,123456789012345678901234567890],"message":{"role":"assistant","usage":{"totalTokens":1e300,"cost":{"total":1e-400}}}}"#,
        );
        facts_equal(
            r#"{"type":"message","message":{"role":"assistant","content":"plain"},"blob":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk="}"#,
        );
        facts_equal(
            r#"{"type":"message","id":"x","message":{"role":"toolResult","content":"\u00aa \" skipped"}}"#,
        );
    }

    #[test]
    fn lines_the_full_parse_rejects_or_repairs_take_the_full_path() {
        for line in [
            // Tricky but valid: escaped keys, tabs and CRs as whitespace, surrogate pairs.
            r#"{"\u0074ype":"message","id":"a"}"#,
            "{\"type\":\t\"message\"}",
            "{\"type\":\"message\"}\r",
            r#"{"type":"message","x":"\ud83d\ude00"}"#,
            // Invalid.
            r#"{"type":"message","x":"\x"}"#,
            r#"{"type":"message","x":"\u12"}"#,
            r#"{"type":"message","x":"\u12g4"}"#,
            "{\"type\":\"message\",\"x\":\"a\u{1}b\"}",
            "{\"type\":\"message\",\"x\":\"tab\tin string\"}",
            r#"{"type":"message","x":01}"#,
            r#"{"type":"message","x":-}"#,
            r#"{"type":"message","x":1.}"#,
            r#"{"type":"message","x":1e}"#,
            r#"{"type":"message","x":.5}"#,
            r#"{"type":"message","x":1e309}"#,
            r#"{"type":"message","x":-0.5e308,"y":1e99999}"#,
            r#"{"type":"message","x":1.8e308}"#,
            r#"{"type":"message","x":[1e-5,2E+400]}"#,
            r#"{"type":"message","x":[1,]}"#,
            r#"{"type":"message","x":{"a":1,}}"#,
            r#"{"type":"message",}"#,
            r#"{"type":"message","x":tru}"#,
            r#"{"type":"message","x":nul}"#,
            r#"{"type":"message","x":"unterminated}"#,
            r#"{"type":"message""x":1}"#,
            r#"{"type":"message","x"1}"#,
            r#"{"type":"message","x":[1 2]}"#,
            r#"{"type":"message"}}"#,
            r#"{"type":"message"} {}"#,
            r#"{"type":"compaction","usage":{"totalTokens":1,"totalTokens":2}}"#,
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
