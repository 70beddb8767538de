//! Watching the session roots, so the lists follow the agents. Each root is watched by the
//! platform's notifier (inotify, FSEvents, …) through `notify`, debounced; where that is not
//! possible (the notifier refuses the folder: too many watches, an unsupported file system) or
//! cannot be trusted (network and FUSE file systems, whose changes made on other machines
//! raise no events), the root is polled instead (by grove's own poller, [`super::watch_poll`],
//! which sees every write, also two in one second). Changed paths go to the event loop's one
//! channel as [`Event::FilesChanged`]; reading them again is the app's business. The
//! debouncing is grove's own (a blocking thread, silent at idle) because it must drop the
//! events grove's own reads raise (inotify reports every open), which the `notify` debouncers
//! do not tell apart.
//!
//! A watch is set up while the list is read (the first frame does not wait for it), so a
//! write made between the list's read of a file and the watcher's first look at it (the
//! poller's baseline, the notifier's watch on the folder) raises nothing: once every watcher is
//! set up, the files and folders modified since grove started (give or take the coarsest
//! file-system clock) are reported changed, once, and the app reads them again. Any write
//! after that first look raises an event.
//!
//! `GROVE_WATCH=poll` polls every root, `GROVE_WATCH=off` watches nothing (the refresh key
//! still works).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use notify::event::{MetadataKind, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::app::event::Event;
use crate::storage::roots::SessionRoot;

use super::effects::Msg;
use super::watch_poll::{Poller, Snapshot, modified_since};

/// Changes closer together than this arrive as one batch.
const DEBOUNCE: Duration = Duration::from_millis(200);
/// File systems keep modification times this coarsely at worst (FAT: 2 s).
const CLOCK_SLACK: Duration = Duration::from_secs(2);
/// The watchers start this long after grove at the latest (see [`spawn`]).
const GO_AT_LATEST: Duration = Duration::from_secs(10);
/// How often a polled root is looked at (a `stat` per file).
const POLL_EVERY: Duration = Duration::from_secs(2);

/// How a root is watched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum How {
    Notify,
    Poll,
}

/// The watchers; dropping this stops them (and then the debouncing thread).
#[derive(Default)]
pub(crate) struct Watch {
    native: Option<RecommendedWatcher>,
    polled: Option<Poller>,
    /// Each watched root and how.
    pub(crate) roots: Vec<(PathBuf, How)>,
}

/// Watches `roots` from a thread of its own (a recursive watch walks the folders; the first
/// frame does not wait for it). The watchers live as long as the handle.
pub(crate) struct WatchHandle {
    watch: Arc<Mutex<Option<Watch>>>,
}

impl WatchHandle {
    /// Stops watching.
    pub(crate) fn stop(self) {
        if let Ok(mut w) = self.watch.lock() {
            w.take();
        }
    }
}

///
/// The walks start once `go` says so (the list is read, text included) or after
/// [`GO_AT_LATEST`]: on a small machine, a stat of every file by the watchers slowed the
/// first rows, and walking while the search text loaded left that memory spread over more
/// allocator arenas (RSS at 10k sessions: 251 MB, 184 MB without). What changed meanwhile is
/// still reported (`since` is taken now).
pub(crate) fn spawn(roots: Vec<SessionRoot>, tx: Sender<Msg>, go: Receiver<()>) -> WatchHandle {
    // Before the list is read: what changes after this may have been missed by it.
    let since = SystemTime::now() - CLOCK_SLACK;
    let watch = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&watch);
    std::thread::spawn(move || {
        let _ = go.recv_timeout(GO_AT_LATEST);
        let started = start(&roots, mode_from_env(), since, move |paths| {
            tx.send(Msg::App(Event::FilesChanged { paths })).is_ok()
        });
        if let Ok(mut w) = slot.lock() {
            *w = Some(started);
        }
    });
    WatchHandle { watch }
}

fn mode_from_env() -> Option<How> {
    match std::env::var("GROVE_WATCH").as_deref() {
        Ok("poll") => Some(How::Poll),
        Ok("off") => None,
        _ => Some(How::Notify),
    }
}

/// What the watchers tell the debouncing thread.
enum Seen {
    Paths(Vec<PathBuf>),
    /// Events were lost (the queue overflowed): look at everything again.
    Everything,
}

