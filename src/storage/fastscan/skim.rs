//! Slim parsing of lines for large sessions (see [`crate::model::entry`]): the line is walked
//! with the listing scan's validating [`Cursor`], building the same `serde_json` object a full
//! parse builds, minus what the tree never looks at: a `message` keeps only
//! [`MESSAGE_KEEPS`], its content blocks only [`BLOCK_KEEPS`] (so images and thinking are
//! validated and skipped, never built), and a long string in a place that may be shortened
//! keeps only its first [`ELIDE_KEEP`] bytes and is never copied or unescaped beyond them.
//!
//! The rules the cursor follows (module docs of [`super`]) make it take a line only when
//! serde_json would take it too, and give up (`None`) on anything unusual; such a line is then
//! parsed whole, so a slim parse can only ever differ from the full one in what the rule leaves
//! out. `tests/slim_load.rs` checks exactly that, and that the tree's rows, its search and the
//! context read the same from slim entries as from whole ones.

use serde_json::Value;

use super::Cursor;
use crate::model::entry::{ELIDE_KEEP, ELIDE_OVER, JsonMap};
use crate::model::parse::SlimParser;

/// The slim parser of [`crate::storage::read::load_session`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SkimParser;

impl SlimParser for SkimParser {
    fn parse_slim(&self, bytes: &[u8]) -> Option<(JsonMap, bool)> {
        skim_line(bytes)
    }
}

/// The fields of a `message` a slim entry keeps: what rows, tree search, tool-call labels and
/// the model replay read.
pub const MESSAGE_KEEPS: &[&str] = &[
    "role",
    "content",
    "stopReason",
    "errorMessage",
    "toolCallId",
    "toolName",
    "command",
    "provider",
    "model",
    "customType",
];

/// The fields of a content block a slim entry keeps: text, and tool calls.
pub const BLOCK_KEEPS: &[&str] = &["type", "text", "id", "name", "arguments"];

/// Where a value sits, which decides what of it is kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The line's object.
    Root,
    /// The top-level `message` object.
    Message,
    /// The `content` array of the message.
    Content,
    /// A block of that array.
    Block,
    /// Anything else.
    Other,
}

/// Parses one line slim: the object and whether anything was left out; `None` when the line
/// is not taken (it must then be parsed whole).
pub fn skim_line(bytes: &[u8]) -> Option<(JsonMap, bool)> {
    // Checks UTF-8 and rules out control characters, which the cursor's readers rely on.
    let mut cur = Cursor::new(bytes)?;
    cur.ws();
    if cur.peek()? != b'{' {
        return None;
    }
    let mut elided = false;
    let map = object(&mut cur, 0, Place::Root, &mut elided)?;
    cur.ws();
    (cur.i == bytes.len()).then_some((map, elided))
}

/// Strings that may be shortened: the `content` of the top-level `message`, and anything
/// nested deeper than a top-level field's direct children. `level` is the value's
/// nesting (top-level fields are level 1).
fn may_shorten(level: u32, parent: Place, key: Option<&str>) -> bool {
    level >= 3 || (parent == Place::Message && key == Some("content"))
}

