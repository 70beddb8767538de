//! Listing many sessions at once, on all cores, streaming results as they come.

use std::sync::mpsc::Sender;

use rayon::prelude::*;

use super::read::{ReadError, scan_info};
use super::roots::{FoundFile, SessionRoot, Skipped, find_session_files};
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

/// Lists every session under the roots; sorted by `modified`, newest first.
pub fn list_sessions(roots: &[SessionRoot]) -> Listing {
    let (files, mut problems) = find_session_files(roots);
    let results: Vec<ScanResult> = files
        .par_iter()
        .map(|f| scan_info(&f.path, f.agent))
        .collect();
    let mut sessions = Vec::with_capacity(results.len());
    for (r, f) in results.into_iter().zip(&files) {
        match r {
            Ok(info) => sessions.push(info),
            Err(e) => problems.push(Skipped {
                path: f.path.clone(),
                reason: error_reason(&e),
            }),
        }
    }
    sort_by_modified(&mut sessions);
    Listing { sessions, problems }
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
