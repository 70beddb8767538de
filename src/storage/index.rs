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
//! `DIR/index.bin` — the rows, replaced atomically (written to a temp file, then renamed):
//! magic `GRIX`, [`FORMAT_VERSION`], the blob log's name and the row count, then each row
//! length-prefixed in a compact binary encoding (see [`encode_rows`]), then a hash of every
//! byte before it. Any mismatch (wrong magic or version, bad hash, a row that does not decode
//! or does not use exactly its bytes, a wrong count) discards the whole file and the index is
//! rebuilt silently. Binary rather than JSON lines: parsing 13 MB of JSON rows was half of a
//! warm listing of 10k sessions (~50 ms); reading and decoding the 8.6 MB binary file takes
//! ~25 ms, most of it allocating the rows' strings.
//! (Format 2 and earlier wrote `index.jsonl`; it is ignored, and removed at the next write.)
//!
//! `DIR/blobs-<id>.bin` — an append-only log of the large parts: each session's searchable
//! text and its resumable scan state. Each record is `[b"GRB1"][len u64][hash u64][payload]`,
//! appended with one `write` on an `O_APPEND` handle, so two grove processes can append at
//! once; rows refer to records by offset, length and hash, and a record that does not check
//! out is treated as missing (the file is rescanned). Keeping these out of the rows file means
//! a warm listing never reads them and a grown file costs one appended record, not a rewrite
//! of every session's text. The log is compacted (live records copied to a new log) when less
//! than half of it is referenced.
//!
//! Two processes: each reads the rows, appends its records, and renames its own rows file in
//! place. The last writer wins; the loser's new records become garbage. Neither can see a torn
//! file.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

use super::fastscan::{ParseMode, ScanState, scan};
use super::read::ReadError;
use super::roots::{FoundFile, SessionRoot, Skipped, find_session_files_with_meta};
use super::scan::{Listing, error_reason, sort_by_modified};
use crate::model::context::Dialect;
use crate::model::info::{SessionInfo, WorkflowInfo};

/// Bump on any change to the rows, records or [`ScanState`] encoding: older files are ignored
/// and rebuilt.
pub const FORMAT_VERSION: u32 = 3;
const ROWS_MAGIC: &[u8; 4] = b"GRIX";
const ROWS_FILE: &str = "index.bin";
const OLD_ROWS_FILE: &str = "index.jsonl";
const RECORD_MAGIC: &[u8; 4] = b"GRB1";
const RECORD_HEADER: usize = 20;
/// Bytes before the resume offset that must be unchanged for a resumed scan.
const TAIL_CHECK: u64 = 4096;
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
    pub persist_error: Option<String>,
}

/// Rows by path. Keyed by the path's bytes (hashing a `Path` walks its components), with
/// [`KeyHasher`]: SipHash was a tenth of a warm listing, and these keys are not adversarial.
type RowMap = HashMap<OsString, Row, BuildHasherDefault<KeyHasher>>;

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
    dirty: bool,
    stats: ListStats,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct BlobRef {
    off: u64,
    len: u64,
    hash: u64,
}

