//! The bookmarks screen: a search box over the labelled entries of every session, two lines
//! per bookmark (label, tags and note; the session and the entry's text).

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::app::bookmark_screen::{BookmarkScreen, list_height};
use crate::app::format::one_line;
use crate::app::keymap::KeyContext;
use crate::app::layout::list_window_start;
use crate::app::state::AppState;
use crate::text::sanitize::sanitize_line;
use crate::ui::theme::Theme;

pub(crate) fn draw_bookmarks(frame: &mut Frame, area: Rect, state: &AppState, s: &BookmarkScreen) {
    let t = &Theme::of(state);
    frame.render_widget(Clear, area);
    let width = area.width as usize;
    let count = if s.loading {
        "Loading…".to_owned()
    } else if s.query.text().trim().is_empty() {
        format!("{} bookmarks", s.all.len())
    } else {
        format!("{} of {}", s.shown.len(), s.all.len())
    };
    let title = "Bookmarks (labelled entries)";
    let pad = width.saturating_sub(title.width() + count.width()).max(1);
    let header = Line::from(vec![
        Span::styled(title, t.accent.add_modifier(Modifier::BOLD)),
        Span::raw(" ".repeat(pad)),
        Span::styled(count, t.muted),
    ]);
    frame.render_widget(Paragraph::new(header), Rect { height: 1, ..area });
    // The search box, or the note being edited in its place.
    let (prompt, field) = match &s.editing {
        Some(input) => ("note (#tags): ", input),
        None => ("> ", &s.query),
    };
    let text = sanitize_line(field.text()).into_owned();
    let input = Rect::new(area.x, area.y + 1, area.width, 1);
    let room = width.saturating_sub(prompt.width() + 1);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(prompt, t.accent),
            Span::raw(one_line(&text, room)),
        ])),
        input,
    );
    let before = sanitize_line(field.split_at_cursor().0).width();
    frame.set_cursor_position(Position::new(
        area.x + (prompt.width() + before.min(room)) as u16,
        input.y,
    ));
    frame.render_widget(
        Paragraph::new(Line::styled("─".repeat(width), t.border)),
        Rect::new(area.x, area.y + 2, area.width, 1),
    );
    let list = Rect::new(
        area.x,
        area.y + 3,
        area.width,
        area.height.saturating_sub(4),
    );
    let rows = list_height(state.viewport).min(list.height as usize / 2);
    let mut lines = Vec::new();
    if !s.loading && s.shown.is_empty() {
        let text = if s.all.is_empty() {
            "No bookmarks: label an entry in the session view (L) to make one".to_owned()
        } else {
            "No bookmark matches".to_owned()
        };
        lines.push(Line::styled(text, t.muted));
    }
    let start = list_window_start(s.selected, s.shown.len(), rows.max(1));
    for (pos, &i) in s.shown.iter().enumerate().skip(start).take(rows) {
        let b = &s.all[i];
        let selected = pos == s.selected;
        let cursor = if selected { "› " } else { "  " };
        let mut first = vec![
            Span::styled(cursor, t.accent),
            Span::styled(
                one_line(&b.label, width / 2),
                t.named.add_modifier(Modifier::BOLD),
            ),
        ];
        for tag in &b.tags {
            first.push(Span::styled(format!(" #{}", one_line(tag, 30)), t.accent));
        }
        if !b.note.is_empty() {
            let used: usize = first.iter().map(|s| s.content.width()).sum();
            first.push(Span::styled(
                format!("  {}", one_line(&b.note, width.saturating_sub(used + 3))),
                t.warning,
            ));
        }
        let title = one_line(&b.session_title, width / 2);
        // The indent, " · " and ": " around the title and the kind.
        let text_room = width.saturating_sub(4 + title.width() + 3 + b.kind.width() + 2);
        let second = Line::from(vec![
            Span::raw("    "),
            Span::styled(title, t.muted),
            Span::styled(" · ", t.muted),
            Span::styled(one_line(&b.kind, 20), t.muted),
            Span::styled(": ", t.muted),
            Span::raw(one_line(&b.text, text_room)),
        ]);
        let (mut a, mut b2) = (Line::from(first), second);
        if selected {
            a = a.style(t.selected);
            b2 = b2.style(t.selected);
        }
        lines.push(a);
        lines.push(b2);
    }
    if s.problems > 0 {
        lines.push(Line::styled(
            format!(
                "{} session files could not be read for their labels",
                s.problems
            ),
            t.warning,
        ));
    }
    frame.render_widget(Paragraph::new(lines), list);
    if let Some(status) = &state.status {
        let style = match status.kind {
            crate::app::state::StatusKind::Error => t.error,
            crate::app::state::StatusKind::Warning => t.warning,
            _ => t.ok,
        };
        frame.render_widget(
            Paragraph::new(Line::styled(one_line(&status.text, width), style)),
            Rect::new(area.x, area.bottom().saturating_sub(2), area.width, 1),
        );
    }
    let footer = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
    frame.render_widget(
        Paragraph::new(super::footer::footer_line(
            &state.keymap,
            if s.editing.is_some() {
                KeyContext::Input
            } else {
                KeyContext::Bookmarks
            },
            t,
            area.width,
            &[],
        )),
        footer,
    );
}
