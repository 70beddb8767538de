//! What a row says and what search sees: an entry's one-line text, its searchable text, and
//! the query tokens.

use serde_json::Value;

use crate::model::digest::extract_content;
use crate::model::entry::{Entry, EntryKind, Role};
use crate::model::tree::Session;
use crate::text::sanitize::sanitize_line;

use super::types::{RowStyle, RowText, ToolCall, ToolCalls};

fn opt<S: std::ops::Deref<Target = str>>(f: &Option<S>) -> Option<&str> {
    f.as_deref()
}

/// pi `normalize`: newlines and tabs to spaces, trimmed.
pub(super) fn normalize(s: &str) -> String {
    s.replace(['\n', '\t'], " ").trim().to_owned()
}

/// A query as pi's tree search reads it: lower-cased, split at white space; a text matches
/// when it holds every token.
pub fn search_tokens(query: &str) -> Vec<String> {
    query
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Whether lower-cased `text` holds every token of [`search_tokens`].
pub fn contains_all(text: &str, tokens: &[String]) -> bool {
    tokens.iter().all(|t| text.contains(t.as_str()))
}

/// The text pi's tree search matches against (`getSearchableText`).
pub fn searchable_text(session: &Session, e: &Entry) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(l) = session.tree.labels.get(&e.id) {
        parts.push(l.text.clone());
    }
    let s = |k: &str| e.str_field(k).unwrap_or("").to_owned();
    match e.kind {
        EntryKind::Message => {
            if let Some(d) = e.digest() {
                parts.push(e.role().unwrap_or("").to_owned());
                if d.has_content && !d.content_is_null {
                    parts.push(d.text.to_string());
                }
                if e.role == Role::BashExecution
                    && let Some(cmd) = &d.command
                {
                    parts.push(cmd.to_string());
                }
            }
        }
        EntryKind::CustomMessage => {
            parts.push(s("customType"));
            parts.push(match e.slim().get("content") {
                Some(Value::String(t)) => t.clone(),
                other => extract_content(other),
            });
        }
        EntryKind::Compaction => parts.push("compaction".into()),
        EntryKind::BranchSummary => {
            parts.push("branch summary".into());
            parts.push(s("summary"));
        }
        EntryKind::SessionInfo => {
            parts.push("title".into());
            parts.push(s("name"));
        }
        EntryKind::SessionSummary => {
            parts.push("session summary".into());
            parts.push(s("summary"));
        }
        EntryKind::ModelChange => {
            parts.push("model".into());
            parts.push(s("modelId"));
        }
        EntryKind::ThinkingLevelChange => {
            parts.push("thinking".into());
            parts.push(s("thinkingLevel"));
        }
        EntryKind::Custom => {
            parts.push("custom".into());
            parts.push(s("customType"));
        }
        EntryKind::Label => {
            parts.push("label".into());
            parts.push(s("label"));
        }
        EntryKind::ContextEdit => {
            parts.push("context".into());
            parts.push(s("targetId"));
        }
        _ => parts.push(e.type_name().to_owned()),
    }
    parts.join(" ")
}

/// pi `formatToolCall`: `[read: ~/p:1-20]`, `[bash: cmd…]`, `[name: {json}…]`.
pub fn format_tool_call(call: &ToolCall, home: Option<&str>) -> String {
    // Unlike pi, only a whole folder is replaced: home `/home/al` leaves `/home/alice` alone.
    let shorten = |p: &str| -> String { crate::text::paths::shorten_home(p, home).into_owned() };
    let path_or = |default: &str| {
        let p = call.path.as_deref().or(call.file_path.as_deref());
        shorten(p.unwrap_or(default))
    };
    let path_or_here = || shorten(call.path.as_deref().unwrap_or("."));
    match &*call.name {
        "read" => {
            let mut display = path_or("");
            if call.offset.is_some() || call.limit.is_some() {
                let start = call.offset.unwrap_or(1);
                display.push_str(&format!(":{start}"));
                if let Some(l) = call.limit {
                    // Any numbers a file holds: never an overflow.
                    let end = start.saturating_add(l).saturating_sub(1);
                    display.push_str(&format!("-{end}"));
                }
            }
            format!("[read: {display}]")
        }
        "write" => format!("[write: {}]", path_or("")),
        "edit" => format!("[edit: {}]", path_or("")),
        "bash" => {
            let raw = opt(&call.command).unwrap_or("");
            let cmd: String = normalize(raw).chars().take(50).collect();
            let more = if raw.chars().count() > 50 { "..." } else { "" };
            format!("[bash: {cmd}{more}]")
        }
        "grep" => format!(
            "[grep: /{}/ in {}]",
            opt(&call.pattern).unwrap_or(""),
            path_or_here()
        ),
        "find" => format!(
            "[find: {} in {}]",
            opt(&call.pattern).unwrap_or(""),
            path_or_here()
        ),
        "ls" => format!("[ls: {}]", path_or_here()),
        name => {
            let json = &call.json_head;
            let cut: String = json.chars().take(40).collect();
            let more = if json.chars().count() > 40 { "..." } else { "" };
            format!("[{name}: {cut}{more}]")
        }
    }
}

