//! Exporting a branch: Markdown and a self-contained HTML page for people, JSONL for tools.
//!
//! Session text is untrusted. In Markdown, message text stays Markdown but is neutralised
//! ([`safe_markdown`]); tool input and output go into fenced blocks with a fence longer than any
//! backtick run inside; control characters are made visible everywhere. In HTML every piece of
//! session text is escaped and the page forbids anything remote ([`html`]).

pub mod fence;
pub mod html;
pub mod markdown;
pub mod safe_markdown;

pub use crate::model::render::image_placeholder;
pub use fence::{fence_for, fenced, fenced_as, inline_text};
pub use markdown::to_markdown;

use super::context::SessionContext;
use super::tree::Session;

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
