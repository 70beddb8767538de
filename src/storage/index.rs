//! The persistent index: each session file's listing fields and searchable text, kept in the
//! platform cache dir so that a second listing costs one `stat` per unchanged file.
//!
//! # Use
//! ```no_run
//! use grove::storage::index::{Index, IndexEvent, ListOptions};
//! # let roots = vec![];
//! let mut index = Index::open(false); // `true` = --no-cache: scan everything, write nothing
//! let listing = index.list(&roots, ListOptions::default(), |event| match event {
//!     IndexEvent::Found(total) => { /* the number of files, for progress */ }
//!     IndexEvent::Cached(rows) => { /* unchanged files: all at once, before any parse */ }
//!     IndexEvent::Scanned(row) => { /* a new or changed file, as soon as it is read */ }
//!     IndexEvent::Problem(_) => {}
//! });
//! ```
//! `list` persists the index at the end when anything changed; errors writing the cache are
//! never fatal (see [`ListStats::persist_error`]).
//!
//! # Keys and freshness
//! A row is keyed by path and holds the file's size, mtime, ctime, inode and device. All equal:
//! the row is used as is. Otherwise, if the file is the same inode, only grew, and the 4 KiB
//! before the offset where the last scan stopped (the end of its last complete line) hash the
//! same, the scan resumes from that offset with the saved [`ScanState`]: work proportional to
//! the new bytes. Anything else (shrunk, replaced, rewritten in place, renamed here) is a full
//! rescan. ctime is in the key because it cannot be set from user space: a file rewritten in
//! place with the same size and a restored mtime still changes it.
//!
//! # On disk
//! `DIR/index.bin` — the rows ("base"), replaced atomically (written to a temp file, then
//! renamed): magic `GRIX`, [`FORMAT_VERSION`], a random id fresh for each rows file written,
//! the blob log's name and the row count, then each row length-prefixed in a compact binary
//! encoding (see [`encode_rows`]), then a hash of every byte before it. Any mismatch (wrong
//! magic or version, bad hash, a row that does not decode or does not use exactly its bytes, a
//! wrong count) discards the whole file and the index is rebuilt silently. Binary rather than
//! JSON lines: parsing 13 MB of JSON rows was half of a warm listing of 10k sessions (~50 ms).
//! A row's listing fields stay encoded, pointing into the bytes read, until the row is listed;
//! they are then decoded straight into the listing (see [`InfoBytes`]), and fields that do not
//! decode make the file rescanned. Opening 10k rows (~7 MB) takes ~10 ms: reading the file and
//! one allocation per row (its path). (Format 2 and earlier wrote `index.jsonl`; it is ignored,
//! and removed at the next write.)
//!
//! `DIR/index-<id>.journal` — the rows changed since the rows file with that id was written, so
//! that one grown or new session costs one small record, not a rewrite of every row. Each write
//! that changed rows appends one record `[b"GRJ1"][len u64][hash u64][payload]` with one `write` on
//! an `O_APPEND` handle; the payload is the rows file's id, the changed rows (in the rows file's
//! encoding) and the removed paths. Opening reads the rows file, then applies the journal's records
//! in order (the last record wins for a path). The first record that does not check out (torn by a
//! crash, garbage, or bound to another rows file's id) ends the replay without error, and the next
//! write starts a new rows file rather than appending after it. Records are not synced to disk (the
//! rows file is, before its rename): a crash can at worst cost the journal's tail, which is then
//! ignored. A journal is never read for a rows file other than its own: its name and each record
//! carry the id. When a record would take the journal past a quarter of the rows file's size or
//! past [`JOURNAL_MAX_RECORDS`] records, or when the blob log is compacted, all rows are written to
//! a new rows file (new id, hence a new, empty journal) and the old journal is deleted.
//!
//! `DIR/blobs-<id>.bin` — an append-only log of the large parts: each session's searchable
//! text and its resumable scan state. Each record is `[b"GRB1"][len u64][hash u64][payload]`,
//! appended with one `write` on an `O_APPEND` handle, so two grove processes can append at
//! once; rows refer to records by offset, length and hash, and a record that does not check
//! out is treated as missing (the file is rescanned). Keeping these out of the rows file means
//! a warm listing never reads them, and a grown file costs records of its own, not a rewrite
//! of every session's text.
//!
//! A session's text and its state are each a *chain*: a full record, then up to
//! [`CHAIN_MAX_LINKS`] delta records, each naming the record it follows (offset, length and
//! hash, as rows name records). A file resumed from where its last scan stopped appends deltas,
//! not its whole text and state again: for the text, the bytes added (and how many bytes of the
//! previous text come first: the state leaves out a torn last line that the listing's text
//! includes); for the state, a patch of its JSON (`diff_json`: the entry and parent ids added,
//! the labels changed, the other fields that changed), checked when written by applying it to
//! the state it was made from (it must give the new state exactly, else a full record is
//! written). The state record does not hold the text: it says how many bytes of the row's text
//! are the state's. On the 10k corpus, a 4 KB append to a 1.2 MB session appends 4,101 bytes
//! (a 3.9 KB text delta, a 147-byte state delta) where the whole text and state took 640–790
//! KB. A chain gets a full record again when one more delta would take it past
//! [`CHAIN_MAX_LINKS`] links or make its deltas larger than its full record: reading a chain
//! costs at most 33 reads and twice its full record, and a session's full record is rewritten
//! at most once per 33 growths or once its deltas add up to it (averaged over 40 growths of 4
//! KB, that session's records took 23 KB per growth). Reading walks back to the full record:
//! a link that does not check out, is of the wrong kind, does not point strictly backwards, or
//! a chain of another length than the row says reads as missing (the file is rescanned), never
//! as a wrong text or state. The row keeps each chain's link count and sizes (boxed, only for
//! chains with deltas), so choosing a delta and counting the log's live bytes read nothing.
//!
//! The log is compacted when less than half of it is referenced (live bytes counted from the
//! rows' chains): full records are copied to a new log as they are, and each chain with deltas
//! is rewritten there as one full record (its deltas point into the old log).
//!
//! Two processes: each reads the rows and journal, and appends its own records to both logs;
//! records are self-contained and never interleave, so both processes' rows are kept. Before
//! appending, a process applies the journal records the other appended since it last looked
//! (keeping its own rows for the paths it just read), and when the other replaced the rows
//! file, it reads the new one and puts its own changes on top. Only when the other also moved
//! to a new blob log does it write a rows file of its own: the last writer wins, and the rows
//! it lacks are rescanned next time (rows are always checked against the file's key, so a stale
//! row costs work, never a wrong listing). Neither can see a torn file.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Seek, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use super::fastscan::{ParseMode, ScanState, scan};
use super::read::ReadError;
use super::roots::{FoundFile, SessionRoot, Skipped, find_session_files_with_meta};
use super::scan::{Listing, error_reason, sort_by_modified};
use crate::model::context::Dialect;
use crate::model::info::{SessionInfo, WorkflowInfo};

/// Bump on any change to the rows, journal, records or [`ScanState`] encoding: older files are
/// ignored and rebuilt.
pub const FORMAT_VERSION: u32 = 6;
const ROWS_MAGIC: &[u8; 4] = b"GRIX";
const ROWS_FILE: &str = "index.bin";
const OLD_ROWS_FILE: &str = "index.jsonl";
const RECORD_MAGIC: &[u8; 4] = b"GRB1";
const JOURNAL_MAGIC: &[u8; 4] = b"GRJ1";
/// Magic, payload length and payload hash: the header of blob and journal records alike.
const RECORD_HEADER: usize = 20;
/// The journal is folded into a new rows file when it would grow past this fraction of the
/// rows file (1/4: replaying it then costs at most a quarter more than reading the rows)...
const JOURNAL_MAX_FRACTION: u64 = 4;
/// ...or past this many records.
const JOURNAL_MAX_RECORDS: u64 = 1000;
/// Bytes before the resume offset that must be unchanged for a resumed scan.
const TAIL_CHECK: u64 = 4096;
/// A chain of blob records (see the module docs) holds at most this many deltas after its full
/// record: reading a session's text or state costs at most this many reads more.
pub const CHAIN_MAX_LINKS: u32 = 32;
const _: () = assert!(
    CHAIN_MAX_LINKS <= u8::MAX as u32,
    "links are stored in a byte"
);
/// Blob logs not referenced by the rows file and idle this long are removed.
const STALE_LOG_AGE: Duration = Duration::from_secs(600);

/// What [`Index::list`] reports while it works.
#[derive(Debug)]
pub enum IndexEvent<'a> {
    /// The roots were listed: this many session files will be reported (for progress).
    Found(usize),
    /// Sessions whose files did not change: sent once, before any file is read.
    Cached(&'a [SessionInfo]),
    /// A session read now (new or changed file), as soon as it is ready.
    Scanned(&'a SessionInfo),
    /// A file that is not a readable session.
    Problem(&'a Skipped),
}

/// Options of [`Index::list`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ListOptions {
    /// Fill [`SessionInfo::all_messages_text`] (for search); otherwise it is left empty, which
    /// keeps a listing of 10k sessions small.
    pub with_text: bool,
}

/// What the last [`Index::list`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListStats {
    pub files: usize,
    /// Rows used as they were (one `stat`).
    pub cached: usize,
    /// Files that grew and were read from where the last scan stopped.
    pub resumed: usize,
    /// Files read from the start.
    pub scanned: usize,
    /// Bytes read from session files.
    pub bytes_read: u64,
    /// Whether the index was written.
    pub persisted: bool,
    /// Whether that write replaced the rows file (`false`: one record appended to the journal).
    pub rows_rewritten: bool,
    /// Bytes of rows written: the new rows file, or the journal record.
    pub rows_bytes_written: u64,
    /// Bytes appended to the blob log (headers included): the searchable text and resumable
    /// state of each file read; for a file resumed from where its last scan stopped, usually
    /// only what it added (a delta record), now and then its whole text or state again (a
    /// full record, when its chain of deltas reached its bounds).
    pub blob_bytes_written: u64,
    pub persist_error: Option<String>,
}

/// Rows by path. Keyed by the path's bytes (hashing a `Path` walks its components), with
/// [`KeyHasher`]: SipHash was a tenth of a warm listing, and these keys are not adversarial.
type RowMap = HashMap<OsString, Row, BuildHasherDefault<KeyHasher>>;
type PathSet = HashSet<OsString, BuildHasherDefault<KeyHasher>>;

