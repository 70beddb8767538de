//! The persistent index: each session file's listing fields, searchable text and resumable
//! scan state, kept in an SQLite database in the platform cache dir so that a second listing
//! costs one `stat` per unchanged file.
//!
//! # Use
//! ```no_run
//! use grove::storage::index::{Index, IndexEvent, ListOptions};
//! # let roots = vec![];
//! let mut index = Index::open(false); // `true` = --no-cache: scan everything, write nothing
//! let listing = index.list(&roots, ListOptions::default(), |event| match event {
//!     IndexEvent::Found(total) => { /* the number of files, for progress */ }
//!     IndexEvent::Listed(_) => { /* with text: the cached rows before their text is read */ }
//!     IndexEvent::Cached(rows) => { /* unchanged files: all at once, before any parse */ }
//!     IndexEvent::Scanned(row) => { /* a new or changed file, as soon as it is read */ }
//!     IndexEvent::Problem(_) => {}
//! });
//! ```
//! Errors writing the cache are never fatal (see [`ListStats::persist_error`]).
//!
//! # Storage
//! `DIR/index.sqlite3` (see [`db`]): a row per session file (its freshness key, and one blob of
//! the listing fields, where the scan stopped and the hashes that check a resume), its scan
//! state without entry ids or texts (table `states`), its searchable text and its tool-call
//! text in chunks, its entry ids in chunks. A file that grew is read from where its last scan
//! stopped, and adds one chunk of text, of tool text and of the ids it added, and rewrites its
//! small row and state: bytes written follow the bytes added, not the session. Each listing writes in
//! transactions of at most ~200 ms of rows; SQLite (WAL, busy timeout) handles two processes and a killed one. See
//! [`fresh`] for exactly what a resume trusts.
//!
//! # Untrusted cache
//! A row is used only when its key matches the file's `stat`, and every length it gives is
//! bounded by the file's real size (a text longer than the file, a count above its bytes, a
//! state many times its size): a row that does not fit is rescanned, never allocated for. A
//! write ([`write`]) checks the file itself before trusting the row.

mod batch;
pub mod db;
pub mod fresh;
mod ids;
mod list;
mod matched;
pub(crate) mod no_op;
mod nodes;
pub mod offsets;

mod rescan;
pub mod row;
mod schema;

pub mod texts;
pub mod write;

pub use ids::EntryIds;

use std::fs;
use std::path::Path;

use super::roots::Skipped;
use crate::model::info::SessionInfo;
use db::{Db, FileKey, Row};
use ids::IndexedIds;

/// What [`Index::list`] reports while it works.
#[derive(Debug)]
pub enum IndexEvent<'a> {
    /// The roots were listed: this many session files will be reported (for progress).
    Found(usize),
    /// With [`ListOptions::with_text`]: the sessions of [`IndexEvent::Cached`], sent before
    /// their searchable text is read (it is empty here), so a list can show them at once.
    Listed(&'a [SessionInfo]),
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
    /// Stored entry ids loaded to resume grown files (a resume settles without them unless
    /// its last line is torn, see `nodes`).
    pub ids_loaded: u64,
    /// Bytes read from session files.
    pub bytes_read: u64,
    /// Whether the index was written.
    pub persisted: bool,
    /// Bytes of rows, text and state handed to the database (before its own overhead).
    pub bytes_written: u64,
    pub persist_error: Option<String>,
}

/// The index of session files (see the module docs).
pub struct Index {
    /// `None` = disabled (`--no-cache`), or no database could be opened.
    db: Option<Db>,
    stats: ListStats,
    /// The ids last read by [`Index::current_ids`] (a write reads them twice: to resolve the
    /// target, then to write), valid while the file's key is the same.
    ids_cache: std::cell::RefCell<Option<IndexedIds>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("db", &self.db.as_ref().map(|d| &d.path))
            .field("stats", &self.stats)
            .finish()
    }
}

impl Index {
    /// A one-shot listing's index (the CLI's) in the platform cache dir, or a disabled one
    /// when `no_cache` (or when there is no cache dir): with no database yet, a new one is
    /// written aside and put in place whole by the listing's last commit ([`db::aside`]).
    pub fn open(no_cache: bool) -> Index {
        Index::open_with(no_cache, Index::open_new_aside_at)
    }

    /// The browser's index: always in place, so that the rows it commits as it lists are kept
    /// if it is killed.
    pub fn open_in_place(no_cache: bool) -> Index {
        Index::open_with(no_cache, Index::open_at)
    }

    fn open_with(no_cache: bool, open: fn(&Path) -> Index) -> Index {
        match (no_cache, super::cache::cache_dir()) {
            (false, Some(dir)) => open(&dir),
            _ => Index::disabled(),
        }
    }

