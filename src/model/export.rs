//! Exporting a branch: Markdown for people, JSONL for tools.
//!
//! Session text is untrusted: in Markdown every piece of it goes into a fenced block (with a
//! fence longer than any backtick run inside) after control characters are made visible, so
//! it renders as text and cannot inject markup or terminal sequences.

use serde_json::Value;

use super::context::SessionContext;
use super::entry::content_text;
use super::tree::Session;
use crate::text::sanitize::{sanitize_line, sanitize_multiline};

/// Session text for a heading or list item: sanitized, with every Markdown/HTML special
/// character backslash-escaped so it renders as the literal text.
pub fn inline_text(text: &str) -> String {
    let clean = sanitize_line(text);
    let mut out = String::with_capacity(clean.len() + 8);
    for c in clean.chars() {
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '['
                | ']'
                | '<'
                | '>'
                | '#'
                | '!'
                | '|'
                | '~'
                | '&'
                | '('
                | ')'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A fenced code block that no content can close early.
pub fn fenced(text: &str) -> String {
    let clean = sanitize_multiline(text, 4);
    let mut longest = 0;
    let mut run = 0;
    for c in clean.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}text\n{clean}\n{fence}\n")
}

fn message_body(m: &Value) -> String {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    match role {
        "assistant" => {
            let mut parts = Vec::new();
            if let Some(Value::Array(blocks)) = m.get("content") {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => parts.push(
                            b.get("text")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned(),
                        ),
                        Some("thinking") => parts.push(format!(
                            "(thinking) {}",
                            b.get("thinking").and_then(Value::as_str).unwrap_or("")
                        )),
                        Some("toolCall") => parts.push(format!(
                            "(tool call) {}",
                            super::transcript::tool_call_text(b)
                        )),
                        _ => {}
                    }
                }
            }
            parts.join("\n\n")
        }
        "bashExecution" => format!(
            "$ {}\n{}",
            m.get("command").and_then(Value::as_str).unwrap_or(""),
            m.get("output").and_then(Value::as_str).unwrap_or("")
        ),
        "branchSummary" | "compactionSummary" => m
            .get("summary")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        _ => {
            let mut text = content_text(m.get("content")).unwrap_or_default();
            if let Some(Value::Array(blocks)) = m.get("content") {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("image") {
                        text.push_str(&format!("\n{}", image_placeholder(b)));
                    }
                }
            }
            text
        }
    }
}

/// `[image: image/png, 48 KB]` for an image block.
pub fn image_placeholder(block: &Value) -> String {
    let mime = block
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("image");
    let b64 = block
        .get("data")
        .and_then(Value::as_str)
        .map_or(0, str::len);
    let bytes = b64 / 4 * 3;
    format!(
        "[image: {}, {} KB]",
        sanitize_line(mime),
        bytes.div_ceil(1024)
    )
}

fn heading(m: &Value) -> String {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("message");
    match role {
        "user" => "User".into(),
        "assistant" => format!(
            "Assistant ({})",
            inline_text(m.get("model").and_then(Value::as_str).unwrap_or("?"))
        ),
        "toolResult" => format!(
            "Tool result: {}",
            inline_text(m.get("toolName").and_then(Value::as_str).unwrap_or("tool"))
        ),
        "bashExecution" => "Bash".into(),
        "custom" => format!(
            "Custom: {}",
            inline_text(m.get("customType").and_then(Value::as_str).unwrap_or(""))
        ),
        "branchSummary" => "Branch summary".into(),
        "compactionSummary" => "Compaction summary".into(),
        other => inline_text(other),
    }
}

/// The branch's context as Markdown.
pub fn to_markdown(session: &Session, ctx: &SessionContext) -> String {
    let mut out = String::new();
    let title = session
        .tree
        .name
        .name
        .clone()
        .unwrap_or_else(|| "Session".into());
    out.push_str(&format!("# {}\n\n", inline_text(&title)));
    if let Some(h) = &session.parsed.header {
        out.push_str(&format!(
            "- id: `{}`\n- cwd: `{}`\n- created: {}\n",
            sanitize_line(&h.id).replace('`', "'"),
            sanitize_line(&h.cwd).replace('`', "'"),
            inline_text(&h.timestamp)
        ));
    }
    if let Some(l) = ctx.leaf.and_then(|l| session.entry(l)) {
        out.push_str(&format!(
            "- leaf: `{}`\n",
            sanitize_line(&l.id).replace('`', "'")
        ));
    }
    if let Some(m) = &ctx.model {
        out.push_str(&format!(
            "- model: {}/{}\n",
            inline_text(&m.provider),
            inline_text(&m.model_id)
        ));
    }
    out.push('\n');
    for cm in &ctx.messages {
        out.push_str(&format!("## {}\n\n", heading(&cm.message)));
        out.push_str(&fenced(&message_body(&cm.message)));
        out.push('\n');
    }
    out
}

/// The header plus the entries on the path to the leaf, exactly as stored, one per line.
pub fn to_jsonl(session: &Session, ctx: &SessionContext) -> String {
    let mut out = String::new();
    if let Some(h) = &session.parsed.header {
        out.push_str(&serde_json::to_string(&h.raw).unwrap_or_default());
        out.push('\n');
    }
    if let Some(leaf) = ctx.leaf {
        for i in session.tree.path_to(leaf) {
            out.push_str(&serde_json::to_string(&session.entries()[i].raw()).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_cannot_be_closed_by_content() {
        let f = fenced("a\n````\nb\x1b[2J");
        assert!(f.starts_with("`````text\n"));
        assert!(f.contains("^[[2J"));
        assert!(!f.contains('\x1b'));
    }
}