/// The one-line text of an entry's row (pi `getEntryDisplayText`, plus Atomic and pi 1.6.0
/// types, and a visible tag for types pi leaves blank). Sanitised.
pub fn row_text(e: &Entry, tool_calls: &ToolCalls, home: Option<&str>) -> RowText {
    let mut t = RowText::default();
    let clean = |s: &str| sanitize_line(&normalize(s)).into_owned();
    let field = |k: &str| e.str_field(k).unwrap_or("");
    match e.kind {
        EntryKind::Message => {
            let Some(m) = e.digest() else {
                t.push(RowStyle::Dim, "[message]");
                return t;
            };
            match e.role {
                Role::User => {
                    t.push(RowStyle::UserLabel, "user: ");
                    t.push(RowStyle::Plain, clean(&m.text));
                }
                Role::Assistant => {
                    t.push(RowStyle::AssistantLabel, "assistant: ");
                    let text = clean(&m.text);
                    if !text.is_empty() {
                        t.push(RowStyle::Plain, text);
                    } else if opt(&m.stop_reason) == Some("aborted") {
                        t.push(RowStyle::Muted, "(aborted)");
                    } else if let Some(err) = opt(&m.error_message).filter(|s| !s.is_empty()) {
                        let err: String = normalize(err).chars().take(80).collect();
                        t.push(RowStyle::Error, sanitize_line(&err).into_owned());
                    } else {
                        t.push(RowStyle::Muted, "(no content)");
                    }
                }
                Role::ToolResult => {
                    let call = opt(&m.tool_call_id).and_then(|id| tool_calls.get(id));
                    let text = match call {
                        Some(c) => format_tool_call(c, home),
                        None => format!("[{}]", opt(&m.tool_name).unwrap_or("tool")),
                    };
                    t.push(RowStyle::Muted, sanitize_line(&text).into_owned());
                }
                Role::BashExecution => {
                    t.push(
                        RowStyle::Dim,
                        format!("[bash]: {}", clean(opt(&m.command).unwrap_or(""))),
                    );
                }
                _ => {
                    let role = e.role().unwrap_or("");
                    t.push(RowStyle::Dim, format!("[{}]", sanitize_line(role)));
                }
            }
        }
        EntryKind::CustomMessage => {
            // Cut like a message's text: a row never shows more, and a slim entry keeps more.
            let content = extract_content(e.slim().get("content"));
            t.push(
                RowStyle::CustomLabel,
                format!("[{}]: ", sanitize_line(field("customType"))),
            );
            t.push(RowStyle::Plain, clean(&content));
        }
        EntryKind::Compaction => {
            let tokens = e
                .slim()
                .get("tokensBefore")
                .and_then(Value::as_f64)
                .map_or("?".to_owned(), |n| {
                    format!("{}", (n / 1000.0).round() as i64)
                });
            t.push(
                RowStyle::Compaction,
                format!("[compaction: {tokens}k tokens]"),
            );
        }
        EntryKind::BranchSummary => {
            t.push(RowStyle::Warning, "[branch summary]: ");
            t.push(RowStyle::Plain, clean(field("summary")));
        }
        EntryKind::SessionSummary => {
            t.push(RowStyle::Warning, "[session summary]: ");
            t.push(RowStyle::Plain, clean(field("summary")));
        }
        EntryKind::ModelChange => {
            t.push(
                RowStyle::Dim,
                format!("[model: {}]", clean(field("modelId"))),
            );
        }
        EntryKind::ThinkingLevelChange => t.push(
            RowStyle::Dim,
            format!("[thinking: {}]", clean(field("thinkingLevel"))),
        ),
        EntryKind::Custom => {
            t.push(
                RowStyle::Dim,
                format!("[custom: {}]", clean(field("customType"))),
            );
        }
        EntryKind::Label => {
            let label = e.str_field("label").filter(|l| !l.is_empty());
            t.push(
                RowStyle::Dim,
                format!("[label: {}]", label.map_or("(cleared)".into(), clean)),
            );
        }
        EntryKind::SessionInfo => match e.str_field("name").map(str::trim) {
            Some(name) if !name.is_empty() => {
                t.push(RowStyle::Dim, format!("[title: {}]", clean(name)));
            }
            _ => {
                t.push(RowStyle::Dim, "[title: ");
                t.push(RowStyle::DimItalic, "empty");
                t.push(RowStyle::Dim, "]");
            }
        },
        EntryKind::ContextEdit => {
            let kind = match e.slim().get("replacement") {
                Some(Value::Object(_)) => "replace",
                _ => "omit",
            };
            t.push(
                RowStyle::Dim,
                format!("[context {kind}: {}]", clean(field("targetId"))),
            );
        }
        EntryKind::ContextWindowChange => {
            let w = e
                .slim()
                .get("contextWindow")
                .map_or(String::new(), Value::to_string);
            t.push(RowStyle::Dim, format!("[context window: {}]", clean(&w)));
        }
        EntryKind::Usage => t.push(RowStyle::Dim, "[usage]"),
        EntryKind::ContextCompaction | EntryKind::Other => {
            // pi shows a blank row; a visible tag tells what is there.
            t.push(RowStyle::Dim, format!("[{}]", clean(e.type_name())));
        }
    }
    t
}
