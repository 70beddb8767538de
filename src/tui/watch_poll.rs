//! Polling the roots the notifier cannot watch: every few seconds a `stat` of every file under
//! them, compared with the last look. grove's own rather than `notify`'s `PollWatcher`, which
//! compares modification times in whole seconds: an append in the same second as the write
//! before it (an agent streams several a second; a session written just before grove starts)
//! went unseen until a later second's write. Here a file has changed when its size, its
//! modification time to the nanosecond or its inode differ.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, SystemTime};

/// Folders deeper than this under a root are not looked into (session roots are two deep; a
/// symlinked loop is not followed anyway).
const MAX_DEPTH: usize = 8;

/// What a look records of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

/// Every file under the polled roots, as last seen.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    files: HashMap<PathBuf, Stamp>,
}

impl Snapshot {
    /// Looks at every file under `roots`.
    pub(crate) fn take(roots: &[PathBuf]) -> Snapshot {
        let mut files = HashMap::new();
        for root in roots {
            walk(root, 0, &mut files);
        }
        Snapshot { files }
    }

    /// Looks again: the files that appeared, went or changed since, sorted.
    pub(crate) fn changes(&mut self, roots: &[PathBuf]) -> Vec<PathBuf> {
        let now = Snapshot::take(roots);
        let mut changed: Vec<PathBuf> = now
            .files
            .iter()
            .filter(|(p, s)| self.files.get(*p) != Some(s))
            .map(|(p, _)| p.clone())
            .collect();
        changed.extend(
            self.files
                .keys()
                .filter(|p| !now.files.contains_key(*p))
                .cloned(),
        );
        changed.sort();
        *self = now;
        changed
    }
}

fn walk(dir: &Path, depth: usize, files: &mut HashMap<PathBuf, Stamp>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // A symlinked folder is not followed (it may loop); a symlinked file is looked at.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            if depth < MAX_DEPTH {
                walk(&path, depth + 1, files);
            }
            continue;
        }
        if let Ok(meta) = std::fs::metadata(&path)
            && meta.is_file()
        {
            files.insert(path, stamp(&meta));
        }
    }
}

#[cfg(unix)]
fn stamp(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode: meta.ino(),
    }
}

#[cfg(not(unix))]
fn stamp(meta: &std::fs::Metadata) -> Stamp {
    Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode: 0,
    }
}

/// When a file's content or entries last changed, as far as a "changed since" question can
/// trust: on Unix its status-change time (ctime), which every write sets to the clock's time and
/// which, unlike the modification time, no program can set. A session written with a
/// modification time in the future (a copied or generated file, a clock once ahead) would
/// otherwise count as changed at every start, and be read again each time (1,114 of the 10k
/// real-pi benchmark sessions).
fn changed_at(meta: &std::fs::Metadata) -> Option<SystemTime> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let secs = u64::try_from(meta.ctime()).ok()?;
        let nanos = u32::try_from(meta.ctime_nsec()).ok()?;
        SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    {
        meta.modified().ok()
    }
}