/// Starts watching; `sink` gets each debounced batch of changed paths, the first one what was
/// modified at or after `since` (see the module's comment). `prefer` is how to watch where the
/// file system allows it (`None`: not at all).
pub(crate) fn start(
    roots: &[SessionRoot],
    prefer: Option<How>,
    since: SystemTime,
    sink: impl Fn(Vec<PathBuf>) -> bool + Send + 'static,
) -> Watch {
    let mut watch = Watch::default();
    let Some(prefer) = prefer else {
        return watch;
    };
    let (seen_tx, seen_rx) = mpsc::channel::<Seen>();
    let native_tx = seen_tx.clone();
    let handler = move |result: notify::Result<notify::Event>| {
        let seen = match result {
            Ok(e) if e.need_rescan() => Seen::Everything,
            Ok(e) if is_change(&e.kind) => Seen::Paths(e.paths),
            Ok(_) => return,
            Err(_) => Seen::Everything,
        };
        let _ = native_tx.send(seen);
    };
    let mut polled = Vec::new();
    for root in roots {
        let path = &root.path;
        if !path.is_dir() {
            continue;
        }
        let native = prefer == How::Notify && !is_network_fs(path);
        let how = if native && watch_native(&mut watch.native, path, handler.clone()).is_ok() {
            How::Notify
        } else {
            polled.push(path.clone());
            How::Poll
        };
        watch.roots.push((path.clone(), how));
    }
    if !polled.is_empty() {
        // The first look, taken here: a write after it is a change.
        let baseline = Snapshot::take(&polled);
        let tx = seen_tx.clone();
        let report = move |paths| {
            let _ = tx.send(Seen::Paths(paths));
        };
        watch.polled = Some(Poller::spawn(polled, baseline, POLL_EVERY, report));
    }
    let all_roots: Vec<PathBuf> = watch.roots.iter().map(|(p, _)| p.clone()).collect();
    // Every watcher has had its first look: what was written before it is read again now.
    let recent = modified_since(&all_roots, since);
    if !recent.is_empty() {
        let _ = seen_tx.send(Seen::Paths(recent));
    }
    drop(seen_tx);
    // Ends when the watchers (the senders) are dropped, or nobody listens any more.
    std::thread::spawn(move || debounce(&seen_rx, &all_roots, &sink));
    watch
}

/// A change worth reading again. Not: opening or reading a file (grove's own reads would
/// come back as changes, forever), nor metadata alone (a `chmod`); a new modification time is.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(m)) => *m == MetadataKind::WriteTime,
        EventKind::Any
        | EventKind::Create(_)
        | EventKind::Modify(_)
        | EventKind::Remove(_)
        | EventKind::Other => true,
    }
}

/// Collects changes until none came for [`DEBOUNCE`] (or for at most four times that, under a
/// steady stream), then hands over the batch. Blocks while nothing happens: no wake-ups at idle.
fn debounce(rx: &Receiver<Seen>, all_roots: &[PathBuf], sink: &dyn Fn(Vec<PathBuf>) -> bool) {
    while let Ok(first) = rx.recv() {
        let mut batch: Vec<PathBuf> = Vec::new();
        let add = |seen: Seen, batch: &mut Vec<PathBuf>| match seen {
            Seen::Paths(p) => batch.extend(p),
            Seen::Everything => batch.extend(all_roots.iter().cloned()),
        };
        add(first, &mut batch);
        let until = Instant::now() + DEBOUNCE * 4;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(DEBOUNCE.min(left)) {
                Ok(seen) => add(seen, &mut batch),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if left.is_zero() {
                break;
            }
        }
        batch.sort();
        batch.dedup();
        if !sink(batch) {
            return;
        }
    }
}

fn watch_native(
    slot: &mut Option<RecommendedWatcher>,
    path: &Path,
    handler: impl notify::EventHandler,
) -> notify::Result<()> {
    if slot.is_none() {
        *slot = Some(RecommendedWatcher::new(handler, notify::Config::default())?);
    }
    match slot {
        Some(w) => w.watch(path, RecursiveMode::Recursive),
        None => Ok(()),
    }
}

