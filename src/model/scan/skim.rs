//! Slim parsing of lines for large sessions (see [`crate::model::entry`]): the line is walked
//! with the listing scan's validating [`Cursor`], building the same `serde_json` object a full
//! parse builds minus what the tree never looks at. A long string nested below a top-level
//! field's direct children keeps only its first [`ELIDE_KEEP`] bytes and is never copied or
//! unescaped beyond them. A `message` entry's `message` object is not built at all: its
//! [`MessageDigest`], all the views read of it, is read straight off the line (text blocks
//! only as far as the digest's 200 characters need, images, thinking and usage validated and
//! skipped), and the entry reads its whole object back from the file when asked.
//!
//! The rules the cursor follows (module docs of [`super`]) make it take a line only when
//! serde_json would take it too, and give up (`None`) on anything unusual (a key repeated in a
//! message or content block included); such a line is then parsed whole, so a slim parse can
//! only ever differ from the full one in what the rule leaves out. `tests/slim_load.rs` checks
//! exactly that: the object is the whole one shortened by the rule, the digest is the one
//! [`MessageDigest::of`] takes of the whole message, and the tree's rows, its search and the
//! context read the same from slim entries as from whole ones.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::{Cursor, once, once_seen};
use crate::model::digest::{MessageDigest, TEXT_CHARS, ToolCall};
use crate::model::entry::{ELIDE_KEEP, ELIDE_OVER, JsonMap, Role};
use crate::model::parse::line::Skimmed;

/// Parses one line slim; `None` when the line is not taken (it must then be parsed whole).
pub fn skim_line(bytes: &[u8]) -> Option<Skimmed> {
    // Checks UTF-8 and rules out control characters, which the cursor's readers rely on.
    let mut cur = Cursor::new(bytes)?;
    cur.ws();
    if cur.peek()? != b'{' {
        return None;
    }
    let mut elided = false;
    let mut map = JsonMap::new();
    let mut message = None;
    cur.object(|c, key| {
        if key == "message" && message.is_some() {
            return None; // repeated: left to the full parse
        }
        if key == "message" && c.peek()? == b'{' {
            message = Some(message_digest(c)?);
            map.shift_remove("message");
            return Some(());
        }
        let v = value(c, 1, false, &mut elided)?;
        map.insert(key.to_owned(), v);
        Some(())
    })?;
    cur.ws();
    if cur.i != bytes.len() {
        return None;
    }
    if message.is_some() {
        // Only a `message` entry's message has a digest; anything else is parsed whole.
        if map.get("type").and_then(Value::as_str) != Some("message") {
            return None;
        }
        elided = true;
    }
    Some(Skimmed {
        object: map,
        message,
        elided,
    })
}

/// Strings nested below a top-level field's direct children may be shortened (top-level fields
/// are level 1).
fn may_shorten(level: u32) -> bool {
    level >= 3
}

fn value<'a>(c: &mut Cursor<'a>, level: u32, shorten: bool, elided: &mut bool) -> Option<Value> {
    match c.peek()? {
        b'"' if shorten => {
            let (text, was_shortened) = string_maybe_shortened(c)?;
            *elided |= was_shortened;
            Some(Value::String(text.into_owned()))
        }
        b'"' => c.string().map(|s| Value::String(s.into_owned())),
        b'{' => object(c, level, elided).map(Value::Object),
        b'[' => {
            let mut items = Vec::new();
            c.array(|c| {
                items.push(value(c, level + 1, may_shorten(level + 1), elided)?);
                Some(())
            })?;
            Some(Value::Array(items))
        }
        b't' => c.bytes(b"true").map(|()| Value::Bool(true)),
        b'f' => c.bytes(b"false").map(|()| Value::Bool(false)),
        b'n' => c.bytes(b"null").map(|()| Value::Null),
        b'-' | b'0'..=b'9' => {
            let start = c.i;
            c.number(false)?;
            // The number exactly as serde_json reads it (integer or float, same rounding).
            serde_json::from_str::<Value>(c.s.get(start..c.i)?).ok()
        }
        _ => None,
    }
}

/// An object at `level` (its fields are one deeper). A repeated key keeps its first place and
/// its last value, as serde_json's own map does.
fn object<'a>(c: &mut Cursor<'a>, level: u32, elided: &mut bool) -> Option<JsonMap> {
    let mut map = JsonMap::new();
    c.object(|c, key| {
        let v = value(c, level + 1, may_shorten(level + 1), elided)?;
        map.insert(key.to_owned(), v);
        Some(())
    })?;
    Some(map)
}

