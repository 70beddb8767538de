//! The resume offer's dialog (`r` on an entry the session does not resume at): which branch
//! resumes now, which one would after the check-out, and what is written. With `--print` `r`
//! prints the session for a script instead of resuming: the dialog says so.

use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::app::keymap::{Action, KeyContext, Keymap};
use crate::app::session_view::SessionViewState;
use crate::app::session_view::types::ResumeOffer;
use crate::text::sanitize::truncate_width;
use crate::ui::theme::Theme;

/// The dialog's title.
pub(super) fn resume_offer_title(state: &SessionViewState) -> &'static str {
    if state.resume_prints {
        " Print from here? "
    } else {
        " Resume here? "
    }
}

/// The dialog's lines for a dialog `w` columns wide inside, and its key hint.
pub(super) fn resume_offer_lines(
    state: &SessionViewState,
    offer: &ResumeOffer,
    w: usize,
    theme: &Theme,
    keymap: &Keymap,
) -> (Vec<Line<'static>>, String) {
    let entry = |i: usize| truncate_width(&state.entry_line(i), w).into_owned();
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::raw("The session does not resume at this entry.")];
    lines.push(Line::raw(if state.resume_prints {
        "Check it out first, then print it (--print) to resume after:"
    } else {
        "Check it out first, then resume after:"
    }));
    match offer.resumes_after {
        Some(after) => lines.push(Line::styled(entry(after), bold)),
        None => lines.push(Line::styled(
            "(nothing: an empty conversation, before the first message)",
            bold,
        )),
    }
    if offer.resumes_after != Some(offer.target) {
        lines.push(Line::styled(
            "(a user message goes back to the editor: the branch resumes before it)",
            theme.muted,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::raw("Without it the session resumes after:"));
    if let Some(leaf) = offer.leaf {
        lines.push(Line::styled(entry(leaf), theme.muted));
    }
    let depth = offer
        .resumes_after
        .map(|a| state.session.tree.path_to(a).len())
        .unwrap_or(0);
    lines.push(Line::styled(
        format!(
            "The resumed branch holds {depth} entries. One line is appended; nothing is removed."
        ),
        theme.muted,
    ));
    let hint = format!(
        "{} check out and {} · {} cancel",
        keymap.keys_label(KeyContext::Confirm, Action::Yes),
        if state.resume_prints {
            "print"
        } else {
            "resume"
        },
        keymap.keys_label(KeyContext::Confirm, Action::No)
    );
    (lines, hint)
}
