//! Background work: one job type on a bounded pool of worker threads (not a thread per
//! request). A [`Slot`] holds one kind of work where only the newest request matters (the
//! search, the preview, the session being opened): asking again cancels the running job
//! cooperatively (it checks its [`Ticket`] between blocks) and its result, tagged with its
//! generation, is recognised as stale. A job cancelled before it started never runs.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What a job checks to know whether it is still wanted.
#[derive(Clone, Debug)]
pub(crate) struct Ticket {
    generation: u64,
    latest: Arc<AtomicU64>,
}

impl Ticket {
    /// A ticket nothing cancels (one-off work).
    pub(crate) fn standalone() -> Ticket {
        Ticket {
            generation: 0,
            latest: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The request's generation: results carry it.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// A newer request replaced this one, or it was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.latest.load(Ordering::Acquire) != self.generation
    }
}

/// One kind of latest-only work.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    latest: Arc<AtomicU64>,
}

impl Slot {
    /// A ticket for a new request; every older ticket of this slot is cancelled.
    pub(crate) fn next(&self) -> Ticket {
        let generation = self.latest.fetch_add(1, Ordering::AcqRel) + 1;
        Ticket {
            generation,
            latest: Arc::clone(&self.latest),
        }
    }

    /// Cancels the running request, if any, without starting another.
    pub(crate) fn cancel(&self) {
        self.latest.fetch_add(1, Ordering::AcqRel);
    }

    /// Whether `generation` is this slot's newest request (its result is wanted).
    pub(crate) fn is_current(&self, generation: u64) -> bool {
        self.latest.load(Ordering::Acquire) == generation
    }
}

/// Latest-only work per key (a refresh per session file): each key has its own [`Slot`].
#[derive(Debug)]
pub(crate) struct KeyedSlots<K> {
    slots: Mutex<HashMap<K, Arc<AtomicU64>>>,
}

impl<K> Default for KeyedSlots<K> {
    fn default() -> Self {
        KeyedSlots {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq> KeyedSlots<K> {
    /// A ticket for a new request for `key`; older ones for the same key are cancelled.
    pub(crate) fn next(&self, key: K) -> Ticket {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let latest = Arc::clone(slots.entry(key).or_default());
        let generation = latest.fetch_add(1, Ordering::AcqRel) + 1;
        Ticket { generation, latest }
    }
}

type Task = Box<dyn FnOnce() + Send>;

/// A fixed number of worker threads taking jobs in the order they were asked for.
pub(crate) struct Pool {
    queue: Option<Sender<Task>>,
    workers: Vec<JoinHandle<()>>,
}

/// Workers in the browser's pool: a long session load, a scan and a search can run together
/// while a preview still gets a thread.
pub(crate) const WORKERS: usize = 4;

impl Pool {
    pub(crate) fn new(workers: usize) -> Pool {
        let (tx, rx) = mpsc::channel::<Task>();
        let rx = Arc::new(Mutex::new(rx));
        let workers = (0..workers.max(1))
            .map(|_| {
                let rx = Arc::clone(&rx);
                std::thread::spawn(move || work(&rx))
            })
            .collect();
        Pool {
            queue: Some(tx),
            workers,
        }
    }

    /// Runs `job` on a worker unless `ticket` is cancelled by then; `skipped` runs instead
    /// when it is (so a caller can learn that a request was dropped).
    pub(crate) fn submit(
        &self,
        ticket: Ticket,
        job: impl FnOnce(&Ticket) + Send + 'static,
        skipped: impl FnOnce() + Send + 'static,
    ) {
        let task: Task = Box::new(move || {
            if ticket.is_cancelled() {
                skipped();
            } else {
                job(&ticket);
            }
        });
        if let Some(q) = &self.queue {
            let _ = q.send(task);
        }
    }

    /// Runs `job` on a worker (one-off work that nothing cancels).
    pub(crate) fn run(&self, job: impl FnOnce() + Send + 'static) {
        self.submit(Ticket::standalone(), |_| job(), || {});
    }

    /// Stops taking jobs and waits for the running ones (tests; the browser cancels its slots
    /// and leaves without waiting).
    #[cfg(test)]
    fn join(mut self) {
        self.queue = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn work(rx: &Mutex<Receiver<Task>>) {
    loop {
        // The lock is held only while taking a task, not while running it.
        let task = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        match task {
            Ok(task) => task(),
            Err(_) => return,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Workers end when the queue closes; running jobs finish on their own (detached).
        self.queue = None;
        self.workers.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn a_newer_ticket_cancels_the_older() {
        let slot = Slot::default();
        let a = slot.next();
        assert!(!a.is_cancelled());
        let b = slot.next();
        assert!(a.is_cancelled());
        assert!(!b.is_cancelled());
        assert!(slot.is_current(b.generation()));
        assert!(!slot.is_current(a.generation()));
        slot.cancel();
        assert!(b.is_cancelled());
        assert!(!Ticket::standalone().is_cancelled());
    }

    #[test]
    fn keys_have_their_own_latest() {
        let slots = KeyedSlots::default();
        let a1 = slots.next("a");
        let b1 = slots.next("b");
        assert!(!a1.is_cancelled() && !b1.is_cancelled());
        let a2 = slots.next("a");
        assert!(a1.is_cancelled());
        assert!(!a2.is_cancelled() && !b1.is_cancelled());
    }

    /// A running job that checks its ticket stops when a newer request arrives; the newer
    /// one runs to the end; jobs superseded before they started are skipped, not run.
    #[test]
    fn the_running_job_stops_and_queued_stale_ones_are_skipped() {
        let pool = Pool::new(1);
        let slot = Slot::default();
        let (tx, rx) = mpsc::channel::<(u64, &'static str)>();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let first = slot.next();
        let t = tx.clone();
        pool.submit(
            first,
            move |ticket| {
                let _ = started_tx.send(());
                let mut steps = 0u64;
                while !ticket.is_cancelled() {
                    std::thread::sleep(Duration::from_millis(1));
                    steps += 1;
                    assert!(steps < 20_000, "never cancelled");
                }
                let _ = t.send((ticket.generation(), "cancelled"));
            },
            || {},
        );
        started_rx.recv().unwrap();
        // Two more while the first runs: the middle one never starts.
        for _ in 0..2 {
            let t = tx.clone();
            let s = tx.clone();
            pool.submit(
                slot.next(),
                move |ticket| {
                    let _ = t.send((ticket.generation(), "done"));
                },
                move || {
                    let _ = s.send((0, "skipped"));
                },
            );
        }
        drop(tx);
        pool.join();
        let got: Vec<_> = rx.iter().collect();
        assert_eq!(got, vec![(1, "cancelled"), (0, "skipped"), (3, "done")]);
        assert!(slot.is_current(3));
    }

    #[test]
    fn the_pool_is_bounded() {
        let pool = Pool::new(2);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        for _ in 0..20 {
            let (running, peak) = (Arc::clone(&running), Arc::clone(&peak));
            pool.run(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                running.fetch_sub(1, Ordering::SeqCst);
            });
        }
        pool.join();
        assert!(peak.load(Ordering::SeqCst) <= 2);
    }
}
