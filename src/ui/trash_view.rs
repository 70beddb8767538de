//! The trash view: the session files in the platform trash, newest deletion first, each with
//! its deletion time, file name and original folder; the restore confirmation over it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::app::format::{format_date, shorten_home, wrap_text};
use crate::app::keymap::{Action, KeyContext};
use crate::app::layout::list_window_start;
use crate::app::state::{AppState, StatusKind};
use crate::app::trash_view::{TrashRow, TrashView, context};
use crate::text::count::counted_s;
use crate::text::sanitize::{sanitize_line, sanitize_path, truncate_width};
use crate::ui::dialogs::framed;
use crate::ui::theme::Theme;

/// Draws the trash view over the whole screen.
pub fn draw_trash_view(frame: &mut Frame, area: Rect, state: &AppState, view: &TrashView) {
    let t = &Theme::of(state);
    frame.render_widget(Clear, area);
    let width = area.width as usize;
    let title = match &view.rows {
        None => "Trash · reading…".to_owned(),
        Some(Err(_)) => "Trash".to_owned(),
        Some(Ok(rows)) => format!("Trash · {}", counted_s(rows.len() as u64, "session file")),
    };
    let header = Rect::new(area.x, area.y, area.width, 1);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(" {title}"),
            t.accent.add_modifier(Modifier::BOLD),
        )),
        header,
    );
    let list = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(3),
    );
    let home = state.options.home.as_deref();
    match &view.rows {
        None => frame.render_widget(
            Paragraph::new(Line::styled("  Reading the trash…", t.muted)),
            list,
        ),
        Some(Err(e)) => frame.render_widget(
            Paragraph::new(Line::styled(
                format!("  Cannot read the trash: {}", sanitize_line(e)),
                t.error,
            ))
            .wrap(Wrap { trim: false }),
            list,
        ),
        Some(Ok(rows)) if rows.is_empty() => frame.render_widget(
            Paragraph::new(Line::styled(
                "  No session files in the trash. Sessions deleted with ctrl+d or `grove rm` appear here.",
                t.muted,
            ))
            .wrap(Wrap { trim: false }),
            list,
        ),
        Some(Ok(rows)) => {
            // Two lines a row: the name and time, then where it goes back to.
            let per_page = (list.height as usize / 2).max(1);
            let start = list_window_start(view.selected, rows.len(), per_page);
            let lines: Vec<Line> = rows[start..]
                .iter()
                .take(per_page)
                .enumerate()
                .flat_map(|(i, r)| row_lines(r, start + i == view.selected, width, home, t))
                .collect();
            frame.render_widget(Paragraph::new(lines), list);
        }
    }
    let status_area = Rect::new(area.x, area.bottom().saturating_sub(2), area.width, 1);
    if let Some(s) = &state.status {
        let style = match s.kind {
            StatusKind::Error => t.error,
            _ => t.ok,
        };
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(
                    " {}",
                    truncate_width(&sanitize_line(&s.text), width.saturating_sub(1))
                ),
                style,
            )),
            status_area,
        );
    } else if view.restoring {
        frame.render_widget(
            Paragraph::new(Line::styled(" Restoring…", t.muted)),
            status_area,
        );
    }
    let footer = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
    frame.render_widget(
        Paragraph::new(super::footer::footer_line(
            &state.keymap,
            context(view),
            t,
            area.width,
            &[(Action::Leave, "back")],
        )),
        footer,
    );
    if view.confirm
        && let Some(r) = view.selected_row()
    {
        draw_confirm(frame, area, state, r, home, t);
    }
}

fn row_lines(
    r: &TrashRow,
    selected: bool,
    width: usize,
    home: Option<&str>,
    t: &Theme,
) -> Vec<Line<'static>> {
    let when = r
        .deleted_s
        .map(|s| format_date(s.saturating_mul(1000)))
        .unwrap_or_else(|| "deleted at an unknown time".to_owned());
    let cursor = if selected { "> " } else { "  " };
    let backups = if r.backups == 0 {
        String::new()
    } else {
        format!("  +{}", counted_s(r.backups as u64, "backup"))
    };
    let name_room = width.saturating_sub(cursor.len() + when.len() + backups.len() + 2);
    let name = truncate_width(&sanitize_line(&r.name), name_room).into_owned();
    let folder = r
        .original
        .parent()
        .map(|p| sanitize_path(&shorten_home(&p.to_string_lossy(), home)).into_owned())
        .unwrap_or_default();
    let base = if selected { t.selected } else { Style::new() };
    vec![
        Line::from(vec![
            Span::styled(cursor, t.accent.patch(base)),
            Span::styled(when, t.muted.patch(base)),
            Span::styled("  ", base),
            Span::styled(name, base.add_modifier(Modifier::BOLD)),
            Span::styled(backups, t.muted.patch(base)),
        ]),
        Line::from(vec![
            Span::raw("    "),
            Span::styled(
                truncate_width(&format!("from {folder}"), width.saturating_sub(4)).into_owned(),
                t.muted,
            ),
        ]),
    ]
}

fn draw_confirm(
    frame: &mut Frame,
    area: Rect,
    state: &AppState,
    r: &TrashRow,
    home: Option<&str>,
    t: &Theme,
) {
    let km = &state.keymap;
    let w = area.width.min(90);
    let inner_w = w.saturating_sub(4) as usize;
    let path = sanitize_path(&shorten_home(&r.original.to_string_lossy(), home)).into_owned();
    let with = if r.backups == 0 {
        String::new()
    } else {
        format!(" with its {}", counted_s(r.backups as u64, "backup"))
    };
    let hint = format!(
        "{} restore · {} cancel",
        km.key_label(KeyContext::Confirm, Action::Yes),
        km.key_label(KeyContext::Confirm, Action::No)
    );
    let mut text: Vec<Line> = Vec::new();
    for (para, style) in [
        (format!("Restore {path}{with}?"), Style::new()),
        (
            "It goes back where it was, byte for byte; nothing is overwritten.".to_owned(),
            t.muted,
        ),
        (String::new(), Style::new()),
        (hint, t.muted),
    ] {
        let wrapped = wrap_text(&para, inner_w.max(1));
        if wrapped.is_empty() {
            text.push(Line::raw(""));
        }
        text.extend(wrapped.into_iter().map(|l| Line::styled(l, style)));
    }
    let h = (text.len() as u16 + 2).min(area.height.saturating_sub(2));
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + area.height.saturating_sub(h) / 2,
        w,
        h,
    );
    let inner = framed(frame, rect, "Restore from the trash", t.accent);
    frame.render_widget(Paragraph::new(text), inner);
}