/// The digest of a `message` object (at `{`) and the role it names: what
/// [`MessageDigest::of`] takes of the same object parsed whole.
fn message_digest(c: &mut Cursor<'_>) -> Option<(Role, MessageDigest)> {
    let mut role: Option<Option<Cow<'_, str>>> = None;
    let mut content: Option<Content> = None;
    let mut digest = MessageDigest::default();
    // Which of the digest's string fields were seen (a repeat goes to the full parse).
    let mut seen = [false; MessageDigest::STRING_FIELDS.len()];
    c.object(|c, key| {
        if key == "role" {
            return once(&mut role, c.str_value()?);
        }
        if key == "content" {
            return once(&mut content, Content::read(c)?);
        }
        match MessageDigest::STRING_FIELDS.iter().position(|&f| f == key) {
            Some(i) => {
                once_seen(&mut seen[i])?;
                let value = c
                    .str_value()?
                    .map(|v| crate::model::digest::shared(key, &v));
                *digest.string_field_mut(key)? = value;
                Some(())
            }
            None => c.skip(),
        }
    })?;
    let role_str = role.flatten();
    let role = role_str.as_deref().map_or(Role::None, Role::of_str);
    digest.other_role = role_str.filter(|_| role == Role::Other).map(Box::from);
    if let Some(content) = content {
        digest.has_content = true;
        digest.content_is_null = content.is_null;
        digest.text = content.text.into_boxed_str();
        digest.has_text = content.has_text;
        if role == Role::Assistant {
            digest.tool_calls = content.tool_calls;
        }
    }
    Some((role, digest))
}

/// What a digest takes of a message's `content`.
#[derive(Default)]
struct Content {
    is_null: bool,
    /// The first [`TEXT_CHARS`] characters of its text (`extract_content`).
    text: String,
    /// Whether its text holds anything but white space (`has_text_content`).
    has_text: bool,
    /// The characters in `text`.
    text_chars: usize,
    tool_calls: Vec<(Arc<str>, Arc<ToolCall>)>,
}

impl Content {
    /// Reads a `content` value (at its first byte).
    fn read(c: &mut Cursor<'_>) -> Option<Content> {
        let mut out = Content::default();
        match c.peek()? {
            b'"' => (out.text, out.has_text) = text_head(c, TEXT_CHARS, true)?,
            b'[' => c.array(|c| out.block(c))?,
            b'n' => {
                c.bytes(b"null")?;
                out.is_null = true;
            }
            _ => c.skip()?,
        }
        Some(out)
    }

    /// One element of a `content` array: text and tool-call blocks count, the rest is skipped.
    fn block(&mut self, c: &mut Cursor<'_>) -> Option<()> {
        if c.peek()? != b'{' {
            return c.skip();
        }
        let mut ty: Option<Option<Cow<'_, str>>> = None;
        let mut text: Option<Option<(String, bool)>> = None;
        // What is still needed of a text: the characters the digest has no room for yet, and
        // whether any text is not white space.
        let room = TEXT_CHARS.saturating_sub(self.text_chars);
        let need_text = !self.has_text;
        let (mut id, mut name, mut arguments) = (None, None, None);
        let mut elided = false;
        c.object(|c, key| match key {
            "type" => once(&mut ty, c.str_value()?),
            "text" => {
                let t = if c.peek()? == b'"' {
                    Some(text_head(c, room, need_text)?)
                } else {
                    c.skip()?;
                    None
                };
                once(&mut text, t)
            }
            "id" => once(&mut id, c.str_value()?),
            "name" => once(&mut name, c.str_value()?),
            // A block's fields are level 4: their strings may be shortened.
            "arguments" => once(&mut arguments, value(c, 4, true, &mut elided)?),
            _ => c.skip(),
        })?;
        match ty.flatten().as_deref() {
            Some("text") => {
                if let Some((head, has_text)) = text.flatten() {
                    self.has_text |= has_text;
                    self.text_chars += head.chars().count();
                    self.text.push_str(&head);
                }
            }
            Some("toolCall") => {
                if let Some(id) = id.flatten() {
                    let name = name.flatten().unwrap_or_default();
                    let arguments = arguments.unwrap_or(Value::Null);
                    let call = Arc::new(ToolCall::of(&name, &arguments));
                    self.tool_calls.push((Arc::from(id), call));
                }
            }
            _ => {}
        }
        Some(())
    }
}

