//! What the session view reads of a `message` entry's `message` object, taken out once when
//! the entry is loaded ([`MessageDigest`]).
//!
//! The tree's rows, its search and its filters look at every entry, per filter change and
//! keystroke, but only at a few fields of each message: the first 200 characters of its text,
//! whether it holds any text, a handful of short fields and its tool calls cut for display.
//! Reading those out of the JSON object once makes the views cheap, and lets a large session
//! loaded slim (see [`super::entry`]) keep just this digest instead of the message's JSON:
//! a few allocations per entry instead of dozens, which is most of what opening a 1 GB session
//! costs. Everything here is computed from the JSON by the functions below, for whole and slim
//! entries alike, so both read the same.

use serde_json::Value;

use super::entry::JsonMap;

/// How many characters of a message's text rows and search read (pi `extractContent`).
pub const TEXT_CHARS: usize = 200;

/// A tool call remembered to label its result (`[read: path]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub name: String,
    /// The arguments cut for display ([`compact_args`]).
    pub arguments: Value,
}

/// The fields of a `message` object the tree's views read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageDigest {
    /// `role` when it is a string the entry's [`super::entry::Role`] does not name.
    pub other_role: Option<Box<str>>,
    /// Whether there is a `content` key, and whether its value is `null`.
    pub has_content: bool,
    pub content_is_null: bool,
    /// [`extract_content`] of `content`: its first [`TEXT_CHARS`] characters of text.
    pub text: Box<str>,
    /// [`has_text_content`] of `content`.
    pub has_text: bool,
    pub stop_reason: Option<Box<str>>,
    pub error_message: Option<Box<str>>,
    pub tool_call_id: Option<Box<str>>,
    pub tool_name: Option<Box<str>>,
    pub command: Option<Box<str>>,
    pub provider: Option<Box<str>>,
    pub model: Option<Box<str>>,
    /// The tool calls of an assistant message, by id, in order.
    pub tool_calls: Vec<(String, ToolCall)>,
}

impl MessageDigest {
    /// The digest of a `message` object (whole, or as a slim entry keeps it: both give the
    /// same digest, since a slim object keeps every field read here and the first 1 KiB of
    /// each text, more than the [`TEXT_CHARS`] read).
    pub fn of(m: &JsonMap) -> MessageDigest {
        let s = |k: &str| m.get(k).and_then(Value::as_str).map(Box::from);
        let role = m.get("role").and_then(Value::as_str);
        let content = m.get("content");
        MessageDigest {
            other_role: role
                .filter(|r| super::entry::Role::of_str(r) == super::entry::Role::Other)
                .map(Box::from),
            has_content: content.is_some(),
            content_is_null: content.is_some_and(Value::is_null),
            text: extract_content(content).into_boxed_str(),
            has_text: has_text_content(content),
            stop_reason: s("stopReason"),
            error_message: s("errorMessage"),
            tool_call_id: s("toolCallId"),
            tool_name: s("toolName"),
            command: s("command"),
            provider: s("provider"),
            model: s("model"),
            tool_calls: if role == Some("assistant") {
                tool_calls_of(content)
            } else {
                Vec::new()
            },
        }
    }
}

impl MessageDigest {
    /// A `message` object holding what the digest kept (the text cut to [`TEXT_CHARS`]
    /// characters): it stands in for a message that can no longer be read whole.
    pub fn stand_in(&self, role: Option<&str>) -> JsonMap {
        let mut m = JsonMap::new();
        if let Some(role) = role {
            m.insert("role".into(), Value::String(role.to_owned()));
        }
        if self.has_content {
            let content = if self.content_is_null {
                Value::Null
            } else {
                Value::String(self.text.to_string())
            };
            m.insert("content".into(), content);
        }
        let fields = [
            ("stopReason", &self.stop_reason),
            ("errorMessage", &self.error_message),
            ("toolCallId", &self.tool_call_id),
            ("toolName", &self.tool_name),
            ("command", &self.command),
            ("provider", &self.provider),
            ("model", &self.model),
        ];
        for (key, value) in fields {
            if let Some(v) = value {
                m.insert(key.into(), Value::String(v.to_string()));
            }
        }
        m
    }
}

/// The tool calls of a message `content`, by id.
fn tool_calls_of(content: Option<&Value>) -> Vec<(String, ToolCall)> {
    let Some(Value::Array(blocks)) = content else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .filter_map(|b| {
            let id = b.get("id").and_then(Value::as_str)?;
            let name = b.get("name").and_then(Value::as_str).unwrap_or("");
            let arguments = b
                .get("arguments")
                .map_or(Value::Null, |a| compact_args(a, 0));
            Some((
                id.to_owned(),
                ToolCall {
                    name: name.to_owned(),
                    arguments,
                },
            ))
        })
        .collect()
}

