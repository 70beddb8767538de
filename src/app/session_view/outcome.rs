//! Results fed back to the session view: a resize, and what a write did.

use ratatui::layout::Rect;

use crate::app::format::reason_first;

use super::state::SessionViewState;
use super::types::{ExportFailure, Mode, Outcome, ViewEffect};

/// Tells the view the terminal size changed.
pub fn apply_resize(state: &mut SessionViewState, viewport: Rect) {
    state.viewport = viewport;
    state.transcript_scroll = state.transcript_scroll.min(state.transcript_bottom());
}

/// Feeds an effect's result back; returns notifications for the loop (picker refreshes).
pub fn apply_outcome(state: &mut SessionViewState, outcome: Outcome) -> Vec<ViewEffect> {
    match outcome {
        Outcome::Labeled(Ok(session)) => {
            state.reload(session);
            state.set_status("Label saved", false);
            vec![ViewEffect::SessionChanged {
                path: state.path.clone(),
            }]
        }
        Outcome::CheckedOut(Ok(session)) => {
            state.reload(session);
            state.set_status(
                "Checked out: resuming the session continues from here",
                false,
            );
            let mut fx = vec![ViewEffect::SessionChanged {
                path: state.path.clone(),
            }];
            fx.extend(super::resume_offer::after_checkout(state, true));
            fx
        }
        Outcome::CheckedOut(Err(e)) => {
            super::resume_offer::after_checkout(state, false);
            state.set_status(reason_first(&e, &state.path), true);
            Vec::new()
        }
        Outcome::Labeled(Err(e)) => {
            state.set_status(reason_first(&e, &state.path), true);
            Vec::new()
        }
        Outcome::Forked(Ok(path)) => {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            state.set_status(
                format!("Forked to {}", crate::text::sanitize::sanitize_line(&name)),
                false,
            );
            vec![ViewEffect::SessionCreated {
                path,
                parent: state.path.clone(),
            }]
        }
        Outcome::Forked(Err(e)) => {
            state.set_status(reason_first(&e, &state.path), true);
            Vec::new()
        }
        Outcome::Exported(Ok(file)) => {
            state.set_status(
                format!(
                    "Exported to {}",
                    crate::text::sanitize::sanitize_line(&file.to_string_lossy())
                ),
                false,
            );
            Vec::new()
        }
        Outcome::Exported(Err(ExportFailure::Exists(file))) => {
            state.mode = Mode::ConfirmOverwrite { file };
            Vec::new()
        }
        Outcome::Exported(Err(ExportFailure::Other(e))) => {
            state.set_status(e, true);
            Vec::new()
        }
    }
}
