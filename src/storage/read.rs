//! Opening session files for reading only.

use crate::storage::fsutil::read_exact_at;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::model::context::Dialect;
use crate::model::entry::LineSource;
use crate::model::info::{InfoBuilder, SessionInfo};
use crate::model::parse::{ParsedSession, SlimLoad};
use crate::model::tree::Session;

pub use super::open::{ReadError, mtime_ms, open_regular};

/// Files at least this big are loaded slim (see [`crate::model::entry`]).
pub const SLIM_LOAD_MIN_BYTES: u64 = 32 << 20;

/// Whether to load long lines slim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlimMode {
    /// Slim from [`SLIM_LOAD_MIN_BYTES`] on.
    Auto,
    Always,
    Never,
}

/// Loads a whole session (entries and tree). A file without a header still loads (with a
/// `NoHeader` issue) so its content can be shown; callers decide what to allow. Large files
/// load slim: whole entries are read back from the open file when asked for.
pub fn load_session(path: &Path) -> Result<Session, ReadError> {
    load_session_with(path, SlimMode::Auto)
}

/// [`load_session`] with the choice of slim loading made by the caller.
pub fn load_session_with(path: &Path, mode: SlimMode) -> Result<Session, ReadError> {
    load_session_cancellable(path, mode, &|| false)
}

/// [`load_session_with`] that stops early once `cancelled` returns true (asked before every
/// read of the file, so between blocks): the result is then an I/O error saying so.
pub fn load_session_cancellable(
    path: &Path,
    mode: SlimMode,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Session, ReadError> {
    let (file, meta) = open_regular(path)?;
    let slim = match mode {
        SlimMode::Auto => meta.len() >= SLIM_LOAD_MIN_BYTES,
        SlimMode::Always => true,
        SlimMode::Never => false,
    };
    let parsed = if slim {
        // A second handle on the same open file: reads back whole entries by position even if
        // the path is renamed or trashed meanwhile.
        let back = file.try_clone().map_err(|e| ReadError::io(path, e))?;
        let source: Arc<dyn LineSource> = Arc::new(FileLines { file: back });
        let load = SlimLoad {
            source: &source,
            expected_bytes: meta.len(),
        };
        ParsedSession::read_with(Cancellable { file, cancelled }, Some(load))
    } else {
        ParsedSession::read(Cancellable { file, cancelled })
    };
    Ok(Session::new(parsed.map_err(|e| ReadError::io(path, e))?))
}

/// A reader that fails once its load is cancelled.
struct Cancellable<'a, R> {
    file: R,
    cancelled: &'a (dyn Fn() -> bool + Sync),
}

impl<R: io::Read> io::Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if (self.cancelled)() {
            return Err(io::Error::other("loading was cancelled"));
        }
        self.file.read(buf)
    }
}

/// A session file read back by position.
#[derive(Debug)]
struct FileLines {
    file: File,
}

impl LineSource for FileLines {
    fn read_line(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        read_exact_at(&self.file, &mut buf, offset)?;
        Ok(buf)
    }
}

/// The listing fields of one file, read streaming without keeping entries (the fast scan; see
/// [`super::fastscan`]).
pub fn scan_info(path: &Path, agent: Option<Dialect>) -> Result<SessionInfo, ReadError> {
    super::fastscan::scan_info_with(path, agent, super::fastscan::ParseMode::Fast)
}

/// [`scan_info`] parsing every line fully: the reference the fast scan is tested against.
pub fn scan_info_full(path: &Path, agent: Option<Dialect>) -> Result<SessionInfo, ReadError> {
    super::fastscan::scan_info_with(path, agent, super::fastscan::ParseMode::Full)
}

/// The dialect of a loaded session when the root did not decide it.
pub fn detect_agent(path: &Path, session: &Session, root_agent: Option<Dialect>) -> Dialect {
    if let Some(a) = root_agent.or_else(|| super::roots::agent_from_path(path)) {
        return a;
    }
    let mut b = InfoBuilder::new();
    if let Some(h) = &session.parsed.header {
        b.header(h);
    }
    for e in session.entries() {
        b.entry(e);
        if b.has_atomic_markers() {
            return Dialect::Atomic;
        }
    }
    Dialect::Pi
}
