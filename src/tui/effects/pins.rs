//! What each session was (folder and file identity) when the user chose it: the delete, label
//! or check-out refuses if that changed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::storage::safe_fs::Pin;

pub(crate) type Pins = Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, Pin>>>;

/// Pins what `path` is now (best effort: a file that cannot be pinned is checked by the roots
/// guard alone).
pub(crate) fn pin_now(pins: &Pins, path: &Path) {
    if let (Ok(pin), Ok(mut pins)) = (Pin::of(path), pins.lock()) {
        pins.insert(path.to_owned(), pin);
    }
}

pub(crate) fn pinned(pins: &Pins, path: &Path) -> Option<Pin> {
    pins.lock().ok().and_then(|p| p.get(path).copied())
}
