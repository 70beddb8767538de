//! The help overlay, generated from the key table so it always tells the truth.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::KeyContext;
use crate::app::state::{AppState, Screen};

/// Draws the help popup over the screen.
pub fn draw_help(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &state.theme;
    let context = match state.screen {
        Screen::Picker => KeyContext::Picker,
        Screen::Session { .. } | Screen::View { .. } => KeyContext::View,
    };
    let rows = state.keymap.help_rows(context);
    let key_w = rows.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let mut lines: Vec<Line> = rows
        .into_iter()
        .map(|(keys, desc)| {
            Line::from(vec![
                Span::styled(format!("{keys:<key_w$}  "), t.accent),
                Span::raw(desc),
            ])
        })
        .collect();
    if context == KeyContext::Picker {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Search",
            t.accent.add_modifier(Modifier::BOLD),
        ));
        for (syntax, desc) in [
            ("words", "fuzzy; every word must match"),
            ("\"a phrase\"", "exact phrase (spaces normalised)"),
            ("re:<regex>", "regular expression, case-insensitive"),
        ] {
            lines.push(Line::from(vec![
                Span::styled(format!("{syntax:<key_w$}  "), t.accent),
                Span::raw(desc),
            ]));
        }
        lines.push(Line::styled(
            "Searches names, ids, folders and all messages. Ctrl+W / Ctrl+U edit the query.",
            t.muted,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("any key closes this help", t.muted));

    let content_w = lines.iter().map(Line::width).max().unwrap_or(20) as u16;
    let w = (content_w + 4).min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, popup);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(t.accent)
        .title(" Keys ");
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(1),
        inner.height,
    );
    frame.render_widget(Paragraph::new(lines), inner);
}
