//! Markdown (CommonMark with tables, strikethrough and task lists, via `pulldown-cmark`) as
//! blocks of styled lines.
//!
//! The source is sanitized before parsing, so every span holds visible text only. Raw HTML is
//! shown as the literal text it is; links show their text and then their URL; images are never
//! loaded, only named. Tables are laid out in columns by display width.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use unicode_width::UnicodeWidthStr;

use super::highlight::highlight;
use super::span::{Block, BlockKind, Line, Span, SpanKind};
use crate::text::sanitize::sanitize_multiline;

/// Renders Markdown source (untrusted) as blocks.
pub fn render_markdown(source: &str) -> Vec<Block> {
    let clean = sanitize_multiline(source, 4);
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut r = Renderer::default();
    for event in Parser::new_ext(&clean, options) {
        r.event(event);
    }
    r.finish()
}

#[derive(Default)]
struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span>>>,
    row: Vec<Vec<Span>>,
    cell: Vec<Span>,
    has_head: bool,
}

#[derive(Default)]
struct Renderer {
    blocks: Vec<Block>,
    /// Lines of the Text block being built.
    lines: Vec<Line>,
    /// The open line's spans (its prefix included).
    cur: Vec<Span>,
    cur_open: bool,
    /// The open line holds only its prefix and a list marker.
    fresh_item: bool,
    strong: u32,
    emphasis: u32,
    strike: u32,
    heading: Option<u8>,
    quote: usize,
    /// Per open list: the next number (ordered) or `None` (bullets).
    lists: Vec<Option<u64>>,
    /// Per open item: the width of its marker.
    items: Vec<usize>,
    /// Per open link: its URL and its text so far.
    links: Vec<(String, String)>,
    /// Per open image: its URL.
    images: Vec<String>,
    code: Option<(Option<String>, String)>,
    table: Option<Table>,
}

impl Renderer {
    fn indent(&self) -> usize {
        self.items.iter().sum()
    }

    fn open_line(&mut self) {
        if self.cur_open {
            return;
        }
        self.cur_open = true;
        if self.quote > 0 {
            self.cur
                .push(Span::new(SpanKind::Marker, "│ ".repeat(self.quote)));
        }
        let indent = self.indent();
        if indent > 0 {
            self.cur.push(Span::new(SpanKind::Text, " ".repeat(indent)));
        }
    }

    fn close_line(&mut self) {
        if self.cur_open {
            self.lines.push(Line::new(std::mem::take(&mut self.cur)));
            self.cur_open = false;
            self.fresh_item = false;
        }
    }

    /// An empty line between blocks (only between, never first).
    fn separate(&mut self) {
        self.close_line();
        let last_blank = self.lines.last().is_none_or(|l| {
            l.spans
                .iter()
                .all(|s| s.kind == SpanKind::Marker || s.text.trim().is_empty())
        });
        if !last_blank || (self.lines.is_empty() && !self.blocks.is_empty()) {
            let mut line = Line::default();
            if self.quote > 0 {
                line.spans
                    .push(Span::new(SpanKind::Marker, "│".repeat(self.quote)));
            }
            if !self.lines.is_empty() {
                self.lines.push(line);
            }
        }
    }

    fn flush_text(&mut self) {
        self.close_line();
        while self
            .lines
            .last()
            .is_some_and(|l| l.plain().trim().is_empty())
        {
            self.lines.pop();
        }
        if !self.lines.is_empty() {
            let lines = std::mem::take(&mut self.lines);
            self.blocks.push(Block::new(BlockKind::Text, lines));
        }
    }

    fn text_kind(&self) -> SpanKind {
        if !self.links.is_empty() {
            SpanKind::Link
        } else if let Some(level) = self.heading {
            SpanKind::Heading(level)
        } else if self.quote > 0 {
            SpanKind::Quote
        } else {
            SpanKind::Text
        }
    }

    fn styled(&self, kind: SpanKind, text: &str) -> Span {
        let mut s = Span::new(kind, text);
        s.strong = self.strong > 0;
        s.emphasis = self.emphasis > 0;
        s.strike = self.strike > 0;
        s
    }

    fn push_span(&mut self, span: Span) {
        if let Some(t) = &mut self.table {
            t.cell.push(span);
            return;
        }
        self.open_line();
        self.fresh_item = false;
        match self.cur.last_mut() {
            Some(last)
                if last.kind == span.kind
                    && last.strong == span.strong
                    && last.emphasis == span.emphasis
                    && last.strike == span.strike =>
            {
                last.text.push_str(&span.text)
            }
            _ => self.cur.push(span),
        }
    }

