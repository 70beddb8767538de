//! The data of the live lists and of the background threaded build, shared by the state, the
//! events and the effects (kept apart from the code that uses it, which needs the state).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use crate::storage::roots::Skipped;

use super::families::{BuiltThreads, FoldSpec};
use super::record::SessionRecord;
use super::rows::Row;

/// What to read again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefreshRequest {
    /// Changed paths: session files, session folders, roots.
    pub paths: Vec<PathBuf>,
    /// Every root, listed whole (the refresh key).
    pub everything: bool,
}

/// Sessions read again after their files changed.
#[derive(Clone, Debug, Default)]
pub struct Refreshed {
    /// Sessions new or changed (or listed again unchanged).
    pub records: Vec<Arc<SessionRecord>>,
    pub problems: Vec<Skipped>,
    /// Folders listed whole: a session under one of them that is not in `records` is gone.
    pub listed_dirs: Vec<PathBuf>,
    /// Files, or folders with every session under them, that no longer exist.
    pub gone: Vec<PathBuf>,
    /// Whether this answers the refresh key (a status line says it is done).
    pub everything: bool,
}

/// The picker's bookkeeping of changes not yet merged.
#[derive(Clone, Debug, Default)]
pub struct LiveRefresh {
    pub pending: BTreeSet<PathBuf>,
    pub everything: bool,
    /// A request is out; the next waits for its answer.
    pub in_flight: bool,
}

/// Lists up to this long are threaded at once (well under a millisecond); longer ones in the
/// background.
pub const INLINE_MAX: usize = 2_000;

/// A build of threaded rows for the background.
#[derive(Clone, Debug)]
pub struct ThreadsRequest {
    pub generation: u64,
    /// A snapshot of the records (shared pointers); `listed` indexes it.
    pub records: Vec<Arc<SessionRecord>>,
    pub listed: Vec<usize>,
    /// The listed sessions that are pinned (first, flat).
    pub pinned: Vec<usize>,
    /// How the families fold, as when the request was made.
    pub fold: FoldSpec,
}

impl ThreadsRequest {
    /// Builds the rows, families folded (on a worker).
    pub fn build(&self) -> BuiltThreads {
        super::threads::threaded_folded(&self.records, &self.listed, &self.pinned, &self.fold)
    }
}

/// The picker's threaded build. One build runs at a time; requests made meanwhile wait, the
/// newest replacing the older (a scan streaming 40 batches asks for one build per batch).
#[derive(Clone, Debug, Default)]
pub struct ThreadsJob {
    /// Bumped for every build asked for.
    pub generation: u64,
    /// Results of builds older than this are dropped (the list no longer wants threaded rows
    /// of that kind: the sort, the query or a filter changed).
    pub accept_from: u64,
    /// Asked for and not yet sent (see `threads_job::settle`).
    pub queued: Option<ThreadsRequest>,
    /// A build is running; its rows have not arrived.
    pub in_flight: bool,
}

impl ThreadsJob {
    /// Asks for the threaded rows of `listed` (`pinned` first, families folded as `fold`
    /// says); `rows` (shown meanwhile) keep only the listed sessions.
    pub(crate) fn request(
        &mut self,
        records: &[Arc<SessionRecord>],
        (listed, pinned): (Vec<usize>, Vec<usize>),
        fold: FoldSpec,
        rows: &mut Vec<Row>,
    ) {
        let mut still = vec![false; records.len()];
        for &i in &listed {
            if let Some(s) = still.get_mut(i) {
                *s = true;
            }
        }
        rows.retain(|r| still.get(r.record).copied().unwrap_or(false));
        self.generation += 1;
        self.queued = Some(ThreadsRequest {
            generation: self.generation,
            records: records.to_vec(),
            listed,
            pinned,
            fold,
        });
    }

    /// A rebuild that does not need the background: what is queued or running is not wanted.
    pub(crate) fn cancel(&mut self) {
        self.queued = None;
        self.accept_from = self.generation + 1;
    }
}