/// A fast non-cryptographic hasher for paths (the mix of [`fast_hash`]).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = fast_hash(bytes) ^ self.0.rotate_left(17);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The index of session files (see the module docs).
#[derive(Debug)]
pub struct Index {
    /// `None` = disabled (`--no-cache`).
    dir: Option<PathBuf>,
    rows: RowMap,
    /// The blob log the rows refer to.
    log: Option<BlobLog>,
    /// The rows file these rows were read from or last written to, and how much of its journal
    /// they include; `None` when there is none (a new base must be written).
    base: Option<Base>,
    /// Paths whose rows changed (upserted or removed) since the rows were last written.
    pending: PathSet,
    /// The next write must be a new rows file, not a journal record (no rows file yet, the
    /// blob log was compacted, or the journal ends with bytes that are not a record).
    rewrite_base: bool,
    stats: ListStats,
}

/// The rows file ("base") the in-memory rows build on.
#[derive(Debug)]
struct Base {
    /// Random, fresh for each rows file written; names its journal and is in every record.
    id: u64,
    /// The rows file's size.
    len: u64,
    log_name: String,
    /// Bytes of the journal applied (or written by us) so far, and their record count.
    journal_end: u64,
    journal_records: u64,
}

impl Base {
    fn journal_name(&self) -> String {
        journal_name(self.id)
    }
}

fn journal_name(id: u64) -> String {
    format!("index-{id:016x}.journal")
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct FileKey {
    size: u64,
    mtime: (i64, u32),
    ctime: (i64, u32),
    ino: u64,
    dev: u64,
}

impl FileKey {
    fn of(meta: &fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileKey {
                size: meta.len(),
                mtime: (meta.mtime(), meta.mtime_nsec() as u32),
                ctime: (meta.ctime(), meta.ctime_nsec() as u32),
                ino: meta.ino(),
                dev: meta.dev(),
            }
        }
        #[cfg(not(unix))]
        {
            let t = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .unwrap_or_default();
            FileKey {
                size: meta.len(),
                mtime: (t.as_secs() as i64, t.subsec_nanos()),
                ctime: (0, 0),
                ino: 0,
                dev: 0,
            }
        }
    }

    fn same_file(&self, other: &FileKey) -> bool {
        self.ino == other.ino && self.dev == other.dev
    }
}

/// A record of the blob log: where its payload starts (after its header, so never 0: the niche
/// keeps `Option<ChainRef>` as small as a plain reference), its length and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct BlobRef {
    off: NonZeroU64,
    len: u64,
    hash: u64,
}

impl BlobRef {
    fn new(off: u64, len: u64, hash: u64) -> Option<BlobRef> {
        Some(BlobRef {
            off: NonZeroU64::new(off)?,
            len,
            hash,
        })
    }
}

/// A chain of blob records: the newest (`head`) and, when it has deltas, what the chain holds,
/// so that deciding between a delta and a full record, and counting the live bytes of the log,
/// need no read. Reading checks the number of links against the records walked. Most chains
/// are one full record: as small in a row as a plain record reference (a warm listing keeps
/// 10k rows in memory).
#[derive(Clone, Debug, PartialEq, Eq)]
struct ChainRef {
    head: BlobRef,
    deltas: Option<Box<Deltas>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Deltas {
    /// Delta records after the full one (at least 1).
    links: u32,
    /// Bytes of the full record and of all the deltas, headers included.
    base_bytes: u64,
    delta_bytes: u64,
}

impl ChainRef {
    /// A chain of one full record.
    fn full(head: BlobRef) -> ChainRef {
        ChainRef { head, deltas: None }
    }

    fn links(&self) -> u32 {
        self.deltas.as_ref().map_or(0, |d| d.links)
    }

    fn base_bytes(&self) -> u64 {
        self.deltas
            .as_ref()
            .map_or(self.head.len + RECORD_HEADER as u64, |d| d.base_bytes)
    }

    fn delta_bytes(&self) -> u64 {
        self.deltas.as_ref().map_or(0, |d| d.delta_bytes)
    }

    /// Whether a delta record with a payload of `len` bytes may be added: the chain stays
    /// within [`CHAIN_MAX_LINKS`], and its deltas within the size of its full record (so that
    /// reading it costs at most twice the full record, and a full record rewritten when it
    /// does not is paid for by the deltas written before: bytes written stay proportional to
    /// the bytes added, amortized).
    fn takes_delta(&self, len: usize) -> bool {
        self.links() < CHAIN_MAX_LINKS
            && self.delta_bytes() + (len + RECORD_HEADER) as u64 <= self.base_bytes()
    }

    /// This chain with `head`, a delta record after the current head, appended.
    fn then(&self, head: BlobRef) -> ChainRef {
        ChainRef {
            head,
            deltas: Some(Box::new(Deltas {
                links: self.links() + 1,
                base_bytes: self.base_bytes(),
                delta_bytes: self.delta_bytes() + head.len + RECORD_HEADER as u64,
            })),
        }
    }

    /// Bytes of the log the chain keeps alive.
    fn bytes(&self) -> u64 {
        self.base_bytes() + self.delta_bytes()
    }
}

/// One file's entry in the index (keyed by its path).
#[derive(Clone, Debug, PartialEq)]
struct Row {
    key: FileKey,
    /// The agent the content points to; the listed agent is the root's, else this one.
    detected_agent: Option<Dialect>,
    /// The listing fields, without the path and the text (that is in `text`).
    info: Option<InfoBytes>,
    /// Why the file is not a session (no header), when it is not.
    problem: Option<String>,
    /// The searchable text; `None` when empty.
    text: Option<ChainRef>,
    /// Resumable state (its text is the first bytes of `text`, as many as its record says);
    /// `None` when the file must be rescanned if it changes.
    state: Option<ChainRef>,
    /// Where a resumed scan continues, and the hash of the bytes just before it.
    resume_offset: u64,
    tail_hash: u64,
}

/// A row's listing fields as [`encode_info`] wrote them, decoded only when the row is listed,
/// straight into the [`SessionInfo`] handed out: a warm listing allocates each string once
/// (decoding the rows eagerly, then cloning them into the listing, did it twice), and rows read
/// from the rows file or journal point into the bytes read instead of copying them.
#[derive(Clone)]
struct InfoBytes {
    buf: Arc<Vec<u8>>,
    start: usize,
    end: usize,
}

impl InfoBytes {
    fn encode(info: &SessionInfo) -> InfoBytes {
        let mut e = Enc(Vec::with_capacity(256));
        encode_info(&mut e, info);
        let end = e.0.len();
        InfoBytes {
            buf: Arc::new(e.0),
            start: 0,
            end,
        }
    }

    fn bytes(&self) -> &[u8] {
        self.buf.get(self.start..self.end).unwrap_or_default()
    }

    /// The listing of the file at `path`; `None` if the bytes do not decode (the file is then
    /// rescanned).
    fn decode(&self, path: &Path) -> Option<SessionInfo> {
        let bytes = self.bytes();
        let mut d = Dec::new(bytes);
        let info = decode_info(&mut d, path)?;
        (d.i == bytes.len()).then_some(info)
    }
}

impl PartialEq for InfoBytes {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl std::fmt::Debug for InfoBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InfoBytes({} bytes)", self.end - self.start)
    }
}

impl Index {
    /// The index in the platform cache dir, or a disabled one when `no_cache` (or when there is
    /// no cache dir).
    pub fn open(no_cache: bool) -> Index {
        match (no_cache, super::cache::cache_dir()) {
            (false, Some(dir)) => Index::open_at(&dir),
            _ => Index::disabled(),
        }
    }

    /// The index stored in `dir` (created on first write). A missing, corrupt or older index
    /// starts empty.
    pub fn open_at(dir: &Path) -> Index {
        let mut index = Index {
            dir: Some(dir.to_path_buf()),
            ..Index::disabled()
        };
        let Some(data) = fs::read(dir.join(ROWS_FILE)).ok().map(Arc::new) else {
            return index;
        };
        let Some((mut rows, log_name, id)) = decode_rows(&data) else {
            return index;
        };
        let Ok(log) = BlobLog::open(dir, &log_name) else {
            return index;
        };
        // The journal: records appended since this rows file was written, applied in order.
        // Whatever does not check out (a torn tail from a crash, garbage) ends the replay; the
        // next write then starts a new rows file (see `catch_up`).
        let journal = Arc::new(fs::read(dir.join(journal_name(id))).unwrap_or_default());
        let (journal_end, journal_records) = replay_journal(&journal, id, &mut rows, None);
        index.rows = rows;
        index.log = Some(log);
        index.base = Some(Base {
            id,
            len: data.len() as u64,
            log_name,
            journal_end: journal_end as u64,
            journal_records,
        });
        index
    }

