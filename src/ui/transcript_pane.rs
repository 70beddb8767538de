//! The transcript pane: the selected branch's context as rendered lines (Markdown, code, diffs,
//! commands), styled from the theme and wrapped on the fly for the lines on screen only.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::session_view::transcript::{LineStyle, TLine, hang, rows_of};
use crate::app::session_view::{Focus, Mode, SessionViewState};
use crate::model::flatten::search_tokens;
use crate::model::render;
use crate::text::sanitize::{sanitize_line, truncate_width};
use crate::ui::theme::Theme;
use crate::ui::tree_pane::pane_block;

/// The style of a transcript line, from the theme.
pub(crate) fn line_style(s: LineStyle, theme: &Theme) -> Style {
    match s {
        LineStyle::UserHeader => theme.user.add_modifier(Modifier::BOLD),
        LineStyle::AssistantHeader => theme.assistant.add_modifier(Modifier::BOLD),
        LineStyle::ToolHeader => theme.tool,
        LineStyle::ToolErrorHeader | LineStyle::Error => theme.error,
        LineStyle::OtherHeader => theme.custom.add_modifier(Modifier::BOLD),
        LineStyle::Text | LineStyle::Blank => Style::default(),
        LineStyle::Thinking => theme.thinking,
        LineStyle::ToolCall => theme.tool_call,
        LineStyle::Output => theme.output,
        LineStyle::Dim | LineStyle::Fold => theme.muted,
    }
}

/// A search hit: the theme's hit colours, reversed without colours.
fn hit_style(base: Style, theme: &Theme) -> Style {
    if theme.color {
        base.patch(theme.hit)
    } else {
        base.add_modifier(Modifier::REVERSED)
    }
}

/// The style of a rendered span on a line of base style `base`: the span's kind decides
/// (colours only when the theme has them, see [`crate::ui::rendered::span_style`]).
pub(crate) fn span_style(base: Style, span: &render::Span, theme: &Theme) -> Style {
    base.patch(crate::ui::rendered::span_style(span, theme.color))
}

/// Which bytes of `text` hold a query token (case-insensitive); `None` when lower-casing
/// moved byte offsets (then the whole line is marked).
fn hit_marks(text: &str, tokens: &[String]) -> Option<Vec<bool>> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return None;
    }
    let mut marks = vec![false; text.len()];
    for t in tokens {
        let mut from = 0;
        while let Some(p) = lower[from..].find(t.as_str()) {
            let s = from + p;
            for m in &mut marks[s..s + t.len()] {
                *m = true;
            }
            from = s + t.len().max(1);
        }
    }
    Some(marks)
}

/// A logical line as screen rows at `width`: its spans styled and cut where [`rows_of`] cuts
/// its text (rows after the first indented by [`hang`]), the query's tokens marked when it is
/// a hit.
pub(crate) fn line_rows(
    line: &TLine,
    width: usize,
    theme: &Theme,
    hit_tokens: Option<&[String]>,
) -> Vec<Line<'static>> {
    let base = line_style(line.style, theme);
    // (byte range, style) runs covering the text.
    let mut runs: Vec<(usize, usize, Style)> = Vec::new();
    if line.spans.is_empty() {
        runs.push((0, line.text.len(), base));
    } else {
        let mut at = 0;
        for sp in &line.spans {
            let end = (at + sp.text.len()).min(line.text.len());
            runs.push((at, end, span_style(base, sp, theme)));
            at = end;
        }
    }
    let marks = hit_tokens
        .filter(|t| !t.is_empty())
        .map(|t| hit_marks(&line.text, t));
    let text = line.text.as_str();
    let indent = hang(line, width);
    rows_of(line, width)
        .into_iter()
        .enumerate()
        .map(|(n, row)| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            if n > 0 && indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            for &(a, b, st) in &runs {
                let (a, b) = (a.max(row.start), b.min(row.end));
                if a >= b {
                    continue;
                }
                match &marks {
                    None => spans.push(Span::styled(text[a..b].to_owned(), st)),
                    // Lower-casing moved offsets: the whole row is marked.
                    Some(None) => spans.push(Span::styled(
                        text[a..b].to_owned(),
                        st.add_modifier(Modifier::REVERSED),
                    )),
                    Some(Some(m)) => {
                        let mut start = a;
                        for (i, _) in text[a..b].char_indices().skip(1) {
                            let i = a + i;
                            if m[i] != m[start] {
                                let s = if m[start] { hit_style(st, theme) } else { st };
                                spans.push(Span::styled(text[start..i].to_owned(), s));
                                start = i;
                            }
                        }
                        let s = if m[start] { hit_style(st, theme) } else { st };
                        spans.push(Span::styled(text[start..b].to_owned(), s));
                    }
                }
            }
            Line::from(spans)
        })
        .collect()
}

pub(crate) fn draw_transcript_pane(
    frame: &mut Frame,
    area: Rect,
    state: &SessionViewState,
    theme: &Theme,
) {
    let focused = state.focus == Focus::Transcript;
    let t = &state.transcript;
    let mut title = vec![
        Span::styled(" Transcript", Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(format!(
            " · {} message{} ",
            t.message_count,
            if t.message_count == 1 { "" } else { "s" }
        )),
    ];
    if let Some(m) = &state.context.model {
        title.push(Span::styled(
            format!("· {} ", sanitize_line(&m.model_id)),
            theme.muted,
        ));
    }
    let block = pane_block(Line::from(title), focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = inner.width as usize;
    let height = inner.height as usize;

    let search_line = match &state.mode {
        Mode::TranscriptSearch(input) => Some(Line::from(vec![
            Span::styled("/", theme.accent),
            Span::raw(sanitize_line(input.text()).into_owned()),
            Span::styled("▏", theme.accent),
            Span::styled(
                format!("  {} matching lines", state.transcript.hits.len()),
                theme.muted,
            ),
        ])),
        _ => None,
    };
    let tokens = state
        .transcript_search
        .as_deref()
        .map(search_tokens)
        .unwrap_or_default();
    let text_height = if search_line.is_some() {
        height.saturating_sub(1)
    } else {
        height
    };

    let mut rows: Vec<Line<'static>> = Vec::with_capacity(text_height);
    let mut li = state.transcript_scroll;
    while rows.len() < text_height && li < t.lines.len() {
        let line = &t.lines[li];
        let is_hit = state.transcript_hits.binary_search(&li).is_ok();
        let hit = is_hit.then_some(tokens.as_slice());
        for r in line_rows(line, width, theme, hit) {
            if rows.len() >= text_height {
                break;
            }
            rows.push(r);
        }
        li += 1;
    }
    frame.render_widget(
        Paragraph::new(rows),
        Rect {
            height: text_height as u16,
            ..inner
        },
    );
    if let Some(l) = search_line {
        frame.render_widget(
            Paragraph::new(l),
            Rect {
                y: inner.y + text_height as u16,
                height: 1,
                ..inner
            },
        );
    }
    // Position on the bottom border.
    if !t.lines.is_empty() && area.height > 1 {
        let pos = t.position(state.transcript_scroll);
        let pos = truncate_width(&pos, area.width.saturating_sub(2) as usize).into_owned();
        let w = pos.chars().count() as u16;
        if area.width > w + 2 {
            frame.render_widget(
                Paragraph::new(Span::styled(pos, theme.muted)),
                Rect {
                    x: area.x + area.width - w - 2,
                    y: area.y + area.height - 1,
                    width: w,
                    height: 1,
                },
            );
        }
    }
}
