//! Where the listing comes from. The browser asks a [`SessionSource`] for sessions and gets
//! them streamed in batches: [`IndexSource`] sends the index cache's unchanged rows at once and
//! then the files that are new or changed; [`FileSource`] reads every file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::model::info::SessionInfo;
use crate::storage::index::{Index, IndexEvent, ListOptions};
use crate::storage::read::scan_info;
use crate::storage::roots::{FoundFile, SessionRoot, Skipped, find_session_files};
use crate::storage::scan::error_reason;

use super::event::ScanUpdate;
use super::state::SessionRecord;

/// Streams sessions. `sink` returns `false` when nobody listens any more; stop then.
pub trait SessionSource: Send + Sync {
    fn scan(&self, sink: &mut dyn FnMut(ScanUpdate) -> bool);
}

/// Reads every session file under the roots, on all cores.
pub struct FileSource {
    pub roots: Vec<SessionRoot>,
    /// The folder grove runs in; its sessions are read first.
    pub current_dir: Option<PathBuf>,
}

/// A batch is sent when it holds this many sessions or is this old.
const BATCH_SIZE: usize = 256;
const BATCH_AGE: Duration = Duration::from_millis(40);

/// pi's folder name for a cwd: `--home-u-code--`.
pub fn encoded_cwd_dir(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.strip_prefix(['/', '\\']).unwrap_or(&s);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

impl SessionSource for FileSource {
    fn scan(&self, sink: &mut dyn FnMut(ScanUpdate) -> bool) {
        let (mut files, skipped) = find_session_files(&self.roots);
        if let Some(cwd) = &self.current_dir {
            // The current folder's sessions first: the default scope fills up quickly.
            let dir = encoded_cwd_dir(cwd);
            files.sort_by_key(|f| {
                f.path
                    .parent()
                    .and_then(Path::file_name)
                    .is_none_or(|n| n.to_string_lossy() != dir)
            });
        }
        if !sink(ScanUpdate::Found(files.len() + skipped.len())) {
            return;
        }
        if !skipped.is_empty() && !sink(ScanUpdate::Failed(skipped)) {
            return;
        }
        let (tx, rx) = mpsc::channel::<Result<SessionRecord, Skipped>>();
        let current_dir = self.current_dir.clone();
        let worker = std::thread::spawn(move || {
            files.par_iter().for_each_with(tx, |tx, f: &FoundFile| {
                let item = match scan_info(&f.path, f.agent) {
                    Ok(info) => Ok(SessionRecord::new(info, current_dir.as_deref())),
                    Err(e) => Err(Skipped {
                        path: f.path.clone(),
                        reason: error_reason(&e),
                    }),
                };
                let _ = tx.send(item);
            });
        });
        let mut batch = Vec::new();
        let mut failed = Vec::new();
        let mut since = Instant::now();
        let mut listening = true;
        loop {
            let msg = rx.recv_timeout(BATCH_AGE);
            let finished = matches!(msg, Err(mpsc::RecvTimeoutError::Disconnected));
            match msg {
                Ok(Ok(r)) => batch.push(Arc::new(r)),
                Ok(Err(s)) => failed.push(s),
                Err(_) => {}
            }
            if listening && (finished || batch.len() >= BATCH_SIZE || since.elapsed() >= BATCH_AGE)
            {
                if !failed.is_empty() {
                    listening = sink(ScanUpdate::Failed(std::mem::take(&mut failed)));
                }
                if listening && !batch.is_empty() {
                    listening = sink(ScanUpdate::Sessions(std::mem::take(&mut batch)));
                }
                since = Instant::now();
            }
            if finished {
                break;
            }
        }
        let _ = worker.join();
        if listening {
            sink(ScanUpdate::Done);
        }
    }
}

/// Lists through the persistent index: unchanged sessions cost one `stat` and arrive in the
/// first batch; new and changed ones stream in as they are read. The search text comes from the
/// index too, never from re-reading session files.
pub struct IndexSource {
    pub roots: Vec<SessionRoot>,
    pub current_dir: Option<PathBuf>,
    pub index: std::sync::Mutex<Index>,
}

impl SessionSource for IndexSource {
    fn scan(&self, sink: &mut dyn FnMut(ScanUpdate) -> bool) {
        // A panic elsewhere cannot leave the index half-written (it is persisted atomically),
        // so a poisoned lock is still usable.
        let mut index = match self.index.lock() {
            Ok(i) => i,
            Err(poisoned) => poisoned.into_inner(),
        };
        let current_dir = self.current_dir.as_deref();
        let record = |info: &SessionInfo| Arc::new(SessionRecord::new(info.clone(), current_dir));
        let mut listening = true;
        let mut batch: Vec<Arc<SessionRecord>> = Vec::new();
        let mut failed: Vec<Skipped> = Vec::new();
        let mut since = Instant::now();
        let opts = ListOptions { with_text: true };
        index.list(&self.roots, opts, |event| {
            if !listening {
                return;
            }
            match event {
                IndexEvent::Found(n) => listening = sink(ScanUpdate::Found(n)),
                IndexEvent::Cached(rows) => {
                    let records = rows.par_iter().map(record).collect();
                    listening = sink(ScanUpdate::Sessions(records));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_pi() {
        assert_eq!(
            encoded_cwd_dir(Path::new("/home/demo/code/tern")),
            "--home-demo-code-tern--"
        );
    }
}