    /// An index that remembers nothing: every listing scans every file.
    pub fn disabled() -> Index {
        Index {
            dir: None,
            rows: RowMap::default(),
            log: None,
            base: None,
            pending: PathSet::default(),
            rewrite_base: false,
            stats: ListStats::default(),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// What the last [`Index::list`] did.
    pub fn stats(&self) -> &ListStats {
        &self.stats
    }

    /// Lists every session under `roots`, newest first, calling `on_event` as rows become
    /// known (cached rows first, in one batch), then persists the index if anything changed.
    pub fn list(
        &mut self,
        roots: &[SessionRoot],
        opts: ListOptions,
        mut on_event: impl FnMut(IndexEvent<'_>),
    ) -> Listing {
        self.stats = ListStats::default();
        let (found, mut problems) = find_session_files_with_meta(roots);
        on_event(IndexEvent::Found(found.len()));
        for p in &problems {
            on_event(IndexEvent::Problem(p));
        }
        self.stats.files = found.len();

        // Unchanged files: one stat each (done by the discovery above).
        let mut sessions = Vec::with_capacity(found.len());
        let mut todo: Vec<(FoundFile, Option<Row>)> = Vec::new();
        let mut cached_problems = Vec::new();
        for (file, meta) in found {
            let key = FileKey::of(&meta);
            match self.rows.get(file.path.as_os_str()) {
                Some(row) if row.key == key => {
                    match self.cached_info(&file.path, row, file.agent, opts.with_text) {
                        Some(Ok(info)) => sessions.push(info),
                        Some(Err(reason)) => cached_problems.push(Skipped {
                            path: file.path.clone(),
                            reason,
                        }),
                        None => {
                            let row = row.clone();
                            todo.push((file, Some(row)));
                        }
                    }
                }
                other => {
                    let row = other.cloned();
                    todo.push((file, row));
                }
            }
        }
        self.stats.cached = sessions.len() + cached_problems.len();
        if !sessions.is_empty() {
            on_event(IndexEvent::Cached(&sessions));
        }
        for p in cached_problems {
            on_event(IndexEvent::Problem(&p));
            problems.push(p);
        }

        // New and changed files: scanned in parallel, rows recorded here as results arrive.
        let enabled = self.is_enabled();
        if enabled && !todo.is_empty() && self.log.is_none() {
            self.log = self.dir.as_deref().and_then(|d| BlobLog::create(d).ok());
        }
        let log = self.log.take();
        let (tx, rx) = mpsc::sync_channel::<(FoundFile, Result<Rescanned, ReadError>)>(64);
        std::thread::scope(|s| {
            let log_ref = log.as_ref();
            let todo = &todo;
            s.spawn(move || {
                // A warm listing has nothing to read: no thread pool started for nothing (its
                // threads spin before they sleep).
                if todo.is_empty() {
                    return;
                }
                todo.par_iter().for_each_with(tx, |tx, (file, old)| {
                    let r = rescan(file, old.as_ref(), log_ref, enabled);
                    let _ = tx.send((file.clone(), r));
                });
            });
            for (file, result) in rx {
                match result {
                    Ok(r) => {
                        self.stats.bytes_read += r.bytes_read;
                        if r.resumed {
                            self.stats.resumed += 1;
                        } else {
                            self.stats.scanned += 1;
                        }
                        let (info, row, written) = self.record(r, log_ref, opts.with_text);
                        self.stats.blob_bytes_written += written;
                        if let Some(row) = row {
                            self.rows.insert(file.path.clone().into_os_string(), row);
                        } else {
                            self.rows.remove(file.path.as_os_str());
                        }
                        if enabled {
                            self.pending.insert(file.path.clone().into_os_string());
                        }
                        match info {
                            Ok(info) => {
                                on_event(IndexEvent::Scanned(&info));
                                sessions.push(info);
                            }
                            Err(reason) => {
                                let p = Skipped {
                                    path: file.path.clone(),
                                    reason,
                                };
                                on_event(IndexEvent::Problem(&p));
                                problems.push(p);
                            }
                        }
                    }
                    Err(e) => {
                        self.stats.scanned += 1;
                        if self.rows.remove(file.path.as_os_str()).is_some() {
                            self.pending.insert(file.path.clone().into_os_string());
                        }
                        let p = Skipped {
                            path: file.path.clone(),
                            reason: error_reason(&e),
                        };
                        on_event(IndexEvent::Problem(&p));
                        problems.push(p);
                    }
                }
            }
        });
        self.log = log;

        // Files that disappeared from the roots listed now.
        if enabled {
            let listed: HashSet<&OsStr, BuildHasherDefault<KeyHasher>> = sessions
                .iter()
                .map(|s| s.path.as_os_str())
                .chain(problems.iter().map(|p| p.path.as_os_str()))
                .collect();
            let pending = &mut self.pending;
            self.rows.retain(|path, _| {
                let keep = listed.contains(path.as_os_str())
                    || !roots.iter().any(|r| Path::new(path).starts_with(&r.path));
                if !keep {
                    pending.insert(path.clone());
                }
                keep
            });
        }
        if !self.pending.is_empty() {
            match self.persist() {
                Ok(()) => self.stats.persisted = true,
                Err(e) => self.stats.persist_error = Some(e.to_string()),
            }
        }
        sort_by_modified(&mut sessions);
        problems.sort_by(|a, b| a.path.cmp(&b.path));
        Listing { sessions, problems }
    }

    /// The searchable text of an indexed session (`None` when not indexed or unreadable).
    pub fn text(&self, path: &Path) -> Option<String> {
        let row = self.rows.get(path.as_os_str())?;
        match &row.text {
            None => Some(String::new()),
            Some(chain) => read_text(self.log.as_ref()?, chain),
        }
    }

    /// A cached row's listing: `Some(Ok)` a session, `Some(Err)` a cached problem, `None` when
    /// a blob it needs is unreadable (the file is then rescanned).
    fn cached_info(
        &self,
        path: &Path,
        row: &Row,
        root_agent: Option<Dialect>,
        with_text: bool,
    ) -> Option<Result<SessionInfo, String>> {
        let Some(info) = &row.info else {
            return row.problem.clone().map(Err);
        };
        let mut info = info.decode(path)?;
        info.agent = root_agent.or(row.detected_agent)?;
        if with_text && let Some(chain) = &row.text {
            let stored = read_text(self.log.as_ref()?, chain)?;
            (info.all_messages_text, info.tool_text) = split_tool_text(stored);
        }
        Some(Ok(info))
    }

    /// Stores a scan's blobs; returns the listing (text kept only if asked), the new row and
    /// the bytes appended to the blob log. A resumed file's text and state are stored as delta
    /// records after its previous ones when their chains allow it ([`ChainRef::takes_delta`]),
    /// else as full records.
    fn record(
        &self,
        r: Rescanned,
        log: Option<&BlobLog>,
        with_text: bool,
    ) -> (Result<SessionInfo, String>, Option<Row>, u64) {
        let key = FileKey::of(&r.meta);
        let mut info = match r.info {
            Ok(info) => info,
            Err(e) => {
                let reason = error_reason(&e);
                let row = matches!(e, ReadError::NoHeader { .. }).then(|| Row {
                    key,
                    detected_agent: None,
                    info: None,
                    problem: Some(reason.clone()),
                    text: None,
                    state: None,
                    resume_offset: 0,
                    tail_hash: 0,
                });
                return (Err(reason), row.filter(|_| log.is_some()), 0);
            }
        };
        let Some(log) = log else {
            if !with_text {
                info.all_messages_text = String::new();
                info.tool_text = String::new();
            }
            return (Ok(info), None, 0);
        };
        let mut written = 0;
        let text = std::mem::take(&mut info.all_messages_text);
        let tools = std::mem::take(&mut info.tool_text);
        let prior = r.prior;
        let stored = join_tool_text(&text, &tools);
        let text_chain = store_text(log, &stored, prior.as_ref(), &mut written);
        let state_chain = r.state.and_then(|(mut state, tail_hash)| {
            // The state's text is the listing's, or (after a torn last line, which the state
            // leaves out) a prefix of it: only its length is stored.
            let own_text = state.take_builder_text();
            let text_len = if r.state_has_text {
                text.starts_with(&own_text).then_some(own_text.len())?
            } else {
                text.len()
            };
            let offset = state.offset();
            let chain = store_state(log, &state, text_len, prior, &mut written)?;
            Some((chain, offset, tail_hash))
        });
        if with_text {
            info.all_messages_text = text;
            info.tool_text = tools;
        }
        let (state, resume_offset, tail_hash) = match state_chain {
            Some((chain, offset, hash)) => (Some(chain), offset, hash),
            None => (None, 0, 0),
        };
        let row = text_chain.map(|text_chain| Row {
            key,
            detected_agent: Some(r.detected_agent),
            info: Some(InfoBytes::encode(&info)),
            problem: None,
            text: text_chain,
            state,
            resume_offset,
            tail_hash,
        });
        (Ok(info), row, written)
    }

    /// Writes the rows changed since the last write: one record appended to the journal, or a
    /// new rows file (atomically) when there is none yet or the record would take the journal
    /// past its share (a quarter of the rows file, [`JOURNAL_MAX_RECORDS`] records). Compacts
    /// the blob log when it is mostly garbage.
    pub fn persist(&mut self) -> io::Result<()> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        fs::create_dir_all(&dir)?;
        if self.log.is_none() {
            self.log = Some(BlobLog::create(&dir)?);
        }
        self.catch_up(&dir);
        let live: u64 = self
            .rows
            .values()
            .flat_map(|r| [&r.text, &r.state])
            .flatten()
            .map(ChainRef::bytes)
            .sum();
        let log_len = self.log.as_ref().map_or(0, |l| l.len().unwrap_or(0));
        if log_len > 2 * live + (1 << 20) {
            self.compact(&dir)?;
        }
        if !self.rewrite_base
            && let Some(written) = self.append_journal(&dir)?
        {
            self.stats.rows_rewritten = false;
            self.stats.rows_bytes_written = written;
            self.pending.clear();
            return Ok(());
        }
        self.write_base(&dir)
    }

    /// Brings the rows up to date with what other processes wrote since we read them, keeping
    /// our pending changes on top (they were read from the files just now): the records they
    /// appended to our journal, or the rows file (and journal) that replaced ours. Sets
    /// [`Index::rewrite_base`] when our next write cannot be a journal record: no rows file of
    /// ours, another blob log, or a journal that ends with bytes that are not a record (a
    /// record appended after them would never be read).
    fn catch_up(&mut self, dir: &Path) {
        let (Some(base), Some(log)) = (&mut self.base, &self.log) else {
            self.rewrite_base = true;
            return;
        };
        if base.log_name != log.name {
            self.rewrite_base = true;
            return;
        }
        if base_id_on_disk(&dir.join(ROWS_FILE)) != Some(base.id) {
            self.rewrite_base |= !self.adopt_disk_rows(dir);
            return;
        }
        let tail = (|| {
            let file = File::open(dir.join(base.journal_name())).ok()?;
            let len = file.metadata().ok()?.len();
            let mut tail = vec![0u8; usize::try_from(len.checked_sub(base.journal_end)?).ok()?];
            read_at(&file, &mut tail, base.journal_end).ok()?;
            Some(Arc::new(tail))
        })();
        let Some(tail) = tail else {
            // No journal yet is fine; a shorter one was replaced behind our back.
            self.rewrite_base |= base.journal_end > 0;
            return;
        };
        let (end, records) = replay_journal(&tail, base.id, &mut self.rows, Some(&self.pending));
        base.journal_end += end as u64;
        base.journal_records += records;
        self.rewrite_base |= end < tail.len();
    }

    /// Another process wrote a new rows file since ours: takes its rows (and journal) with our
    /// pending changes on top, if it uses the same blob log (our rows point into it) and its
    /// journal reads to the end. `false`: nothing changed, write a rows file of our own.
    fn adopt_disk_rows(&mut self, dir: &Path) -> bool {
        let Some(log) = &self.log else {
            return false;
        };
        let Some(data) = fs::read(dir.join(ROWS_FILE)).ok().map(Arc::new) else {
            return false;
        };
        let Some((mut rows, log_name, id)) = decode_rows(&data) else {
            return false;
        };
        if log_name != log.name {
            return false;
        }
        let journal = Arc::new(fs::read(dir.join(journal_name(id))).unwrap_or_default());
        let (journal_end, journal_records) = replay_journal(&journal, id, &mut rows, None);
        if journal_end < journal.len() {
            return false;
        }
        for p in &self.pending {
            match self.rows.get(p) {
                Some(row) => rows.insert(p.clone(), row.clone()),
                None => rows.remove(p),
            };
        }
        self.rows = rows;
        self.base = Some(Base {
            id,
            len: data.len() as u64,
            log_name,
            journal_end: journal_end as u64,
            journal_records,
        });
        true
    }

    /// Appends the pending rows to the journal of our rows file as one record (after
    /// [`Index::catch_up`]); `None` when the record would take the journal past its share, so
    /// that a new rows file must be written instead.
    fn append_journal(&mut self, dir: &Path) -> io::Result<Option<u64>> {
        let Some(base) = &mut self.base else {
            return Ok(None);
        };
        let record = encode_journal_record(base.id, &self.rows, &self.pending);
        let after = base.journal_end + record.len() as u64;
        if after > base.len / JOURNAL_MAX_FRACTION || base.journal_records >= JOURNAL_MAX_RECORDS {
            return Ok(None);
        }
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(dir.join(base.journal_name()))?;
        let mut f = &file;
        f.write_all(&record)?;
        base.journal_records += 1;
        // With O_APPEND the position is the end of our write. When it is not where we expected,
        // another process appended since the catch-up: its records are read at our next write
        // (ours again with them, which changes nothing).
        if f.stream_position()? == after {
            base.journal_end = after;
        }
        Ok(Some(record.len() as u64))
    }

    /// Writes every row to a new rows file (temp file + rename) with an empty journal.
    fn write_base(&mut self, dir: &Path) -> io::Result<()> {
        let Some(log) = &self.log else {
            return Ok(());
        };
        let id = loop {
            let id = fast_hash(unique_suffix().as_bytes());
            if self.base.as_ref().is_none_or(|b| b.id != id) {
                break id;
            }
        };
        let mut paths: Vec<&OsString> = self.rows.keys().collect();
        paths.sort();
        let out = encode_rows(id, &log.name, paths.into_iter().map(|p| (p, &self.rows[p])));
        write_atomically(&dir.join(ROWS_FILE), &out)?;
        let old = self.base.replace(Base {
            id,
            len: out.len() as u64,
            log_name: log.name.clone(),
            journal_end: 0,
            journal_records: 0,
        });
        self.stats.rows_rewritten = true;
        self.stats.rows_bytes_written = out.len() as u64;
        self.pending.clear();
        self.rewrite_base = false;
        // The superseded journal: its records are in the new rows file or stale. A process that
        // still appends to it loses those records (its files are then rescanned), as when it
        // replaces the rows file itself.
        if let Some(old) = old {
            let _ = fs::remove_file(dir.join(old.journal_name()));
        }
        // The rows file of format 2 and earlier (JSON lines), if still there.
        let _ = fs::remove_file(dir.join(OLD_ROWS_FILE));
        remove_stale_files(dir, &log.name, &journal_name(id));
        Ok(())
    }

    /// Copies the live records to a new log and points the rows at it. A chain of deltas is
    /// rewritten as one full record (delta records point into the old log); a row with a
    /// record that does not check out is dropped (the file is rescanned).
    fn compact(&mut self, dir: &Path) -> io::Result<()> {
        let Some(old) = &self.log else {
            return Ok(());
        };
        let new = BlobLog::create(dir)?;
        let mut moved: HashMap<BlobRef, ChainRef> = HashMap::new();
        let mut drop_rows = Vec::new();
        for (path, row) in &self.rows {
            for (chain, is_text) in [(&row.text, true), (&row.state, false)] {
                let Some(chain) = chain else { continue };
                if moved.contains_key(&chain.head) {
                    continue;
                }
                let payload = if chain.links() == 0 {
                    old.read(&chain.head)
                } else if is_text {
                    read_text(old, chain).map(|t| text_full_payload(&t))
                } else {
                    read_state(old, chain)
                        .and_then(|(value, text_len)| state_full_payload(&value, text_len))
                };
                match payload {
                    Some(payload) => {
                        moved.insert(chain.head, ChainRef::full(new.append(&[&payload])?));
                    }
                    None => drop_rows.push(path.clone()),
                }
            }
        }
        for p in drop_rows {
            self.rows.remove(&p);
            self.pending.insert(p);
        }
        for row in self.rows.values_mut() {
            row.text = row.text.take().and_then(|c| moved.get(&c.head).cloned());
            row.state = row.state.take().and_then(|c| moved.get(&c.head).cloned());
        }
        self.log = Some(new);
        // Every row now points elsewhere: only a new rows file can say so.
        self.rewrite_base = true;
        Ok(())
    }
}

/// The result of reading one file now.
struct Rescanned {
    info: Result<SessionInfo, ReadError>,
    /// Resumable state and the hash of the bytes before its offset, when the file did not
    /// change while it was read.
    state: Option<(ScanState, u64)>,
    meta: fs::Metadata,
    bytes_read: u64,
    resumed: bool,
    detected_agent: Dialect,
    state_has_text: bool,
    /// What a resumed scan started from, for delta records.
    prior: Option<Prior>,
}

/// The stored text and state a resumed scan started from.
struct Prior {
    /// The text chain (`None`: the text was empty) and its text's length.
    text: Option<ChainRef>,
    text_len: usize,
    /// How many bytes of that text the state held (the new text starts with them), and their
    /// hash (checked before a delta is written on that assumption).
    kept_text: usize,
    kept_hash: u64,
    state: ChainRef,
    /// The state as stored (its JSON, text left out): new state records are diffed against it.
    state_json: Value,
}

/// Reads a new or changed file: resumed from the old row when the file only grew.
fn rescan(
    file: &FoundFile,
    old: Option<&Row>,
    log: Option<&BlobLog>,
    keep_state: bool,
) -> Result<Rescanned, ReadError> {
    if let Some((state, checked_key, prior)) = old.and_then(|row| resumable(file, row, log?)) {
        let s = scan(&file.path, file.agent, ParseMode::Fast, Some(state))?;
        // The file must be the one that was checked (same inode, not shrunk since).
        let now = FileKey::of(&s.meta);
        if now.same_file(&checked_key) && now.size >= checked_key.size {
            let state = keep_state
                .then(|| settled_state(&file.path, &s.meta, s.state))
                .flatten();
            return Ok(Rescanned {
                info: s.info,
                state,
                meta: s.meta,
                bytes_read: s.bytes_read,
                resumed: true,
                detected_agent: s.detected_agent,
                state_has_text: s.state_has_text,
                prior: Some(prior),
            });
        }
    }
    let s = scan(&file.path, file.agent, ParseMode::Fast, None)?;
    let state = keep_state
        .then(|| settled_state(&file.path, &s.meta, s.state))
        .flatten();
    Ok(Rescanned {
        info: s.info,
        state,
        meta: s.meta,
        bytes_read: s.bytes_read,
        resumed: false,
        detected_agent: s.detected_agent,
        state_has_text: s.state_has_text,
        prior: None,
    })
}

/// The saved state of `row` when `file` only grew since: same inode, larger, and the bytes
/// before the resume offset unchanged; with what it was read from.
fn resumable(file: &FoundFile, row: &Row, log: &BlobLog) -> Option<(ScanState, FileKey, Prior)> {
    let state_chain = row.state.clone()?;
    row.info.as_ref()?;
    let meta = fs::metadata(&file.path).ok()?;
    let now = FileKey::of(&meta);
    if !now.same_file(&row.key) || now.size <= row.key.size || now.size < row.resume_offset {
        return None;
    }
    if tail_hash(&file.path, row.resume_offset).ok()? != row.tail_hash {
        return None;
    }
    let (state_json, kept_text) = read_state(log, &state_chain)?;
    let mut state = ScanState::deserialize(&state_json).ok()?;
    if state.offset() != row.resume_offset {
        return None;
    }
    let mut text = match &row.text {
        Some(chain) => read_text(log, chain)?,
        None => String::new(),
    };
    let text_len = text.len();
    let kept_text = usize::try_from(kept_text).ok()?;
    if kept_text > text_len || !text.is_char_boundary(kept_text) {
        return None;
    }
    text.truncate(kept_text);
    let kept_hash = fast_hash(text.as_bytes());
    state.restore_builder_text(text);
    let prior = Prior {
        text: row.text.clone(),
        text_len,
        kept_text,
        kept_hash,
        state: state_chain,
        state_json,
    };
    Some((state, now, prior))
}

/// The state with its tail hash, if the file still looks as it did when it was read (a file
/// rewritten during the read must not get a state that resumes on the new content).
fn settled_state(path: &Path, before: &fs::Metadata, state: ScanState) -> Option<(ScanState, u64)> {
    let hash = tail_hash(path, state.offset()).ok()?;
    let after = fs::metadata(path).ok()?;
    (FileKey::of(&after) == FileKey::of(before)).then_some((state, hash))
}

/// Hash of the (up to) [`TAIL_CHECK`] bytes before `offset`.
fn tail_hash(path: &Path, offset: u64) -> io::Result<u64> {
    let start = offset.saturating_sub(TAIL_CHECK);
    let mut f = File::open(path)?;
    f.seek(io::SeekFrom::Start(start))?;
    let mut buf = vec![0u8; (offset - start) as usize];
    f.read_exact(&mut buf)?;
    Ok(fast_hash(&buf))
}

// Blob records. A payload ends with a trailer: for a full record `[value u64][kind]`, for a
// delta `[prev off u64][prev len u64][prev hash u64][value u64][kind]`, `prev` being the record
// it follows (as rows refer to records). Text: the body is the text (full, `value` = its
// length) or the bytes added (delta, `value` = how many bytes of the previous text come first).
// State: the body is the state's JSON without its text (full) or a patch of that JSON (delta,
// see `diff_json`); `value` = how many bytes of the row's text are the state's.
const TEXT_FULL: u8 = b'T';
const TEXT_DELTA: u8 = b't';
const STATE_FULL: u8 = b'S';
const STATE_DELTA: u8 = b's';
const TEXT_KINDS: (u8, u8) = (TEXT_FULL, TEXT_DELTA);
const STATE_KINDS: (u8, u8) = (STATE_FULL, STATE_DELTA);

fn full_trailer(value: u64, kind: u8) -> [u8; 9] {
    let mut t = [0u8; 9];
    t[..8].copy_from_slice(&value.to_le_bytes());
    t[8] = kind;
    t
}

fn delta_trailer(prev: BlobRef, value: u64, kind: u8) -> [u8; 33] {
    let mut t = [0u8; 33];
    for (i, v) in [prev.off.get(), prev.len, prev.hash, value]
        .into_iter()
        .enumerate()
    {
        t[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    t[32] = kind;
    t
}

/// One record of a chain, its trailer taken off.
struct Link {
    body: Vec<u8>,
    value: u64,
    prev: Option<BlobRef>,
}

fn pop_u64(v: &mut Vec<u8>) -> Option<u64> {
    let at = v.len().checked_sub(8)?;
    let x = u64::from_le_bytes(v.get(at..)?.try_into().ok()?);
    v.truncate(at);
    Some(x)
}

fn parse_link(mut payload: Vec<u8>, (full, delta): (u8, u8)) -> Option<Link> {
    let kind = payload.pop()?;
    let value = pop_u64(&mut payload)?;
    let prev = if kind == delta {
        let hash = pop_u64(&mut payload)?;
        let len = pop_u64(&mut payload)?;
        let off = pop_u64(&mut payload)?;
        Some(BlobRef::new(off, len, hash)?)
    } else if kind == full {
        None
    } else {
        return None;
    };
    Some(Link {
        body: payload,
        value,
        prev,
    })
}

/// The records of a chain, newest first, ending with its full record; `None` when one does not
/// check out, is of the wrong kind, does not point strictly backwards, or the chain is not as
/// long as the row says.
fn walk(log: &BlobLog, chain: &ChainRef, kinds: (u8, u8)) -> Option<Vec<Link>> {
    let mut at = chain.head;
    let expected = chain.links() as usize;
    let mut links = Vec::with_capacity(expected + 1);
    loop {
        let link = parse_link(log.read(&at)?, kinds)?;
        let prev = link.prev;
        links.push(link);
        let Some(prev) = prev else { break };
        if links.len() > expected {
            return None;
        }
        if prev.off.get().checked_add(prev.len)? > at.off.get().checked_sub(RECORD_HEADER as u64)? {
            return None;
        }
        at = prev;
    }
    (links.len() == expected + 1).then_some(links)
}

/// The text a chain holds.
/// Between a row's message text and its tool-call text in the stored text (tool text holds no
/// NUL, so the last marker is the one).
const TOOL_TEXT_MARK: &str = "\0\0grove-tools\0";

/// The stored text of a row: the message text, then (when there are tool calls) the marker and
/// the tool-call text. The message text stays a prefix, so a grown file's text is still stored
/// as a delta.
fn join_tool_text<'t>(text: &'t str, tools: &str) -> std::borrow::Cow<'t, str> {
    // A message text that holds the marker itself (it can: JSON escapes NULs) is followed by
    // the marker anyway, so splitting at the last one gives it back whole.
    if tools.is_empty() && !text.contains(TOOL_TEXT_MARK) {
        return text.into();
    }
    format!("{text}{TOOL_TEXT_MARK}{tools}").into()
}

/// [`join_tool_text`] undone.
fn split_tool_text(mut stored: String) -> (String, String) {
    match stored.rfind(TOOL_TEXT_MARK) {
        Some(at) => {
            let tools = stored[at + TOOL_TEXT_MARK.len()..].to_owned();
            stored.truncate(at);
            (stored, tools)
        }
        None => (stored, String::new()),
    }
}

fn read_text(log: &BlobLog, chain: &ChainRef) -> Option<String> {
    let mut links = walk(log, chain, TEXT_KINDS)?;
    let full = links.pop()?;
    let mut text = full.body;
    if full.value != text.len() as u64 {
        return None;
    }
    while let Some(delta) = links.pop() {
        let keep = usize::try_from(delta.value).ok()?;
        if keep > text.len() {
            return None;
        }
        text.truncate(keep);
        text.extend_from_slice(&delta.body);
    }
    String::from_utf8(text).ok()
}

/// The state's JSON a chain holds, and how many bytes of the row's text are the state's.
fn read_state(log: &BlobLog, chain: &ChainRef) -> Option<(Value, u64)> {
    let mut links = walk(log, chain, STATE_KINDS)?;
    let text_len = links.first()?.value;
    let full = links.pop()?;
    let mut json: Value = serde_json::from_slice(&full.body).ok()?;
    while let Some(delta) = links.pop() {
        let patch: Value = serde_json::from_slice(&delta.body).ok()?;
        apply_patch(&mut json, patch);
    }
    Some((json, text_len))
}

fn text_full_payload(text: &str) -> Vec<u8> {
    let mut p = Vec::with_capacity(text.len() + 9);
    p.extend_from_slice(text.as_bytes());
    p.extend_from_slice(&full_trailer(text.len() as u64, TEXT_FULL));
    p
}

fn state_full_payload(state: &impl serde::Serialize, text_len: u64) -> Option<Vec<u8>> {
    let mut p = serde_json::to_vec(state).ok()?;
    p.extend_from_slice(&full_trailer(text_len, STATE_FULL));
    Some(p)
}

/// Appends a record made of `parts`, counting its bytes in `written`.
fn append_counted(log: &BlobLog, parts: &[&[u8]], written: &mut u64) -> Option<BlobRef> {
    let r = log.append(parts).ok()?;
    *written += r.len + RECORD_HEADER as u64;
    Some(r)
}

/// Stores a session's text: `Some(None)` when empty; the previous chain when a resumed scan
/// added no text; a delta after it when the chain takes one; else a full record. `None` when
/// the write failed.
fn store_text(
    log: &BlobLog,
    text: &str,
    prior: Option<&Prior>,
    written: &mut u64,
) -> Option<Option<ChainRef>> {
    if text.is_empty() {
        return Some(None);
    }
    if let Some(p) = prior
        && let Some(prev) = &p.text
        && text.is_char_boundary(p.kept_text)
        && fast_hash(&text.as_bytes()[..p.kept_text]) == p.kept_hash
    {
        if p.kept_text == p.text_len && text.len() == p.text_len {
            return Some(Some(prev.clone()));
        }
        let added = &text.as_bytes()[p.kept_text..];
        let trailer = delta_trailer(prev.head, p.kept_text as u64, TEXT_DELTA);
        if prev.takes_delta(added.len() + trailer.len()) {
            let head = append_counted(log, &[added, &trailer], written)?;
            return Some(Some(prev.then(head)));
        }
    }
    let trailer = full_trailer(text.len() as u64, TEXT_FULL);
    let head = append_counted(log, &[text.as_bytes(), &trailer], written)?;
    Some(Some(ChainRef::full(head)))
}

/// Stores a scan state (its text taken out; `text_len` bytes of the row's text are its text):
/// a delta after the state it was resumed from when the chain takes one, else a full record.
/// `None` when it cannot be stored (the file is then rescanned when it changes).
fn store_state(
    log: &BlobLog,
    state: &ScanState,
    text_len: usize,
    prior: Option<Prior>,
    written: &mut u64,
) -> Option<ChainRef> {
    if let Some(p) = prior {
        let chain = p.state;
        if let Some(patch) = state_patch(p.state_json, state) {
            let trailer = delta_trailer(chain.head, text_len as u64, STATE_DELTA);
            if chain.takes_delta(patch.len() + trailer.len()) {
                let head = append_counted(log, &[&patch, &trailer], written)?;
                return Some(chain.then(head));
            }
        }
    }
    let payload = state_full_payload(state, text_len as u64)?;
    append_counted(log, &[&payload], written).map(ChainRef::full)
}

/// The JSON patch from the stored state `old` to `new`, if there is one that gives back `new`
/// exactly (checked by applying it).
fn state_patch(mut old: Value, new: &ScanState) -> Option<Vec<u8>> {
    let new_json = serde_json::to_value(new).ok()?;
    let patch =
        diff_json(&old, &new_json)?.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    let bytes = serde_json::to_vec(&patch).ok()?;
    apply_patch(&mut old, patch);
    (ScanState::deserialize(&old).ok()? == *new).then_some(bytes)
}

/// What changed from `old` to `new`: `Some(None)` nothing, `Some(Some(patch))`, `None` when a
/// patch cannot say it (a key removed). Objects (the state's structs and maps) are patched key
/// by key, so a map that only grows, like the builder's ids and labels, costs its new and
/// changed keys; anything else that changed (scalars, arrays) is replaced whole. (A set would
/// serialize as an array: keep growing collections in maps.)
fn diff_json(old: &Value, new: &Value) -> Option<Option<Value>> {
    let (Value::Object(o), Value::Object(n)) = (old, new) else {
        return Some((old != new).then(|| new.clone()));
    };
    if o.keys().any(|k| !n.contains_key(k)) {
        return None;
    }
    let mut patch = serde_json::Map::new();
    for (k, nv) in n {
        let change = match o.get(k) {
            None => Some(nv.clone()),
            Some(ov) => diff_json(ov, nv)?,
        };
        if let Some(change) = change {
            patch.insert(k.clone(), change);
        }
    }
    Some((!patch.is_empty()).then_some(Value::Object(patch)))
}

/// Applies what [`diff_json`] returned to the value it was computed from: an object patches an
/// object key by key; anything else replaces the value.
fn apply_patch(base: &mut Value, patch: Value) {
    let Value::Object(p) = patch else {
        *base = patch;
        return;
    };
    let Value::Object(b) = base else {
        *base = Value::Object(p);
        return;
    };
    for (k, pv) in p {
        match b.get_mut(&k) {
            Some(bv) => apply_patch(bv, pv),
            None => {
                b.insert(k, pv);
            }
        }
    }
}

/// A fast, stable (across platforms and Rust versions) 64-bit hash for corruption and change
/// detection; not for adversaries.
pub fn fast_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    let mut w = [0u8; 8];
    w[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    h ^ (h >> 29)
}

/// The id of the rows file at `path` (read from its header, not checked further).
fn base_id_on_disk(path: &Path) -> Option<u64> {
    let mut head = [0u8; 16];
    File::open(path).ok()?.read_exact(&mut head).ok()?;
    let mut d = Dec::new(&head);
    if d.take(4)? != ROWS_MAGIC || d.u32()? != FORMAT_VERSION {
        return None;
    }
    d.u64()
}

/// The rows file: `GRIX`, version (u32), its id (u64), blob log name, row count (u64), then
/// each row as its length (u32) and bytes, then a hash (u64) of every byte before it. Integers
/// are little endian; strings and paths are a length (u64) and bytes; an `Option` is a 0/1
/// byte and the value.
fn encode_rows<'a>(
    id: u64,
    log_name: &str,
    rows: impl ExactSizeIterator<Item = (&'a OsString, &'a Row)>,
) -> Vec<u8> {
    let mut e = Enc(Vec::with_capacity(rows.len() * 512 + 64));
    e.0.extend_from_slice(ROWS_MAGIC);
    e.u32(FORMAT_VERSION);
    e.u64(id);
    e.str(log_name);
    e.u64(rows.len() as u64);
    for (path, row) in rows {
        e.row(path, row);
    }
    let hash = fast_hash(&e.0);
    e.u64(hash);
    e.0
}

/// The rows, blob log name and id of a rows file; `None` when corrupt or of another version.
/// The rows' listing fields stay in `data` (see [`InfoBytes`]).
fn decode_rows(data: &Arc<Vec<u8>>) -> Option<(RowMap, String, u64)> {
    let body_len = data.len().checked_sub(8)?;
    let (body, hash) = data.split_at(body_len);
    if fast_hash(body) != u64::from_le_bytes(hash.try_into().ok()?) {
        return None;
    }
    let mut d = Dec::shared(data, 0, body_len);
    if d.take(4)? != ROWS_MAGIC || d.u32()? != FORMAT_VERSION {
        return None;
    }
    let id = d.u64()?;
    let log_name = d.string()?;
    if !valid_log_name(&log_name) {
        return None;
    }
    let count = usize::try_from(d.u64()?).ok()?;
    // On one thread: decoding on all cores was slower (allocations in per-thread arenas, freed
    // from another thread).
    let mut rows = RowMap::with_capacity_and_hasher(count.min(body.len() / 64), Default::default());
    for _ in 0..count {
        let (path, row) = d.row()?;
        rows.insert(path, row);
    }
    if d.i != body.len() {
        return None;
    }
    (rows.len() == count).then_some((rows, log_name, id))
}

/// One journal record: `GRJ1`, payload length (u64), payload hash (u64), then the payload: the
/// id of the rows file it belongs to (u64), the changed rows (count u64, each as in the rows
/// file) and the removed paths (count u64, each a path). Written with one `write`.
fn encode_journal_record(base_id: u64, rows: &RowMap, changed: &PathSet) -> Vec<u8> {
    let mut changed: Vec<&OsString> = changed.iter().collect();
    changed.sort();
    let (upserted, removed): (Vec<&OsString>, Vec<&OsString>) =
        changed.into_iter().partition(|p| rows.contains_key(*p));
    let mut e = Enc(Vec::with_capacity(
        RECORD_HEADER + 24 + upserted.len() * 1024,
    ));
    e.0.extend_from_slice(JOURNAL_MAGIC);
    e.u64(0);
    e.u64(0);
    e.u64(base_id);
    e.u64(upserted.len() as u64);
    for p in upserted {
        e.row(p, &rows[p]);
    }
    e.u64(removed.len() as u64);
    for p in removed {
        e.path(Path::new(p));
    }
    let payload_len = (e.0.len() - RECORD_HEADER) as u64;
    let hash = fast_hash(&e.0[RECORD_HEADER..]);
    e.0[4..12].copy_from_slice(&payload_len.to_le_bytes());
    e.0[12..20].copy_from_slice(&hash.to_le_bytes());
    e.0
}

/// Applies the journal records in `data` that belong to rows file `base_id` to `rows`, in
/// order (the last record wins for a path), leaving the paths in `keep` alone. Stops at the
/// first record that does not check out: wrong magic, a length past the end, a bad hash, a
/// payload that does not decode, or another rows file's id. Returns the offset after the last
/// record applied and the number of records applied.
fn replay_journal(
    data: &Arc<Vec<u8>>,
    base_id: u64,
    rows: &mut RowMap,
    keep: Option<&PathSet>,
) -> (usize, u64) {
    let mut at = 0;
    let mut records = 0;
    while let Some((next, (upserted, removed))) = journal_record(data, at, base_id) {
        let kept = |p: &OsStr| keep.is_some_and(|k| k.contains(p));
        for (path, row) in upserted {
            if !kept(&path) {
                rows.insert(path, row);
            }
        }
        for p in removed {
            if !kept(&p) {
                rows.remove(&p);
            }
        }
        at = next;
        records += 1;
    }
    (at, records)
}

/// A journal record's rows and removed paths.
type JournalRecord = (Vec<(OsString, Row)>, Vec<OsString>);

/// The record at `at`: where the next one starts, and its contents.
fn journal_record(data: &Arc<Vec<u8>>, at: usize, base_id: u64) -> Option<(usize, JournalRecord)> {
    let mut d = Dec::new(data);
    d.i = at;
    if d.take(4)? != JOURNAL_MAGIC {
        return None;
    }
    let len = usize::try_from(d.u64()?).ok()?;
    let hash = d.u64()?;
    let payload_start = d.i;
    let payload = d.take(len)?;
    if fast_hash(payload) != hash {
        return None;
    }
    let mut p = Dec::shared(data, payload_start, d.i);
    if p.u64()? != base_id {
        return None;
    }
    let count = usize::try_from(p.u64()?).ok()?;
    let mut upserted = Vec::with_capacity(count.min(len / 64));
    for _ in 0..count {
        upserted.push(p.row()?);
    }
    let count = usize::try_from(p.u64()?).ok()?;
    let mut removed = Vec::with_capacity(count.min(len / 8));
    for _ in 0..count {
        removed.push(p.path()?.into_os_string());
    }
    (p.i == d.i).then_some((d.i, (upserted, removed)))
}

struct Enc(Vec<u8>);

impl Enc {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.0.extend_from_slice(v);
    }
    fn str(&mut self, v: &str) {
        self.bytes(v.as_bytes());
    }
    fn path(&mut self, p: &Path) {
        #[cfg(unix)]
        self.bytes(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()));
        #[cfg(not(unix))]
        self.str(&p.to_string_lossy());
    }
    fn opt<T>(&mut self, v: Option<T>, f: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                f(self, v);
            }
        }
    }
    fn opt_str(&mut self, v: &Option<String>) {
        self.opt(v.as_deref(), Enc::str);
    }
    fn dialect(&mut self, v: Dialect) {
        self.u8(match v {
            Dialect::Pi => 0,
            Dialect::Atomic => 1,
        });
    }
    /// An optional chain: 0 none, 1 one full record (its head), 2 a chain with deltas (its
    /// head, links, bytes of the full record and of the deltas).
    fn opt_chain(&mut self, c: &Option<ChainRef>) {
        let Some(ChainRef { head, deltas }) = c else {
            return self.u8(0);
        };
        self.u8(if deltas.is_some() { 2 } else { 1 });
        self.u64(head.off.get());
        self.u64(head.len);
        self.u64(head.hash);
        if let Some(d) = deltas {
            let Deltas {
                links,
                base_bytes,
                delta_bytes,
            } = **d;
            self.u32(links);
            self.u64(base_bytes);
            self.u64(delta_bytes);
        }
    }
    /// A row as its length (u32) and bytes.
    fn row(&mut self, path: &OsStr, row: &Row) {
        let at = self.0.len();
        self.u32(0);
        encode_row(self, Path::new(path), row);
        let len = (self.0.len() - at - 4) as u32;
        self.0[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// Reads what [`Enc`] wrote; `None` on truncated or malformed bytes.
struct Dec<'a> {
    /// The bytes, up to where this reader must stop.
    b: &'a [u8],
    i: usize,
    /// The buffer `b` is the start of, when listing fields read may point into it.
    shared: Option<&'a Arc<Vec<u8>>>,
}

impl<'a> Dec<'a> {
    fn new(b: &'a [u8]) -> Dec<'a> {
        Dec {
            b,
            i: 0,
            shared: None,
        }
    }

    /// Reads `buf[start..end]`; the listing fields of its rows point into `buf`.
    fn shared(buf: &'a Arc<Vec<u8>>, start: usize, end: usize) -> Dec<'a> {
        Dec {
            b: buf.get(..end).unwrap_or_default(),
            i: start,
            shared: Some(buf),
        }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.i..self.i.checked_add(n)?)?;
        self.i += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.u64()?).ok()?;
        self.take(len)
    }
    fn string(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_owned)
    }
    fn path(&mut self) -> Option<PathBuf> {
        #[cfg(unix)]
        return Some(PathBuf::from(
            <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(self.bytes()?),
        ));
        #[cfg(not(unix))]
        return self.string().map(PathBuf::from);
    }
    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => f(self).map(Some),
            _ => None,
        }
    }
    fn opt_string(&mut self) -> Option<Option<String>> {
        self.opt(Dec::string)
    }
    fn dialect(&mut self) -> Option<Dialect> {
        match self.u8()? {
            0 => Some(Dialect::Pi),
            1 => Some(Dialect::Atomic),
            _ => None,
        }
    }
    fn opt_chain(&mut self) -> Option<Option<ChainRef>> {
        let tag = self.u8()?;
        if tag == 0 {
            return Some(None);
        }
        let head = BlobRef::new(self.u64()?, self.u64()?, self.u64()?)?;
        let deltas = match tag {
            1 => None,
            2 => Some(Box::new(Deltas {
                links: self.u32()?,
                base_bytes: self.u64()?,
                delta_bytes: self.u64()?,
            })),
            _ => return None,
        };
        Some(Some(ChainRef { head, deltas }))
    }
    /// What [`Enc::row`] wrote: the row must use exactly its bytes.
    fn row(&mut self) -> Option<(OsString, Row)> {
        let len = self.u32()? as usize;
        let start = self.i;
        self.take(len)?;
        let mut r = Dec {
            b: &self.b[..self.i],
            i: start,
            shared: self.shared,
        };
        let row = decode_row(&mut r)?;
        (r.i == self.i).then_some(row)
    }
    /// Encoded listing fields (length u64, bytes): pointing into the shared buffer if any.
    fn info_bytes(&mut self) -> Option<InfoBytes> {
        let len = usize::try_from(self.u64()?).ok()?;
        let start = self.i;
        let bytes = self.take(len)?;
        Some(match self.shared {
            Some(buf) => InfoBytes {
                buf: Arc::clone(buf),
                start,
                end: self.i,
            },
            None => InfoBytes {
                buf: Arc::new(bytes.to_vec()),
                start: 0,
                end: len,
            },
        })
    }
}

