//! The CLI's error type and its exit statuses.
//!
//! Exit statuses: 0 done; 1 failed, nothing was changed (or the command changes nothing);
//! 2 usage error (clap); [`EXIT_DONE_OUTPUT_FAILED`] the change was made but its report could
//! not be printed (stdout full or closed): do not retry.

use std::io;

/// The change was made; printing its result failed.
pub const EXIT_DONE_OUTPUT_FAILED: u8 = 3;

/// Whether the error is only that the reader of stdout went away (`grove … | head`).
pub fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// A CLI failure: printed to stderr, exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Msg(String),
    #[error(transparent)]
    Read(#[from] crate::storage::read::ReadError),
    #[error(transparent)]
    Write(#[from] crate::storage::append::WriteError),
    #[error(transparent)]
    Trash(#[from] crate::storage::trash::TrashError),
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The change is made; only printing its report failed (exit status 3, not 1).
    #[error(
        "{done}, but printing the result failed: {source}. The change is made: do not run the command again."
    )]
    DoneButOutputFailed {
        done: String,
        #[source]
        source: io::Error,
    },
}

impl CliError {
    /// The process exit status: 1 when nothing was changed, 3 when the change was made but
    /// its report could not be printed (see [`super::output`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::DoneButOutputFailed { .. } => EXIT_DONE_OUTPUT_FAILED,
            _ => 1,
        }
    }

    /// Only the reader of stdout went away (`grove … | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            CliError::Io(e) | CliError::DoneButOutputFailed { source: e, .. } => is_broken_pipe(e),
            _ => false,
        }
    }
}

pub(crate) fn msg(s: impl Into<String>) -> CliError {
    CliError::Msg(s.into())
}
