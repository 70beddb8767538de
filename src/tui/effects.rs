//! Executing the app's effects: reads on the job pool (latest request wins, the older one is
//! cancelled), writes one at a time in the order asked, and what ends the browser.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;
use std::time::SystemTime;

use crate::app::event::{Effect, Event};
use crate::app::live::check_liveness;
use crate::app::matcher::execute_search;
use crate::app::preview::load_preview_cancellable;
use crate::app::session_view::SessionViewState;
use crate::app::source::SessionSource;
use crate::app::state::{AppState, Screen, SessionRecord};
use crate::model::context::Dialect;
use crate::storage::append::{NewEntry, append_entry};
use crate::storage::read::{SlimMode, load_session_cancellable, scan_info};
use crate::storage::roots::SessionRoot;
use crate::storage::safe_fs::Pin;
use crate::storage::trash::restore;

use super::delete::delete_session_pinned;

use super::jobs::{KeyedSlots, Pool, Slot, Ticket, WORKERS};
use super::signals::Signal;

/// What arrives on the event loop's one channel.
#[derive(Debug)]
pub(crate) enum Msg {
    /// Input, or the result of one-off work.
    App(Event),
    /// The result of latest-only work, with the generation of its request.
    Done {
        job: Job,
        generation: u64,
        event: Event,
    },
    Signal(Signal),
    /// The terminal cannot be read any more (it went away).
    InputClosed,
}

/// The kinds of latest-only work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    Scan,
    Search,
    Preview,
    Open,
    Live,
    Stats,
}

/// How the browser ended.
pub(crate) enum Exit {
    Code(u8),
    Print(PathBuf),
    PrintLine(String),
    Launch {
        path: PathBuf,
        agent: Dialect,
        cwd: PathBuf,
    },
}

/// A file write for the write worker; its event (if any) goes back to the loop.
type WriteJob = Box<dyn FnOnce() -> Option<Event> + Send>;

/// The session being loaded for the session view.
struct Opening {
    path: PathBuf,
    generation: u64,
}

/// Runs effects; owns the workers.
pub(crate) struct Runner {
    tx: Sender<Msg>,
    source: Arc<dyn SessionSource>,
    pool: Pool,
    scan: Slot,
    search: Slot,
    preview: Slot,
    open: Slot,
    live: Slot,
    stats: Slot,
    refresh: Arc<KeyedSlots<PathBuf>>,
    opening: Option<Opening>,
    write_tx: Option<Sender<WriteJob>>,
    write_worker: Option<JoinHandle<()>>,
    current_dir: Option<PathBuf>,
    /// What each session was (folder and file identity) when it was chosen for deletion
    /// (Ctrl+D) or opened in the view: the delete, label or check-out refuses if that changed.
    pins: Pins,
    /// What deletes are checked against.
    roots: Arc<[SessionRoot]>,
}

type Pins = Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, Pin>>>;

/// Pins what `path` is now (best effort: a file that cannot be pinned is checked by the roots
/// guard alone).
fn pin_now(pins: &Pins, path: &Path) {
    if let (Ok(pin), Ok(mut pins)) = (Pin::of(path), pins.lock()) {
        pins.insert(path.to_owned(), pin);
    }
}

fn pinned(pins: &Pins, path: &Path) -> Option<Pin> {
    pins.lock().ok().and_then(|p| p.get(path).copied())
}

impl Runner {
    pub(crate) fn new(
        tx: Sender<Msg>,
        source: Arc<dyn SessionSource>,
        current_dir: Option<PathBuf>,
        roots: Arc<[SessionRoot]>,
    ) -> Runner {
        let (write_tx, write_worker) = spawn_write_worker(tx.clone());
        Runner {
            tx,
            source,
            pool: Pool::new(WORKERS),
            scan: Slot::default(),
            search: Slot::default(),
            preview: Slot::default(),
            open: Slot::default(),
            live: Slot::default(),
            stats: Slot::default(),
            refresh: Arc::default(),
            opening: None,
            write_tx: Some(write_tx),
            write_worker: Some(write_worker),
            current_dir,
            pins: Arc::default(),
            roots,
        }
    }

    fn slot(&self, job: Job) -> &Slot {
        match job {
            Job::Scan => &self.scan,
            Job::Search => &self.search,
            Job::Preview => &self.preview,
            Job::Open => &self.open,
            Job::Live => &self.live,
            Job::Stats => &self.stats,
        }
    }

    /// Whether a finished job's result is still wanted. A stale preview is kept (it is still
    /// the right preview of its file); a stale session load, search or scan is dropped.
    pub(crate) fn accept(&mut self, job: Job, generation: u64) -> bool {
        if job == Job::Open {
            if self
                .opening
                .as_ref()
                .is_some_and(|o| o.generation == generation)
            {
                self.opening = None;
            } else {
                return false;
            }
        }
        job == Job::Preview || self.slot(job).is_current(generation)
    }

