//! Application state and event handling: `update(event) -> effects`, no I/O inside update.

pub mod session_view;