    fn push_text(&mut self, text: &str, kind: SpanKind) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        if let Some((_, link_text)) = self.links.last_mut() {
            link_text.push_str(text);
        }
        for (i, part) in text.split('\n').enumerate() {
            if i > 0 {
                if self.table.is_some() {
                    self.push_span(self.styled(kind, " "));
                } else {
                    self.close_line();
                }
            }
            if !part.is_empty() {
                self.push_span(self.styled(kind, part));
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.push_text(&t, self.text_kind()),
            Event::Code(t) => self.push_text(&t, SpanKind::Code),
            // Raw HTML is text like any other: shown, never interpreted.
            Event::Html(t) | Event::InlineHtml(t) => self.push_text(&t, self.text_kind()),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.push_text(&t, SpanKind::Code),
            Event::FootnoteReference(t) => self.push_text(&format!("[^{t}]"), SpanKind::Muted),
            Event::SoftBreak => self.push_text(" ", self.text_kind()),
            Event::HardBreak => {
                self.close_line();
                self.open_line();
            }
            Event::Rule => {
                self.separate();
                self.open_line();
                self.push_span(Span::new(SpanKind::Marker, "─".repeat(24)));
                self.close_line();
            }
            Event::TaskListMarker(done) => {
                let mark = if done { "[x] " } else { "[ ] " };
                self.push_span(Span::new(SpanKind::Marker, mark));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                if !(self.cur_open && self.fresh_item) {
                    self.separate();
                }
            }
            Tag::Heading { level, .. } => {
                self.separate();
                self.heading = Some(level as u8);
            }
            Tag::BlockQuote(_) => {
                self.separate();
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                self.flush_text();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        let lang = info.split_whitespace().next().unwrap_or("").to_owned();
                        (!lang.is_empty()).then_some(lang)
                    }
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::HtmlBlock => self.separate(),
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.separate();
                } else {
                    self.close_line();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.close_line();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_owned(),
                };
                self.open_line();
                self.cur.push(Span::new(SpanKind::Marker, marker.clone()));
                self.items.push(marker.width());
                self.fresh_item = true;
            }
            Tag::Table(aligns) => {
                self.flush_text();
                self.table = Some(Table {
                    aligns,
                    ..Table::default()
                });
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.has_head = true;
                }
            }
            Tag::Emphasis => self.emphasis += 1,
            Tag::Strong => self.strong += 1,
            Tag::Strikethrough => self.strike += 1,
            Tag::Link { dest_url, .. } => self.links.push((dest_url.to_string(), String::new())),
            Tag::Image { dest_url, .. } => {
                self.images.push(dest_url.to_string());
                self.push_span(Span::new(SpanKind::Image, "[image: "));
            }
            Tag::TableRow
            | Tag::TableCell
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.close_line(),
            TagEnd::Heading(_) => {
                self.close_line();
                self.heading = None;
            }
            TagEnd::BlockQuote(_) => {
                self.close_line();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::CodeBlock => {
                if let Some((lang, mut code)) = self.code.take() {
                    if code.ends_with('\n') {
                        code.pop();
                    }
                    let lines = highlight(&code, lang.as_deref());
                    self.blocks
                        .push(Block::new(BlockKind::Code { lang }, lines));
                }
            }
            TagEnd::List(_) => {
                self.close_line();
                self.lists.pop();
            }
            TagEnd::Item => {
                self.close_line();
                self.items.pop();
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.blocks
                        .push(Block::new(BlockKind::Table, layout_table(t)));
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell);
                }
            }
            TagEnd::Emphasis => self.emphasis = self.emphasis.saturating_sub(1),
            TagEnd::Strong => self.strong = self.strong.saturating_sub(1),
            TagEnd::Strikethrough => self.strike = self.strike.saturating_sub(1),
            TagEnd::Link => {
                if let Some((url, text)) = self.links.pop()
                    && !url.is_empty()
                    && url != text
                    && url.strip_prefix("mailto:") != Some(text.as_str())
                {
                    self.push_span(Span::new(SpanKind::LinkUrl, format!(" ({url})")));
                }
            }
            TagEnd::Image => {
                let url = self.images.pop().unwrap_or_default();
                self.push_span(Span::new(SpanKind::Image, "]"));
                if !url.is_empty() {
                    self.push_span(Span::new(SpanKind::LinkUrl, format!(" ({url})")));
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {}
        }
    }

    fn finish(mut self) -> Vec<Block> {
        if let Some((lang, code)) = self.code.take() {
            self.blocks.push(Block::new(
                BlockKind::Code { lang: lang.clone() },
                highlight(&code, lang.as_deref()),
            ));
        }
        self.flush_text();
        self.blocks
    }
}

