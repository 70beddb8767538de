//! What the event loop's channel carries (input, job results, signals) and how the browser ends.

use std::path::PathBuf;

use crate::app::event::Event;
use crate::model::context::Dialect;

use crate::tui::signals::Signal;

/// What arrives on the event loop's one channel.
#[derive(Debug)]
pub(crate) enum Msg {
    /// Input, or the result of one-off work.
    App(Event),
    /// The result of latest-only work, with the generation of its request.
    Done {
        job: Job,
        generation: u64,
        event: Event,
    },
    Signal(Signal),
    /// The terminal cannot be read any more (it went away).
    InputClosed,
}

/// The kinds of latest-only work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    Scan,
    Search,
    Preview,
    Open,
    Live,
    Hits,
    /// The open session view, read again as its file grows.
    Follow,
    /// Threaded rows of a long list.
    Threads,
    Stats,
}

/// How the browser ended.
pub(crate) enum Exit {
    Code(u8),
    Print(PathBuf),
    PrintLine(String),
    Launch {
        path: PathBuf,
        agent: Dialect,
        cwd: PathBuf,
    },
}