/// Whether `path` is on a file system whose changes the notifier may never see: NFS, SMB and
/// CIFS, FUSE (sshfs and friends), 9p, AFS, Coda, Ceph.
#[cfg(target_os = "linux")]
fn is_network_fs(path: &Path) -> bool {
    const NETWORK: [u32; 9] = [
        0x6969,      // NFS
        0x517B,      // SMB
        0xFF53_4D42, // CIFS
        0xFE53_4D42, // SMB2
        0x6573_5546, // FUSE
        0x0102_1997, // 9p
        0x5346_414F, // AFS
        0x7375_7245, // Coda
        0x00C3_6400, // Ceph
    ];
    match rustix::fs::statfs(path) {
        // The field's type differs between architectures; the magic is its low 32 bits.
        #[allow(clippy::unnecessary_cast)]
        Ok(st) => NETWORK.contains(&(st.f_type as u32)),
        Err(_) => false,
    }
}

#[cfg(not(target_os = "linux"))]
fn is_network_fs(_path: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn watched(how: How) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let folder = root.join("--w--");
        std::fs::create_dir_all(&folder).unwrap();
        let (tx, rx) = mpsc::channel::<Vec<PathBuf>>();
        let watch = start(
            &[SessionRoot {
                path: root.clone(),
                agent: None,
            }],
            Some(how),
            SystemTime::now(),
            move |p| tx.send(p).is_ok(),
        );
        assert_eq!(watch.roots, vec![(root.clone(), how)]);
        let file = folder.join("a.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let paths = rx.recv_timeout(left).expect("no change reported");
            if paths.contains(&file) {
                break;
            }
        }
        // Reading it is not a change (grove's own reads must not come back as changes).
        for _ in 0..3 {
            std::fs::read(&file).unwrap();
        }
        let quiet = rx.recv_timeout(DEBOUNCE * 5 + POLL_EVERY);
        assert!(quiet.is_err(), "a read was reported: {quiet:?}");
        // An append is.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"{}\n"))
            .unwrap();
        let paths = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("append not reported");
        assert!(paths.contains(&file), "{paths:?}");
        drop(watch);
    }

    /// A write the list missed (made after the list read the file, before the watch's first
    /// look at it) raises nothing: so once set up, the watch reports what was modified since
    /// grove started, once, and the app reads it again; older files are not read again.
    #[test]
    fn what_changed_since_the_start_is_reported_once_the_watch_is_set_up() {
        for how in [How::Poll, How::Notify] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("sessions");
            let folder = root.join("--w--");
            std::fs::create_dir_all(&folder).unwrap();
            let old = folder.join("old.jsonl");
            std::fs::write(&old, "{}\n").unwrap();
            let long_ago = SystemTime::now() - Duration::from_secs(3600);
            std::fs::File::options()
                .write(true)
                .open(&old)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
            // The app's `since` is its start less CLOCK_SLACK; here the start itself, with
            // pauses around it longer than the kernel's coarse clock tick (file times lag the
            // precise clock by up to one), so `old` is before it and `missed` after.
            std::thread::sleep(Duration::from_millis(50));
            let since = SystemTime::now();
            std::thread::sleep(Duration::from_millis(50));
            // Written after grove started, before the watch's first look.
            let missed = folder.join("a.jsonl");
            std::fs::write(&missed, "{}\n").unwrap();
            let (tx, rx) = mpsc::channel::<Vec<PathBuf>>();
            let roots = [SessionRoot {
                path: root.clone(),
                agent: None,
            }];
            let watch = start(&roots, Some(how), since, move |p| tx.send(p).is_ok());
            let first = rx.recv_timeout(Duration::from_secs(30)).expect("no batch");
            assert!(first.contains(&missed), "{how:?}: {first:?}");
            assert!(!first.contains(&old), "{how:?}: {first:?}");
            drop(watch);
        }
    }

    #[test]
    fn a_new_file_is_reported_by_the_notifier() {
        watched(How::Notify);
    }

    #[test]
    fn a_new_file_is_reported_by_polling() {
        watched(How::Poll);
    }

    #[test]
    fn nothing_is_watched_when_off_or_missing() {
        let dir = tempfile::tempdir().unwrap();
        let roots = [SessionRoot {
            path: dir.path().join("missing"),
            agent: None,
        }];
        let now = SystemTime::now();
        assert!(
            start(&roots, Some(How::Notify), now, |_| true)
                .roots
                .is_empty()
        );
        let roots = [SessionRoot {
            path: dir.path().to_path_buf(),
            agent: None,
        }];
        assert!(start(&roots, None, now, |_| true).roots.is_empty());
        assert!(!is_network_fs(dir.path()));
    }
}
