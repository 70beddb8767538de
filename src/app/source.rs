//! Where the listing comes from. The browser asks a [`SessionSource`] for sessions and gets
//! them streamed in batches: [`IndexSource`] sends the index cache's unchanged rows at once and
//! then the files that are new or changed; [`FileSource`] reads every file.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::model::info::SessionInfo;
use crate::storage::index::db::FileKey;
use crate::storage::index::offsets::EntryOffsets;
use crate::storage::index::{Index, IndexEvent, ListOptions};
use crate::storage::roots::{FoundFile, SessionRoot, Skipped};

use super::event::ScanUpdate;
use super::live_data::{RefreshRequest, Refreshed};
use super::record::Canonical;
use super::state::SessionRecord;

/// Streams sessions. `sink` returns `false` when nobody listens any more; stop then.
pub trait SessionSource: Send + Sync {
    fn scan(&self, sink: &mut dyn FnMut(ScanUpdate) -> bool);

    /// Reads changed paths again (live lists). A source that cannot tells nothing changed.
    fn refresh(&self, _request: &RefreshRequest) -> Refreshed {
        Refreshed::default()
    }

    /// The folders the sessions come from (what a watcher watches).
    fn roots(&self) -> Vec<SessionRoot> {
        Vec::new()
    }

    /// The entry offsets the index keeps for a large session file, when current (for opening
    /// it at its leaf); `None` from a source without an index, or while it is busy.
    fn entry_offsets(&self, _path: &std::path::Path) -> Option<EntryOffsets> {
        None
    }
}

/// A batch is sent when it holds this many sessions or is this old.
const BATCH_SIZE: usize = 256;
const BATCH_AGE: Duration = Duration::from_millis(40);

/// Lists through the persistent index: unchanged sessions cost one `stat` and arrive in the
/// first batch; new and changed ones stream in as they are read. The search text comes from the
/// index too, never from re-reading session files.
pub struct IndexSource {
    pub roots: Vec<SessionRoot>,
    pub current_dir: Option<PathBuf>,
    pub index: std::sync::Mutex<Index>,
}

impl SessionSource for IndexSource {
    fn entry_offsets(&self, path: &std::path::Path) -> Option<EntryOffsets> {
        // Never waits for a listing holding the index: the leaf branch is read without.
        self.index.try_lock().ok()?.entry_offsets(path)
    }

    fn scan(&self, sink: &mut dyn FnMut(ScanUpdate) -> bool) {
        // A panic elsewhere cannot leave the index half-written (it is persisted atomically),
        // so a poisoned lock is still usable.
        let mut index = self.lock();
        if index.is_enabled() {
            self.scan_rows_then_texts(&mut index, sink);
        } else {
            self.scan_with_text(&mut index, sink);
        }
    }

    fn refresh(&self, request: &RefreshRequest) -> Refreshed {
        let mut index = self.lock();
        refresh_through_index(
            &mut index,
            &self.roots,
            self.current_dir.as_deref(),
            request,
        )
    }

    fn roots(&self) -> Vec<SessionRoot> {
        self.roots.clone()
    }
}

