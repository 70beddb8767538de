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

use std::sync::Arc;

use serde_json::Value;

use super::entry::kind::{JsonMap, Role};

/// How many characters of a message's text rows and search read (pi `extractContent`).
pub const TEXT_CHARS: usize = 200;

/// A tool call remembered to label its result (`[read: path]`): its name and what
/// `flatten::format_tool_call` shows of its arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolCall {
    pub name: Box<str>,
    /// For the tools shown by their arguments (`read`, `bash`, …): `path`, `file_path`,
    /// `command` and `pattern` as text (a string cut at [`ARG_BYTES`], another value as the
    /// first [`ARG_JSON_CHARS`] characters of its JSON), `None` when missing, null or empty.
    pub path: Option<Box<str>>,
    pub file_path: Option<Box<str>>,
    pub command: Option<Box<str>>,
    pub pattern: Option<Box<str>>,
    /// `offset` and `limit` when integers (`read`).
    pub offset: Option<i64>,
    pub limit: Option<i64>,
    /// For any other tool: the first [`JSON_HEAD_CHARS`] characters of the arguments as JSON
    /// (`{}` when there are none), enough to show 40 and tell whether there is more.
    pub json_head: Box<str>,
}

/// How much of an argument's text a [`ToolCall`] keeps: rows show a path, a command's first
/// 50 characters or 40 characters of JSON, so a `write` call's 50 KB content is never copied.
pub const ARG_BYTES: usize = 1024;
/// How many characters of the JSON of a named argument that is not a string a [`ToolCall`]
/// keeps (fewer than a slim entry's shortened strings hold, so slim and whole read the same).
pub const ARG_JSON_CHARS: usize = 200;
/// How many characters of an unknown tool's arguments a [`ToolCall`] keeps.
pub const JSON_HEAD_CHARS: usize = 41;

/// The tools whose rows show named arguments rather than JSON.
const NAMED_ARG_TOOLS: &[&str] = &["read", "write", "edit", "bash", "grep", "find", "ls"];

