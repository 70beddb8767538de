//! Text shared by every layer: the sanitizer (what reaches a terminal or a pipe) and path display.

pub mod paths;
pub mod sanitize;