impl IndexSource {
    /// The rows first, without their text: unchanged sessions at once (one `stat` each, and no
    /// byte of text read), new and changed ones as they are read (their text goes to the
    /// index); then the text from the index, newest session first, each record sent again
    /// with its text prepared ([`ScanUpdate::Texts`]); `Done` at the end.
    fn scan_rows_then_texts(&self, index: &mut Index, sink: &mut dyn FnMut(ScanUpdate) -> bool) {
        let current_dir = self.current_dir.as_deref();
        let folders = Canonical::default();
        let record =
            |info: &SessionInfo| Arc::new(SessionRecord::listed(info, current_dir, &folders));
        let mut listening = true;
        let mut batch: Vec<Arc<SessionRecord>> = Vec::new();
        let mut failed: Vec<Skipped> = Vec::new();
        let mut since = Instant::now();
        // What was sent, by path: each is sent again with its text.
        let mut shown: HashMap<PathBuf, Arc<SessionRecord>> = HashMap::new();
        let listing = index.list(&self.roots, ListOptions::default(), |event| {
            if !listening {
                return;
            }
            match event {
                IndexEvent::Found(n) => listening = sink(ScanUpdate::Found(n)),
                IndexEvent::Listed(_) => {}
                IndexEvent::Cached(rows) => {
                    let records: Vec<_> = rows.par_iter().map(record).collect();
                    shown.extend(records.iter().map(|r| (r.info.path.clone(), Arc::clone(r))));
                    listening = sink(ScanUpdate::Sessions(records));
                }
                IndexEvent::Scanned(info) => {
                    let r = record(info);
                    shown.insert(r.info.path.clone(), Arc::clone(&r));
                    batch.push(r);
                }
                IndexEvent::Problem(p) => failed.push(p.clone()),
            }
            if listening && (batch.len() >= BATCH_SIZE || since.elapsed() >= BATCH_AGE) {
                listening = flush(sink, &mut batch, &mut failed);
                since = Instant::now();
            }
        });
        if !(listening && flush(sink, &mut batch, &mut failed)) {
            return;
        }
        // Newest first: the first screen's sessions become searchable first.
        let paths: Vec<PathBuf> = listing.sessions.into_iter().map(|s| s.path).collect();
        let mut texts = TextBatch::default();
        let missing = index.texts(&paths, |path, text, tools| {
            if let Some(r) = shown.get(path) {
                texts.push(r, text, tools);
            }
            !texts.full() || texts.send(sink)
        });
        if !texts.send(sink) {
            return;
        }
        // Texts the index could not give (a row written by no one, damaged chunks): read from
        // their files, and sent the same way.
        let files: Vec<_> = missing
            .into_iter()
            .filter_map(|path| {
                let agent = shown.get(&path).map(|r| r.info.agent);
                let meta = std::fs::metadata(&path).ok()?;
                Some((FoundFile { path, agent }, FileKey::of(&meta)))
            })
            .collect();
        if !files.is_empty() {
            let mut again = Vec::new();
            index.list_files(
                files,
                ListOptions { with_text: true },
                |event| match event {
                    IndexEvent::Cached(rows) => again.extend(rows.iter().map(record)),
                    IndexEvent::Scanned(info) => again.push(record(info)),
                    _ => {}
                },
            );
            if !again.is_empty() && !sink(ScanUpdate::Texts(again)) {
                return;
            }
        }
        sink(ScanUpdate::Done);
    }

