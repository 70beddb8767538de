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
//! `DIR/index.jsonl` — the rows, replaced atomically (written to a temp file, then renamed):
//! line 1 is `{"magic":"grove-index","version":N,"blobs":"<file>"}`, then one JSON row per file,
//! then a trailer `{"rows":n,"hash":h}` over every byte before it. Any mismatch (wrong magic or
//! version, bad trailer, a row that does not parse) discards the whole file and the index is
//! rebuilt silently. JSON lines rather than a binary encoding: serde_json is already a
//! dependency, the rows are small (about 1 KB per session, 10 MB for 10k), it reads back in
//! tens of milliseconds, and a human can inspect it.
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
use crate::model::info::SessionInfo;

/// Bump on any change to the rows, records or [`ScanState`] encoding: older files are ignored
/// and rebuilt.
pub const FORMAT_VERSION: u32 = 2;
const MAGIC: &str = "grove-index";
const ROWS_FILE: &str = "index.jsonl";
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

/// The index of session files (see the module docs).
#[derive(Debug)]
pub struct Index {
    /// `None` = disabled (`--no-cache`).
    dir: Option<PathBuf>,
    /// Keyed by the path's bytes (hashing a `Path` walks its components: slow for 10k rows).
    rows: HashMap<OsString, Row>,
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
            rows: HashMap::new(),
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
            rows: HashMap::new(),
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
            let listed: HashSet<&OsStr> = sessions
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
        let mut out = Vec::with_capacity(self.rows.len() * 1024);
        serde_json::to_writer(
            &mut out,
            &serde_json::json!({"magic": MAGIC, "version": FORMAT_VERSION, "blobs": log.name}),
        )?;
        out.push(b'\n');
        let mut paths: Vec<&OsString> = self.rows.keys().collect();
        paths.sort();
        for p in paths {
            serde_json::to_writer(&mut out, &self.rows[p])?;
            out.push(b'\n');
        }
        let trailer = serde_json::json!({"rows": self.rows.len(), "hash": fast_hash(&out)});
        serde_json::to_writer(&mut out, &trailer)?;
        out.push(b'\n');
        write_atomically(&dir.join(ROWS_FILE), &out)?;
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
fn read_rows(path: &Path) -> Option<(HashMap<OsString, Row>, String)> {
    let data = fs::read(path).ok()?;
    let body_end = data.strip_suffix(b"\n")?;
    let trailer_start = memchr::memrchr(b'\n', body_end)? + 1;
    #[derive(serde::Deserialize)]
    struct Trailer {
        rows: usize,
        hash: u64,
    }
    let trailer: Trailer = serde_json::from_slice(&body_end[trailer_start..]).ok()?;
    if fast_hash(&data[..trailer_start]) != trailer.hash {
        return None;
    }
    let mut lines = data[..trailer_start].split(|b| *b == b'\n');
    #[derive(serde::Deserialize)]
    struct Head {
        magic: String,
        version: u32,
        blobs: String,
    }
    let head: Head = serde_json::from_slice(lines.next()?).ok()?;
    if head.magic != MAGIC || head.version != FORMAT_VERSION || !valid_log_name(&head.blobs) {
        return None;
    }
    // Parsed on all cores: this is most of a warm listing's work.
    let lines: Vec<&[u8]> = lines.filter(|l| !l.is_empty()).collect();
    let parsed: Option<Vec<Row>> = lines
        .par_iter()
        .map(|line| serde_json::from_slice::<Row>(line).ok())
        .collect();
    let rows: HashMap<OsString, Row> = parsed?
        .into_iter()
        .map(|row| (row.path.clone().into_os_string(), row))
        .collect();
    (rows.len() == trailer.rows).then_some((rows, head.blobs))
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
