//! The terminal runtime: terminal set-up and restore, signals, the event loop, the job pool
//! and effect execution.

mod clipboard;
mod delete;
mod effects;
mod external;
mod jobs;
pub mod run;
mod signals;
pub mod terminal;
mod trash_jobs;
mod watch;
mod watch_poll;
