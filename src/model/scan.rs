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
//!   were validated by the scan; tested against serde_json);
//! * an entry's first members (`type`, `id`, `parentId`, `timestamp`) and a message's `usage`,
//!   when they are exactly as pi writes them, are compared byte for byte instead of walked key
//!   by key; their values are read by the same readers, and anything else falls back to the
//!   walk from the object's start (tested against the walk and serde_json).
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
use crate::model::facts::{EntryFacts, Gather, MessageFacts, UsageFacts};

mod fields;
mod simd;
pub mod skim;
mod strings;

use strings::{has_control, key_end, string_end, unescape, unescaped_pieces};

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
    let mut entry = LiteEntry::default();
    parse_lite_into(bytes, &mut entry, Gather::All).then_some(entry)
}

/// [`parse_lite`] into `entry` (which must be empty): true when the line was taken (`entry`
/// is then the line's; else it is to be dropped). Filling the caller's entry in place saves
/// moving the ~500-byte entry through each return (four copies a line). A message's text
/// and tool calls are read only as far as `gather` asks (the rest is validated, not copied).
pub(crate) fn parse_lite_into<'a>(
    bytes: &'a [u8],
    entry: &mut LiteEntry<'a>,
    gather: Gather,
) -> bool {
    let Some(mut cur) = Cursor::new(bytes) else {
        return false;
    };
    cur.gather = gather;
    cur.ws();
    if cur.peek() != Some(b'{') || cur.root(entry).is_none() {
        return false;
    }
    cur.ws();
    cur.i == bytes.len()
}

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
    /// Which message text to read (see [`Gather`]).
    gather: Gather,
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
            gather: Gather::All,
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

    /// Skips `c`, after spaces if any (pi writes none: the byte is looked at first).
    fn expect(&mut self, c: u8) -> Option<()> {
        if self.peek() != Some(c) {
            self.ws();
        }
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
        let digits = |from: usize| {
            let i = digits_end(b, from);
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
        let int_digits = i - int_start;
        let mut magnitude = int_digits as i64;
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            i = digits(i + 1)?;
            integer = false;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            integer = false;
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
        // An integer of at most 15 digits is below 2^53, so exactly an `f64` (what serde_json
        // converts it to, and what the parse below gives): computed without the parse
        // (timestamps and token counts; `-0` is -0.0 either way).
        if integer && int_digits <= 15 {
            let v = b
                .get(int_start..i)?
                .iter()
                .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
            let v = v as f64;
            return Some(Some(if int_start > start { -v } else { v }));
        }
        // serde_json's `as_f64` of a number in range: an integer read exactly then converted,
        // or (beyond u64/i64, or with a fraction or exponent) a correctly rounded parse
        // (`float_roundtrip`); either way the f64 nearest to the decimal value, which is what
        // Rust's own parse gives too.
        text.parse::<f64>().ok().map(Some)
    }

    /// Validates and skips a number that is not wanted (at its first byte): the grammar of
    /// [`Cursor::number`] without its value. Only a number with an exponent or more than 300
    /// integer digits can be out of range, and those go through [`Cursor::number`] (most
    /// numbers of a line are skipped: token counts and costs, 160 k of them in 150 sessions).
    #[inline]
    fn skip_number(&mut self) -> Option<()> {
        let b = self.b;
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits_end(b, i + 1),
            _ => return None,
        }
        let int_digits = i - int_start;
        if b.get(i) == Some(&b'.') {
            let end = digits_end(b, i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if int_digits > 300 || matches!(b.get(i), Some(b'e' | b'E')) {
            return self.number(false).map(|_| ());
        }
        self.i = i;
        Some(())
    }

    /// Skips `word` (a literal, or keys and separators as pi writes them) if the bytes at the
    /// cursor are exactly it. Its length is a constant, so the comparison is a few loads, not a
    /// call to `memcmp`.
    #[inline]
    fn bytes<const N: usize>(&mut self, word: &[u8; N]) -> Option<()> {
        let end = self.i + N;
        let here: &[u8; N] = self.b.get(self.i..end)?.try_into().ok()?;
        (here == word).then(|| self.i = end)
    }

    /// Validates and skips any value, at its first byte: every caller is where the spaces
    /// before a value were skipped (after a colon, a comma or an opening bracket), or reads
    /// pi's exact shape, where a space gives up (`None`) and the walk takes the value.
    fn skip(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_str().map(|_| ()),
            b'{' => self.object(|c, _| c.skip()),
            b'[' => self.array(|c| c.skip()),
            b't' => self.bytes(b"true"),
            b'f' => self.bytes(b"false"),
            b'n' => self.bytes(b"null"),
            b'-' | b'0'..=b'9' => self.skip_number(),
            _ => None,
        }
    }

    /// An object (at `{`): `field` reads each value, given its key. Keys with escapes take the
    /// full path.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.delimited(b'}', |c| c.key_value(&mut field))
    }

    /// The rest of an object whose first members were read by hand (see [`Cursor::open`]),
    /// from the separator after them.
    fn object_rest(
        &mut self,
        mut field: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.items(b'}', false, |c| c.key_value(&mut field))
    }

    /// One member of an object: its key (at its quote), the colon, and its value read by
    /// `field`.
    #[inline]
    fn key_value(
        &mut self,
        field: &mut impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.i + 1;
        let end = key_end(self.b, start)?;
        let key = self.s.get(start..end)?;
        self.i = end + 1;
        self.expect(b':')?;
        self.ws();
        field(self, key)
    }

    /// An array (at `[`): `element` reads each value.
    fn array(&mut self, element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.delimited(b']', element)
    }

    /// `read`'s value, or `None` with the cursor back where it was: a fast path for one shape
    /// that gives up leaves the value to the general walk.
    fn attempt<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let (i, depth) = (self.i, self.depth);
        let value = read(self);
        if value.is_none() {
            (self.i, self.depth) = (i, depth);
        }
        value
    }

    /// Enters an object or array (at its opening byte), nesting limited like serde_json's.
    fn open(&mut self) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        Some(())
    }

    /// The comma-separated items of an object or array, from its opening byte to `close`.
    fn delimited(&mut self, close: u8, item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.open()?;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            self.depth -= 1;
            return Some(());
        }
        self.items(close, true, item)
    }

    /// The items of an entered object or array up to and past `close`: an item first when
    /// `first`, else the separator (or `close`) after the items already read.
    fn items(
        &mut self,
        close: u8,
        first: bool,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        if first {
            self.ws();
            item(self)?;
        }
        loop {
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                c if c == close => {
                    self.i += 1;
                    break;
                }
                _ => return None,
            }
            self.ws();
            item(self)?;
        }
        self.depth -= 1;
        Some(())
    }

    /// `as_str`: `Some(None)` for a value of another kind. At a space (a reader of pi's exact
    /// shape calls it right after a colon, see [`Cursor::head_as_pi_writes`]) `None`, as
    /// [`Cursor::skip`] gives: the walk then reads `"id": "c3"` from the object's start.
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
}

/// The end of the run of ASCII digits at `i`: eight bytes at a time while eight remain (the
/// fractions JavaScript writes have up to 17 digits), then one at a time. Adding 6 to a digit
/// never carries into the next byte; a carry out of another byte only changes the bytes after
/// the first non-digit, which are not looked at.
fn digits_end(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(word) = b.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        let x = u64::from_le_bytes(word);
        // A byte is a digit when its high nibble is 3 and stays 3 once 6 is added (0x30-0x39).
        let high = 0xF0 * ONES;
        let other =
            ((x & high) ^ (0x30 * ONES)) | ((x.wrapping_add(6 * ONES) & high) ^ (0x30 * ONES));
        if other == 0 {
            i += 8;
            continue;
        }
        // The first byte that is not a digit: the lowest non-zero byte of `other`.
        return i + (other.trailing_zeros() / 8) as usize;
    }
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
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
mod tests;