/// Columns padded to the widest cell, `│` between them, `─┼─` under the header.
fn layout_table(t: Table) -> Vec<Line> {
    let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |cell: &[Span]| cell.iter().map(|s| s.text.width()).sum::<usize>();
    let mut widths = vec![0; cols];
    for row in &t.rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(width(cell));
        }
    }
    let mut out = Vec::with_capacity(t.rows.len() + 1);
    for (r, row) in t.rows.into_iter().enumerate() {
        let mut line = Line::default();
        let mut cells = row.into_iter();
        for (i, w) in widths.iter().enumerate() {
            if i > 0 {
                line.spans.push(Span::new(SpanKind::Marker, " │ "));
            }
            let cell = cells.next().unwrap_or_default();
            let pad = w.saturating_sub(width(&cell));
            let (left, right) = match t.aligns.get(i) {
                Some(Alignment::Right) => (pad, 0),
                Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                _ => (0, pad),
            };
            let is_head = r == 0 && t.has_head;
            if left > 0 {
                line.spans.push(Span::new(SpanKind::Text, " ".repeat(left)));
            }
            for mut s in cell {
                s.strong |= is_head;
                line.spans.push(s);
            }
            if right > 0 && i + 1 < cols {
                line.spans
                    .push(Span::new(SpanKind::Text, " ".repeat(right)));
            }
        }
        out.push(line);
        if r == 0 && t.has_head {
            let rule = widths
                .iter()
                .map(|w| "─".repeat(*w))
                .collect::<Vec<_>>()
                .join("─┼─");
            out.push(Line::single(SpanKind::Marker, rule));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(blocks: &[Block]) -> String {
        blocks
            .iter()
            .map(|b| {
                b.lines
                    .iter()
                    .map(Line::plain)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    fn spans_of(blocks: &[Block], kind: SpanKind) -> Vec<String> {
        blocks
            .iter()
            .flat_map(|b| &b.lines)
            .flat_map(|l| &l.spans)
            .filter(|s| s.kind == kind)
            .map(|s| s.text.clone())
            .collect()
    }

    #[test]
    fn headings_emphasis_and_inline_code() {
        let b = render_markdown("# Title\n\nSome **bold** and *it* and `code`.");
        assert_eq!(text(&b), "Title\n\nSome bold and it and code.");
        assert_eq!(spans_of(&b, SpanKind::Heading(1)), ["Title"]);
        assert_eq!(spans_of(&b, SpanKind::Code), ["code"]);
        let spans = &b[0].lines[2].spans;
        assert!(
            spans
                .iter()
                .any(|s| s.text == "bold" && s.strong && !s.emphasis)
        );
        assert!(
            spans
                .iter()
                .any(|s| s.text == "it" && s.emphasis && !s.strong)
        );
    }

    #[test]
    fn lists_nest_and_number() {
        let b = render_markdown("- one\n- two\n  1. a\n  2. b\n- [x] done");
        assert_eq!(text(&b), "• one\n• two\n  1. a\n  2. b\n• [x] done");
        let loose = render_markdown("1. first\n\n2. second");
        assert_eq!(text(&loose), "1. first\n2. second");
    }

    #[test]
    fn quotes_links_and_images() {
        let b = render_markdown(
            "> quoted\n> more\n\nsee [docs](https://x.y/z) and <https://a.b>\n\n![logo](http://t.example/p.png)",
        );
        let t = text(&b);
        assert!(t.starts_with("│ quoted more\n"), "{t}");
        assert!(
            t.contains("see docs (https://x.y/z) and https://a.b"),
            "{t}"
        );
        assert!(t.contains("[image: logo] (http://t.example/p.png)"), "{t}");
        assert_eq!(spans_of(&b, SpanKind::Link), ["docs", "https://a.b"]);
        assert_eq!(spans_of(&b, SpanKind::Quote), ["quoted more"]);
    }

    #[test]
    fn code_blocks_are_highlighted_blocks() {
        let b = render_markdown("Intro\n\n```rust\nfn f() {}\n```\n\nafter");
        assert_eq!(b.len(), 3);
        assert_eq!(
            b[1].kind,
            BlockKind::Code {
                lang: Some("rust".into())
            }
        );
        assert_eq!(b[1].lines[0].plain(), "fn f() {}");
        assert!(b[1].lines[0].spans.iter().any(|s| matches!(
            s.kind,
            SpanKind::CodeToken(crate::model::render::span::TokenKind::Keyword)
        )));
    }

    #[test]
    fn tables_align_columns() {
        let b = render_markdown("| a | long header |\n|---|---:|\n| wide cell | 1 |");
        assert_eq!(b[0].kind, BlockKind::Table);
        assert_eq!(
            text(&b),
            "a         │ long header\n──────────┼────────────\nwide cell │           1"
        );
    }

    #[test]
    fn raw_html_and_controls_stay_text() {
        let b = render_markdown("<script>alert(1)</script>\n\nhi <b>x</b> \x1b[31m");
        let t = text(&b);
        assert!(t.contains("<script>alert(1)</script>"), "{t}");
        assert!(t.contains("hi <b>x</b> ^[[31m"), "{t}");
    }
}