// Destructuring without `..`: a field added to `Row`, `FileKey` or `SessionInfo` does not
// compile until it is encoded (and `FORMAT_VERSION` bumped).
fn encode_row(e: &mut Enc, path: &Path, row: &Row) {
    let Row {
        key,
        detected_agent,
        info,
        problem,
        text,
        state,
        resume_offset,
        tail_hash,
    } = row;
    let FileKey {
        size,
        mtime,
        ctime,
        ino,
        dev,
    } = key;
    e.path(path);
    e.u64(*size);
    e.i64(mtime.0);
    e.u32(mtime.1);
    e.i64(ctime.0);
    e.u32(ctime.1);
    e.u64(*ino);
    e.u64(*dev);
    e.opt(*detected_agent, Enc::dialect);
    e.opt(info.as_ref(), |e, info| e.bytes(info.bytes()));
    e.opt_str(problem);
    e.opt_chain(text);
    e.opt_chain(state);
    e.u64(*resume_offset);
    e.u64(*tail_hash);
}

fn decode_row(d: &mut Dec<'_>) -> Option<(OsString, Row)> {
    let path = d.path()?.into_os_string();
    let row = Row {
        key: FileKey {
            size: d.u64()?,
            mtime: (d.i64()?, d.u32()?),
            ctime: (d.i64()?, d.u32()?),
            ino: d.u64()?,
            dev: d.u64()?,
        },
        detected_agent: d.opt(Dec::dialect)?,
        info: d.opt(Dec::info_bytes)?,
        problem: d.opt_string()?,
        text: d.opt_chain()?,
        state: d.opt_chain()?,
        resume_offset: d.u64()?,
        tail_hash: d.u64()?,
    };
    Some((path, row))
}