impl ToolCall {
    /// A call of tool `name` with `arguments` (any JSON value; `Null` when missing).
    pub fn of(name: &str, arguments: &Value) -> ToolCall {
        let mut call = ToolCall {
            name: name.into(),
            ..ToolCall::default()
        };
        if !NAMED_ARG_TOOLS.contains(&name) {
            call.json_head = if arguments.is_null() {
                "{}".into()
            } else {
                json_head(arguments, JSON_HEAD_CHARS).into()
            };
            return call;
        }
        let text = |key: &str| -> Option<Box<str>> {
            let t = match arguments.get(key)? {
                Value::Null => return None,
                Value::String(s) => s[..floor_char_boundary(s, ARG_BYTES)].to_owned(),
                other => json_head(other, ARG_JSON_CHARS),
            };
            (!t.is_empty()).then(|| t.into_boxed_str())
        };
        call.path = text("path");
        call.file_path = text("file_path");
        call.command = text("command");
        call.pattern = text("pattern");
        call.offset = arguments.get("offset").and_then(Value::as_i64);
        call.limit = arguments.get("limit").and_then(Value::as_i64);
        call
    }
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut end = at.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The first `chars` characters of `v` as JSON, serialized only that far.
fn json_head(v: &Value, chars: usize) -> String {
    /// Takes bytes until it holds enough for `chars` characters, then refuses the rest,
    /// which stops the serializer.
    struct Head {
        bytes: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Head {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = self.limit - self.bytes.len();
            if room == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let n = buf.len().min(room);
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // A character is at most 4 bytes.
    let mut head = Head {
        bytes: Vec::new(),
        limit: chars * 4,
    };
    // Stopping early is the point: the error only says the head is full.
    let _ = serde_json::to_writer(&mut head, v);
    let valid = match std::str::from_utf8(&head.bytes) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head.bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    valid.chars().take(chars).collect()
}

/// The fields whose values repeat from message to message (a provider, a model, a stop
/// reason, a tool's name): [`shared`] hands out one copy of each.
const REPEATING: [&str; 4] = ["provider", "model", "stopReason", "toolName"];
/// Values of [`REPEATING`] fields kept per thread.
const SHARED_VALUES: usize = 32;

thread_local! {
    static SHARED: std::cell::RefCell<Vec<Arc<str>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The value of the digest's string field `key`: for a field whose values repeat, a copy this
/// thread already holds when it has one (a large session has hundreds of thousands of
/// messages naming a few models), else a new one.
pub fn shared(key: &str, value: &str) -> Arc<str> {
    if !REPEATING.contains(&key) || value.len() > 64 {
        return Arc::from(value);
    }
    SHARED.with(|cell| {
        let mut values = cell.borrow_mut();
        if let Some(v) = values.iter().find(|v| &***v == value) {
            return Arc::clone(v);
        }
        let v: Arc<str> = Arc::from(value);
        if values.len() >= SHARED_VALUES {
            values.remove(0);
        }
        values.push(Arc::clone(&v));
        v
    })
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
    pub stop_reason: Option<Arc<str>>,
    pub error_message: Option<Arc<str>>,
    pub tool_call_id: Option<Arc<str>>,
    pub tool_name: Option<Arc<str>>,
    pub command: Option<Arc<str>>,
    pub provider: Option<Arc<str>>,
    pub model: Option<Arc<str>>,
    /// The tool calls of an assistant message, by id, in order.
    /// Shared: the tree's map of calls by id points at these rather than copying them.
    pub tool_calls: Vec<(Arc<str>, Arc<ToolCall>)>,
}

impl MessageDigest {
    /// The string fields of a message a digest keeps as they are.
    pub const STRING_FIELDS: [&'static str; 7] = [
        "stopReason",
        "errorMessage",
        "toolCallId",
        "toolName",
        "command",
        "provider",
        "model",
    ];

    /// Where the digest keeps the message field `key` of [`MessageDigest::STRING_FIELDS`].
    pub fn string_field_mut(&mut self, key: &str) -> Option<&mut Option<Arc<str>>> {
        Some(match key {
            "stopReason" => &mut self.stop_reason,
            "errorMessage" => &mut self.error_message,
            "toolCallId" => &mut self.tool_call_id,
            "toolName" => &mut self.tool_name,
            "command" => &mut self.command,
            "provider" => &mut self.provider,
            "model" => &mut self.model,
            _ => return None,
        })
    }

    /// The digest of a `message` object (whole, or as a slim entry keeps it: both give the
    /// same digest, since a slim object keeps every field read here and the first 1 KiB of
    /// each text, more than the [`TEXT_CHARS`] read).
    pub fn of(m: &JsonMap) -> MessageDigest {
        let role = m.get("role").and_then(Value::as_str);
        let content = m.get("content");
        let mut digest = MessageDigest {
            other_role: role
                .filter(|r| Role::of_str(r) == Role::Other)
                .map(Box::from),
            has_content: content.is_some(),
            content_is_null: content.is_some_and(Value::is_null),
            text: extract_content(content).into_boxed_str(),
            has_text: has_text_content(content),
            tool_calls: if role == Some("assistant") {
                tool_calls_of(content)
            } else {
                Vec::new()
            },
            ..MessageDigest::default()
        };
        for key in Self::STRING_FIELDS {
            if let Some(slot) = digest.string_field_mut(key) {
                *slot = m.get(key).and_then(Value::as_str).map(|v| shared(key, v));
            }
        }
        digest
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
        // A copy to take the fields from (a stand-in is rare: the file changed under a view).
        let mut fields = self.clone();
        for key in Self::STRING_FIELDS {
            if let Some(v) = fields.string_field_mut(key).and_then(Option::take) {
                m.insert(key.into(), Value::String(v.to_string()));
            }
        }
        m
    }
}

/// The tool calls of a message `content`, by id.
fn tool_calls_of(content: Option<&Value>) -> Vec<(Arc<str>, Arc<ToolCall>)> {
    let Some(Value::Array(blocks)) = content else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .filter_map(|b| {
            let id = b.get("id").and_then(Value::as_str)?;
            let name = b.get("name").and_then(Value::as_str).unwrap_or("");
            let arguments = b.get("arguments").unwrap_or(&Value::Null);
            Some((Arc::from(id), Arc::new(ToolCall::of(name, arguments))))
        })
        .collect()
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
        assert_eq!(&*d.tool_calls[0].0, "c1");
        assert_eq!(d.tool_calls[0].1.path.as_deref(), Some("a"));
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
    fn tool_calls_keep_only_what_their_row_shows() {
        let write = ToolCall::of(
            "write",
            &json!({"path": "f", "content": "x".repeat(50_000)}),
        );
        assert_eq!(write.path.as_deref(), Some("f"));
        assert_eq!(write.json_head.len(), 0);
        let bash = ToolCall::of("bash", &json!({"command": "é".repeat(5000)}));
        assert_eq!(bash.command.as_deref().map(str::len), Some(ARG_BYTES));
        let odd = ToolCall::of(
            "read",
            &json!({"path": {"a": 1}, "offset": 5, "limit": "x"}),
        );
        assert_eq!(odd.path.as_deref(), Some(r#"{"a":1}"#));
        assert_eq!((odd.offset, odd.limit), (Some(5), None));
        let other = ToolCall::of("mcp", &json!({"q": "ü".repeat(100)}));
        assert_eq!(other.json_head.chars().count(), JSON_HEAD_CHARS);
        assert!(other.json_head.starts_with(r#"{"q":"üü"#));
        assert_eq!(&*ToolCall::of("mcp", &Value::Null).json_head, "{}");
        assert_eq!(&*ToolCall::of("mcp", &json!([1])).json_head, "[1]");
    }
}
