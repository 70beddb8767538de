//! The preview of one session: its listing fields, then the last exchanges of its active
//! branch. Shown as a pane beside the list, or full-screen after Enter (until the session view
//! replaces that).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::keymap::KeyContext;
use crate::app::state::{AppState, Screen};
use crate::ui::theme::Theme;

use super::styled::{styled_line, styled_lines};
use crate::app::format::one_line;
use crate::app::hits_ops::hit_lines;
use crate::app::layout::view_body;
use crate::app::preview_text::{message_lines, meta_lines, preview_lines, rule};

/// Lines per message in the side pane (the full view shows everything).
const PANE_LINES_PER_MESSAGE: usize = 4;
/// Search hits shown at the top of the side pane, at most.
const PANE_HITS: usize = 6;

/// The side pane: metadata, then as many of the last messages as fit.
pub(crate) fn draw_preview_pane(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &Theme::of(state);
    let block = Block::new().borders(Borders::LEFT).border_style(t.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(1),
        inner.height,
    );
    let Some(rec) = state.selected() else {
        return;
    };
    let width = inner.width as usize;
    let slot = state.previews.get(&rec.info.path);
    // Why it matched the search, and the hits, first: that is what the search is for.
    let max_hits = (inner.height as usize / 3).clamp(1, PANE_HITS);
    let mut lines = styled_lines(hit_lines(state, &rec.info.path, width, max_hits), t);
    if !lines.is_empty() {
        lines.push(Line::raw(""));
    }
    lines.extend(styled_lines(
        meta_lines(&rec.info, slot, width, state.options.home.as_deref()),
        t,
    ));
    lines.push(styled_line(rule("last messages", width), t));
    let room = (inner.height as usize).saturating_sub(lines.len());
    let messages = styled_lines(message_lines(slot, width, PANE_LINES_PER_MESSAGE), t);
    // The newest exchanges are what the pane is for: keep the tail.
    let skip = messages.len().saturating_sub(room);
    lines.extend(messages.into_iter().skip(skip));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Enter on a session: the preview, full-screen and scrollable.
pub(crate) fn draw_session_screen(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &Theme::of(state);
    let Screen::Session { record, scroll } = state.screen else {
        return;
    };
    let Some(rec) = state.record(record) else {
        return;
    };
    let title = one_line(rec.info.title(), (area.width as usize).saturating_sub(10));
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Session ", t.muted),
            Span::styled(title, t.accent.add_modifier(Modifier::BOLD)),
        ])),
        Rect::new(area.x, area.y, area.width, 1),
    );
    let body = view_body(area);
    let lines = styled_lines(
        preview_lines(
            &rec.info,
            state.previews.get(&rec.info.path),
            body.width,
            state.options.home.as_deref(),
        ),
        t,
    );
    let max = lines.len().saturating_sub(body.height as usize);
    let scroll = (scroll as usize).min(max);
    let shown: Vec<Line> = lines
        .into_iter()
        .skip(scroll)
        .take(body.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(shown), body);
    let footer = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
    let hints = super::footer::footer_line(&state.keymap, KeyContext::Preview, t, area.width, &[]);
    frame.render_widget(Paragraph::new(hints), footer);
}
