//! One line of a file parsed: into a JSON object whole, repairing what can be repaired, or
//! slim (what [`crate::model::scan::skim::skim_line`] makes of it).

use serde_json::Value;

use super::issue::{IssueKind, ParseIssue};
use crate::model::digest::MessageDigest;
use crate::model::entry::kind::{JsonMap, Role};

/// One line of a file: where it starts, its number, and its bytes without the `\n`.
pub struct RawLine<'a> {
    pub offset: u64,
    pub number: usize,
    pub bytes: &'a [u8],
    /// False only for a last line that is not terminated by `\n`.
    pub terminated: bool,
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

/// A line parsed slim.
#[derive(Clone, Debug, PartialEq)]
pub struct Skimmed {
    /// The object, without `message` when that was read into `message`.
    pub object: JsonMap,
    /// A `message` entry's message: the role it names and its digest.
    pub message: Option<(Role, MessageDigest)>,
    /// Whether anything was left out (the message, or part of a long string).
    pub elided: bool,
}
