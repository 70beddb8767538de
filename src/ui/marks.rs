//! What pins, archive and marks add to the picker: a marker in the row, the view and the mark
//! count in the title, and the one confirmation of a bulk trash listing every session.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::format::{one_line, shorten_home, truncate_left};
use crate::app::keymap::{Action, KeyContext};
use crate::app::marks::marked_rows;
use crate::app::state::{AppState, Mode};
use crate::ui::dialogs::framed;
use crate::ui::theme::Theme;

/// Marked: `✓`; pinned: `⚑` (both one column wide in every terminal width table).
pub(crate) const MARKED: &str = "✓ ";
pub(crate) const PINNED: &str = "⚑ ";

/// The marker spans before a row's title (none for a plain row, so its layout is unchanged).
pub(crate) fn row_markers(state: &AppState, record: usize, t: &Theme) -> Vec<Span<'static>> {
    let p = &state.picker;
    let mut out = Vec::new();
    if p.org.marked.contains(&record) {
        out.push(Span::styled(MARKED, t.ok.add_modifier(Modifier::BOLD)));
    }
    if p.records.get(record).is_some_and(|r| p.org.is_pinned(r)) {
        out.push(Span::styled(PINNED, t.accent));
    }
    out
}

/// The title's badges: the view (pinned only, archived) and the number marked.
pub(crate) fn title_badges(state: &AppState, t: &Theme) -> Vec<Span<'static>> {
    let p = &state.picker;
    let mut out = Vec::new();
    let marked = marked_rows(p).len();
    if marked > 0 {
        out.push(Span::styled(
            format!("{marked} marked"),
            t.ok.add_modifier(Modifier::BOLD),
        ));
        out.push(Span::raw("  "));
    }
    if let Some(label) = p.org.view.label() {
        out.push(Span::styled(format!("[{label}]"), t.warning));
        out.push(Span::raw("  "));
    }
    out
}

/// The status line while the marked sessions move to the trash.
pub(crate) fn trashing_status(state: &AppState, t: &Theme) -> Option<Line<'static>> {
    match &state.mode {
        Mode::TrashingMarked { records } => Some(Line::styled(
            format!("Moving {} sessions to trash…", records.len()),
            t.error,
        )),
        _ => None,
    }
}

/// The bulk trash confirmation: every marked session by title and path (as many as fit).
pub(crate) fn draw_confirm_trash_marked(frame: &mut Frame, area: Rect, state: &AppState) {
    let Mode::ConfirmTrashMarked { records } = &state.mode else {
        return;
    };
    let t = &Theme::of(state);
    let home = state.options.home.as_deref();
    let w = area.width.min(100);
    let width = (w as usize).saturating_sub(4);
    let keys = confirm_keys(state, t, width);
    // Title, border and the keys lines take 3 + n rows; keep one for the footer.
    let room = (area.height as usize).saturating_sub(5 + keys.len()).max(1);
    let mut lines = Vec::new();
    let shown = if records.len() > room {
        room.saturating_sub(1)
    } else {
        records.len()
    };
    for &i in records.iter().take(shown) {
        let Some(r) = state.record(i) else { continue };
        let path = r.info.path.to_string_lossy();
        let path = truncate_left(&one_line(&shorten_home(&path, home), usize::MAX), width / 2)
            .into_owned();
        let title_room = width.saturating_sub(path.chars().count() + 3);
        lines.push(Line::from(vec![
            Span::styled(one_line(r.info.title(), title_room), Modifier::BOLD),
            Span::raw("  "),
            Span::styled(path, t.muted),
        ]));
    }
    if shown < records.len() {
        lines.push(Line::styled(
            format!("… and {} more", records.len() - shown),
            t.muted,
        ));
    }
    lines.extend(keys);
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(1));
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.bottom().saturating_sub(h + 1),
        w,
        h,
    );
    let title = format!("Move {} sessions to trash?", records.len());
    let inner = framed(frame, rect, &title, t.error);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The keys of the bulk confirmation on one line, or, when it is wider than `width`, yes and no
/// on a line each (yes without the undo note if that still does not fit): never cut mid-word.
fn confirm_keys(state: &AppState, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let km = &state.keymap;
    let yes_key = Span::styled(
        km.keys_label(KeyContext::Confirm, Action::Yes),
        t.error.add_modifier(Modifier::BOLD),
    );
    let undo = format!(
        " ({} undoes all)",
        km.key_label(KeyContext::Picker, Action::Undo)
    );
    let no = vec![
        Span::styled(km.keys_label(KeyContext::Confirm, Action::No), t.accent),
        Span::raw(" cancel"),
    ];
    let yes = |with_undo: bool| {
        let text = if with_undo {
            format!(" move all to trash{undo}")
        } else {
            " move all to trash".to_owned()
        };
        vec![yes_key.clone(), Span::raw(text)]
    };
    let one: Vec<Span<'static>> = yes(true)
        .into_iter()
        .chain([Span::raw(" · ")])
        .chain(no.clone())
        .collect();
    if Line::from(one.clone()).width() <= width {
        return vec![Line::from(one)];
    }
    let first = Line::from(yes(true));
    let first = if first.width() <= width {
        first
    } else {
        Line::from(yes(false))
    };
    vec![first, Line::from(no)]
}
