//! Terminal views and the text sanitizer every view and printer goes through.

pub mod sanitize;
pub mod session_view;
pub mod transcript_pane;
pub mod tree_pane;
