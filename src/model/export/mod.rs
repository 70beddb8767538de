//! Exporting a branch: Markdown and a self-contained HTML page for people, JSONL for tools.
//!
//! Session text is untrusted. In Markdown, message text stays Markdown but is neutralised
//! ([`safe_markdown`]); tool input and output go into fenced blocks with a fence longer than any
//! backtick run inside; control characters are made visible everywhere. In HTML every piece of
//! session text is escaped and the page forbids anything remote ([`html`]).

pub mod html;
pub mod markdown;
pub mod safe_markdown;

pub use markdown::to_markdown;

use serde_json::Value;

use super::context::SessionContext;
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

/// A fence longer than any backtick run in `text` (at least three backticks).
pub fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// A fenced code block that no content can close early, as plain text.
pub fn fenced(text: &str) -> String {
    fenced_as(text, "text")
}

/// A fenced code block in `lang` that no content can close early.
pub fn fenced_as(text: &str, lang: &str) -> String {
    let clean = sanitize_multiline(text, 4);
    let fence = fence_for(&clean);
    format!("{fence}{lang}\n{clean}\n{fence}\n")
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