fn value<'a>(
    c: &mut Cursor<'a>,
    level: u32,
    place: Place,
    shorten: bool,
    elided: &mut bool,
) -> Option<Value> {
    match c.peek()? {
        b'"' if shorten => {
            let (text, was_shortened) = string_maybe_shortened(c)?;
            *elided |= was_shortened;
            Some(Value::String(text))
        }
        b'"' => c.string().map(|s| Value::String(s.into_owned())),
        b'{' => object(c, level, place, elided).map(Value::Object),
        b'[' => {
            let item_place = if place == Place::Content {
                Place::Block
            } else {
                Place::Other
            };
            let mut items = Vec::new();
            c.array(|c| {
                items.push(value(
                    c,
                    level + 1,
                    item_place,
                    may_shorten(level + 1, Place::Other, None),
                    elided,
                )?);
                Some(())
            })?;
            Some(Value::Array(items))
        }
        b't' => c.literal(b"true").map(|()| Value::Bool(true)),
        b'f' => c.literal(b"false").map(|()| Value::Bool(false)),
        b'n' => c.literal(b"null").map(|()| Value::Null),
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
fn object<'a>(c: &mut Cursor<'a>, level: u32, place: Place, elided: &mut bool) -> Option<JsonMap> {
    let mut map = JsonMap::new();
    c.object(|c, key| {
        let keeps = match place {
            Place::Message => MESSAGE_KEEPS.contains(&key),
            Place::Block => BLOCK_KEEPS.contains(&key),
            _ => true,
        };
        if !keeps {
            *elided = true;
            return c.skip();
        }
        let child_place = match (place, key) {
            (Place::Root, "message") => Place::Message,
            (Place::Message, "content") => Place::Content,
            _ => Place::Other,
        };
        let shorten = may_shorten(level + 1, place, Some(key));
        let v = value(c, level + 1, child_place, shorten, elided)?;
        map.insert(key.to_owned(), v);
        Some(())
    })?;
    Some(map)
}

/// A string (at its opening quote): whole when its unescaped length is at most [`ELIDE_OVER`]
/// bytes, else its first [`ELIDE_KEEP`] bytes cut back to a character boundary.
fn string_maybe_shortened(c: &mut Cursor<'_>) -> Option<(String, bool)> {
    let (start, end, escaped) = c.skip_str()?;
    let inner = c.s.get(start..end)?;
    if !escaped {
        if inner.len() <= ELIDE_OVER {
            return Some((inner.to_owned(), false));
        }
        return Some((inner[..kept_len(inner)].to_owned(), true));
    }
    match unescaped_prefix(inner) {
        Some(prefix) => Some((prefix, true)),
        // Short after unescaping: the whole string.
        None => super::unescape(inner).map(|s| (s, false)),
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

    #[test]
    fn short_lines_come_out_whole() {
        let line = r#"{"type":"message","id":"a","parentId":null,"n":-1.5e3,"ok":true,"z":[1,{"k":"v\n"}],"message":{"role":"user","content":"hi \u00e9"}}"#;
        let (map, elided) = skim_line(line.as_bytes()).unwrap();
        assert!(!elided);
        assert_eq!(map, whole(line));
    }

    #[test]
    fn long_deep_strings_keep_a_prefix_and_top_level_ones_stay() {
        let long = "é".repeat(3000); // 6000 bytes
        let line = format!(
            r#"{{"type":"message","id":"a","summary":"{long}","message":{{"role":"user","command":"{long}","content":[{{"type":"text","text":"{long}"}}]}}}}"#
        );
        let (map, elided) = skim_line(line.as_bytes()).unwrap();
        assert!(elided);
        assert_eq!(map["summary"], Value::String(long.clone()));
        assert_eq!(map["message"]["command"], Value::String(long.clone()));
        let text = map["message"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(text.len(), ELIDE_KEEP);
        assert!(long.starts_with(text));
    }

    #[test]
    fn escaped_strings_are_measured_unescaped() {
        // 1500 escapes: 3000 bytes in the file, 1500 unescaped: kept whole.
        let s = "\\n".repeat(1500);
        let line = format!(r#"{{"type":"message","id":"a","message":{{"content":"{s}"}}}}"#);
        let (map, elided) = skim_line(line.as_bytes()).unwrap();
        assert!(!elided);
        assert_eq!(map, whole(&line));
        // Escapes straddling the cut: the prefix is the unescaped string's own prefix.
        let s = format!(
            "{}\\u00e9{}",
            "a".repeat(ELIDE_KEEP - 1),
            "\\t".repeat(3000)
        );
        let line = format!(r#"{{"type":"message","id":"a","message":{{"content":"{s}"}}}}"#);
        let (map, elided) = skim_line(line.as_bytes()).unwrap();
        assert!(elided);
        let full = whole(&line)["message"]["content"]
            .as_str()
            .unwrap()
            .to_owned();
        let kept = map["message"]["content"].as_str().unwrap();
        assert_eq!(kept, &full[..kept_len(&full)]);
        assert_eq!(kept.len(), ELIDE_KEEP - 1);
    }

    #[test]
    fn images_thinking_and_usage_are_skipped() {
        let line = r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"toolCall","id":"t","name":"bash","arguments":{"command":"ls"}}],"usage":{"input":1,"cost":{"total":2}},"stopReason":"toolUse","timestamp":5}}"#;
        let (map, elided) = skim_line(line.as_bytes()).unwrap();
        assert!(elided);
        let expected = whole(
            r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"thinking"},{"type":"image"},{"type":"toolCall","id":"t","name":"bash","arguments":{"command":"ls"}}],"stopReason":"toolUse"}}"#,
        );
        assert_eq!(map, expected);
        // Skipped parts are still validated: a bad skipped value is not taken.
        let bad = line.replace(r#""input":1"#, r#""input":01"#);
        assert!(skim_line(bad.as_bytes()).is_none());
    }

    #[test]
    fn leading_whitespace_is_kept_through_the_first_text() {
        for body in [
            format!("{}x{}", " ".repeat(1500), "y".repeat(3000)),
            format!("{}x{}", "\\n".repeat(1500), "\\t".repeat(3000)),
        ] {
            let line = format!(r#"{{"type":"message","id":"a","message":{{"content":"{body}"}}}}"#);
            let (map, elided) = skim_line(line.as_bytes()).unwrap();
            assert!(elided);
            let kept = map["message"]["content"].as_str().unwrap();
            assert!(
                kept.ends_with('x') && kept.trim_end_matches('x').trim().is_empty(),
                "{kept:?}"
            );
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
        ] {
            assert!(skim_line(line.as_bytes()).is_none(), "{line}");
        }
    }

    #[test]
    fn repeated_keys_keep_the_first_place_and_last_value() {
        let line = r#"{"a":1,"b":2,"a":3}"#;
        assert_eq!(skim_line(line.as_bytes()).unwrap().0, whole(line));
    }
}
