//! Session text made safe for Markdown: inline text with every special character escaped, and
//! fenced blocks that no content can close early.

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
