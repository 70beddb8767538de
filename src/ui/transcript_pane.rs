//! The transcript pane: the selected branch's context, wrapped on the fly for the lines on
//! screen only.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::session_view::transcript::{LineStyle, wrap};
use crate::app::session_view::{Focus, Mode, SessionViewState};
use crate::model::flatten::search_tokens;
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

/// Splits a row into spans with the query tokens highlighted (case-insensitive).
fn highlighted(row: &str, tokens: &[String], base: Style, hit: Style) -> Vec<Span<'static>> {
    let lower = row.to_lowercase();
    if tokens.is_empty() || lower.len() != row.len() {
        // Lower-casing changed byte offsets: mark the whole row instead.
        let st = if tokens.is_empty() {
            base
        } else {
            base.add_modifier(Modifier::REVERSED)
        };
        return vec![Span::styled(row.to_owned(), st)];
    }
    let mut marks = vec![false; row.len()];
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
    let mut spans = Vec::new();
    let mut start = 0;
    let mut cur = marks.first().copied().unwrap_or(false);
    for (i, _) in row.char_indices().skip(1) {
        if marks[i] != cur {
            spans.push(Span::styled(
                row[start..i].to_owned(),
                if cur { hit } else { base },
            ));
            start = i;
            cur = marks[i];
        }
    }
    spans.push(Span::styled(
        row[start..].to_owned(),
        if cur { hit } else { base },
    ));
    spans
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
        let style = line_style(line.style, theme);
        let is_hit = state.transcript_hits.binary_search(&li).is_ok();
        for r in wrap(&line.text, width) {
            if rows.len() >= text_height {
                break;
            }
            let spans = if is_hit {
                highlighted(&r, &tokens, style, hit_style(style, theme))
            } else {
                vec![Span::styled(r, style)]
            };
            rows.push(Line::from(spans));
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
