//! Draws the start-up notice (see [`crate::app::notice`]): a box over the screen listing each
//! problem, the reason first, with the keys that dismiss it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::notice::{DISMISS_HINT, Notice};

use super::theme::Theme;
use crate::app::format::wrap_text;

/// Draws `notice` centred over `area`.
pub fn draw_notice(frame: &mut Frame, area: Rect, notice: &Notice, t: &Theme) {
    let width = area.width.saturating_sub(4).min(100);
    let text_width = width.saturating_sub(4) as usize;
    let mut lines: Vec<Line> = Vec::new();
    for p in &notice.problems {
        let clipped = crate::text::clip::clip_to_cells(p, text_width.saturating_mul(8));
        for (i, l) in wrap_text(clipped, text_width.saturating_sub(2))
            .into_iter()
            .enumerate()
        {
            let bullet = if i == 0 { "• " } else { "  " };
            lines.push(Line::from(vec![
                Span::styled(bullet, t.warning),
                Span::raw(l),
            ]));
        }
    }
    let room = area.height.saturating_sub(4).max(1);
    let body = (lines.len() as u16).min(room);
    let height = body + 2 + 2;
    let rect = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height.min(area.height),
    );
    frame.render_widget(Clear, rect);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(t.warning)
        .title(Span::styled(
            format!(" {} ", notice.title),
            t.warning.add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let max_scroll = (lines.len() as u16).saturating_sub(body);
    let scroll = notice.scroll.min(max_scroll) as usize;
    let mut shown: Vec<Line> = lines.into_iter().skip(scroll).take(body as usize).collect();
    shown.push(Line::raw(""));
    shown.push(Line::styled(
        "grove runs with the defaults for these · ".to_owned() + DISMISS_HINT,
        t.muted,
    ));
    let text = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    );
    frame.render_widget(Paragraph::new(shown), text);
}
