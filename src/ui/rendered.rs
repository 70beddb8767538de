//! Rendered message bodies ([`crate::model::render`]) as ratatui lines: semantic span kinds
//! mapped to terminal styles, wrapped to the pane's width keeping each span's style.
//!
//! Colours are named ANSI colours (the terminal's palette decides). Without colour (`NO_COLOR`)
//! only bold, italic and reverse remain: headings, strong text, tool names and added lines bold;
//! emphasis, quotes, thinking, links and comments italic; inline code reversed.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::model::render::{self, Block, SpanKind, TokenKind};

fn token_color(t: TokenKind) -> Option<Color> {
    match t {
        TokenKind::Plain | TokenKind::Variable => None,
        TokenKind::Keyword => Some(Color::Magenta),
        TokenKind::String => Some(Color::Green),
        TokenKind::Comment | TokenKind::Punctuation | TokenKind::Operator => Some(Color::DarkGray),
        TokenKind::Number | TokenKind::Constant => Some(Color::Cyan),
        TokenKind::Function => Some(Color::Blue),
        TokenKind::Type | TokenKind::Meta => Some(Color::Yellow),
    }
}

/// The terminal style of a rendered span.
pub fn span_style(span: &render::Span, color: bool) -> Style {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let italic = Style::new().add_modifier(Modifier::ITALIC);
    let fg = |c: Color| Style::new().fg(c);
    let mut style = match (span.kind, color) {
        (SpanKind::Text | SpanKind::Output, _) => Style::new(),
        (SpanKind::Heading(1), true) => {
            fg(Color::Cyan).add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        }
        (SpanKind::Heading(_), true) => fg(Color::Cyan).add_modifier(Modifier::BOLD),
        (SpanKind::Heading(_), false) => bold,
        (SpanKind::Code, true) => fg(Color::Yellow),
        (SpanKind::Code, false) => Style::new().add_modifier(Modifier::REVERSED),
        (SpanKind::CodeToken(t), true) => {
            let s = token_color(t).map_or(Style::new(), fg);
            if t == TokenKind::Comment {
                s.add_modifier(Modifier::ITALIC)
            } else {
                s
            }
        }
        (SpanKind::CodeToken(TokenKind::Keyword), false) => bold,
        (SpanKind::CodeToken(TokenKind::Comment), false) => italic,
        (SpanKind::CodeToken(_), false) => Style::new(),
        (SpanKind::Link, true) => fg(Color::Blue).add_modifier(Modifier::UNDERLINED),
        (SpanKind::Link, false) => italic,
        (SpanKind::LinkUrl | SpanKind::Marker | SpanKind::Muted, true) => fg(Color::DarkGray),
        (SpanKind::LinkUrl | SpanKind::Marker | SpanKind::Muted, false) => Style::new(),
        (SpanKind::Quote, true) => fg(Color::Gray).add_modifier(Modifier::ITALIC),
        (SpanKind::Quote | SpanKind::Thinking | SpanKind::Image, false) => italic,
        (SpanKind::DiffAdd, true) => fg(Color::Green),
        (SpanKind::DiffAdd, false) => bold,
        (SpanKind::DiffDel, true) => fg(Color::Red),
        (SpanKind::DiffDel, false) => Style::new(),
        (SpanKind::DiffHunk, true) => fg(Color::Cyan),
        (SpanKind::DiffHunk, false) => italic,
        (SpanKind::ToolName, true) => fg(Color::Yellow).add_modifier(Modifier::BOLD),
        (SpanKind::ToolName | SpanKind::Command | SpanKind::Error, false) => bold,
        (SpanKind::Path, true) => fg(Color::Cyan),
        (SpanKind::Path | SpanKind::Key, false) => Style::new(),
        (SpanKind::Key, true) => fg(Color::Blue),
        (SpanKind::Command, true) => Style::new().add_modifier(Modifier::BOLD),
        (SpanKind::Error, true) => fg(Color::Red),
        (SpanKind::Thinking, true) => fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
        (SpanKind::Image, true) => fg(Color::Magenta),
    };
    if span.strong {
        style = style.add_modifier(Modifier::BOLD);
    }
    if span.emphasis {
        style = style.add_modifier(Modifier::ITALIC);
    }
    if span.strike && color {
        style = style.add_modifier(Modifier::CROSSED_OUT);
    }
    style
}

/// Wraps one styled line to `width` columns, at spaces where possible.
fn wrap_styled(line: &render::Line, width: usize, color: bool) -> Vec<Line<'static>> {
    let width = width.max(1);
    let cells: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| {
            let st = span_style(s, color);
            s.text.chars().map(move |c| (c, st))
        })
        .collect();
    let mut rows: Vec<Vec<(char, Style)>> = Vec::new();
    let mut row: Vec<(char, Style)> = Vec::new();
    let mut row_w = 0;
    // Index in `row` just after the last space.
    let mut last_space: Option<usize> = None;
    for (c, st) in cells {
        let w = c.width().unwrap_or(0);
        if row_w + w > width && !row.is_empty() {
            match last_space.filter(|&i| i < row.len() && c != ' ') {
                Some(i) => {
                    let rest = row.split_off(i);
                    while row.last().is_some_and(|(c, _)| *c == ' ') {
                        row.pop();
                    }
                    rows.push(std::mem::take(&mut row));
                    row = rest;
                }
                None => rows.push(std::mem::take(&mut row)),
            }
            row_w = row.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
            last_space = None;
            if c == ' ' && row.is_empty() {
                continue;
            }
        }
        row.push((c, st));
        row_w += w;
        if c == ' ' {
            last_space = Some(row.len());
        }
    }
    rows.push(row);
    rows.into_iter()
        .map(|cells| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            let mut text = String::new();
            let mut cur: Option<Style> = None;
            for (c, st) in cells {
                if cur.is_some_and(|s| s != st) {
                    spans.push(Span::styled(
                        std::mem::take(&mut text),
                        cur.unwrap_or_default(),
                    ));
                }
                cur = Some(st);
                text.push(c);
            }
            if !text.is_empty() {
                spans.push(Span::styled(text, cur.unwrap_or_default()));
            }
            Line::from(spans)
        })
        .collect()
}

/// Blocks as terminal lines at `width`, a blank line between blocks.
pub fn block_lines(blocks: &[Block], width: usize, color: bool) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        for l in &b.lines {
            out.extend(wrap_styled(l, width, color));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::render::markdown::render_markdown;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn wraps_at_spaces_keeping_styles() {
        let blocks = render_markdown("one **two three** four");
        let lines = block_lines(&blocks, 9, true);
        assert_eq!(text(&lines), ["one two", "three", "four"]);
        let bold = |l: &Line<'_>, t: &str| {
            l.spans
                .iter()
                .any(|s| s.content.contains(t) && s.style.add_modifier.contains(Modifier::BOLD))
        };
        assert!(bold(&lines[0], "two") && bold(&lines[1], "three") && !bold(&lines[2], "four"));
    }

    #[test]
    fn no_color_keeps_only_bold_italic_reverse() {
        let blocks =
            render_markdown("# H\n\n*e* `c` [l](https://x)\n\n```rust\nfn f() {} // c\n```");
        for l in block_lines(&blocks, 40, false) {
            for s in &l.spans {
                assert_eq!((s.style.fg, s.style.bg), (None, None), "{s:?}");
                let allowed = Modifier::BOLD | Modifier::ITALIC | Modifier::REVERSED;
                assert!(allowed.contains(s.style.add_modifier), "{s:?}");
            }
        }
    }
}