/// Of a string (at its opening quote): its first `chars` characters, and (when `need_text`)
/// whether any of it is not white space, unescaping no further than that needs: what a digest
/// reads of a text (`extract_content`, `has_text_content`), of a tool's output of any length.
/// When `need_text` is false the second value is false.
fn text_head(c: &mut Cursor<'_>, chars: usize, need_text: bool) -> Option<(String, bool)> {
    let (start, end, escaped) = c.skip_str()?;
    let inner = c.s.get(start..end)?;
    let mut head = String::new();
    let mut left = chars;
    let mut has_text = false;
    let mut take = |piece: &str| {
        if left > 0 {
            let (cut, n) = piece
                .char_indices()
                .take(left)
                .fold((0, 0), |(_, n), (i, ch)| (i + ch.len_utf8(), n + 1));
            head.push_str(&piece[..cut]);
            left -= n;
        }
        if need_text && !has_text {
            has_text = piece.chars().any(|ch| !ch.is_whitespace());
        }
        left > 0 || (need_text && !has_text)
    };
    if escaped {
        // Validated by `skip_str`: every escape is well formed and none is a surrogate.
        super::unescaped_pieces(inner, &mut take)?;
    } else {
        take(inner);
    }
    Some((head, has_text))
}

/// A string (at its opening quote): whole when its unescaped length is at most [`ELIDE_OVER`]
/// bytes, else its first [`ELIDE_KEEP`] bytes cut back to a character boundary.
fn string_maybe_shortened<'a>(c: &mut Cursor<'a>) -> Option<(Cow<'a, str>, bool)> {
    let (start, end, escaped) = c.skip_str()?;
    let inner = c.s.get(start..end)?;
    if !escaped {
        if inner.len() <= ELIDE_OVER {
            return Some((Cow::Borrowed(inner), false));
        }
        return Some((Cow::Borrowed(&inner[..kept_len(inner)]), true));
    }
    match unescaped_prefix(inner) {
        Some(prefix) => Some((Cow::Owned(prefix), true)),
        // Short after unescaping: the whole string.
        None => super::unescape(inner).map(|s| (Cow::Owned(s), false)),
    }
}

/// How much of a string that is shortened is kept: [`ELIDE_KEEP`] bytes cut back to a character
/// boundary, and on through the first character that is not whitespace (so whether the string
/// holds any text, which decides if a turn is listed, reads the same slim).
pub fn kept_len(s: &str) -> usize {
    let cut = floor_boundary(s, ELIDE_KEEP);
    if !s[..cut].trim_start().is_empty() {
        return cut;
    }
    s[cut..]
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(s.len(), |(i, c)| cut + i + c.len_utf8())
}

/// The largest character boundary of `s` at or below `max`.
fn floor_boundary(s: &str, max: usize) -> usize {
    let mut k = max.min(s.len());
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    k
}

/// The first [`ELIDE_KEEP`] bytes (at a character boundary) of the unescaped string when it is
/// longer than [`ELIDE_OVER`] bytes unescaped, else `None`. `inner` was validated by
/// [`Cursor::skip_str`]: every escape is well formed and none is a surrogate.
fn unescaped_prefix(inner: &str) -> Option<String> {
    let mut p = Prefix::default();
    super::unescaped_pieces(inner, |piece| {
        p.push(piece);
        // Enough once the prefix is complete and the string known to be long.
        !(p.done && p.total > ELIDE_OVER)
    })?;
    (p.total > ELIDE_OVER).then_some(p.out)
}

/// The unescaped text so far: its first [`kept_len`] bytes and its total length.
#[derive(Default)]
struct Prefix {
    out: String,
    done: bool,
    total: usize,
}

