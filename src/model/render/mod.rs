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
pub mod tools;

pub use highlight::TokenKind;
pub use message::render_message;

/// What a span of text is; the views choose colours and attributes from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpanKind {
    /// Running text.
    Text,
    /// A Markdown heading of level 1–6.
    Heading(u8),
    /// Inline code.
    Code,
    /// A token of a highlighted code block.
    CodeToken(TokenKind),
    /// A link's text.
    Link,
    /// A link's URL, shown after its text (never followed by grove).
    LinkUrl,
    /// Quoted text.
    Quote,
    /// Structure drawn by the renderer: list bullets, quote bars, table borders, rules.
    Marker,
    /// A diff's added line.
    DiffAdd,
    /// A diff's removed line.
    DiffDel,
    /// A diff's `@@ … @@` hunk header.
    DiffHunk,
    /// A tool's name in a call header.
    ToolName,
    /// A file path.
    Path,
    /// A key in `key: value` lines.
    Key,
    /// A shell command (`$ ls`).
    Command,
    /// Tool or command output.
    Output,
    /// Secondary text: ranges, sizes, notes.
    Muted,
    /// An error (a failed tool result).
    Error,
    /// Thinking text.
    Thinking,
    /// An image placeholder (`[image: image/png, 48 KB]`).
    Image,
}

/// A run of text with one kind and emphasis flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub kind: SpanKind,
    pub strong: bool,
    pub emphasis: bool,
    pub strike: bool,
}

impl Span {
    pub fn new(kind: SpanKind, text: impl Into<String>) -> Self {
        Span {
            text: text.into(),
            kind,
            strong: false,
            emphasis: false,
            strike: false,
        }
    }
}

/// One display line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    pub spans: Vec<Span>,
}

impl Line {
    pub fn new(spans: Vec<Span>) -> Self {
        Line { spans }
    }

    /// A line of one span.
    pub fn single(kind: SpanKind, text: impl Into<String>) -> Self {
        Line {
            spans: vec![Span::new(kind, text)],
        }
    }

    /// The line's text without styles.
    pub fn plain(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}

/// What a block is, for layout (monospace or not) and folding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// Paragraphs, headings, lists and quotes of rendered Markdown.
    Text,
    /// A code block, with its language when known.
    Code { lang: Option<String> },
    /// A table laid out in columns.
    Table,
    /// A tool call: its header line and what it carries (a diff, content, arguments).
    ToolCall { name: String },
    /// A tool's result or a command's output (folded when long).
    ToolOutput { is_error: bool },
    /// The model's thinking (folded).
    Thinking,
}

impl BlockKind {
    /// Whether the block's columns matter (drawn monospace).
    pub fn is_preformatted(&self) -> bool {
        !matches!(self, BlockKind::Text | BlockKind::Thinking)
    }

    /// Whether views fold the block by default when long.
    pub fn is_foldable(&self) -> bool {
        matches!(self, BlockKind::ToolOutput { .. } | BlockKind::Thinking)
    }
}

/// A run of lines of one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    pub lines: Vec<Line>,
}

impl Block {
    pub fn new(kind: BlockKind, lines: Vec<Line>) -> Self {
        Block { kind, lines }
    }
}

/// Lines of sanitized multi-line text, each one span of `kind`.
pub fn plain_lines(text: &str, kind: SpanKind) -> Vec<Line> {
    crate::text::sanitize::sanitize_multiline(text, 4)
        .split('\n')
        .map(|l| Line::single(kind, l))
        .collect()
}

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