    /// Without an index: the sessions as they are read, with their text.
    fn scan_with_text(&self, index: &mut Index, sink: &mut dyn FnMut(ScanUpdate) -> bool) {
        let current_dir = self.current_dir.as_deref();
        let folders = Canonical::default();
        let record =
            |info: &SessionInfo| Arc::new(SessionRecord::listed(info, current_dir, &folders));
        let mut listening = true;
        let mut batch: Vec<Arc<SessionRecord>> = Vec::new();
        let mut failed: Vec<Skipped> = Vec::new();
        let mut since = Instant::now();
        // Paths sent before their text was read: what comes for them later replaces them.
        let mut shown: HashSet<PathBuf> = HashSet::new();
        let opts = ListOptions { with_text: true };
        index.list(&self.roots, opts, |event| {
            if !listening {
                return;
            }
            match event {
                IndexEvent::Found(n) => listening = sink(ScanUpdate::Found(n)),
                IndexEvent::Listed(rows) => {
                    let records = rows.par_iter().map(record).collect();
                    shown.extend(rows.iter().map(|r| r.path.clone()));
                    listening = sink(ScanUpdate::Sessions(records));
                }
                IndexEvent::Cached(rows) => {
                    let records = rows.par_iter().map(record).collect();
                    listening = sink(if shown.is_empty() {
                        ScanUpdate::Sessions(records)
                    } else {
                        ScanUpdate::Texts(records)
                    });
                }
                // A cached row whose text could not be read, read again from its file.
                IndexEvent::Scanned(info) if shown.contains(&info.path) => {
                    listening = sink(ScanUpdate::Texts(vec![record(info)]));
                }
                IndexEvent::Scanned(info) => batch.push(record(info)),
                IndexEvent::Problem(p) => failed.push(p.clone()),
            }
            if listening && (batch.len() >= BATCH_SIZE || since.elapsed() >= BATCH_AGE) {
                listening = flush(sink, &mut batch, &mut failed);
                since = Instant::now();
            }
        });
        if listening && flush(sink, &mut batch, &mut failed) {
            sink(ScanUpdate::Done);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Index> {
        match self.index.lock() {
            Ok(i) => i,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// Live refresh through the index: only the changed files are looked at, and a grown one is
/// read from where its last scan stopped (cost follows the bytes added).
pub(crate) fn refresh_through_index(
    index: &mut Index,
    roots: &[SessionRoot],
    current_dir: Option<&std::path::Path>,
    request: &RefreshRequest,
) -> Refreshed {
    let paths: Vec<PathBuf> = if request.everything {
        roots.iter().map(|r| r.path.clone()).collect()
    } else {
        request.paths.clone()
    };
    let changed = crate::storage::changed::resolve(roots, &paths);
    let mut records = Vec::new();
    let mut problems = changed.problems;
    let folders = Canonical::default();
    // Compressed as the scan's: a refresh of many sessions (a folder listed again) does not
    // hold their text raw for the rest of the run.
    let record = |info: &SessionInfo| Arc::new(SessionRecord::listed(info, current_dir, &folders));
    index.list_files(
        changed.files,
        ListOptions { with_text: true },
        |event| match event {
            IndexEvent::Found(_) | IndexEvent::Listed(_) => {}
            IndexEvent::Cached(rows) => records.extend(rows.iter().map(record)),
            IndexEvent::Scanned(info) => records.push(record(info)),
            IndexEvent::Problem(p) => problems.push(p.clone()),
        },
    );
    Refreshed {
        records,
        problems,
        listed_dirs: changed.listed_dirs,
        gone: changed.gone,
        everything: request.everything,
    }
}

/// Records with their text prepared, waiting to be sent.
#[derive(Default)]
struct TextBatch {
    records: Vec<Arc<SessionRecord>>,
    bytes: usize,
}

/// A batch of texts is sent when it holds this many bytes of text or sessions: few updates
/// for the UI to merge.
const TEXT_BATCH_BYTES: usize = 8 << 20;
const TEXT_BATCH_SIZE: usize = 1024;

impl TextBatch {
    /// Prepares (lowercases and compresses) the text of `record`'s session, on this thread:
    /// the texts kept for the run come from one allocator arena, packed.
    fn push(&mut self, record: &SessionRecord, text: &str, tools: &str) {
        self.bytes += text.len() + tools.len();
        self.records.push(Arc::new(record.with_text(text, tools)));
    }

    fn full(&self) -> bool {
        self.bytes >= TEXT_BATCH_BYTES || self.records.len() >= TEXT_BATCH_SIZE
    }

    /// Sends what is held; `false` when nobody listens any more.
    fn send(&mut self, sink: &mut dyn FnMut(ScanUpdate) -> bool) -> bool {
        self.bytes = 0;
        let records = std::mem::take(&mut self.records);
        records.is_empty() || sink(ScanUpdate::Texts(records))
    }
}

/// Sends what has accumulated; `false` when nobody listens any more.
fn flush(
    sink: &mut dyn FnMut(ScanUpdate) -> bool,
    batch: &mut Vec<Arc<SessionRecord>>,
    failed: &mut Vec<Skipped>,
) -> bool {
    if !failed.is_empty() && !sink(ScanUpdate::Failed(std::mem::take(failed))) {
        return false;
    }
    batch.is_empty() || sink(ScanUpdate::Sessions(std::mem::take(batch)))
}
