//! The reading threads' results, sent to the listing's thread a few at a time.
//!
//! Sent one by one, each result woke the listing's thread, which then took a core from a
//! reading thread: two context switches a file (20,000 for the 10k corpus, `perf stat`). A
//! batch holds the results of small files only: a file of [`LARGE_FILE`] bytes or more is
//! preceded by sending what is batched (its read may take a while, and the rows before it
//! must not wait for it), and a batch older than [`MAX_AGE`] is sent with its next result.

use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

/// A batch is sent once it holds this many results...
const MAX_RESULTS: usize = 16;
/// ... or once its first result is this old (checked as each result is added).
const MAX_AGE: Duration = Duration::from_millis(15);
/// Files at least this large are read with nothing batched before them (at ~1 GB/s a file of
/// 1 MB takes about a millisecond).
pub(super) const LARGE_FILE: u64 = 1 << 20;

/// The results a reading thread has not sent yet.
pub(super) struct Batch<T> {
    items: Vec<T>,
    since: Option<Instant>,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Batch {
            items: Vec::new(),
            since: None,
        }
    }
}

impl<T> Batch<T> {
    /// Before reading a file of `size` bytes: sends what is batched if the file is large.
    pub(super) fn before(&mut self, size: u64, tx: &SyncSender<Vec<T>>) {
        if size >= LARGE_FILE {
            self.send(tx);
        }
    }

    /// Adds a result, sending the batch when it is full or old enough.
    pub(super) fn push(&mut self, item: T, tx: &SyncSender<Vec<T>>) {
        let since = *self.since.get_or_insert_with(Instant::now);
        self.items.push(item);
        if self.items.len() >= MAX_RESULTS || since.elapsed() >= MAX_AGE {
            self.send(tx);
        }
    }

    /// Sends what is batched, if anything (a closed channel drops it: the listing stopped).
    pub(super) fn send(&mut self, tx: &SyncSender<Vec<T>>) {
        self.since = None;
        if !self.items.is_empty() {
            let _ = tx.send(std::mem::take(&mut self.items));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn results_go_in_batches_and_none_is_lost() {
        let (tx, rx) = mpsc::sync_channel::<Vec<u32>>(64);
        let mut b = Batch::default();
        for i in 0..40 {
            b.push(i, &tx);
        }
        b.send(&tx);
        drop(tx);
        let batches: Vec<Vec<u32>> = rx.iter().collect();
        assert_eq!(batches.concat(), (0..40).collect::<Vec<_>>());
        // [16, 16, 8], unless the thread stalled past MAX_AGE between two pushes (then a
        // batch goes early): never one result at a time.
        assert!(
            batches.iter().all(|b| b.len() <= MAX_RESULTS),
            "{batches:?}"
        );
        assert!(batches.len() < 10, "{batches:?}");
    }

    #[test]
    fn a_large_file_is_read_with_nothing_waiting_for_it() {
        let (tx, rx) = mpsc::sync_channel::<Vec<u32>>(64);
        let mut b = Batch::default();
        b.push(1, &tx);
        b.before(LARGE_FILE - 1, &tx);
        assert!(rx.try_recv().is_err(), "a small file does not flush");
        b.before(LARGE_FILE, &tx);
        assert_eq!(rx.try_recv().ok(), Some(vec![1]));
        b.before(LARGE_FILE, &tx);
        assert!(rx.try_recv().is_err(), "nothing batched, nothing sent");
    }

    #[test]
    fn an_old_batch_is_sent_with_its_next_result() {
        let (tx, rx) = mpsc::sync_channel::<Vec<u32>>(64);
        let mut b = Batch::default();
        b.push(1, &tx);
        std::thread::sleep(MAX_AGE + Duration::from_millis(5));
        b.push(2, &tx);
        assert_eq!(rx.try_recv().ok(), Some(vec![1, 2]));
    }
}
