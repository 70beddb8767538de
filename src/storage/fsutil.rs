//! Reading small files grove does not own (its config, the agents' `settings.json`) safely:
//! only a regular file is read (a FIFO would block the start, `/dev/zero` would grow memory
//! without end), and only up to a size cap. Also a list of problems found while reading them,
//! for the browser's notice and the CLI's stderr.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The cap for config and settings files: far more than any real one.
pub const SMALL_FILE_CAP: u64 = 1 << 20;

/// Why a small file was not read.
#[derive(Debug, thiserror::Error)]
pub enum SmallFileError {
    #[error("not a regular file (a folder, FIFO, socket or device), so not read: {}", .path.display())]
    NotRegular { path: PathBuf },
    #[error("larger than {cap} bytes, so not read: {}", .path.display())]
    TooLarge { path: PathBuf, cap: u64 },
    #[error("{source}: {}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Reads `path` whole if it is a regular file of at most `cap` bytes. `Ok(None)` when it does
/// not exist. Opened without blocking (a FIFO with no writer does not hang the open) and
/// checked on the open handle, so a file swapped for a FIFO after a check cannot hang either.
pub fn read_regular_file_capped(path: &Path, cap: u64) -> Result<Option<Vec<u8>>, SmallFileError> {
    let io_err = |source| SmallFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match open_nonblocking(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(e)),
    };
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(SmallFileError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let too_large = || SmallFileError::TooLarge {
        path: path.to_path_buf(),
        cap,
    };
    if meta.len() > cap {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte past the cap tells a file that grew since the stat.
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io_err)?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

static PROBLEMS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records a problem with a file grove read on the side (an agent's `settings.json`), to be
/// shown by whoever runs: the browser's notice, or stderr for a subcommand.
pub fn report_problem(problem: String) {
    let mut p = PROBLEMS.lock().unwrap_or_else(|e| e.into_inner());
    if !p.contains(&problem) {
        p.push(problem);
    }
}

/// The problems reported so far (each once), emptying the list.
pub fn take_problems() -> Vec<String> {
    std::mem::take(&mut *PROBLEMS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Fills `buf` from `file` at `offset` (a positioned read: the file's cursor is not used, so
/// one handle serves readers at several places).
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_small_regular_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("ok.toml");
        std::fs::write(&ok, "a = 1\n").unwrap();
        assert_eq!(
            read_regular_file_capped(&ok, 100).unwrap().as_deref(),
            Some(&b"a = 1\n"[..])
        );
        assert!(matches!(
            read_regular_file_capped(&ok, 3),
            Err(SmallFileError::TooLarge { cap: 3, .. })
        ));
        assert!(
            read_regular_file_capped(&dir.path().join("missing"), 100)
                .unwrap()
                .is_none()
        );
        assert!(matches!(
            read_regular_file_capped(dir.path(), 100),
            Err(SmallFileError::NotRegular { .. })
        ));
        assert!(matches!(
            read_regular_file_capped(Path::new("/dev/zero"), 100),
            Err(SmallFileError::NotRegular { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read_regular_file_capped(&fifo, 100).unwrap_err();
        assert!(matches!(err, SmallFileError::NotRegular { .. }), "{err}");
        assert!(err.to_string().starts_with("not a regular file"), "{err}");
    }
}