/// A session's listing fields, but its path (the row's key) and its text (in the blob log).
fn encode_info(e: &mut Enc, info: &SessionInfo) {
    let SessionInfo {
        path: _,
        id,
        cwd,
        name,
        parent_session_path,
        created_ms,
        modified_ms,
        message_count,
        first_message,
        agent,
        version,
        bytes,
        entry_count,
        leaf_count,
        label_count,
        has_name,
        internal,
        workflow,
        summary,
        total_tokens,
        cost,
        parse_issues,
        first_issue,
        all_messages_text: _,
        tool_text: _,
    } = info;
    e.str(id);
    e.str(cwd);
    e.opt_str(name);
    e.opt_str(parent_session_path);
    e.opt(*created_ms, Enc::i64);
    e.i64(*modified_ms);
    e.u64(*message_count);
    e.str(first_message);
    e.dialect(*agent);
    e.u32(*version);
    e.u64(*bytes);
    e.u64(*entry_count);
    e.u64(*leaf_count);
    e.u64(*label_count);
    e.bool(*has_name);
    e.bool(*internal);
    e.opt(workflow.as_ref(), |e, w| {
        let WorkflowInfo {
            run_id,
            stage_id,
            stage_name,
        } = w;
        e.str(run_id);
        e.str(stage_id);
        e.str(stage_name);
    });
    e.opt_str(summary);
    e.u64(*total_tokens);
    e.u64(cost.to_bits());
    e.u64(*parse_issues);
    e.opt_str(first_issue);
}

