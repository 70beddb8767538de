//! The Markdown export: a document a Markdown renderer shows the way the agent did.
//!
//! `# title`, a few facts about the session, then one `## heading` per message. Message text
//! stays Markdown ([`safe_markdown`]); thinking, tool calls and tool output are fenced blocks
//! in the right language (`diff` for an edit, the file's language for a write, `console` for a
//! command). Empty thinking is left out.

use serde_json::{Map, Value};

use super::fence::{fenced_as, inline_text};
use super::safe_markdown::safe_markdown;
use crate::model::context::SessionContext;
use crate::model::render::highlight::lang_for_path;
use crate::model::render::span::image_placeholder;
use crate::model::render::tools::render_tool_call;
use crate::model::render::{Block, Line};
use crate::model::tree::Session;
use crate::text::sanitize::sanitize_line;

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn plain(lines: &[Line]) -> String {
    lines.iter().map(Line::plain).collect::<Vec<_>>().join("\n")
}

/// The first user message's first line, cut to 80 characters.
fn first_message_title(ctx: &SessionContext) -> Option<String> {
    ctx.messages
        .iter()
        .find(|m| m.role() == "user")
        .and_then(|m| {
            let text = crate::model::entry::content_text(m.message.get("content"))?;
            let line = text.lines().find(|l| !l.trim().is_empty())?.trim();
            let mut title: String = line.chars().take(80).collect();
            if line.chars().count() > 80 {
                title.push('…');
            }
            Some(title)
        })
}

/// The session's title: its name, else its first message, else "Session".
pub fn title(session: &Session, ctx: &SessionContext) -> String {
    session
        .tree
        .name
        .name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .or_else(|| first_message_title(ctx))
        .unwrap_or_else(|| "Session".into())
}

fn heading(m: &Value) -> String {
    match str_of(m, "role") {
        "user" => "User".into(),
        "assistant" => match str_of(m, "model") {
            "" => "Assistant".into(),
            model => format!("Assistant ({})", inline_text(model)),
        },
        "toolResult" => {
            let name = inline_text(m.get("toolName").and_then(Value::as_str).unwrap_or("tool"));
            if m.get("isError").and_then(Value::as_bool) == Some(true) {
                format!("Tool result: {name} (error)")
            } else {
                format!("Tool result: {name}")
            }
        }
        "bashExecution" => "Bash".into(),
        "custom" => format!("Custom: {}", inline_text(str_of(m, "customType"))),
        "branchSummary" => "Branch summary".into(),
        "compactionSummary" => "Compaction summary".into(),
        "" => "Message".into(),
        other => inline_text(other),
    }
}

