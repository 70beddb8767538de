//! The help overlay, generated from the key table so it always tells the truth.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::styled::styled_lines;
use super::theme::Theme;
use crate::app::help::{help_context, picker_help_lines, problem_lines};
use crate::app::state::AppState;

/// Draws help `lines` in a centred box; when they do not fit, from line `scroll` on, with a
/// hint that they scroll.
pub(crate) fn draw_help_popup(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    scroll: u16,
    theme: &Theme,
) {
    let closing = |fits: bool| {
        Line::styled(
            if fits {
                "any key closes this help"
            } else {
                "↑ ↓ pgup pgdn scroll · any other key closes"
            },
            theme.muted,
        )
    };
    draw_popup(frame, area, title, lines, scroll, closing, theme);
}

/// A scrollable popup of `lines` with a last line that stays put: `closing(fits)`, told
/// whether every line fits without scrolling.
pub(crate) fn draw_popup(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    mut lines: Vec<Line<'static>>,
    scroll: u16,
    closing: impl Fn(bool) -> Line<'static>,
    theme: &Theme,
) {
    let fits = lines.len() as u16 + 3 <= area.height;
    lines.push(Line::raw(""));
    lines.push(closing(fits));
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

/// Draws the help popup over the screen.
pub(crate) fn draw_help(frame: &mut Frame, area: Rect, state: &AppState, scroll: u16) {
    let t = &Theme::of(state);
    let lines = picker_help_lines(&state.keymap, help_context(state));
    draw_help_popup(frame, area, " Keys ", styled_lines(lines, t), scroll, t);
}

/// The files that could not be read as sessions, each with the reason.
pub(crate) fn draw_problems(frame: &mut Frame, area: Rect, state: &AppState, scroll: u16) {
    let t = &Theme::of(state);
    let lines = problem_lines(&state.picker.problems, state.options.home.as_deref());
    draw_help_popup(
        frame,
        area,
        " Unreadable files ",
        styled_lines(lines, t),
        scroll,
        t,
    );
}
