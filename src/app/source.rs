//! Where the listing comes from. The browser asks a [`SessionSource`] for sessions and gets
//! them streamed in batches; today that is [`FileSource`] (read every file), and the index cache
//! can feed cached records through the same trait.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

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