    /// Cancels the session load when the screen waiting for it is gone (Esc, q, another
    /// session): the parse stops at its next block.
    pub(crate) fn reconcile(&mut self, state: &AppState) {
        let Some(opening) = &self.opening else {
            return;
        };
        let waiting = match state.screen {
            Screen::Session { record, .. } => state
                .picker
                .records
                .get(record)
                .is_some_and(|r| r.info.path == opening.path),
            _ => false,
        };
        if !waiting {
            self.open.cancel();
            self.opening = None;
        }
    }

    /// Runs `job` for `kind` on the pool: a newer request of the same kind cancels it.
    fn latest(&self, kind: Job, job: impl FnOnce(&Ticket) -> Option<Event> + Send + 'static) {
        let ticket = self.slot(kind).next();
        self.submit(kind, ticket, job, || None);
    }

    fn submit(
        &self,
        kind: Job,
        ticket: Ticket,
        job: impl FnOnce(&Ticket) -> Option<Event> + Send + 'static,
        skipped: impl FnOnce() -> Option<Event> + Send + 'static,
    ) {
        let (tx, tx_skip) = (self.tx.clone(), self.tx.clone());
        self.pool.submit(
            ticket,
            move |ticket| {
                if let Some(event) = job(ticket) {
                    let _ = tx.send(Msg::Done {
                        job: kind,
                        generation: ticket.generation(),
                        event,
                    });
                }
            },
            move || {
                if let Some(event) = skipped() {
                    let _ = tx_skip.send(Msg::App(event));
                }
            },
        );
    }

    fn write(&self, job: impl FnOnce() -> Option<Event> + Send + 'static) {
        if let Some(w) = &self.write_tx {
            let _ = w.send(Box::new(job));
        }
    }

    fn load_preview(&self, path: PathBuf, agent: Dialect) {
        let ticket = self.preview.next();
        let skipped_path = path.clone();
        self.submit(
            Job::Preview,
            ticket,
            move |ticket| {
                let result = load_preview_cancellable(&path, agent, &|| ticket.is_cancelled());
                // Cancelled half-way: reported like a request that never ran, so it is asked
                // again when its row is shown again.
                Some(if ticket.is_cancelled() {
                    Event::PreviewCancelled { path }
                } else {
                    Event::PreviewLoaded {
                        path,
                        result: result.map(Arc::new),
                    }
                })
            },
            move || Some(Event::PreviewCancelled { path: skipped_path }),
        );
    }

