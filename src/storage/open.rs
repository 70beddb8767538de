//! Opening a session file for reading: the checks before a read, and why a read failed.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

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
    pub(crate) fn io(path: &Path, source: io::Error) -> Self {
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
    // As Node, whose `Stats.mtime` pi falls back to: `new Date(Math.round(mtimeMs))`, with
    // `mtimeMs = sec * 1e3 + nsec / 1e6` in doubles: rounded to the nearest millisecond
    // (half up), not truncated.
    let Some(d) = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
    else {
        return 0;
    };
    let ms = d.as_secs() as f64 * 1e3 + f64::from(d.subsec_nanos()) / 1e6;
    (ms + 0.5).floor() as i64
}
