//! Draws the notices (see [`crate::app::notice`]): a popup as a box over the screen listing
//! each problem, the reason first, with the keys that dismiss it; status notices as the
//! status line's warning.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::keymap::Keymap;
use crate::app::notice::{Notice, Notices};
use crate::app::notice_keys::popup_hints;
use crate::text::sanitize::sanitize_line;

use super::footer::hints_line;
use super::theme::Theme;
use crate::app::format::wrap_text;

/// The status line for the oldest status notice, with how many more wait behind it.
pub(crate) fn status_line(notices: &Notices, t: &Theme) -> Option<Line<'static>> {
    let first = notices.first_status()?;
    let more = notices.status().count() - 1;
    let mut text = format!("⚠ {}", sanitize_line(first));
    if more > 0 {
        text.push_str(&format!(" (+{more} more)"));
    }
    Some(Line::styled(text, t.warning))
}

/// Draws the popup `notice`, scrolled down `scroll` lines, centred over `area`.
pub fn draw_notice(
    frame: &mut Frame,
    area: Rect,
    notice: &Notice,
    scroll: u16,
    t: &Theme,
    keymap: &Keymap,
) {
    let width = area.width.saturating_sub(4).min(100);
    let text_width = width.saturating_sub(4) as usize;
    let mut lines: Vec<Line> = Vec::new();
    for p in &notice.lines {
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
    // Under the items: a blank line, the note, the keys.
    let under = 2 + u16::from(notice.note.is_some());
    let room = area.height.saturating_sub(2 + under).max(1);
    let body = (lines.len() as u16).min(room);
    let height = body + 2 + under;
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
    let scroll = scroll.min(max_scroll) as usize;
    let mut shown: Vec<Line> = lines.into_iter().skip(scroll).take(body as usize).collect();
    shown.push(Line::raw(""));
    if let Some(note) = &notice.note {
        let note = crate::text::clip::clip_to_cells(note, text_width);
        shown.push(Line::styled(sanitize_line(note).into_owned(), t.muted));
    }
    shown.push(hints_line(popup_hints(keymap), t, text_width as u16));
    let text = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    );
    frame.render_widget(Paragraph::new(shown), text);
}
