//! The interactive browser: state, events, the pure `update`, and the event loop.

pub mod config;
pub mod event;
pub mod keymap;
pub mod layout;
pub mod live;
pub mod matcher;
pub mod preview;
pub mod search_hits;
pub mod session_view;
pub mod source;
pub mod state;
pub mod text_input;
pub mod update;