    /// Executes one effect; `Some` ends the loop.
    pub(crate) fn execute(&mut self, effect: Effect) -> Option<Exit> {
        match effect {
            Effect::StartScan { generation } => {
                let source = Arc::clone(&self.source);
                let tx = self.tx.clone();
                let ticket = self.scan.next();
                self.pool.submit(
                    ticket,
                    move |ticket| {
                        source.scan(&mut |update| {
                            !ticket.is_cancelled()
                                && tx
                                    .send(Msg::Done {
                                        job: Job::Scan,
                                        generation: ticket.generation(),
                                        event: Event::ScanResult { generation, update },
                                    })
                                    .is_ok()
                        });
                    },
                    || {},
                );
            }
            Effect::RunSearch(req) => self.latest(Job::Search, move |ticket| {
                let generation = req.generation;
                execute_search(&req, &|| ticket.is_cancelled()).map(|matches| Event::SearchResult {
                    generation,
                    matches,
                })
            }),
            Effect::LoadStats(req) => self.latest(Job::Stats, move |ticket| {
                let cancelled = || ticket.is_cancelled();
                let (report, _) =
                    crate::storage::stats::report_over(&req.sessions, req.by, None, &cancelled);
                (!ticket.is_cancelled()).then(|| Event::StatsReady {
                    generation: req.generation,
                    report: Box::new(report),
                })
            }),
            Effect::LoadPreview { path, agent } => self.load_preview(path, agent),
            Effect::OpenSession {
                record,
                path,
                agent,
                viewport,
                home,
            } => {
                // A second Enter on the session being loaded: the running load serves it.
                let reuse = self
                    .opening
                    .as_ref()
                    .is_some_and(|o| o.path == path && self.open.is_current(o.generation));
                if reuse {
                    return None;
                }
                self.load_preview(path.clone(), agent);
                let ticket = self.open.next();
                self.opening = Some(Opening {
                    path: path.clone(),
                    generation: ticket.generation(),
                });
                let pins = Arc::clone(&self.pins);
                self.submit(
                    Job::Open,
                    ticket,
                    move |ticket| {
                        // What the view shows is what its labels and check-outs may write to.
                        pin_now(&pins, &path);
                        let cancelled = || ticket.is_cancelled();
                        let result = open_view(&path, agent, viewport, home, &cancelled);
                        (!ticket.is_cancelled()).then_some(Event::SessionOpened {
                            record,
                            result,
                            path,
                        })
                    },
                    || None,
                );
            }
            Effect::View { session, effect } => {
                let pin = pinned(&self.pins, &session);
                self.write(move || {
                    crate::app::session_view::execute_pinned(&effect, pin.as_ref()).map(|outcome| {
                        Event::ViewDone {
                            path: session,
                            outcome: Box::new(outcome),
                        }
                    })
                })
            }
            Effect::RefreshRecord { path, agent } => {
                let current_dir = self.current_dir.clone();
                let ticket = self.refresh.next(path.clone());
                let tx = self.tx.clone();
                self.pool.submit(
                    ticket,
                    move |ticket| {
                        let result = scan_info(&path, agent)
                            .map(|info| Arc::new(SessionRecord::new(info, current_dir.as_deref())))
                            .map_err(|e| e.to_string());
                        // A newer refresh of the same file is on its way.
                        if !ticket.is_cancelled() {
                            let _ = tx.send(Msg::App(Event::RecordRefreshed { path, result }));
                        }
                    },
                    || {},
                );
            }
            Effect::PrintLine(line) => return Some(Exit::PrintLine(line)),
            Effect::Discard(view) => self.pool.run(move || drop(view)),
            Effect::CheckLive { record, path } => {
                // Ctrl+D: pin what the user is about to confirm.
                pin_now(&self.pins, &path);
                self.latest(Job::Live, move |_| {
                    Some(Event::LiveChecked {
                        record,
                        liveness: check_liveness(&path, SystemTime::now()),
                    })
                })
            }
            Effect::AppendRename { record, path, name } => {
                let current_dir = self.current_dir.clone();
                self.write(move || {
                    Some(Event::Renamed {
                        record,
                        result: rename(&path, name, current_dir.as_deref()),
                    })
                });
            }
            effect @ (Effect::TrashSession { .. } | Effect::DeletePermanently { .. }) => {
                let roots = Arc::clone(&self.roots);
                let pin = match &effect {
                    Effect::TrashSession { path, .. } | Effect::DeletePermanently { path, .. } => {
                        pinned(&self.pins, path)
                    }
                    _ => None,
                };
                self.write(move || delete_session_pinned(&effect, &roots, pin.as_ref()));
            }
            Effect::RestoreTrash(item) => self.write(move || {
                let result = restore(&item.trashed).map_err(|e| e.to_string());
                Some(Event::Restored { item, result })
            }),
            Effect::Print(path) => return Some(Exit::Print(path)),
            Effect::LaunchAgent { path, agent, cwd } => {
                return Some(Exit::Launch { path, agent, cwd });
            }
            Effect::Quit { code } => return Some(Exit::Code(code)),
        }
        None
    }

    /// Ends the browser's background work: reads are cancelled (they stop at their next
    /// block); writes already asked for finish first, so nothing is left half-done.
    pub(crate) fn shut_down(&mut self) {
        for job in [Job::Scan, Job::Search, Job::Preview, Job::Open, Job::Live] {
            self.slot(job).cancel();
        }
        self.write_tx = None;
        if let Some(w) = self.write_worker.take() {
            let _ = w.join();
        }
    }
}