fn decode_info(d: &mut Dec<'_>, path: &Path) -> Option<SessionInfo> {
    Some(SessionInfo {
        path: path.to_path_buf(),
        id: d.string()?,
        cwd: d.string()?,
        name: d.opt_string()?,
        parent_session_path: d.opt_string()?,
        created_ms: d.opt(Dec::i64)?,
        modified_ms: d.i64()?,
        message_count: d.u64()?,
        first_message: d.string()?,
        agent: d.dialect()?,
        version: d.u32()?,
        bytes: d.u64()?,
        entry_count: d.u64()?,
        leaf_count: d.u64()?,
        label_count: d.u64()?,
        has_name: d.bool()?,
        internal: d.bool()?,
        workflow: d.opt(|d| {
            Some(WorkflowInfo {
                run_id: d.string()?,
                stage_id: d.string()?,
                stage_name: d.string()?,
            })
        })?,
        summary: d.opt_string()?,
        total_tokens: d.u64()?,
        cost: f64::from_bits(d.u64()?),
        parse_issues: d.u64()?,
        first_issue: d.opt_string()?,
        all_messages_text: String::new(),
        tool_text: String::new(),
    })
}

fn valid_log_name(name: &str) -> bool {
    name.starts_with("blobs-")
        && name.ends_with(".bin")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}

