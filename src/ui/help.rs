//! The help overlay, generated from the key table so it always tells the truth.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::theme::Theme;
use crate::app::keymap::KeyContext;
use crate::app::state::{AppState, Screen};
use crate::text::sanitize::sanitize_line;

/// What a key does to an open help popup: scroll it, or close it.
pub enum HelpKey {
    Scroll(u16),
    Close,
}

/// Scroll keys move the help (clamped to its `lines`); any other key closes it.
pub fn help_key(key: &KeyEvent, scroll: u16, lines: usize) -> HelpKey {
    let max = lines.saturating_sub(1).min(u16::MAX as usize) as u16;
    match key.code {
        KeyCode::Down | KeyCode::Char('j') => HelpKey::Scroll(scroll.saturating_add(1).min(max)),
        KeyCode::Up | KeyCode::Char('k') => HelpKey::Scroll(scroll.saturating_sub(1)),
        KeyCode::PageDown | KeyCode::Char(' ') => {
            HelpKey::Scroll(scroll.saturating_add(10).min(max))
        }
        KeyCode::PageUp => HelpKey::Scroll(scroll.saturating_sub(10)),
        _ => HelpKey::Close,
    }
}

/// Draws help `lines` in a centred box; when they do not fit, from line `scroll` on, with a
/// hint that they scroll.
pub fn draw_help_popup(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    mut lines: Vec<Line<'static>>,
    scroll: u16,
    theme: &Theme,
) {
    let fits = lines.len() as u16 + 3 <= area.height;
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        if fits {
            "any key closes this help"
        } else {
            "↑/↓ PgUp/PgDn scroll · any other key closes"
        },
        theme.muted,
    ));
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
        .border_style(theme.accent)
        .title(title.to_owned());
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(1),
        inner.height,
    );
    // Keep the closing hint visible: scroll only the part above it.
    let hint = lines.pop();
    let body = Rect::new(
        inner.x,
        inner.y,
        inner.width,
        inner.height.saturating_sub(1),
    );
    let max = (lines.len() as u16).saturating_sub(body.height);
    frame.render_widget(Paragraph::new(lines).scroll((scroll.min(max), 0)), body);
    if let Some(hint) = hint {
        let last = Rect::new(inner.x, inner.bottom().saturating_sub(1), inner.width, 1);
        frame.render_widget(Paragraph::new(hint), last);
    }
}

/// The picker's help lines (without the closing hint).
pub fn picker_help_lines(state: &AppState) -> Vec<Line<'static>> {
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
    lines
}

/// Draws the help popup over the screen.
pub fn draw_help(frame: &mut Frame, area: Rect, state: &AppState, scroll: u16) {
    let lines = picker_help_lines(state);
    draw_help_popup(frame, area, " Keys ", lines, scroll, &state.theme);
}

/// The files that could not be read as sessions, each with the reason.
pub fn draw_problems(frame: &mut Frame, area: Rect, state: &AppState, scroll: u16) {
    let t = &state.theme;
    let home = state.options.home.as_deref();
    let lines = state
        .picker
        .problems
        .iter()
        .map(|p| {
            let path = p.path.to_string_lossy();
            let shown = match home {
                Some(h) if path.starts_with(&format!("{h}/")) => format!("~{}", &path[h.len()..]),
                _ => path.into_owned(),
            };
            Line::from(vec![
                Span::styled(sanitize_line(&shown).into_owned(), t.accent),
                Span::raw("  "),
                Span::raw(sanitize_line(&p.reason).into_owned()),
            ])
        })
        .collect();
    draw_help_popup(frame, area, " Unreadable files ", lines, scroll, t);
}