/// One file's entry in the index.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Row {
    path: PathBuf,
    key: FileKey,
    /// The agent the content points to; the listed agent is the root's, else this one.
    detected_agent: Option<Dialect>,
    /// The listing fields, without the text (that is in `text`).
    info: Option<SessionInfo>,
    /// `info.cost` as bits: a JSON round trip of an `f64` is not always exact.
    cost_bits: u64,
    /// Why the file is not a session (no header), when it is not.
    problem: Option<String>,
    text: Option<BlobRef>,
    /// Resumable state; `None` when the file must be rescanned if it changes.
    state: Option<BlobRef>,
    /// Where a resumed scan continues, and the hash of the bytes just before it.
    resume_offset: u64,
    tail_hash: u64,
    /// Whether the state blob holds its own text (it differs from the listing's when the file
    /// ended with a torn line).
    text_in_state: bool,
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
            rows: RowMap::default(),
            log: None,
            dirty: false,
            stats: ListStats::default(),
        };
        if let Some((rows, log_name)) = read_rows(&dir.join(ROWS_FILE))
            && let Ok(log) = BlobLog::open(dir, &log_name)
        {
            index.rows = rows;
            index.log = Some(log);
        }
        index
    }

    /// An index that remembers nothing: every listing scans every file.
    pub fn disabled() -> Index {
        Index {
            dir: None,
            rows: RowMap::default(),
            log: None,
            dirty: false,
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
                    match self.cached_info(row, file.agent, opts.with_text) {
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
                        let (info, row) = self.record(&file, r, log_ref, opts.with_text);
                        if let Some(row) = row {
                            self.rows.insert(file.path.clone().into_os_string(), row);
                        } else {
                            self.rows.remove(file.path.as_os_str());
                        }
                        self.dirty |= enabled;
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
                            self.dirty |= enabled;
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
            let before = self.rows.len();
            self.rows.retain(|path, _| {
                listed.contains(path.as_os_str())
                    || !roots.iter().any(|r| Path::new(path).starts_with(&r.path))
            });
            self.dirty |= self.rows.len() != before;
        }
        if self.dirty {
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
        match row.text {
            None => Some(String::new()),
            Some(r) => self.log.as_ref()?.read_string(&r),
        }
    }

    /// A cached row's listing: `Some(Ok)` a session, `Some(Err)` a cached problem, `None` when
    /// a blob it needs is unreadable (the file is then rescanned).
    fn cached_info(
        &self,
        row: &Row,
        root_agent: Option<Dialect>,
        with_text: bool,
    ) -> Option<Result<SessionInfo, String>> {
        let Some(info) = &row.info else {
            return row.problem.clone().map(Err);
        };
        let mut info = info.clone();
        info.agent = root_agent.or(row.detected_agent)?;
        info.cost = f64::from_bits(row.cost_bits);
        if with_text && let Some(r) = row.text {
            info.all_messages_text = self.log.as_ref()?.read_string(&r)?;
        }
        Some(Ok(info))
    }

    /// Stores a scan's blobs; returns the listing (text kept only if asked) and the new row.
    fn record(
        &self,
        file: &FoundFile,
        r: Rescanned,
        log: Option<&BlobLog>,
        with_text: bool,
    ) -> (Result<SessionInfo, String>, Option<Row>) {
        let key = FileKey::of(&r.meta);
        let mut info = match r.info {
            Ok(info) => info,
            Err(e) => {
                let reason = error_reason(&e);
                let row = matches!(e, ReadError::NoHeader { .. }).then(|| Row {
                    path: file.path.clone(),
                    key,
                    detected_agent: None,
                    info: None,
                    cost_bits: 0,
                    problem: Some(reason.clone()),
                    text: None,
                    state: None,
                    resume_offset: 0,
                    tail_hash: 0,
                    text_in_state: false,
                });
                return (Err(reason), row.filter(|_| log.is_some()));
            }
        };
        let Some(log) = log else {
            if !with_text {
                info.all_messages_text = String::new();
            }
            return (Ok(info), None);
        };
        let text = std::mem::take(&mut info.all_messages_text);
        let text_ref = if text.is_empty() {
            Some(None)
        } else {
            log.append(text.as_bytes()).ok().map(Some)
        };
        let mut state_ref = None;
        let text_in_state = r.state_has_text;
        if let Some((state, tail_hash)) = r.state
            && let Ok(bytes) = serde_json::to_vec(&state)
        {
            state_ref = log
                .append(&bytes)
                .ok()
                .map(|b| (b, state.offset(), tail_hash));
        }
        if with_text {
            info.all_messages_text = text;
        }
        let row = text_ref.map(|text_ref| Row {
            path: file.path.clone(),
            key,
            detected_agent: Some(r.detected_agent),
            info: Some(SessionInfo {
                all_messages_text: String::new(),
                ..info.clone()
            }),
            cost_bits: info.cost.to_bits(),
            problem: None,
            text: text_ref,
            state: state_ref.map(|s| s.0),
            resume_offset: state_ref.map_or(0, |s| s.1),
            tail_hash: state_ref.map_or(0, |s| s.2),
            text_in_state,
        });
        (Ok(info), row)
    }

    /// Writes the rows (atomically) and compacts the blob log when mostly garbage.
    pub fn persist(&mut self) -> io::Result<()> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        fs::create_dir_all(&dir)?;
        if self.log.is_none() {
            self.log = Some(BlobLog::create(&dir)?);
        }
        let live: u64 = self
            .rows
            .values()
            .flat_map(|r| [r.text, r.state])
            .flatten()
            .map(|b| b.len + RECORD_HEADER as u64)
            .sum();
        let log_len = self.log.as_ref().map_or(0, |l| l.len().unwrap_or(0));
        if log_len > 2 * live + (1 << 20) {
            self.compact(&dir)?;
        }
        let Some(log) = &self.log else {
            return Ok(());
        };
        let mut paths: Vec<&OsString> = self.rows.keys().collect();
        paths.sort();
        let out = encode_rows(&log.name, paths.into_iter().map(|p| &self.rows[p]));
        write_atomically(&dir.join(ROWS_FILE), &out)?;
        // The rows file of format 2 and earlier (JSON lines), if still there.
        let _ = fs::remove_file(dir.join(OLD_ROWS_FILE));
        self.dirty = false;
        remove_stale_logs(&dir, &log.name);
        Ok(())
    }

    /// Copies the live records to a new log and points the rows at it.
    fn compact(&mut self, dir: &Path) -> io::Result<()> {
        let Some(old) = &self.log else {
            return Ok(());
        };
        let new = BlobLog::create(dir)?;
        let mut buf = Vec::new();
        let mut moved: HashMap<BlobRef, BlobRef> = HashMap::new();
        let mut drop_rows = Vec::new();
        for (path, row) in &self.rows {
            for r in [row.text, row.state].into_iter().flatten() {
                if moved.contains_key(&r) {
                    continue;
                }
                match old.read(&r) {
                    Some(bytes) => {
                        buf.clear();
                        buf.extend_from_slice(&bytes);
                        moved.insert(r, new.append(&buf)?);
                    }
                    None => drop_rows.push(path.clone()),
                }
            }
        }
        for p in drop_rows {
            self.rows.remove(&p);
        }
        for row in self.rows.values_mut() {
            row.text = row.text.and_then(|r| moved.get(&r).copied());
            row.state = row.state.and_then(|r| moved.get(&r).copied());
        }
        self.log = Some(new);
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
}

/// Reads a new or changed file: resumed from the old row when the file only grew.
fn rescan(
    file: &FoundFile,
    old: Option<&Row>,
    log: Option<&BlobLog>,
    keep_state: bool,
) -> Result<Rescanned, ReadError> {
    if let Some((state, checked_key)) = old.and_then(|row| resumable(file, row, log?)) {
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
    })
}