/// Loads a session for the session view, stopping early when `cancelled`.
fn open_view(
    path: &Path,
    agent: Dialect,
    viewport: ratatui::layout::Rect,
    home: Option<String>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Box<SessionViewState>, String> {
    let session =
        load_session_cancellable(path, SlimMode::Auto, cancelled).map_err(|e| e.to_string())?;
    Ok(Box::new(
        SessionViewState::new(path.to_owned(), session, agent, viewport).with_home(home),
    ))
}

/// Runs the writes (appends, forks, exports, trash moves) one at a time, in the order asked:
/// an append chains to the file's last entry, so two appends running at once could both take
/// the same parent.
fn spawn_write_worker(events: Sender<Msg>) -> (Sender<WriteJob>, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel::<WriteJob>();
    let worker = std::thread::spawn(move || {
        while let Ok(job) = rx.recv() {
            if let Some(event) = job() {
                // The loop may be gone (grove is quitting): the write is done all the same.
                let _ = events.send(Msg::App(event));
            }
        }
    });
    (tx, worker)
}

fn rename(
    path: &Path,
    name: String,
    current_dir: Option<&Path>,
) -> Result<Arc<SessionRecord>, String> {
    let before = scan_info(path, None).map_err(|e| e.to_string())?;
    append_entry(path, NewEntry::Rename { name }).map_err(|e| e.to_string())?;
    let info = scan_info(path, Some(before.agent)).map_err(|e| e.to_string())?;
    Ok(Arc::new(SessionRecord::new(info, current_dir)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::event::ScanUpdate;
    use crate::app::keymap::Keymap;
    use crate::app::state::Options;
    use crate::app::theme::Palette;
    use crate::model::info::SessionInfo;
    use std::sync::mpsc::Receiver;
    use std::time::Duration;

    struct NoSessions;
    impl SessionSource for NoSessions {
        fn scan(&self, _sink: &mut dyn FnMut(ScanUpdate) -> bool) {}
    }

    fn runner() -> (Runner, Receiver<Msg>) {
        let (tx, rx) = mpsc::channel();
        let runner = Runner::new(tx, Arc::new(NoSessions), None, Arc::from(Vec::new()));
        (runner, rx)
    }

    /// A session of `n` messages.
    fn session_file(dir: &Path, n: usize) -> PathBuf {
        let mut text = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/w\"}\n",
        );
        let mut parent = "null".to_owned();
        for i in 0..n {
            text.push_str(&format!(
                "{{\"type\":\"message\",\"id\":\"{i:08x}\",\"parentId\":{parent},\"timestamp\":\"2025-01-01T00:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"message {i}\"}}}}\n"
            ));
            parent = format!("\"{i:08x}\"");
        }
        let path = dir.join("s.jsonl");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn open(path: &Path) -> Effect {
        Effect::OpenSession {
            record: 0,
            path: path.to_path_buf(),
            agent: Dialect::Pi,
            viewport: ratatui::layout::Rect::new(0, 0, 100, 30),
            home: None,
        }
    }

    /// The session-open results that arrive within a moment (other messages are dropped).
    fn opened(rx: &Receiver<Msg>) -> Vec<(u64, bool)> {
        let mut out = Vec::new();
        while let Ok(msg) = rx.recv_timeout(Duration::from_secs(5)) {
            if let Msg::Done {
                job: Job::Open,
                generation,
                event: Event::SessionOpened { result, .. },
            } = msg
            {
                out.push((generation, result.is_ok()));
                // Whatever else was asked is in the queue by now: a short wait suffices.
                while let Ok(msg) = rx.recv_timeout(Duration::from_millis(500)) {
                    if let Msg::Done {
                        job: Job::Open,
                        generation,
                        event: Event::SessionOpened { result, .. },
                    } = msg
                    {
                        out.push((generation, result.is_ok()));
                    }
                }
                break;
            }
        }
        out
    }

    fn state_showing(path: &Path) -> AppState {
        let mut state = AppState::new(Options::default(), Keymap::default(), Palette::default());
        let info = SessionInfo {
            path: path.to_path_buf(),
            id: "s".into(),
            cwd: "/w".into(),
            version: 3,
            ..SessionInfo::default()
        };
        state
            .picker
            .records
            .push(Arc::new(SessionRecord::without_fs(info, false)));
        state.screen = Screen::Session {
            record: 0,
            scroll: 0,
        };
        state
    }

    /// A second Enter on the session being loaded reuses the running load: one load, one
    /// result, accepted.
    #[test]
    fn a_second_open_of_the_same_session_reuses_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = session_file(dir.path(), 2000);
        let (mut runner, rx) = runner();
        let state = state_showing(&path);
        assert!(runner.execute(open(&path)).is_none());
        runner.reconcile(&state);
        assert!(runner.execute(open(&path)).is_none());
        let results = opened(&rx);
        assert_eq!(results, vec![(1, true)], "one load for two opens");
        assert!(runner.accept(Job::Open, 1));
        // Once delivered, a new Enter loads again (the file may have changed).
        assert!(runner.execute(open(&path)).is_none());
        assert_eq!(opened(&rx), vec![(2, true)]);
    }

    /// Leaving the loading screen (Esc) cancels the load: its result, if it got that far, is
    /// not accepted, and a new open starts a new load.
    #[test]
    fn leaving_the_loading_screen_cancels_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = session_file(dir.path(), 2000);
        let (mut runner, rx) = runner();
        let mut state = state_showing(&path);
        assert!(runner.execute(open(&path)).is_none());
        runner.reconcile(&state);
        state.screen = Screen::Picker;
        runner.reconcile(&state);
        assert!(runner.opening.is_none());
        for (generation, _) in opened(&rx) {
            assert!(
                !runner.accept(Job::Open, generation),
                "a cancelled load was accepted"
            );
        }
        state.screen = Screen::Session {
            record: 0,
            scroll: 0,
        };
        assert!(runner.execute(open(&path)).is_none());
        runner.reconcile(&state);
        let results = opened(&rx);
        assert_eq!(results.len(), 1);
        assert!(runner.accept(Job::Open, results[0].0));
    }
}
