//! The stats screen: the lines of [`crate::app::stats_view::lines`] in a centred box.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::help::draw_help_popup;
use super::styled::styled_lines;
use super::theme::Theme;
use crate::app::state::AppState;

pub(crate) fn draw(frame: &mut Frame, area: Rect, state: &AppState, scroll: u16) {
    let Some(view) = &state.stats else {
        return;
    };
    let t = &Theme::of(state);
    let lines = crate::app::stats_view::lines(view);
    draw_help_popup(frame, area, " Stats ", styled_lines(lines, t), scroll, t);
}
