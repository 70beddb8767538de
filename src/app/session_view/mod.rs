//! The session view: a session's tree beside the transcript of the selected branch, with
//! label, check-out, fork, resume and export actions.
//!
//! [`update`] turns a key into state changes and [`ViewEffect`]s and does no I/O; the event
//! loop executes the effects (for the file writes [`execute`] does exactly that) and feeds
//! the results back with [`apply_outcome`]. Rendering is `ui::session_view::draw_session_view`.
//! This file only names the parts; each lives in its own file.

pub mod body;
pub mod export_target;
pub mod geometry;
mod handover;
pub mod hits;
pub mod io;
pub mod outcome;
pub mod resume_offer;
pub mod seeded;
pub mod state;
pub mod transcript;
pub mod types;
pub mod update;
mod window;

pub use geometry::{Panes, SIDE_BY_SIDE_MIN_WIDTH, ViewLayout, inner, layout, layout_with};
pub use io::{execute, execute_pinned, write_export};
pub use outcome::{apply_outcome, apply_resize};
pub use state::SessionViewState;
pub use types::{ExportFailure, Focus, Mode, Outcome, Status, ViewEffect};
pub use update::{apply_key, apply_key_with, paste, settle, update, view_context};