/// The files and folders under `roots` changed at or after `since` (see [`changed_at`]): what
/// may have changed after the list read it (a folder: a session in it was added or removed).
pub(crate) fn modified_since(roots: &[PathBuf], since: SystemTime) -> Vec<PathBuf> {
    fn walk_since(dir: &Path, depth: usize, since: SystemTime, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let recent = std::fs::metadata(&path)
                .ok()
                .and_then(|m| changed_at(&m))
                .is_some_and(|t| t >= since);
            if is_dir && depth < MAX_DEPTH {
                walk_since(&path, depth + 1, since, out);
            }
            if recent {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for root in roots {
        if std::fs::metadata(root)
            .ok()
            .and_then(|m| changed_at(&m))
            .is_some_and(|t| t >= since)
        {
            out.push(root.clone());
        }
        walk_since(root, 0, since, &mut out);
    }
    out.sort();
    out
}

/// Polls `roots` every `every` from a thread of its own, from the look `baseline` took;
/// `report` gets each non-empty batch of changed files. Dropping the handle stops it.
pub(crate) struct Poller {
    _stop: Sender<()>,
}

impl Poller {
    pub(crate) fn spawn(
        roots: Vec<PathBuf>,
        mut baseline: Snapshot,
        every: Duration,
        report: impl Fn(Vec<PathBuf>) + Send + 'static,
    ) -> Poller {
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            loop {
                match stopped.recv_timeout(every) {
                    Err(RecvTimeoutError::Timeout) => {}
                    // Dropped (or, never, sent to): stop.
                    _ => return,
                }
                let changed = baseline.changes(&roots);
                if !changed.is_empty() {
                    report(changed);
                }
            }
        });
        Poller { _stop: stop }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{File, OpenOptions};
    use std::io::Write;

    fn append(path: &Path, text: &str) {
        OpenOptions::new()
            .append(true)
            .open(path)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }

    /// A session whose modification time lies in the future, written before grove started, is
    /// not "changed since the start"; a write after the start is, whatever its mtime.
    #[test]
    fn a_future_modification_time_is_no_change_since_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let folder = root.join("--w--");
        std::fs::create_dir_all(&folder).unwrap();
        let a = folder.join("a.jsonl");
        std::fs::write(&a, "{}\n").unwrap();
        let set_mtime = |t: SystemTime| {
            File::options()
                .write(true)
                .open(&a)
                .unwrap()
                .set_modified(t)
                .unwrap();
        };
        set_mtime(SystemTime::now() + std::time::Duration::from_secs(30 * 86_400));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let since = SystemTime::now();
        let roots = vec![root.clone()];
        assert_eq!(modified_since(&roots, since), Vec::<PathBuf>::new());
        // Past the kernel's coarse clock tick, which file times lag the precise clock by.
        std::thread::sleep(std::time::Duration::from_millis(50));
        append(&a, "{}\n");
        set_mtime(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1));
        assert_eq!(modified_since(&roots, since), vec![a]);
    }

    /// Writes within one second of each other are told apart (`notify`'s poller compares
    /// whole seconds); reading is no change; a new file and a gone one are.
    #[test]
    fn every_write_is_seen_whatever_its_second() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let folder = root.join("--w--");
        std::fs::create_dir_all(&folder).unwrap();
        let a = folder.join("a.jsonl");
        std::fs::write(&a, "{}\n").unwrap();
        let roots = vec![root.clone()];
        let mut snap = Snapshot::take(&roots);
        assert!(snap.changes(&roots).is_empty(), "nothing changed yet");
        std::fs::read(&a).unwrap();
        assert!(snap.changes(&roots).is_empty(), "a read is no change");
        // An append that keeps the modification time (as one in the same second, or on a
        // file system with coarse times, does): its size tells.
        let before = std::fs::metadata(&a).unwrap().modified().unwrap();
        append(&a, "{}\n");
        File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(before)
            .unwrap();
        assert_eq!(snap.changes(&roots), vec![a.clone()]);
        // A rewrite to the same size, a nanosecond later.
        std::fs::write(&a, "[]\n{}\n").unwrap();
        File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(before + Duration::from_nanos(1))
            .unwrap();
        assert_eq!(snap.changes(&roots), vec![a.clone()]);
        let b = root.join("--new--").join("b.jsonl");
        std::fs::create_dir_all(b.parent().unwrap()).unwrap();
        std::fs::write(&b, "{}\n").unwrap();
        assert_eq!(snap.changes(&roots), vec![b.clone()]);
        std::fs::remove_dir_all(b.parent().unwrap()).unwrap();
        std::fs::remove_file(&a).unwrap();
        assert_eq!(snap.changes(&roots), vec![b, a], "sorted");
        assert!(snap.changes(&roots).is_empty());
    }
}
