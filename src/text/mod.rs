//! Text shared by every layer: the sanitizer (what reaches a terminal or a pipe), clipping to
//! what a view can show, and path display.

pub mod clip;
pub mod count;
pub mod pad;
pub mod paths;
pub mod sanitize;
