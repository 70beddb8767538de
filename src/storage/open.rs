//! Opening a session file for reading: the checks before a read, and why a read failed.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

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

/// Modification time in ms since the epoch, as Node gives pi's `Stats.mtime`:
/// `new Date(Math.round(mtimeMs))` with `mtimeMs = sec * 1e3 + nsec / 1e6` in doubles, from the
/// same `stat` fields (so before 1970 too): rounded to the nearest millisecond, ties up.
pub fn mtime_ms(meta: &fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    let ms = meta.mtime() as f64 * 1e3 + meta.mtime_nsec() as f64 / 1e6;
    // `Math.round`: the fraction of a double is exact, so this is round-half-up without the
    // double rounding of `(ms + 0.5).floor()`.
    let floor = ms.floor();
    (if ms - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }) as i64
}