impl Prefix {
    fn push(&mut self, text: &str) {
        self.total += text.len();
        if self.done {
            return;
        }
        let room = ELIDE_KEEP.saturating_sub(self.out.len());
        if text.len() <= room {
            self.out.push_str(text);
            return;
        }
        let cut = floor_boundary(text, room);
        self.out.push_str(&text[..cut]);
        if !self.out.trim_start().is_empty() {
            self.done = true;
            return;
        }
        // Only whitespace so far: keep on through the first other character.
        let rest = &text[cut..];
        match rest.char_indices().find(|(_, c)| !c.is_whitespace()) {
            Some((i, c)) => {
                self.out.push_str(&rest[..i + c.len_utf8()]);
                self.done = true;
            }
            None => self.out.push_str(rest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(line: &str) -> JsonMap {
        match serde_json::from_str::<Value>(line).expect("valid JSON") {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn skim(line: &str) -> Skimmed {
        skim_line(line.as_bytes()).expect("the line is taken")
    }

    /// A message line's digest is the whole message's, and the rest of its object is whole.
    fn assert_digest_is_whole(line: &str) -> Skimmed {
        let skimmed = skim(line);
        let mut w = whole(line);
        let message = w.shift_remove("message").expect("a message");
        let message = message.as_object().expect("an object");
        let (role, digest) = skimmed.message.clone().expect("a digest");
        assert_eq!(digest, MessageDigest::of(message), "{line}");
        let mut with_message = w.clone();
        with_message.insert("message".into(), Value::Object(message.clone()));
        assert_eq!(role, Role::of(&with_message));
        assert_eq!(skimmed.object, w);
        assert!(skimmed.elided);
        skimmed
    }

    #[test]
    fn short_lines_come_out_whole() {
        let line = r#"{"type":"custom","id":"a","parentId":null,"n":-1.5e3,"ok":true,"z":[1,{"k":"v\n"}],"data":{"role":"user","content":"hi \u00e9"}}"#;
        let skimmed = skim(line);
        assert!(!skimmed.elided && skimmed.message.is_none());
        assert_eq!(skimmed.object, whole(line));
    }

    #[test]
    fn a_message_is_read_into_its_digest() {
        for line in [
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi \u00e9"}}"#,
            r#"{"type":"message","id":"a","message":{"role":"weird","content":null,"stopReason":5}}"#,
            r#"{"type":"message","id":"a","message":{"role":"toolResult","toolCallId":"t","toolName":"read","content":[{"type":"text","text":"  "},7,{"text":"x"}]}}"#,
            r#"{"message":{"role":"assistant","content":[{"text":"a","type":"text"},{"type":"toolCall","id":"t","name":"mcp","arguments":{"q":[1,{"r":null}]}}],"provider":"p","model":"m"},"type":"message"}"#,
            r#"{"type":"message","id":"a","message":{"content":{"type":"text","text":"x"}}}"#,
            r#"{"type":"message","id":"a","message":"not an object","message":{"role":"user"}}"#,
        ] {
            assert_digest_is_whole(line);
        }
    }

    #[test]
    fn long_strings_keep_what_is_read() {
        let long = "é".repeat(3000); // 6000 bytes
        let line = format!(
            r#"{{"type":"message","id":"a","summary":"{long}","message":{{"role":"user","command":"{long}","content":[{{"type":"text","text":"{long}"}}]}}}}"#
        );
        let skimmed = assert_digest_is_whole(&line);
        assert_eq!(skimmed.object["summary"], Value::String(long.clone()));
        let (_, digest) = skimmed.message.unwrap();
        assert_eq!(digest.command.as_deref(), Some(long.as_str()));
        assert_eq!(digest.text.chars().count(), TEXT_CHARS);
        // Deeper than a top-level field's children: a prefix.
        let line = format!(r#"{{"type":"custom","data":{{"x":{{"y":"{long}"}}}}}}"#);
        let skimmed = skim(&line);
        assert!(skimmed.elided);
        let kept = skimmed.object["data"]["x"]["y"].as_str().unwrap();
        assert_eq!(kept.len(), ELIDE_KEEP);
        assert!(long.starts_with(kept));
    }

    #[test]
    fn escaped_strings_are_measured_unescaped() {
        let deep = |s: &str| format!(r#"{{"type":"custom","data":{{"x":{{"y":"{s}"}}}}}}"#);
        // 1500 escapes: 3000 bytes in the file, 1500 unescaped: kept whole.
        let line = deep(&"\\n".repeat(1500));
        let skimmed = skim(&line);
        assert!(!skimmed.elided);
        assert_eq!(skimmed.object, whole(&line));
        // Escapes straddling the cut: the prefix is the unescaped string's own prefix.
        let s = format!(
            "{}\\u00e9{}",
            "a".repeat(ELIDE_KEEP - 1),
            "\\t".repeat(3000)
        );
        let line = deep(&s);
        let skimmed = skim(&line);
        assert!(skimmed.elided);
        let full = whole(&line)["data"]["x"]["y"].as_str().unwrap().to_owned();
        let kept = skimmed.object["data"]["x"]["y"].as_str().unwrap();
        assert_eq!(kept, &full[..kept_len(&full)]);
        assert_eq!(kept.len(), ELIDE_KEEP - 1);
        // In a message: the digest of the unescaped text.
        assert_digest_is_whole(&format!(
            r#"{{"type":"message","message":{{"role":"user","content":"{s}"}}}}"#
        ));
    }

    #[test]
    fn images_thinking_and_usage_are_skipped() {
        let line = r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"toolCall","id":"t","name":"bash","arguments":{"command":"ls"}}],"usage":{"input":1,"cost":{"total":2}},"stopReason":"toolUse","timestamp":5}}"#;
        let (_, digest) = assert_digest_is_whole(line).message.unwrap();
        assert_eq!(digest.tool_calls.len(), 1);
        assert!(!digest.has_text);
        // Skipped parts are still validated: a bad skipped value is not taken.
        let bad = line.replace(r#""input":1"#, r#""input":01"#);
        assert!(skim_line(bad.as_bytes()).is_none());
    }

    #[test]
    fn leading_whitespace_is_kept_through_the_first_text() {
        for body in [
            format!("{}x{}", " ".repeat(1500), "y".repeat(3000)),
            format!("{}x{}", "\\n".repeat(1500), "\\t".repeat(3000)),
            " ".repeat(5000),
        ] {
            let line = format!(
                r#"{{"type":"message","message":{{"role":"assistant","content":[{{"type":"text","text":"{body}"}}]}}}}"#
            );
            assert_digest_is_whole(&line);
            let line = format!(r#"{{"type":"custom","data":{{"x":{{"y":"{body}"}}}}}}"#);
            let skimmed = skim(&line);
            let kept = skimmed.object["data"]["x"]["y"].as_str().unwrap();
            let full = whole(&line)["data"]["x"]["y"].as_str().unwrap().to_owned();
            assert_eq!(kept.trim().is_empty(), full.trim().is_empty(), "{kept:?}");
        }
    }

    #[test]
    fn unusual_lines_are_not_taken() {
        for line in [
            "[1,2]",
            r#"{"a":1} x"#,
            "{\"a\":\t1}",
            "{\"a\":\"x\u{1}y\"}",
            r#"{"a\u0062":1}"#,
            r#"{"a":"\ud83d"}"#,
            r#"{"a":1e999}"#,
            // A repeated key in a message or block, or a message on another type of entry.
            r#"{"type":"message","message":{"role":"user","role":"assistant"}}"#,
            r#"{"type":"message","message":{"content":[{"type":"text","type":"text"}]}}"#,
            r#"{"type":"message","message":{},"message":{}}"#,
            r#"{"type":"custom","message":{"role":"user"}}"#,
        ] {
            assert!(skim_line(line.as_bytes()).is_none(), "{line}");
        }
    }

    #[test]
    fn repeated_keys_keep_the_first_place_and_last_value() {
        let line = r#"{"a":1,"b":2,"a":3}"#;
        assert_eq!(skim(line).object, whole(line));
    }

    /// Text of any length as it stands between a JSON string's quotes: white space (a run
    /// longer than a kept prefix included), escapes, characters of one to four bytes.
    fn any_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just(" ".to_owned()),
            Just(r"\n\t".to_owned()),
            Just(r"\u00e9\u2028".to_owned()),
            Just(" ".repeat(1500)),
            Just("é".to_owned()),
            Just("😀".to_owned()),
            Just(r#"\"quoted\""#.to_owned()),
            "[a-z]{1,40}",
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        /// The digest's text and `has_text`, read off the line without unescaping more than
        /// its head (`text_head`), are those of the whole message, over several blocks.
        #[test]
        fn a_texts_head_is_the_whole_messages(
            texts in proptest::collection::vec((any_text(), 0..3u8), 1..5),
            as_string in proptest::bool::ANY,
        ) {
            let content = if as_string {
                format!("\"{}\"", texts[0].0)
            } else {
                let blocks: Vec<String> = texts
                    .iter()
                    .map(|(t, kind)| {
                        let ty = ["text", "thinking", "image"][usize::from(*kind)];
                        format!(r#"{{"type":"{ty}","text":"{t}"}}"#)
                    })
                    .collect();
                format!("[{}]", blocks.join(","))
            };
            let line = format!(
                r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00Z","message":{{"role":"toolResult","content":{content}}}}}"#
            );
            let skimmed = skim(&line);
            let w = whole(&line);
            let message = w["message"].as_object().expect("an object");
            let (_, digest) = skimmed.message.expect("a digest");
            proptest::prop_assert_eq!(digest, MessageDigest::of(message));
        }
    }
}