    /// The index stored in `dir`, a new database written aside when there is none yet (see
    /// [`Index::open`]).
    pub fn open_new_aside_at(dir: &Path) -> Index {
        Index {
            db: Db::open_aside(dir).or_else(|| Db::open(dir)),
            stats: ListStats::default(),
            ids_cache: Default::default(),
        }
    }

    /// The index stored in `dir` (created now). A missing, damaged or other-schema database
    /// starts empty (rebuilt).
    pub fn open_at(dir: &Path) -> Index {
        Index {
            db: Db::open(dir),
            stats: ListStats::default(),
            ids_cache: Default::default(),
        }
    }

    /// An index that remembers nothing: every listing scans every file.
    pub fn disabled() -> Index {
        Index {
            db: None,
            stats: ListStats::default(),
            ids_cache: Default::default(),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.db.is_some()
    }

    /// What the last [`Index::list`] did.
    pub fn stats(&self) -> &ListStats {
        &self.stats
    }

    /// The searchable text of an indexed session (`None` when not indexed, stale or
    /// unreadable).
    pub fn text(&self, path: &Path) -> Option<String> {
        let db = self.db.as_ref()?;
        let meta = fs::metadata(path).ok()?;
        let row = db.row(path).ok()??;
        if row.key != FileKey::of(&meta) || !fits(&row, meta.len()) {
            return None;
        }
        let mut t = db.text(row.id, meta.len()).ok()??;
        t.push_str(&row.torn_text);
        Some(t)
    }

    /// The stored entry ids and scan end of a session whose row is current (its key equals the
    /// file's `stat` now): what a write needs besides the file's tail. See [`write`].
    pub(crate) fn current_ids(&self, path: &Path) -> Option<IndexedIds> {
        let db = self.db.as_ref()?;
        let meta = fs::metadata(path).ok()?;
        let row = db.row(path).ok()??;
        let key = FileKey::of(&meta);
        if row.key != key || !fits(&row, key.size) || !row.has_state {
            return None;
        }
        let info = row.info.as_ref()?;
        if let Some(ids) = self.ids_cache.borrow().as_ref()
            && ids.key == key
            && ids.row_id == row.id
        {
            return Some(ids.clone());
        }
        let (rest, chunks) = db.state(row.id, state_bound(key.size)).ok()??;
        let ids = ids::EntryIds::from_chunks(chunks)?;
        let labelled = nodes::rest_state(&rest, false)?.builder_mut().labelled();
        let found = IndexedIds {
            row_id: row.id,
            key,
            version: info.version,
            header_id: info.id.clone(),
            end: row.resume_offset,
            head_hash: row.head_hash,
            tail_hash: row.tail_hash,
            ids: std::sync::Arc::new(ids),
            labelled: std::sync::Arc::new(labelled),
            offsets: None,
        };
        *self.ids_cache.borrow_mut() = Some(found.clone());
        Some(found)
    }
}

impl Index {
    /// The entry offsets stored for the file at `path`, if they are current (the file's key
    /// now is the one they were read at): see [`offsets`].
    pub fn entry_offsets(&self, path: &Path) -> Option<offsets::EntryOffsets> {
        let db = self.db.as_ref()?;
        let meta = fs::metadata(path).ok()?;
        offsets::load(db.conn(), path, &FileKey::of(&meta))
    }
}

/// The most bytes a stored state of a file of `size` bytes may take (ids and labels come from
/// the file; the rest is small).
fn state_bound(size: u64) -> u64 {
    size.saturating_mul(4).saturating_add(1 << 20)
}

/// Whether a row's lengths and counts fit a file of `size` bytes (a crafted or damaged row
/// that does not is rescanned).
fn fits(row: &Row, size: u64) -> bool {
    if !row.intact {
        return false;
    }
    if row.text_len.saturating_add(row.torn_text.len() as u64) > size
        || row.tools_len.saturating_add(row.torn_tools.len() as u64) > size
        || row.resume_offset > size
    {
        return false;
    }
    let Some(i) = &row.info else {
        return row.problem.as_ref().is_none_or(|p| p.len() < 4096);
    };
    let strings = [
        i.id.len(),
        i.cwd.len(),
        i.name.as_ref().map_or(0, String::len),
        i.parent_session_path.as_ref().map_or(0, String::len),
        i.first_message.len(),
        i.summary.as_ref().map_or(0, String::len),
        i.first_issue
            .as_ref()
            .map_or(0, |s| s.len().saturating_sub(256)),
    ];
    let counts = [
        i.message_count,
        i.entry_count,
        i.leaf_count,
        i.label_count,
        i.parse_issues,
    ];
    strings.iter().all(|&n| n as u64 <= size) && counts.iter().all(|&n| n <= size)
}
