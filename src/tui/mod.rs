//! The terminal runtime: terminal set-up and restore, the event loop, and effect execution.

pub mod run;
