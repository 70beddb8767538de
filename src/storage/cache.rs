//! The persistent index cache (its location; the index itself builds on this).

use std::io;
use std::path::PathBuf;

/// The cache folder: the platform cache dir (`$XDG_CACHE_HOME/grove` on Linux).
pub fn cache_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "grove").map(|d| d.cache_dir().to_path_buf())
}

/// Removes the cache; returns the folder removed, if there was one.
pub fn clear() -> io::Result<Option<PathBuf>> {
    let Some(dir) = cache_dir() else {
        return Ok(None);
    };
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(Some(dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))),
    }
}