/// A bounded copy of tool-call arguments: rows show a path, a command or the first 40 characters
/// of the JSON, so a `write` call's 50 KB content need not be copied for every call of a big
/// session.
fn compact_args(v: &Value, depth: usize) -> Value {
    const MAX_STR: usize = 1024;
    const MAX_ITEMS: usize = 16;
    match v {
        Value::String(s) if s.len() > MAX_STR => {
            let mut end = MAX_STR;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            Value::String(s[..end].to_owned())
        }
        Value::Array(a) if depth < 4 => Value::Array(
            a.iter()
                .take(MAX_ITEMS)
                .map(|x| compact_args(x, depth + 1))
                .collect(),
        ),
        Value::Object(o) if depth < 4 => Value::Object(
            o.iter()
                .take(MAX_ITEMS * 2)
                .map(|(k, x)| (k.clone(), compact_args(x, depth + 1)))
                .collect(),
        ),
        Value::Array(_) | Value::Object(_) => Value::Null,
        other => other.clone(),
    }
}

/// Whether a `content` holds any text that is not blank.
pub fn has_text_content(content: Option<&Value>) -> bool {
    match content {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(blocks)) => blocks.iter().any(|b| {
            b.get("type").and_then(Value::as_str) == Some("text")
                && b.get("text")
                    .and_then(Value::as_str)
                    .is_some_and(|t| !t.trim().is_empty())
        }),
        _ => false,
    }
}

/// pi `extractContent`: the text (string, or text blocks concatenated) cut at [`TEXT_CHARS`]
/// characters.
pub fn extract_content(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.chars().take(TEXT_CHARS).collect(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for b in blocks {
                if b.get("type").and_then(Value::as_str) == Some("text")
                    && let Some(t) = b.get("text").and_then(Value::as_str)
                {
                    out.push_str(t);
                    if out.chars().count() >= TEXT_CHARS {
                        return out.chars().take(TEXT_CHARS).collect();
                    }
                }
            }
            out
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn digest(v: Value) -> MessageDigest {
        MessageDigest::of(v.as_object().expect("object"))
    }

    #[test]
    fn reads_text_fields_and_tool_calls() {
        let d = digest(json!({
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "  "},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}},
                {"type": "toolCall", "name": "no id"},
            ],
            "stopReason": "toolUse",
            "provider": "p",
            "model": "m",
        }));
        assert_eq!(d.other_role, None);
        assert!(d.has_content && !d.content_is_null && !d.has_text);
        assert_eq!(&*d.text, "  ");
        assert_eq!(d.stop_reason.as_deref(), Some("toolUse"));
        assert_eq!(
            (d.provider.as_deref(), d.model.as_deref()),
            (Some("p"), Some("m"))
        );
        assert_eq!(d.tool_calls.len(), 1);
        assert_eq!(d.tool_calls[0].0, "c1");
        assert_eq!(d.tool_calls[0].1.arguments, json!({"path": "a"}));
    }

    #[test]
    fn keeps_an_unknown_role_and_tells_null_content_from_none() {
        let d = digest(json!({"role": "weird", "content": null}));
        assert_eq!(d.other_role.as_deref(), Some("weird"));
        assert!(d.has_content && d.content_is_null);
        let d = digest(json!({"role": "user"}));
        assert!(!d.has_content && d.other_role.is_none());
        assert!(d.tool_calls.is_empty());
    }

    #[test]
    fn text_is_cut_at_200_characters() {
        let long = "é".repeat(300);
        let d = digest(json!({"role": "user", "content": long}));
        assert_eq!(d.text.chars().count(), TEXT_CHARS);
        let d = digest(json!({"role": "user", "content": [
            {"type": "text", "text": "a".repeat(150)},
            {"type": "text", "text": "b".repeat(150)},
        ]}));
        assert_eq!(d.text.chars().count(), TEXT_CHARS);
        assert!(d.text.ends_with('b'));
    }

    #[test]
    fn tool_call_arguments_are_bounded() {
        let d = digest(json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": "w", "name": "write",
             "arguments": {"path": "f", "content": "x".repeat(50_000)}},
        ]}));
        let args = &d.tool_calls[0].1.arguments;
        assert_eq!(args["content"].as_str().map(str::len), Some(1024));
    }
}
