//! Prompts drawn over the bottom of the list: rename, delete confirmation, and the second,
//! explicit confirmation for permanent deletion when the trash is unavailable.

use crate::ui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::app::state::{AppState, Liveness, Mode};
use crate::text::sanitize::sanitize_line;

use crate::app::format::{one_line, reason_first, shorten_home, truncate_left, wrap_text};
use crate::app::keymap::{Action, KeyContext};

/// A box of `lines.len()` rows above the footer, as wide as the screen allows.
fn bottom_box(area: Rect, content_rows: u16) -> Rect {
    let h = (content_rows + 2).min(area.height.saturating_sub(1));
    let w = area.width.min(100);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.bottom().saturating_sub(h + 1),
        w,
        h,
    )
}

/// Clears `rect`, draws a border and ` title ` in `style`, and returns the inside (one column
/// of padding each side).
pub(crate) fn framed(frame: &mut Frame, rect: Rect, title: &str, style: Style) -> Rect {
    frame.render_widget(Clear, rect);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(style)
        .title(Span::styled(
            format!(" {title} "),
            style.add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    )
}

/// Draws the dialog of the current mode, if it has one.
pub(crate) fn draw_dialog(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &Theme::of(state);
    let home = state.options.home.as_deref();
    let km = &state.keymap;
    match &state.mode {
        Mode::Rename { input, .. } => {
            let rect = bottom_box(area, 3);
            let inner = framed(frame, rect, "Rename session", t.accent);
            let room = (inner.width as usize).saturating_sub(3);
            let text = sanitize_line(input.text()).into_owned();
            let shown = truncate_left(&text, room).into_owned();
            let lines = vec![
                Line::from(vec![Span::styled("> ", t.accent), Span::raw(shown.clone())]),
                Line::raw(""),
                Line::styled(
                    format!(
                        "{} save · {} cancel · an empty name clears it",
                        km.key_label(KeyContext::Input, Action::Confirm),
                        km.key_label(KeyContext::Input, Action::Cancel)
                    ),
                    t.muted,
                ),
            ];
            frame.render_widget(Paragraph::new(lines), inner);
            let before = sanitize_line(input.split_at_cursor().0).width();
            let cut = text.width().saturating_sub(shown.width());
            let x = inner.x + 2 + before.saturating_sub(cut).min(room) as u16;
            frame.set_cursor_position(Position::new(x, inner.y));
        }
        Mode::ConfirmDelete {
            record,
            live,
            backups,
        } => {
            let Some(rec) = state.record(*record) else {
                return;
            };
            let width = (area.width.min(100) as usize).saturating_sub(4);
            let path = rec.info.path.to_string_lossy();
            let mut lines = vec![
                Line::styled(one_line(rec.info.title(), width), Modifier::BOLD),
                Line::styled(
                    truncate_left(&one_line(&shorten_home(&path, home), usize::MAX), width)
                        .into_owned(),
                    t.muted,
                ),
            ];
            match live {
                Liveness::Checking => {
                    lines.push(Line::styled("checking whether it is in use…", t.muted))
                }
                Liveness::Idle => {}
                Liveness::Live(why) => lines.push(Line::styled(
                    one_line(
                        &format!("⚠ looks live ({why}): an agent may still be writing it"),
                        width,
                    ),
                    t.warning,
                )),
            }
            if !backups.is_empty() {
                let names: Vec<String> = backups
                    .iter()
                    .filter_map(|b| b.file_name())
                    .map(|n| sanitize_line(&n.to_string_lossy()).into_owned())
                    .collect();
                let n = names.len();
                lines.push(Line::styled(
                    one_line(
                        &format!(
                            "with {n} backup{}: {}",
                            if n == 1 { "" } else { "s" },
                            names.join(", ")
                        ),
                        width,
                    ),
                    t.muted,
                ));
            }
            let km = &state.keymap;
            lines.push(Line::from(vec![
                Span::styled(
                    km.keys_label(KeyContext::Confirm, Action::Yes),
                    t.error.add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!(
                    " move to trash ({} undoes) · ",
                    km.key_label(KeyContext::Picker, Action::Undo)
                )),
                Span::styled(km.keys_label(KeyContext::Confirm, Action::No), t.accent),
                Span::raw(" cancel"),
            ]));
            let rect = bottom_box(area, lines.len() as u16);
            let inner = framed(frame, rect, "Move session to trash?", t.error);
            frame.render_widget(Paragraph::new(lines), inner);
        }
        Mode::ConfirmPermanent { record, error } => {
            let width = (area.width.min(100) as usize).saturating_sub(4);
            let error = match state.record(*record) {
                Some(r) => reason_first(error, &r.info.path),
                None => error.clone(),
            };
            let mut lines: Vec<Line> = wrap_text(&error, width)
                .into_iter()
                .take(3)
                .map(|l| Line::styled(l, t.muted))
                .collect();
            for l in wrap_text(
                "Nothing was deleted. Delete it permanently instead? This cannot be undone.",
                width,
            ) {
                lines.push(Line::styled(l, t.error.add_modifier(Modifier::BOLD)));
            }
            lines.push(Line::from(vec![
                Span::styled(
                    km.keys_label(KeyContext::Danger, Action::DeleteForever),
                    t.error.add_modifier(Modifier::BOLD),
                ),
                Span::raw(" delete permanently · "),
                Span::styled("any other key", t.accent),
                Span::raw(" keep the session"),
            ]));
            let rect = bottom_box(area, lines.len() as u16);
            let inner = framed(frame, rect, "The trash is unavailable", t.error);
            frame.render_widget(Paragraph::new(lines), inner);
        }
        _ => {}
    }
}
