//! The render model's data: spans of one kind, lines of spans, blocks of lines; and the
//! small helpers every renderer uses on them.

use serde_json::Value;

use crate::text::sanitize::sanitize_line;

/// What a code token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Plain,
    Keyword,
    String,
    Comment,
    Number,
    Constant,
    Function,
    Type,
    Variable,
    Operator,
    Punctuation,
    /// Attributes, macros, annotations, tags.
    Meta,
}

impl TokenKind {
    /// A short, stable name (CSS classes, tests).
    pub fn name(self) -> &'static str {
        match self {
            TokenKind::Plain => "plain",
            TokenKind::Keyword => "kw",
            TokenKind::String => "str",
            TokenKind::Comment => "com",
            TokenKind::Number => "num",
            TokenKind::Constant => "const",
            TokenKind::Function => "fn",
            TokenKind::Type => "ty",
            TokenKind::Variable => "var",
            TokenKind::Operator => "op",
            TokenKind::Punctuation => "punct",
            TokenKind::Meta => "meta",
        }
    }
}

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