/// Writes `bytes` to `path` through a temp file in the same folder and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("index"),
        std::process::id(),
        unique_suffix()
    ));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_data()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn unique_suffix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!(
        "{:x}",
        fast_hash(
            &[
                nanos.to_le_bytes(),
                (std::process::id() as u64).to_le_bytes()
            ]
            .concat()
        )
    )
}

fn valid_journal_name(name: &str) -> bool {
    name.len() == "index-.journal".len() + 16
        && name.starts_with("index-")
        && name.ends_with(".journal")
        && name[6..22].bytes().all(|b| b.is_ascii_hexdigit())
}

/// Removes blob logs and journals other than the current ones that nobody has written to for
/// a while.
fn remove_stale_files(dir: &Path, log: &str, journal: &str) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if name == log || name == journal || !(valid_log_name(name) || valid_journal_name(name)) {
            continue;
        }
        let idle = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_LOG_AGE);
        if idle {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// The append-only log of text and state records.
#[derive(Debug)]
struct BlobLog {
    name: String,
    file: File,
}

impl BlobLog {
    fn open(dir: &Path, name: &str) -> io::Result<BlobLog> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(dir.join(name))?;
        Ok(BlobLog {
            name: name.to_owned(),
            file,
        })
    }

    fn create(dir: &Path) -> io::Result<BlobLog> {
        fs::create_dir_all(dir)?;
        let name = format!("blobs-{}.bin", unique_suffix());
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(dir.join(&name))?;
        Ok(BlobLog { name, file })
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// Appends one record, its payload the concatenation of `parts`, with a single write;
    /// returns where it landed.
    fn append(&self, parts: &[&[u8]]) -> io::Result<BlobRef> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let mut rec = Vec::with_capacity(RECORD_HEADER + len);
        rec.extend_from_slice(RECORD_MAGIC);
        rec.extend_from_slice(&(len as u64).to_le_bytes());
        rec.extend_from_slice(&[0u8; 8]);
        for p in parts {
            rec.extend_from_slice(p);
        }
        let hash = fast_hash(&rec[RECORD_HEADER..]);
        rec[12..RECORD_HEADER].copy_from_slice(&hash.to_le_bytes());
        let mut f = &self.file;
        f.write_all(&rec)?;
        // With O_APPEND the handle's position is the end of this write, whatever other
        // processes appended meanwhile.
        let end = f.stream_position()?;
        BlobRef::new(
            end - rec.len() as u64 + RECORD_HEADER as u64,
            len as u64,
            hash,
        )
        .ok_or_else(|| io::Error::other("a record at offset 0"))
    }

    /// The payload of a record, if it checks out.
    fn read(&self, r: &BlobRef) -> Option<Vec<u8>> {
        let start = r.off.get().checked_sub(RECORD_HEADER as u64)?;
        let total = usize::try_from(r.len).ok()?.checked_add(RECORD_HEADER)?;
        if r.off.get().checked_add(r.len)? > self.len().ok()? {
            return None;
        }
        let mut buf = vec![0u8; total];
        read_at(&self.file, &mut buf, start).ok()?;
        let (head, payload) = buf.split_at(RECORD_HEADER);
        let ok = &head[..4] == RECORD_MAGIC
            && head[4..12] == r.len.to_le_bytes()
            && head[12..20] == r.hash.to_le_bytes()
            && fast_hash(payload) == r.hash;
        ok.then(|| {
            buf.drain(..RECORD_HEADER);
            buf
        })
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_info() -> SessionInfo {
        SessionInfo {
            path: PathBuf::from("/s/a é.jsonl"),
            id: "id".into(),
            cwd: "/w".into(),
            name: Some("n".into()),
            parent_session_path: Some("/p".into()),
            created_ms: Some(-5),
            modified_ms: 1_700_000_000_000,
            message_count: 3,
            first_message: "hi\n\u{202e}".into(),
            agent: Dialect::Atomic,
            version: 3,
            bytes: 99,
            entry_count: 7,
            leaf_count: 2,
            label_count: 1,
            has_name: true,
            internal: false,
            workflow: Some(WorkflowInfo {
                run_id: "r".into(),
                stage_id: "s".into(),
                stage_name: "t".into(),
            }),
            summary: Some("sum".into()),
            total_tokens: u64::MAX,
            cost: 0.1 + 0.2,
            parse_issues: 4,
            first_issue: Some("line 2".into()),
            all_messages_text: String::new(),
            tool_text: String::new(),
        }
    }

    fn sample_rows() -> Vec<(OsString, Row)> {
        let info = sample_info();
        let key = FileKey {
            size: 99,
            mtime: (1, 2),
            ctime: (-3, 4),
            ino: 5,
            dev: 6,
        };
        let blob = ChainRef {
            head: BlobRef::new(1, 2, 3).unwrap(),
            deltas: Some(Box::new(Deltas {
                links: 4,
                base_bytes: 5,
                delta_bytes: 6,
            })),
        };
        vec![
            (
                info.path.clone().into_os_string(),
                Row {
                    key: key.clone(),
                    detected_agent: Some(Dialect::Pi),
                    info: Some(InfoBytes::encode(&info)),
                    problem: None,
                    text: Some(ChainRef::full(blob.head)),
                    state: Some(blob.clone()),
                    resume_offset: 10,
                    tail_hash: 11,
                },
            ),
            (
                OsString::from("/s/bad.jsonl"),
                Row {
                    key,
                    detected_agent: None,
                    info: None,
                    problem: Some("no header".into()),
                    text: None,
                    state: Some(blob),
                    resume_offset: 0,
                    tail_hash: 0,
                },
            ),
        ]
    }

    fn encoded(rows: &[(OsString, Row)]) -> Vec<u8> {
        encode_rows(7, "blobs-1.bin", rows.iter().map(|(p, r)| (p, r)))
    }

    #[test]
    fn rows_round_trip_through_the_binary_encoding() {
        let rows = sample_rows();
        let bytes = Arc::new(encoded(&rows));
        let (decoded, log, id) = decode_rows(&bytes).expect("decodes");
        assert_eq!((log.as_str(), id), ("blobs-1.bin", 7));
        assert_eq!(decoded.len(), rows.len());
        for (path, row) in &rows {
            assert_eq!(decoded.get(path), Some(row));
        }
        // The listing fields point into the bytes read, and decode to what was encoded.
        let info = decoded[OsStr::new("/s/a é.jsonl")].info.clone().unwrap();
        assert!(Arc::ptr_eq(&info.buf, &bytes));
        let path = Path::new("/s/a é.jsonl");
        let listed = info.decode(path).unwrap();
        assert_eq!(listed, sample_info());
        assert_eq!(listed.cost.to_bits(), (0.1f64 + 0.2).to_bits());
        // Listing fields cut short: not decoded (the file is rescanned), never a panic.
        for len in 0..info.end - info.start {
            let short = InfoBytes {
                end: info.start + len,
                ..info.clone()
            };
            assert_eq!(short.decode(path), None, "{len} bytes");
        }
    }

    fn row_map(rows: Vec<(OsString, Row)>) -> RowMap {
        rows.into_iter().collect()
    }

    fn paths(p: &[&str]) -> PathSet {
        p.iter().map(OsString::from).collect()
    }

    fn replay(journal: &[u8], base_id: u64, rows: &mut RowMap) -> (usize, u64) {
        replay_journal(&Arc::new(journal.to_vec()), base_id, rows, None)
    }

    /// Two records: the first upserts both sample rows, the second removes the first row and
    /// upserts the second with another key.
    fn two_journal_records() -> (Vec<u8>, usize, RowMap) {
        let rows = row_map(sample_rows());
        let all: Vec<&str> = vec!["/s/a é.jsonl", "/s/bad.jsonl"];
        let mut journal = encode_journal_record(7, &rows, &paths(&all));
        let first = journal.len();
        let mut after = rows.clone();
        after.remove(OsStr::new(all[0]));
        after.get_mut(OsStr::new(all[1])).unwrap().key.size = 1234;
        journal.extend(encode_journal_record(7, &after, &paths(&all)));
        (journal, first, after)
    }

    #[test]
    fn journal_records_replay_in_order() {
        let (journal, first, after) = two_journal_records();
        let mut rows = RowMap::default();
        assert_eq!(replay(&journal, 7, &mut rows), (journal.len(), 2));
        assert_eq!(rows, after);
        // Only the first record.
        let mut rows = RowMap::default();
        assert_eq!(replay(&journal[..first], 7, &mut rows), (first, 1));
        assert_eq!(rows, row_map(sample_rows()));
        // Paths kept as they are.
        let mut rows = RowMap::default();
        let keep = paths(&["/s/bad.jsonl"]);
        replay_journal(&Arc::new(journal.clone()), 7, &mut rows, Some(&keep));
        assert!(rows.is_empty(), "{rows:?}");
        // Another rows file's journal: nothing applied.
        let mut rows = RowMap::default();
        assert_eq!(replay(&journal, 8, &mut rows), (0, 0));
        assert!(rows.is_empty());
    }

    #[test]
    fn a_damaged_journal_applies_the_records_before_the_damage() {
        let (journal, first, after) = two_journal_records();
        for len in 0..journal.len() {
            let mut rows = RowMap::default();
            let expected = if len < first { (0, 0) } else { (first, 1) };
            assert_eq!(
                replay(&journal[..len], 7, &mut rows),
                expected,
                "cut to {len}"
            );
        }
        for i in 0..journal.len() {
            let mut b = journal.clone();
            b[i] ^= 0x01;
            let mut rows = RowMap::default();
            let (end, _) = replay(&b, 7, &mut rows);
            let expected = if i < first { 0 } else { first };
            assert_eq!(end, expected, "byte {i} flipped");
            if i >= first {
                assert_eq!(rows, row_map(sample_rows()));
            }
        }
        let mut rows = RowMap::default();
        let mut b = journal.clone();
        b.extend_from_slice(b"GRJ1\xff\xff\xff\xff\xff\xff\xff\xff");
        assert_eq!(replay(&b, 7, &mut rows), (journal.len(), 2));
        assert_eq!(rows, after);
    }

    #[test]
    fn a_state_patch_gives_back_the_new_json() {
        let old = serde_json::json!({
            "builder": {
                "nodes": {"a": 1, "b": 1}, "labels": {"a": true},
                "name": {"has_name": false, "name": null}, "header": null,
                "summary": ["s", "a"], "entry_count": 2, "texts": "",
            },
            "offset": 5, "first_issue": null,
        });
        let new = serde_json::json!({
            "builder": {
                "nodes": {"a": 1, "b": 3, "c": 1}, "labels": {"a": false, "c": true},
                "name": {"has_name": true, "name": "n"}, "header": {"id": "h"},
                "summary": ["t", "c"], "entry_count": 3, "texts": "",
            },
            "offset": 9, "first_issue": "line 3",
        });
        let patch = diff_json(&old, &new).unwrap().unwrap();
        // Only what changed: the maps' new and changed keys, not the unchanged text.
        assert_eq!(
            patch["builder"]["nodes"],
            serde_json::json!({"b": 3, "c": 1})
        );
        assert_eq!(
            patch["builder"]["labels"],
            serde_json::json!({"a": false, "c": true})
        );
        assert_eq!(patch["builder"]["summary"], serde_json::json!(["t", "c"]));
        assert!(patch["builder"].get("texts").is_none(), "{patch}");
        let mut patched = old.clone();
        apply_patch(&mut patched, patch);
        assert_eq!(patched, new);
        assert_eq!(diff_json(&new, &new), Some(None));
        // What a patch cannot say: a key removed.
        let mut fewer = new.clone();
        fewer["builder"]["nodes"]
            .as_object_mut()
            .unwrap()
            .remove("a");
        assert_eq!(diff_json(&new, &fewer), None);
        // A scalar that replaces an object (the reverse is `header` above).
        let mut unset = new.clone();
        unset["builder"]["header"] = Value::Null;
        let patch = diff_json(&new, &unset).unwrap().unwrap();
        assert_eq!(patch, serde_json::json!({"builder": {"header": null}}));
        let mut back = new.clone();
        apply_patch(&mut back, patch);
        assert_eq!(back, unset);
    }

    #[test]
    fn chains_read_back_and_broken_chains_read_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        let log = BlobLog::create(dir.path()).unwrap();
        let full = ChainRef::full(
            log.append(&[b"hello wor", &full_trailer(9, TEXT_FULL)])
                .unwrap(),
        );
        let delta = |prev: &ChainRef, keep: u64, added: &[u8]| {
            let trailer = delta_trailer(prev.head, keep, TEXT_DELTA);
            prev.then(append_counted(&log, &[added, &trailer], &mut 0).unwrap())
        };
        let one = delta(&full, 6, b"world");
        let two = delta(&one, 11, "!é".as_bytes());
        assert_eq!(read_text(&log, &full).as_deref(), Some("hello wor"));
        assert_eq!(read_text(&log, &one).as_deref(), Some("hello world"));
        assert_eq!(read_text(&log, &two).as_deref(), Some("hello world!é"));
        assert_eq!(two.links(), 2);
        assert_eq!(two.bytes(), log.len().unwrap());

        // The row's link count must match the records walked.
        let mut wrong = two.clone();
        for links in [1, 3] {
            wrong.deltas.as_mut().unwrap().links = links;
            assert_eq!(read_text(&log, &wrong), None, "{links} links");
        }
        let wrong = ChainRef::full(two.head);
        assert_eq!(read_text(&log, &wrong), None, "0 links");
        // Keeping more than the previous text holds.
        let past = delta(&full, 10, b"x");
        assert_eq!(read_text(&log, &past), None);
        // A text chain on a state record, and a state chain on a text record.
        let state = ChainRef::full(log.append(&[b"{}", &full_trailer(0, STATE_FULL)]).unwrap());
        assert_eq!(read_text(&log, &state), None);
        assert!(read_state(&log, &state).is_some());
        assert!(read_state(&log, &two).is_none());
        let on_state = delta(&state, 0, b"x");
        assert_eq!(read_text(&log, &on_state), None);
        // A link pointing forward, or at itself (its hash cannot be right, but the walk does not
        // even read it): never followed, so a chain always ends.
        let at = log.len().unwrap() + RECORD_HEADER as u64;
        let ahead = BlobRef::new(at + 100, 5, 0).unwrap();
        let forward = delta(&ChainRef::full(ahead), 0, b"x");
        assert_eq!(read_text(&log, &forward), None);
        let trailer_len = 1 + 33;
        let me = BlobRef::new(log.len().unwrap() + RECORD_HEADER as u64, trailer_len, 0).unwrap();
        let looped = delta(&ChainRef::full(me), 0, b"x");
        assert_eq!(looped.head.off, me.off);
        assert_eq!(read_text(&log, &looped), None);
        // A flipped byte anywhere in a link.
        let bytes = fs::read(dir.path().join(&log.name)).unwrap();
        let damaged = dir.path().join("blobs-damaged.bin");
        let mut copy = bytes.clone();
        copy[one.head.off.get() as usize + 2] ^= 1;
        fs::write(&damaged, copy).unwrap();
        let log2 = BlobLog::open(dir.path(), "blobs-damaged.bin").unwrap();
        assert_eq!(read_text(&log2, &full).as_deref(), Some("hello wor"));
        assert_eq!(read_text(&log2, &two), None);
    }

    #[test]
    fn a_chain_takes_deltas_within_its_bounds() {
        let head = BlobRef::new(20, 1000 - RECORD_HEADER as u64, 0).unwrap();
        let mut chain = ChainRef::full(head);
        assert_eq!(chain.bytes(), 1000);
        // Deltas up to the full record's size...
        assert!(chain.takes_delta(1000 - RECORD_HEADER));
        assert!(!chain.takes_delta(1001 - RECORD_HEADER));
        // ...and at most CHAIN_MAX_LINKS of them.
        let small = BlobRef { len: 1, ..head };
        for _ in 0..CHAIN_MAX_LINKS {
            assert!(chain.takes_delta(1));
            chain = chain.then(small);
        }
        assert!(!chain.takes_delta(1));
        assert_eq!(
            chain.bytes(),
            1000 + u64::from(CHAIN_MAX_LINKS) * (1 + RECORD_HEADER as u64)
        );
        // A row keeps a chain in as little room as a plain record reference did.
        assert_eq!(std::mem::size_of::<Option<ChainRef>>(), 32);
    }

    #[test]
    fn damaged_rows_are_rejected_without_panicking() {
        let bytes = encoded(&sample_rows());
        for len in 0..bytes.len() {
            let b = Arc::new(bytes[..len].to_vec());
            assert!(decode_rows(&b).is_none(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(decode_rows(&Arc::new(b)).is_none(), "byte {i} flipped");
        }
    }
}
