//! Message bodies as a person reads them: Markdown rendered, tool calls as diffs, commands and
//! key: value lines, code highlighted. Pure data: blocks of lines of spans, each span with a
//! semantic [`SpanKind`]; the TUI maps kinds to its theme, the HTML export to CSS classes.
//!
//! Every piece of session text goes through [`crate::text::sanitize`] first, so no span ever
//! holds a control character, a bidi override or an invisible character, and no span holds a
//! line break (a line is a `Vec<Span>`).

pub mod highlight;
pub mod markdown;
pub mod message;
pub mod span;
pub mod tools;

pub use message::render_message;
pub use span::{Block, BlockKind, Line, Span, SpanKind, TokenKind, image_placeholder, plain_lines};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    /// No span holds a character the sanitizer would change, nor a line break.
    fn assert_inert(blocks: &[Block]) {
        for b in blocks {
            for l in &b.lines {
                for s in &l.spans {
                    assert!(
                        crate::text::sanitize::is_clean(&s.text),
                        "unclean span {:?}",
                        s.text
                    );
                }
            }
        }
    }

    fn hostile() -> impl Strategy<Value = String> {
        // Markdown syntax, controls, escape sequences, bidi and invisible characters.
        let atoms = prop::sample::select(vec![
            "\x1b[2J",
            "\x1b]52;c;aGk=\x07",
            "\u{9b}31m",
            "\u{202e}",
            "\u{200b}",
            "\r",
            "\t",
            "\n",
            "\n\n",
            "```",
            "```rust\n",
            "~~~",
            "# ",
            "> ",
            "- ",
            "1. ",
            "|",
            "|---|",
            "**",
            "*",
            "_",
            "`",
            "[",
            "](",
            ")",
            "<script>",
            "</script>",
            "<b>",
            "javascript:",
            "![",
            "\\",
            "\u{7f}",
            "\0",
            "x",
            " ",
            "é",
            "漢",
            "\u{2028}",
        ]);
        prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn hostile_markdown_never_yields_controls(src in hostile()) {
            assert_inert(&markdown::render_markdown(&src));
        }

        #[test]
        fn hostile_messages_never_yield_controls(a in hostile(), b in hostile(), c in hostile()) {
            let messages = [
                json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": a},
                    {"type": "text", "text": b},
                    {"type": "toolCall", "name": c, "arguments": {a.clone(): b}},
                    {"type": "toolCall", "name": "edit", "arguments": {"path": c, "oldText": a, "newText": b}},
                    {"type": "toolCall", "name": "write", "arguments": {"path": c, "content": a}},
                    {"type": "toolCall", "name": "read", "arguments": {"path": c, "offset": 3}},
                    {"type": "toolCall", "name": "bash", "arguments": {"command": c}},
                ], "errorMessage": a}),
                json!({"role": "toolResult", "content": [{"type": "text", "text": b}, {"type": "image", "mimeType": c}]}),
                json!({"role": "bashExecution", "command": a, "output": b}),
                json!({"role": "user", "content": c}),
            ];
            for m in &messages {
                assert_inert(&render_message(m));
            }
        }
    }
}
