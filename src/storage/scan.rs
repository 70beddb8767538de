//! Listing many sessions at once, on all cores, streaming results as they come.

use std::sync::mpsc::Sender;

use rayon::prelude::*;

use super::read::{ReadError, scan_info};
use super::roots::{FoundFile, SessionRoot, Skipped};
use crate::model::info::SessionInfo;

/// One file's outcome.
pub type ScanResult = Result<SessionInfo, ReadError>;

/// The result of listing every root.
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<SessionInfo>,
    /// Files that are not sessions or could not be read, with the reason.
    pub problems: Vec<Skipped>,
}

/// Scans the given files in parallel, sending each outcome as soon as it is ready.
pub fn scan_files_streaming(files: &[FoundFile], tx: &Sender<(usize, ScanResult)>) {
    files
        .par_iter()
        .enumerate()
        .for_each_with(tx.clone(), |tx, (i, f)| {
            let _ = tx.send((i, scan_info(&f.path, f.agent)));
        });
}

/// Lists every session under the roots without the index cache (every file is read); sorted
/// by `modified`, newest first, problems by path. See [`super::index::Index::list`] for the
/// cached and streaming version.
pub fn list_sessions(roots: &[SessionRoot]) -> Listing {
    super::index::Index::disabled().list(
        roots,
        super::index::ListOptions { with_text: true },
        |_| {},
    )
}

/// Newest first; ties by path so the order is stable across runs.
pub fn sort_by_modified(sessions: &mut [SessionInfo]) {
    sessions.sort_by(|a, b| {
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// The reason part of a read error (without the path, which is reported beside it).
pub fn error_reason(e: &ReadError) -> String {
    match e {
        ReadError::Io { source, .. } => source.to_string(),
        ReadError::NotAFile { .. } => "not a regular file; not opened".into(),
        ReadError::NoHeader { .. } => "no session header on the first line".into(),
    }
}