/// The saved state of `row` when `file` only grew since: same inode, larger, and the bytes
/// before the resume offset unchanged.
fn resumable(file: &FoundFile, row: &Row, log: &BlobLog) -> Option<(ScanState, FileKey)> {
    let state_ref = row.state?;
    row.info.as_ref()?;
    let meta = fs::metadata(&file.path).ok()?;
    let now = FileKey::of(&meta);
    if !now.same_file(&row.key) || now.size <= row.key.size || now.size < row.resume_offset {
        return None;
    }
    if tail_hash(&file.path, row.resume_offset).ok()? != row.tail_hash {
        return None;
    }
    let bytes = log.read(&state_ref)?;
    let mut state: ScanState = serde_json::from_slice(&bytes).ok()?;
    if state.offset() != row.resume_offset {
        return None;
    }
    if !row.text_in_state {
        let text = match row.text {
            Some(r) => log.read_string(&r)?,
            None => String::new(),
        };
        state.restore_builder_text(text);
    }
    Some((state, now))
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

/// Reads and checks the rows file; `None` when missing, corrupt or of another version.
fn read_rows(path: &Path) -> Option<(RowMap, String)> {
    let data = fs::read(path).ok()?;
    decode_rows(&data)
}

/// The rows file: `GRIX`, version (u32), blob log name, row count (u64), then each row as its
/// length (u32) and bytes, then a hash (u64) of every byte before it. Integers are little
/// endian; strings and paths are a length (u64) and bytes; an `Option` is a 0/1 byte and the
/// value.
fn encode_rows<'a>(log_name: &str, rows: impl ExactSizeIterator<Item = &'a Row>) -> Vec<u8> {
    let mut e = Enc(Vec::with_capacity(rows.len() * 512 + 64));
    e.0.extend_from_slice(ROWS_MAGIC);
    e.u32(FORMAT_VERSION);
    e.str(log_name);
    e.u64(rows.len() as u64);
    for row in rows {
        let at = e.0.len();
        e.u32(0);
        encode_row(&mut e, row);
        let len = (e.0.len() - at - 4) as u32;
        e.0[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
    let hash = fast_hash(&e.0);
    e.u64(hash);
    e.0
}

fn decode_rows(data: &[u8]) -> Option<(RowMap, String)> {
    let body_len = data.len().checked_sub(8)?;
    let (body, hash) = data.split_at(body_len);
    if fast_hash(body) != u64::from_le_bytes(hash.try_into().ok()?) {
        return None;
    }
    let mut d = Dec { b: body, i: 0 };
    if d.take(4)? != ROWS_MAGIC || d.u32()? != FORMAT_VERSION {
        return None;
    }
    let log_name = d.string()?;
    if !valid_log_name(&log_name) {
        return None;
    }
    let count = usize::try_from(d.u64()?).ok()?;
    // On one thread: decoding on all cores was slower (allocations in per-thread arenas, freed
    // from another thread).
    let mut rows = RowMap::with_capacity_and_hasher(count.min(body.len() / 64), Default::default());
    for _ in 0..count {
        let len = d.u32()? as usize;
        let bytes = d.take(len)?;
        let mut r = Dec { b: bytes, i: 0 };
        let row = decode_row(&mut r)?;
        if r.i != bytes.len() {
            return None;
        }
        rows.insert(row.path.clone().into_os_string(), row);
    }
    if d.i != body.len() {
        return None;
    }
    (rows.len() == count).then_some((rows, log_name))
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
    fn blob(&mut self, b: BlobRef) {
        self.u64(b.off);
        self.u64(b.len);
        self.u64(b.hash);
    }
}

/// Reads what [`Enc`] wrote; `None` on truncated or malformed bytes.
struct Dec<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Dec<'a> {
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
    fn blob(&mut self) -> Option<BlobRef> {
        Some(BlobRef {
            off: self.u64()?,
            len: self.u64()?,
            hash: self.u64()?,
        })
    }
}

// Destructuring without `..`: a field added to `Row`, `FileKey` or `SessionInfo` does not
// compile until it is encoded (and `FORMAT_VERSION` bumped).
fn encode_row(e: &mut Enc, row: &Row) {
    let Row {
        path,
        key,
        detected_agent,
        info,
        cost_bits,
        problem,
        text,
        state,
        resume_offset,
        tail_hash,
        text_in_state,
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
    e.opt(info.as_ref(), encode_info);
    e.u64(*cost_bits);
    e.opt_str(problem);
    e.opt(*text, Enc::blob);
    e.opt(*state, Enc::blob);
    e.u64(*resume_offset);
    e.u64(*tail_hash);
    e.bool(*text_in_state);
}

fn decode_row(d: &mut Dec<'_>) -> Option<Row> {
    Some(Row {
        path: d.path()?,
        key: FileKey {
            size: d.u64()?,
            mtime: (d.i64()?, d.u32()?),
            ctime: (d.i64()?, d.u32()?),
            ino: d.u64()?,
            dev: d.u64()?,
        },
        detected_agent: d.opt(Dec::dialect)?,
        info: d.opt(decode_info)?,
        cost_bits: d.u64()?,
        problem: d.opt_string()?,
        text: d.opt(Dec::blob)?,
        state: d.opt(Dec::blob)?,
        resume_offset: d.u64()?,
        tail_hash: d.u64()?,
        text_in_state: d.bool()?,
    })
}

fn encode_info(e: &mut Enc, info: &SessionInfo) {
    let SessionInfo {
        path,
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
        all_messages_text,
    } = info;
    e.path(path);
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
    e.str(all_messages_text);
}

fn decode_info(d: &mut Dec<'_>) -> Option<SessionInfo> {
    Some(SessionInfo {
        path: d.path()?,
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
        all_messages_text: d.string()?,
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

/// Removes blob logs other than `current` that nobody has written to for a while.
fn remove_stale_logs(dir: &Path, current: &str) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if name == current || !valid_log_name(name) {
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

    /// Appends one record with a single write; returns where it landed.
    fn append(&self, payload: &[u8]) -> io::Result<BlobRef> {
        let hash = fast_hash(payload);
        let mut rec = Vec::with_capacity(RECORD_HEADER + payload.len());
        rec.extend_from_slice(RECORD_MAGIC);
        rec.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        rec.extend_from_slice(&hash.to_le_bytes());
        rec.extend_from_slice(payload);
        let mut f = &self.file;
        f.write_all(&rec)?;
        // With O_APPEND the handle's position is the end of this write, whatever other
        // processes appended meanwhile.
        let end = f.stream_position()?;
        Ok(BlobRef {
            off: end - rec.len() as u64 + RECORD_HEADER as u64,
            len: payload.len() as u64,
            hash,
        })
    }

    /// The payload of a record, if it checks out.
    fn read(&self, r: &BlobRef) -> Option<Vec<u8>> {
        let start = r.off.checked_sub(RECORD_HEADER as u64)?;
        let total = usize::try_from(r.len).ok()?.checked_add(RECORD_HEADER)?;
        if r.off.checked_add(r.len)? > self.len().ok()? {
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

    fn read_string(&self, r: &BlobRef) -> Option<String> {
        String::from_utf8(self.read(r)?).ok()
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

    fn sample_rows() -> Vec<Row> {
        let info = SessionInfo {
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
        };
        let key = FileKey {
            size: 99,
            mtime: (1, 2),
            ctime: (-3, 4),
            ino: 5,
            dev: 6,
        };
        let blob = BlobRef {
            off: 1,
            len: 2,
            hash: 3,
        };
        vec![
            Row {
                path: info.path.clone(),
                key: key.clone(),
                detected_agent: Some(Dialect::Pi),
                cost_bits: info.cost.to_bits(),
                info: Some(info),
                problem: None,
                text: Some(blob),
                state: None,
                resume_offset: 10,
                tail_hash: 11,
                text_in_state: true,
            },
            Row {
                path: PathBuf::from("/s/bad.jsonl"),
                key,
                detected_agent: None,
                info: None,
                cost_bits: 0,
                problem: Some("no header".into()),
                text: None,
                state: Some(blob),
                resume_offset: 0,
                tail_hash: 0,
                text_in_state: false,
            },
        ]
    }

    #[test]
    fn rows_round_trip_through_the_binary_encoding() {
        let rows = sample_rows();
        let bytes = encode_rows("blobs-1.bin", rows.iter());
        let (decoded, log) = decode_rows(&bytes).expect("decodes");
        assert_eq!(log, "blobs-1.bin");
        assert_eq!(decoded.len(), rows.len());
        for row in &rows {
            assert_eq!(decoded.get(row.path.as_os_str()), Some(row));
        }
    }

    #[test]
    fn damaged_rows_are_rejected_without_panicking() {
        let bytes = encode_rows("blobs-1.bin", sample_rows().iter());
        for len in 0..bytes.len() {
            assert!(decode_rows(&bytes[..len]).is_none(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(decode_rows(&b).is_none(), "byte {i} flipped");
        }
    }
}
