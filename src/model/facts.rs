//! What a listing reads from one entry: the facts [`super::info::InfoBuilder`] builds a
//! session's listing from, whether they come from a parsed entry or the scanner.

use serde_json::Value;

use super::entry::{Entry, EntryKind, content_text};

/// `usage` of an entry or message: `totalTokens` and `cost.total` when they are numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UsageFacts {
    pub total_tokens: Option<f64>,
    pub cost_total: Option<f64>,
}

impl UsageFacts {
    pub fn from_value(u: &Value) -> Self {
        UsageFacts {
            total_tokens: u.get("totalTokens").and_then(Value::as_f64),
            cost_total: u
                .get("cost")
                .and_then(|c| c.get("total"))
                .and_then(Value::as_f64),
        }
    }
}

/// What a listing takes from a `message` entry's `message` object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageFacts<'a> {
    /// `role` when it is a string.
    pub role: Option<&'a str>,
    /// `timestamp` when it is a number.
    pub timestamp: Option<f64>,
    /// `usage`, when present.
    pub usage: Option<UsageFacts>,
    /// Whether the object has a `content` key (whatever its value).
    pub has_content: bool,
    /// [`content_text`] of `content`; only needed for user and assistant messages.
    pub text: Option<&'a str>,
    /// grove: the [`tool_call_text`] of each `toolCall` block of `content`, one a line.
    pub tools: Option<&'a str>,
    /// `stopReason` and the model (`responseModel`, else `model`) when strings.
    pub stop_reason: Option<&'a str>,
    pub model: Option<&'a str>,
}

/// Everything [`InfoBuilder`] reads from one entry. Built from a parsed [`Entry`]
/// ([`EntryFacts::of_entry`]) or directly by a scanner that skips what is not listed here, so
/// both paths share one set of listing rules.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryFacts<'a> {
    pub kind: EntryKind,
    /// `id` ("" when missing or not a string).
    pub id: &'a str,
    /// `parentId` when it is a string.
    pub parent_id: Option<&'a str>,
    /// `timestamp` when it is a string.
    pub timestamp: Option<&'a str>,
    /// The `message` object of a `message` entry.
    pub message: Option<MessageFacts<'a>>,
    /// `name` when it is a string (`session_info`).
    pub name: Option<&'a str>,
    /// `targetId` and `label` when they are strings (`label`).
    pub target_id: Option<&'a str>,
    pub label: Option<&'a str>,
    /// Entry-level `usage` (`compaction`, `branch_summary`).
    pub usage: Option<UsageFacts>,
    /// `details.strategy` when it is a string (`compaction`).
    pub strategy: Option<&'a str>,
    /// `summary` and `summarizedThroughId` when strings (`session_summary`).
    pub summary: Option<&'a str>,
    pub summarized_through_id: Option<&'a str>,
}

impl<'a> EntryFacts<'a> {
    /// Facts with every optional field empty.
    pub fn new(kind: EntryKind) -> Self {
        EntryFacts {
            kind,
            id: "",
            parent_id: None,
            timestamp: None,
            message: None,
            name: None,
            target_id: None,
            label: None,
            usage: None,
            strategy: None,
            summary: None,
            summarized_through_id: None,
        }
    }

    /// The facts of a parsed entry; `text_buf` holds the joined message text they borrow.
    /// Reads the entry as loaded: a slim entry (never one of the listing's own, which are
    /// whole) gives its message's role and whether it has content, but no text, time or usage,
    /// which agent detection does not need.
    pub fn of_entry(e: &'a Entry, text_buf: &'a mut Option<String>) -> Self {
        let str_of = |v: Option<&'a Value>| v.and_then(Value::as_str);
        let raw = e.slim();
        let message = if e.is_slim() {
            e.digest().map(|d| MessageFacts {
                role: e.role(),
                has_content: d.has_content,
                ..MessageFacts::default()
            })
        } else {
            let whole = raw.get("message").and_then(Value::as_object);
            whole.filter(|_| e.kind == EntryKind::Message).map(|m| {
                let role = str_of(m.get("role"));
                if matches!(role, Some("user" | "assistant")) {
                    *text_buf = content_text(m.get("content"));
                }
                MessageFacts {
                    role,
                    timestamp: m.get("timestamp").and_then(Value::as_f64),
                    usage: m.get("usage").map(UsageFacts::from_value),
                    has_content: m.contains_key("content"),
                    text: text_buf.as_deref(),
                    tools: None,
                    stop_reason: str_of(m.get("stopReason")),
                    model: str_of(m.get("responseModel")).or(str_of(m.get("model"))),
                }
            })
        };
        EntryFacts {
            kind: e.kind,
            id: &e.id,
            parent_id: e.parent_id.as_deref(),
            timestamp: e.str_field("timestamp"),
            message,
            name: str_of(raw.get("name")),
            target_id: str_of(raw.get("targetId")),
            label: str_of(raw.get("label")),
            usage: raw.get("usage").map(UsageFacts::from_value),
            strategy: raw
                .get("details")
                .and_then(|d| d.get("strategy"))
                .and_then(Value::as_str),
            summary: str_of(raw.get("summary")),
            summarized_through_id: str_of(raw.get("summarizedThroughId")),
        }
    }
}

/// Which message text a parse gathers ([`crate::model::info::InfoBuilder::gather`]): a fast
/// reader may skip over what the builder would drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gather {
    /// User and assistant text and tool calls.
    All,
    /// User text only (the first user message is not known yet).
    FirstUserText,
    /// No message text.
    Nothing,
}
