//! The stats screen: the lines of [`crate::app::stats_view::lines`] in a centred box, its last
//! line the stats keys from the key map (group by, close; scroll when it does not fit).

use ratatui::Frame;
use ratatui::layout::Rect;

use super::footer::footer_line;
use super::help::draw_popup;
use super::styled::styled_lines;
use super::theme::Theme;
use crate::app::keymap::{Action, KeyContext};
use crate::app::state::AppState;

pub(crate) fn draw(frame: &mut Frame, area: Rect, state: &AppState, scroll: u16) {
    let Some(view) = &state.stats else {
        return;
    };
    let t = &Theme::of(state);
    let width = area.width.saturating_sub(4);
    let lines = crate::app::stats_view::lines(view, usize::from(width));
    let closing = |fits: bool| {
        let words: &[(Action, &'static str)] = if fits {
            &[(Action::Leave, "close")]
        } else {
            &[(Action::Leave, "close"), (Action::Down, "scroll")]
        };
        footer_line(&state.keymap, KeyContext::Stats, t, width, words)
    };
    draw_popup(
        frame,
        area,
        " Stats ",
        styled_lines(lines, t),
        scroll,
        closing,
        t,
    );
}
