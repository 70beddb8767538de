//! The interactive browser: state, events, the pure `update`, and the event loop.

pub mod actions;
pub mod config;
pub mod event;
pub mod format;
pub mod help;
pub mod keymap;
pub mod keymap_defaults;
pub mod keyspec;
pub mod launch;
pub mod layout;
pub mod live;
pub mod matcher;
pub mod ops;
pub mod picker_keys;
pub mod popup_keys;
pub mod preview;
pub mod preview_text;
pub mod record;
pub mod rows;
pub mod session_view;
pub mod source;
pub mod state;
pub mod styled;
pub mod text_input;
pub mod theme;
pub mod update;
