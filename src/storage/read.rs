//! Opening session files for reading only.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::model::context::Dialect;
use crate::model::info::{InfoBuilder, SessionInfo};
use crate::model::parse::ParsedSession;
use crate::model::tree::Session;

/// Why a session file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: not a regular file (directory, FIFO or device); not opened")]
    NotAFile { path: PathBuf },
    #[error("{path}: no session header on the first line: not a valid session file")]
    NoHeader { path: PathBuf },
}

impl ReadError {
    fn io(path: &Path, source: io::Error) -> Self {
        ReadError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Opens a file for reading after checking it is a regular file (opening a FIFO would block).
pub fn open_regular(path: &Path) -> Result<(File, fs::Metadata), ReadError> {
    let meta = fs::metadata(path).map_err(|e| ReadError::io(path, e))?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let file = File::open(path).map_err(|e| ReadError::io(path, e))?;
    Ok((file, meta))
}

/// Modification time in ms since the epoch (0 when unknown).
pub fn mtime_ms(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}

/// Loads a whole session (entries and tree). A file without a header still loads (with a
/// `NoHeader` issue) so its content can be shown; callers decide what to allow.
pub fn load_session(path: &Path) -> Result<Session, ReadError> {
    let (file, _) = open_regular(path)?;
    let parsed = ParsedSession::read(file).map_err(|e| ReadError::io(path, e))?;
    Ok(Session::new(parsed))
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
