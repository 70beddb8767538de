//! The picker on a first run, when grove found no session at all: the folders it searched and
//! how to get sessions on screen (the same words as the CLI's empty `grove list`).

use ratatui::text::Line;

use crate::app::first_run::TRY_DEMO_OR_DIR;
use crate::app::format::wrap_text;
use crate::app::state::AppState;
use crate::ui::theme::Theme;

/// The lines for an empty picker when no session was found anywhere (none loaded, the scan
/// done, no query); `None` otherwise (the picker's own "no sessions match" texts apply).
pub fn first_run_lines(state: &AppState, width: u16) -> Option<Vec<Line<'static>>> {
    let p = &state.picker;
    if !p.loading.done || p.has_query() || p.search.error.is_some() {
        return None;
    }
    let any = p
        .records
        .iter()
        .enumerate()
        .any(|(i, r)| !p.deleted.get(i).copied().unwrap_or(false) && !r.info.internal);
    if any {
        return None;
    }
    let t = &Theme::of(state);
    let mut paragraphs = vec!["No sessions found.".to_owned()];
    if !state.options.searched.is_empty() {
        paragraphs.push(format!("Looked in: {}.", state.options.searched));
    }
    paragraphs.push(TRY_DEMO_OR_DIR.to_owned());
    // Wrapped under the two-column indent of the picker's other messages.
    let room = (width as usize).saturating_sub(3);
    let lines = paragraphs
        .iter()
        .flat_map(|p| wrap_text(p, room))
        .map(|l| Line::styled(format!("  {l}"), t.muted))
        .collect();
    Some(lines)
}
