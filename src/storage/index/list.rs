//! [`Index::list`] and [`Index::refresh`]: which rows are current, which files are read
//! (from the start or from where their last scan stopped), and storing what was read in one
//! transaction.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::batch::Batch;
use super::db::{self, Chunks, Db, FileKey, NewRow, NewText, Row, StateParts};
use super::matched::{Matched, StoredLens};
use super::rescan::{Prior, Rescanned, rescan};
use super::row::{path_key, stored_path};
use super::{Index, IndexEvent, ListOptions, ListStats, fresh};
use crate::model::context::Dialect;
use crate::model::info::SessionInfo;
use crate::storage::listing::{Listing, error_reason, sort_by_modified};
use crate::storage::open::ReadError;
use crate::storage::roots::{FoundFile, SessionRoot, Skipped, find_session_files_keyed};

/// A listing that writes commits at least this often (SQLite's WAL makes a commit cheap: no
/// sync), so that a process killed while it lists loses the rows of the last moment only,
/// not every row it has shown (the browser shows rows as they are read).
const COMMIT_EVERY: Duration = Duration::from_millis(200);
/// ... and after at most this many rows, however fast they come: a fast scan shows a thousand
/// small sessions within 200 ms, and a kill then would lose all of them.
const COMMIT_ROWS: usize = 256;

impl Index {
    /// The stored rows of `found` (each path's first file), matched as they are read: see
    /// [`Matched`]. With `roots`, every row is read in one pass and those of no file found
    /// under them are marked gone; without, each file's row is looked up. A database that
    /// cannot be read is rebuilt (it is only a cache) and nothing matches.
    fn match_rows(
        &mut self,
        found: &[(FoundFile, FileKey)],
        roots: &[SessionRoot],
        with_text: bool,
    ) -> Matched {
        let Some(db) = &self.db else {
            return Matched::new(found.len(), with_text);
        };
        // Each path's first file (a path found twice is listed from its row once).
        let mut at: HashMap<Cow<'_, [u8]>, usize, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(found.len(), Default::default());
        for (i, (f, _)) in found.iter().enumerate() {
            at.entry(path_key(&f.path)).or_insert(i);
        }
        let mut m = Matched::new(found.len(), with_text);
        if roots.is_empty() {
            for (i, (f, key)) in found.iter().enumerate() {
                if at.get(path_key(&f.path).as_ref()) == Some(&i)
                    && let Ok(Some(row)) = db.row(&f.path)
                {
                    m.take(i, f, *key, row);
                }
            }
            return m;
        }
        let all = db.for_each_row(|path, row| {
            match at.get(path) {
                Some(&i) => {
                    let (f, key) = &found[i];
                    m.take(i, f, *key, row.decode()?);
                }
                None => {
                    let p = stored_path(path);
                    if roots.iter().any(|r| p.starts_with(&r.path)) {
                        m.gone.push(row.id()?);
                    }
                }
            }
            Ok(())
        });
        match all {
            Ok(()) => m,
            Err(_) => {
                // Damaged under us: start over (it is only a cache).
                let path = db.path.clone();
                self.db = None;
                db::open::remove_db_files(&path);
                self.db = path.parent().and_then(Db::open);
                Matched::new(found.len(), with_text)
            }
        }
    }

