//! Why a delete or a restore did not happen, and the trash crate's errors said readably.

use std::path::PathBuf;

use super::safe_fs::PinError;

/// Why a delete did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TrashError {
    #[error("{path}: cannot move to the trash: {message}")]
    Unavailable { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("nothing to restore: {0}")]
    NotInTrash(String),
    #[error(
        "{path}: not a session file grove lists under its session roots; nothing was deleted (give its folder with --session-dir to delete it)"
    )]
    OutsideRoots { path: PathBuf },
    #[error("{path}: {reason}; nothing was deleted")]
    NotASessionFile { path: PathBuf, reason: String },
    #[error("{0}")]
    Pinned(PinError),
    #[error(
        "{path}: not restored: {reason}; {path} was left as it was, and the session is still in the trash at {in_trash}"
    )]
    RestoreFailed {
        path: PathBuf,
        in_trash: PathBuf,
        reason: String,
    },
}

impl From<PinError> for TrashError {
    fn from(e: PinError) -> Self {
        match e {
            PinError::Io { path, source } => TrashError::Io { path, source },
            changed => TrashError::Pinned(changed),
        }
    }
}

/// A readable reason for a failed trash operation (the crate's own text is a debug dump).
pub fn describe(e: &trash::Error) -> String {
    #[allow(unreachable_patterns)]
    match e {
        #[cfg(all(
            unix,
            not(target_os = "macos"),
            not(target_os = "ios"),
            not(target_os = "android")
        ))]
        trash::Error::FileSystem { path, source } => format!("{}: {source}", path.display()),
        trash::Error::TargetedRoot => "refusing to trash a root folder".into(),
        trash::Error::CouldNotAccess { target } => format!("cannot access {target}"),
        trash::Error::CanonicalizePath { original } if original.as_os_str().is_empty() => {
            "cannot resolve the trash folder (an empty path: check HOME and XDG_DATA_HOME)".into()
        }
        trash::Error::CanonicalizePath { original } => {
            format!("cannot resolve {}", original.display())
        }
        trash::Error::RestoreCollision { path, .. } => {
            format!("{} exists again; not overwritten", path.display())
        }
        trash::Error::RestoreTwins { path, .. } => {
            format!("several trashed items came from {}", path.display())
        }
        trash::Error::Unknown { description } => description.clone(),
        other => other.to_string(),
    }
}
