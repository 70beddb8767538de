//! Executing the app's effects: reads on the job pool (latest request wins, the older one is
//! cancelled), writes one at a time in the order asked, and what ends the browser.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::SystemTime;

use crate::app::event::{Effect, Event};
use crate::app::live::check_liveness;
use crate::app::matcher::execute_search;
use crate::app::preview::load_preview_cancellable;
use crate::app::source::SessionSource;
use crate::app::state::{AppState, Screen, SessionRecord};
use crate::model::context::Dialect;
use crate::storage::read::scan_info;
use crate::storage::roots::SessionRoot;
use crate::storage::trash::restore;

use super::delete::delete_session_pinned;
use crate::storage::read::{SlimMode, load_session_cancellable};

mod org;

use super::jobs::{KeyedSlots, Pool, Slot, Ticket, WORKERS};

mod msg;
mod pins;
mod work;

pub(crate) use msg::{Exit, Job, Msg};
use pins::{Pins, pin_now, pinned};
use work::{WriteJob, open_leaf_first, open_view, rename, spawn_write_worker};

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
    hits: Slot,
    follow: Slot,
    threads: Slot,
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
            hits: Slot::default(),
            follow: Slot::default(),
            threads: Slot::default(),
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
            Job::Hits => &self.hits,
            Job::Follow => &self.follow,
            Job::Threads => &self.threads,
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
            Effect::FindHits { path, query } => self.submit(
                Job::Hits,
                self.hits.next(),
                move |ticket| {
                    let result =
                        crate::app::preview_hits::find_preview_hits(&path, &query, &|| {
                            ticket.is_cancelled()
                        });
                    (!ticket.is_cancelled()).then(|| Event::HitsFound {
                        path,
                        query: query.as_str().to_owned(),
                        result,
                    })
                },
                || None,
            ),
            Effect::OpenSession {
                record,
                path,
                agent,
                viewport,
                home,
                search,
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
                self.remember_opened(&path);
                let ticket = self.open.next();
                self.opening = Some(Opening {
                    path: path.clone(),
                    generation: ticket.generation(),
                });
                let pins = Arc::clone(&self.pins);
                let tx = self.tx.clone();
                let source = Arc::clone(&self.source);
                self.submit(
                    Job::Open,
                    ticket,
                    move |ticket| {
                        // What the view shows is what its labels and check-outs may write to.
                        pin_now(&pins, &path);
                        let cancelled = || ticket.is_cancelled();
                        // A large session's leaf branch first, drawn while the whole loads.
                        if let Some(first) =
                            open_leaf_first(&path, agent, viewport, &home, &*source)
                            && !ticket.is_cancelled()
                        {
                            let event = Event::SessionOpened {
                                record,
                                result: Ok(first),
                                path: path.clone(),
                            };
                            let _ = tx.send(Msg::App(event));
                        }
                        let mut result = open_view(&path, agent, viewport, home, &cancelled);
                        if let (Ok(view), Some(search)) = (&mut result, search) {
                            view.open_search(search);
                        }
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
            Effect::Refresh(request) => {
                let source = Arc::clone(&self.source);
                let tx = self.tx.clone();
                // One at a time (the app waits for the answer before it asks again).
                self.pool.run(move || {
                    let refreshed = source.refresh(&request);
                    let _ = tx.send(Msg::App(Event::Refreshed(Box::new(refreshed))));
                });
            }
            Effect::BuildThreads(request) => self.latest(Job::Threads, move |_| {
                Some(Event::ThreadsBuilt {
                    generation: request.generation,
                    rows: request.build(),
                })
            }),
            Effect::FollowSession { path } => self.latest(Job::Follow, move |ticket| {
                let cancelled = || ticket.is_cancelled();
                let result = load_session_cancellable(&path, SlimMode::Auto, &cancelled)
                    .map(Box::new)
                    .map_err(|e| e.to_string());
                (!ticket.is_cancelled()).then_some(Event::SessionReread { path, result })
            }),
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
            Effect::ListTrash { generation } => {
                let tx = self.tx.clone();
                self.pool.run(move || {
                    let result = super::trash_jobs::list_rows();
                    let _ = tx.send(Msg::App(Event::TrashListed { generation, result }));
                });
            }
            Effect::RestoreFromTrash {
                original,
                deleted_s,
            } => self.write(move || {
                let result = super::trash_jobs::restore_row(&original, deleted_s);
                Some(Event::TrashRestored { original, result })
            }),
            Effect::RestoreTrash(item) => self.write(move || {
                let result = restore(&item.trashed).map_err(|e| e.to_string());
                Some(Event::Restored { item, result })
            }),
            Effect::Print(path) => return Some(Exit::Print(path)),
            Effect::LaunchAgent { path, agent, cwd } => {
                return Some(Exit::Launch { path, agent, cwd });
            }
            Effect::Quit { code } => return Some(Exit::Code(code)),
            Effect::Organise(e) => self.organise(e),
            // They hand the terminal over: the loop performs them (`super::external`).
            Effect::Copy(_) | Effect::OpenExternal(_) => {}
        }
        None
    }

    /// Ends the browser's background work: reads are cancelled (they stop at their next
    /// block); writes already asked for finish first, so nothing is left half-done.
    pub(crate) fn shut_down(&mut self) {
        for job in [
            Job::Scan,
            Job::Search,
            Job::Preview,
            Job::Open,
            Job::Live,
            Job::Hits,
            Job::Follow,
            Job::Threads,
            Job::Stats,
        ] {
            self.slot(job).cancel();
        }
        self.write_tx = None;
        if let Some(w) = self.write_worker.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests;