    /// Lists every session under `roots`, newest first, calling `on_event` as rows become
    /// known (cached rows first, in one batch), and stores what was read (see `COMMIT_EVERY`).
    pub fn list(
        &mut self,
        roots: &[SessionRoot],
        opts: ListOptions,
        mut on_event: impl FnMut(IndexEvent<'_>),
    ) -> Listing {
        let (found, problems) = find_session_files_keyed(roots);
        self.list_found(found, problems, roots, opts, &mut on_event)
    }

    /// Brings the row of one session file up to date (a grown file is read from where its
    /// last scan stopped), as a listing of just that file would.
    pub fn refresh(&mut self, path: &Path, agent: Option<Dialect>) {
        let Ok(meta) = fs::metadata(path) else { return };
        let file = FoundFile {
            path: path.to_path_buf(),
            agent,
        };
        self.list_found(
            vec![(file, FileKey::of(&meta))],
            Vec::new(),
            &[],
            ListOptions::default(),
            &mut |_| {},
        );
    }

    /// Lists just these files (a watcher saw them change), as [`Index::list`] would: a grown
    /// file is read from where its last scan stopped; no other row is looked at or removed.
    pub fn list_files(
        &mut self,
        files: Vec<(FoundFile, FileKey)>,
        opts: ListOptions,
        mut on_event: impl FnMut(IndexEvent<'_>),
    ) -> Listing {
        self.list_found(files, Vec::new(), &[], opts, &mut on_event)
    }

    /// [`Index::list`] of files already found; rows of files under `roots` not among them are
    /// removed.
    fn list_found(
        &mut self,
        found: Vec<(FoundFile, FileKey)>,
        mut problems: Vec<Skipped>,
        roots: &[SessionRoot],
        opts: ListOptions,
        on_event: &mut dyn FnMut(IndexEvent<'_>),
    ) -> Listing {
        self.stats = ListStats::default();
        on_event(IndexEvent::Found(found.len()));
        for p in &problems {
            on_event(IndexEvent::Problem(p));
        }
        self.stats.files = found.len();
        // Unchanged files: one stat each (done by the discovery above), their rows taken as
        // they are read.
        let Matched {
            mut sessions,
            owners,
            lens: session_rows,
            problems: cached,
            mut stale,
            done,
            gone,
            ..
        } = self.match_rows(&found, roots, opts.with_text);
        let sizes: Vec<u64> = found.iter().map(|(_, key)| key.size).collect();
        let mut found: Vec<Option<FoundFile>> = found.into_iter().map(|(f, _)| Some(f)).collect();
        for (info, &i) in sessions.iter_mut().zip(&owners) {
            if let Some(f) = found[i].as_mut() {
                info.path = std::mem::take(&mut f.path);
            }
        }
        let mut cached_problems = Vec::with_capacity(cached.len());
        for (i, reason) in cached {
            if let Some(f) = found[i].take() {
                cached_problems.push(Skipped {
                    path: f.path,
                    reason,
                });
            }
        }
        // Each file to read, its stored row if any, and its size.
        let mut todo: Vec<(FoundFile, Option<Row>, u64)> = Vec::new();
        for (i, f) in found.into_iter().enumerate() {
            if let Some(f) = f
                && !done[i]
            {
                todo.push((f, stale.remove(&i), sizes[i]));
            }
        }
        if opts.with_text && !session_rows.is_empty() {
            // Reading 10k sessions' text takes seconds; the rows can be shown meanwhile.
            on_event(IndexEvent::Listed(&sessions));
            self.fill_texts(&mut sessions, &session_rows, &mut todo);
        }
        self.stats.cached = sessions.len() + cached_problems.len();
        if !sessions.is_empty() {
            on_event(IndexEvent::Cached(&sessions));
        }
        for p in cached_problems {
            on_event(IndexEvent::Problem(&p));
            problems.push(p);
        }

        // New and changed files: their stored states loaded here (the database is this
        // thread's), read in parallel, rows written here as results arrive.
        let todo: Vec<(FoundFile, Option<Row>, Option<Prior>, u64)> = todo
            .into_iter()
            .map(|(f, row, size)| {
                let prior = row
                    .as_ref()
                    .and_then(|r| Prior::load(self.db.as_ref()?, &f.path, r));
                (f, row, prior, size)
            })
            .collect();
        let mut writing = false;
        let enabled = self.is_enabled();
        if enabled && (!todo.is_empty() || !gone.is_empty()) {
            writing = self.begin();
        }
        let (tx, rx) = mpsc::sync_channel::<Vec<(usize, Result<Rescanned, ReadError>)>>(64);
        let mut todo_rows: Vec<Option<Row>> = Vec::with_capacity(todo.len());
        let mut paths: Vec<FoundFile> = Vec::with_capacity(todo.len());
        let mut items: Vec<(usize, FoundFile, Option<Prior>, u64)> = Vec::with_capacity(todo.len());
        for (i, (f, row, prior, size)) in todo.into_iter().enumerate() {
            todo_rows.push(row);
            paths.push(f.clone());
            items.push((i, f, prior, size));
        }
        std::thread::scope(|s| {
            s.spawn(move || {
                // A warm listing has nothing to read: no thread pool started for nothing.
                if items.is_empty() {
                    return;
                }
                // Results in batches (see `batch`): each reading thread's own, the rest of
                // each sent when its part of the files is done.
                items
                    .into_par_iter()
                    .fold(Batch::default, |mut batch, (i, file, prior, size)| {
                        batch.before(size, &tx);
                        let result = rescan(&file, prior, enabled, opts.with_text);
                        batch.push((i, result), &tx);
                        batch
                    })
                    .for_each(|mut batch| batch.send(&tx));
            });
            let (mut committed, mut uncommitted) = (Instant::now(), 0);
            for (i, result) in rx.into_iter().flatten() {
                if writing && (uncommitted >= COMMIT_ROWS || committed.elapsed() >= COMMIT_EVERY) {
                    writing = self.commit_and_continue();
                    (committed, uncommitted) = (Instant::now(), 0);
                }
                uncommitted += 1;
                let file = &paths[i];
                match result {
                    Ok(r) => {
                        self.stats.bytes_read += r.bytes_read;
                        self.stats.ids_loaded += r.ids_loaded;
                        if r.resumed.is_some() {
                            self.stats.resumed += 1;
                        } else {
                            self.stats.scanned += 1;
                        }
                        match self.record(file, r, opts.with_text, writing) {
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
                        if writing && let Some(row) = &todo_rows[i] {
                            self.write(|db| db.remove(&[row.id]).map(|()| Some(0)));
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
        if writing {
            if !gone.is_empty() {
                self.write(|db| db.remove(&gone).map(|()| Some(0)));
            }
            self.commit();
        }
        sort_by_modified(&mut sessions);
        problems.sort_by(|a, b| a.path.cmp(&b.path));
        Listing { sessions, problems }
    }

    /// Puts each cached session's stored text and tool text before its torn-line ones; a
    /// session whose chunks cannot be read (or are longer than its file) is moved to `todo` to
    /// be rescanned.
    fn fill_texts(
        &self,
        sessions: &mut Vec<SessionInfo>,
        session_rows: &[StoredLens],
        todo: &mut Vec<(FoundFile, Option<Row>, u64)>,
    ) {
        let Some(db) = &self.db else { return };
        let wanted = |len: fn(&StoredLens) -> u64| -> HashMap<i64, u64> {
            session_rows
                .iter()
                .zip(sessions.iter())
                .filter(|(r, _)| len(r) > 0)
                .map(|(r, s)| (r.id, s.bytes))
                .collect()
        };
        let mut texts = db
            .all_chunks(Chunks::Text, &wanted(|r| r.text_len))
            .unwrap_or_default();
        let mut tools = db
            .all_chunks(Chunks::Tools, &wanted(|r| r.tools_len))
            .unwrap_or_default();
        let mut kept = Vec::with_capacity(sessions.len());
        for (mut info, r) in std::mem::take(sessions).into_iter().zip(session_rows) {
            let text = prepend(&mut texts, r.id, r.text_len, &mut info.all_messages_text);
            let tool = prepend(&mut tools, r.id, r.tools_len, &mut info.tool_text);
            if text && tool {
                kept.push(info);
            } else {
                todo.push((
                    FoundFile {
                        path: info.path,
                        agent: r.agent,
                    },
                    None,
                    info.bytes,
                ));
            }
        }
        *sessions = kept;
    }

    fn begin(&mut self) -> bool {
        let Some(db) = &self.db else { return false };
        match db.begin() {
            Ok(()) => true,
            Err(e) => {
                self.stats.persist_error = Some(e.to_string());
                false
            }
        }
    }

    /// Commits what the listing wrote so far and begins again; false when it cannot go on
    /// writing (the error is in the stats). After a failed write the transaction is left to
    /// the end of the listing, as before.
    fn commit_and_continue(&mut self) -> bool {
        if self.stats.persist_error.is_some() {
            return true;
        }
        let Some(db) = &self.db else { return false };
        if let Err(e) = db.commit_part() {
            db.rollback();
            self.stats.persist_error = Some(e.to_string());
            return false;
        }
        self.begin()
    }

    fn commit(&mut self) {
        let Some(db) = &self.db else { return };
        match db.commit() {
            Ok(()) => self.stats.persisted = self.stats.persist_error.is_none(),
            Err(e) => {
                db.rollback();
                self.stats.persist_error = Some(e.to_string());
            }
        }
        // A new database written aside goes in place once complete (else it is dropped).
        if db.is_aside() && self.stats.persisted {
            self.db = self.db.take().and_then(Db::publish);
        }
    }

    /// Runs one write of the listing's transaction; the first error ends the writes (the
    /// transaction is rolled back at the end, see [`Index::commit`]).
    fn write(&mut self, f: impl FnOnce(&Db) -> rusqlite::Result<Option<u64>>) {
        if self.stats.persist_error.is_some() {
            return;
        }
        let Some(db) = &self.db else { return };
        match f(db) {
            Ok(n) => self.stats.bytes_written += n.unwrap_or(0),
            Err(e) => self.stats.persist_error = Some(e.to_string()),
        }
    }

    /// Stores one scan's row (when writing) and returns its listing (text kept if asked).
    fn record(
        &mut self,
        file: &FoundFile,
        r: Rescanned,
        with_text: bool,
        writing: bool,
    ) -> Result<SessionInfo, String> {
        let key = FileKey::of(&r.meta);
        let mut info = match r.info {
            Ok(info) => info,
            Err(e) => {
                let reason = error_reason(&e);
                if writing && matches!(e, ReadError::NoHeader { .. }) {
                    let row = NewRow {
                        key,
                        head_hash: 0,
                        problem: Some(&reason),
                        detected_agent: None,
                        info: None,
                        torn_text: "",
                        torn_tools: "",
                        state: None,
                        resume_offset: 0,
                        tail_hash: 0,
                    };
                    let path = file.path.clone();
                    self.write(|db| db.put(&path, &row, NewText::default(), None));
                }
                return Err(reason);
            }
        };
        // The listing's text and tool text: the state's (committed lines), then a torn last
        // line's; a resumed state's begin with a mark for the stored ones.
        let listing_text = std::mem::take(&mut info.all_messages_text);
        let listing_tools = std::mem::take(&mut info.tool_text);
        let mut stored = r.stored;
        let mark = |had: bool| if had { fresh::TEXT_MARK.len() } else { 0 };
        let (text_mark, tools_mark) = r
            .resumed
            .map_or((0, 0), |x| (mark(x.had_text), mark(x.had_tools)));
        let state_len = stored.as_ref().map_or(listing_text.len(), |(_, n)| *n);
        let state_tools = stored.as_ref().map_or("", |(p, _)| p.tools.as_str());
        if !listing_text.is_char_boundary(state_len)
            || !listing_text.starts_with(&fresh::TEXT_MARK[..text_mark])
            || state_len < text_mark
            || !listing_tools.starts_with(state_tools)
            || !state_tools.starts_with(&fresh::TEXT_MARK[..tools_mark])
        {
            stored = None;
        }
        let (state_len, tools_len) = match &stored {
            Some((p, n)) => (*n, p.tools.len()),
            None => (listing_text.len(), listing_tools.len()),
        };
        let new_text = listing_text.get(text_mark..state_len).unwrap_or_default();
        let torn = listing_text.get(state_len..).unwrap_or_default();
        let new_tools = listing_tools.get(tools_mark..tools_len).unwrap_or_default();
        let torn_tools = listing_tools.get(tools_len..).unwrap_or_default();
        // A resumed file's stored texts come first, read before this listing's write.
        let old = |table, had: usize| match (&r.resumed, had > 0 && with_text) {
            (Some(x), true) => Some(
                self.db
                    .as_ref()
                    .and_then(|db| db.chunks(table, x.id, x.key.size).ok().flatten())
                    .unwrap_or_default(),
            ),
            _ => None,
        };
        let old_text = old(Chunks::Text, text_mark);
        let old_tools = old(Chunks::Tools, tools_mark);
        if writing {
            let parts = stored.as_ref().map(|(p, _)| p);
            let row = NewRow {
                key,
                head_hash: parts.map_or(0, |p| p.head_hash),
                problem: None,
                detected_agent: Some(r.detected_agent),
                info: Some(&info),
                torn_text: torn,
                torn_tools,
                state: parts.map(|p| StateParts {
                    rest: &p.rest,
                    nodes_changed: &p.nodes_changed,
                    nodes_all: p.nodes_all.as_ref(),
                }),
                resume_offset: parts.map_or(0, |p| p.offset),
                tail_hash: parts.map_or(0, |p| p.tail_hash),
            };
            let path = file.path.clone();
            if let Some(data) = &r.offsets {
                let from = r.resumed.as_ref().map(|x| &x.key);
                // Hints only: a failure to keep them is no failure of the listing.
                self.write(|db| Ok(super::offsets::put(db.conn(), &path, &key, data, from).ok()));
            }
            let text = NewText {
                text: new_text,
                tools: new_tools,
            };
            match (r.resumed, parts.is_some()) {
                (Some(x), true) => self.write(|db| db.put(&path, &row, text, Some((x.id, x.key)))),
                (None, _) => self.write(|db| db.put(&path, &row, text, None)),
                // A resumed file that changed while it was read: left for the next listing.
                (Some(_), false) => {}
            }
        }
        if with_text {
            let join = |old: Option<String>, new: &str, torn: &str, whole: &str| match old {
                Some(mut t) => {
                    t.push_str(new);
                    t.push_str(torn);
                    t
                }
                None => whole.to_owned(),
            };
            info.all_messages_text = join(old_text, new_text, torn, &listing_text);
            info.tool_text = join(old_tools, new_tools, torn_tools, &listing_tools);
        }
        Ok(info)
    }
}

/// Puts the stored chunks of row `id` (which must be `len` bytes) before `s`; false when they
/// are missing or of another length.
fn prepend(chunks: &mut HashMap<i64, String>, id: i64, len: u64, s: &mut String) -> bool {
    if len == 0 {
        return true;
    }
    match chunks.remove(&id) {
        Some(mut t) if t.len() as u64 == len => {
            t.push_str(s);
            *s = t;
            true
        }
        _ => false,
    }
}