/// Text blocks as Markdown, images as their placeholder.
fn content_markdown(content: Option<&Value>, out: &mut String) {
    let push = |out: &mut String, piece: String| {
        if !piece.trim().is_empty() {
            out.push_str(piece.trim_end_matches('\n'));
            out.push_str("\n\n");
        }
    };
    match content {
        Some(Value::String(s)) => push(out, safe_markdown(s)),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => push(out, safe_markdown(str_of(b, "text"))),
                    Some("image") => push(out, inline_text(&image_placeholder(b))),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Tool output: text in a `text` fence, images as placeholders.
fn output_markdown(content: Option<&Value>, out: &mut String) {
    let mut text = String::new();
    let mut images = Vec::new();
    match content {
        Some(Value::String(s)) => text.push_str(s),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => text.push_str(str_of(b, "text")),
                    Some("image") => images.push(image_placeholder(b)),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let text = text.trim_end_matches('\n');
    if !text.is_empty() {
        out.push_str(&fenced_as(text, "text"));
        out.push('\n');
    }
    for i in images {
        out.push_str(&inline_text(&i));
        out.push_str("\n\n");
    }
}

/// `**Tool call:** header` and a fenced block in the tool's language.
fn tool_call_markdown(call: &Value, out: &mut String) {
    let name = str_of(call, "name");
    let empty = Map::new();
    let args = call
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let block: Block = render_tool_call(call);
    let has_path = args.get("path").is_some_and(Value::is_string);
    let (header, body, lang): (Option<&Line>, &[Line], String) = match name {
        "bash" if args.get("command").is_some_and(Value::is_string) => {
            (None, &block.lines[..], "console".into())
        }
        "edit" if has_path => (
            block.lines.first(),
            block.lines.get(1..).unwrap_or(&[]),
            "diff".into(),
        ),
        "write" if has_path => (
            block.lines.first(),
            block.lines.get(1..).unwrap_or(&[]),
            args.get("path")
                .and_then(Value::as_str)
                .and_then(lang_for_path)
                .unwrap_or_else(|| "text".into()),
        ),
        _ => (
            block.lines.first(),
            block.lines.get(1..).unwrap_or(&[]),
            "text".into(),
        ),
    };
    match header {
        Some(h) => out.push_str(&format!("**Tool call:** {}\n\n", inline_text(&h.plain()))),
        None => out.push_str(&format!("**Tool call:** {}\n\n", inline_text(name))),
    }
    if !body.is_empty() {
        out.push_str(&fenced_as(&plain(body), &lang));
        out.push('\n');
    }
}

fn message_markdown(m: &Value, out: &mut String) {
    match str_of(m, "role") {
        "assistant" => {
            for b in m
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = safe_markdown(str_of(b, "text"));
                        if !text.trim().is_empty() {
                            out.push_str(text.trim_end_matches('\n'));
                            out.push_str("\n\n");
                        }
                    }
                    Some("thinking") => {
                        let t = str_of(b, "thinking");
                        if !t.trim().is_empty() {
                            out.push_str("**Thinking**\n\n");
                            out.push_str(&fenced_as(t.trim_end(), "text"));
                            out.push('\n');
                        }
                    }
                    Some("toolCall") => tool_call_markdown(b, out),
                    Some("image") => {
                        out.push_str(&inline_text(&image_placeholder(b)));
                        out.push_str("\n\n");
                    }
                    _ => {}
                }
            }
            let err = str_of(m, "errorMessage");
            if !err.is_empty() {
                out.push_str(&format!("**Error:** {}\n\n", inline_text(err)));
            }
        }
        "toolResult" => output_markdown(m.get("content"), out),
        "bashExecution" => {
            let mut text = format!("$ {}", str_of(m, "command"));
            let output = str_of(m, "output").trim_end_matches('\n');
            if !output.is_empty() {
                text.push('\n');
                text.push_str(output);
            }
            out.push_str(&fenced_as(&text, "console"));
            out.push('\n');
            if let Some(code) = m
                .get("exitCode")
                .and_then(Value::as_i64)
                .filter(|c| *c != 0)
            {
                out.push_str(&format!("Exit code {code}\n\n"));
            }
        }
        "branchSummary" | "compactionSummary" => {
            let s = safe_markdown(str_of(m, "summary"));
            if !s.trim().is_empty() {
                out.push_str(s.trim_end_matches('\n'));
                out.push_str("\n\n");
            }
        }
        _ => content_markdown(m.get("content"), out),
    }
}

/// One message's body as the Markdown export writes it (no heading), trimmed: for a single
/// entry handed to a pager or the clipboard.
pub fn message_body(m: &Value) -> String {
    let mut out = String::new();
    message_markdown(m, &mut out);
    out.trim_end().to_owned()
}

/// A code span for an identifier-like value (backticks in it are replaced).
fn code(text: &str) -> String {
    format!("`{}`", sanitize_line(text).replace('`', "'"))
}

/// The branch's context as Markdown.
pub fn to_markdown(session: &Session, ctx: &SessionContext) -> String {
    let mut out = String::new();
    out.push_str(&format!("# {}\n\n", inline_text(&title(session, ctx))));
    if let Some(h) = &session.parsed.header {
        out.push_str(&format!(
            "- id: {}\n- cwd: {}\n- created: {}\n",
            code(&h.id),
            code(&h.cwd),
            inline_text(&h.timestamp)
        ));
    }
    if let Some(l) = ctx.leaf.and_then(|l| session.entry(l)) {
        out.push_str(&format!("- leaf: {}\n", code(&l.id)));
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
        message_markdown(&cm.message, &mut out);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
