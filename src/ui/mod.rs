//! Terminal views and the text sanitizer every view and printer goes through.
//!
//! Views are pure functions of the app state (and of "now", for ages), drawn with ratatui.

pub mod bookmarks;
pub mod dialogs;
pub mod first_run;
pub mod footer;
pub mod handoff;
pub mod help;
pub mod marks;
pub mod notice;
pub mod picker;
pub mod preview;
pub mod rendered;
pub mod resume_offer;
pub mod session_view;
pub mod stats_view;
pub mod styled;
pub mod theme;
pub mod transcript_pane;
pub mod trash_view;
pub mod tree_pane;

use crate::ui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::state::{AppState, Mode, Screen};

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, state: &AppState, now_ms: i64) {
    let area = frame.area();
    if crate::app::layout::too_small(area) {
        draw_too_small(frame, area);
        return;
    }
    match state.screen {
        Screen::Picker => picker::draw_picker(frame, area, state, now_ms),
        Screen::Session { .. } => preview::draw_session_screen(frame, area, state),
        Screen::View { ref view, .. } => {
            session_view::draw_session_view(frame, area, view, &Theme::of(state), &state.keymap)
        }
    }
    match state.mode {
        Mode::Help { scroll } => help::draw_help(frame, area, state, scroll),
        Mode::Problems { scroll } => help::draw_problems(frame, area, state, scroll),
        Mode::Trash(ref view) => trash_view::draw_trash_view(frame, area, state, view),
        Mode::Normal | Mode::Deleting { .. } | Mode::TrashingMarked { .. } => {}
        Mode::ConfirmTrashMarked { .. } => marks::draw_confirm_trash_marked(frame, area, state),
        Mode::Bookmarks(ref s) => bookmarks::draw_bookmarks(frame, area, state, s),
        Mode::Stats { scroll } => stats_view::draw(frame, area, state, scroll),
        Mode::Handoff(ref m) => handoff::draw_handoff(frame, area, state, m),
        _ => dialogs::draw_dialog(frame, area, state),
    }
    if let Some(n) = state.notices.popup() {
        let scroll = state.notices.scroll;
        notice::draw_notice(frame, area, n, scroll, &Theme::of(state), &state.keymap);
    }
}

fn draw_too_small(frame: &mut Frame, area: Rect) {
    let text = format!(
        "Terminal too small ({}×{}); grove needs at least {}×{}.",
        area.width,
        area.height,
        crate::app::layout::MIN_WIDTH,
        crate::app::layout::MIN_HEIGHT
    );
    frame.render_widget(
        Paragraph::new(Line::raw(text)).wrap(Wrap { trim: true }),
        area,
    );
}
