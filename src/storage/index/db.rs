//! The index's SQLite file: schema, migrations, and the rows read and written.
//!
//! `DIR/index.sqlite3`, in WAL mode with a busy timeout, so that two grove processes can list at
//! once (readers never wait; writers take turns) and a killed process loses at most its own
//! uncommitted transaction. The schema version is `PRAGMA user_version`; each version has one
//! migration step from the one before. A file that is not a database, is damaged, or has a
//! schema newer than this grove knows is deleted and rebuilt (it is only a cache).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::row::{Fields, SELECT_ROWS, decode_row, read_row, row_hash, row_id, row_path};
pub use super::row::{FileKey, NewRow, NewText, Row, StateParts, StoredState, path_bytes, path_of};
pub use super::schema::SCHEMA_VERSION;

/// The cache file in the cache folder.
pub const DB_FILE: &str = "index.sqlite3";
/// The WAL is checkpointed and truncated after a commit that leaves it larger than this: a
/// growth's few pages are written once into the WAL and copied into the database once every
/// few dozen listings (a page written by several is copied once), and opening the database
/// reads at most this much WAL.
const WAL_CHECKPOINT_BYTES: u64 = 1 << 20;
/// How long a writer waits for another process's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Files of the hand-written index grove used before (removed when the database is created).
const OLD_FILES: &[&str] = &["index.bin", "index.jsonl"];
const OLD_PREFIXES: &[&str] = &["index-", "blobs-"];

pub(crate) mod aside;
pub(crate) mod open;

pub struct Db {
    conn: Connection,
    /// The database's file (for one written aside, the aside file; `aside` knows its place).
    pub path: PathBuf,
    /// Where a new database is written aside, until [`Db::publish`] puts it in place.
    aside: Option<AsideFile>,
}

/// The file a new database is written to ([`aside`]), removed when dropped (once linked in
/// place, the database stays under its place's name).
pub(crate) struct AsideFile {
    file: PathBuf,
    /// The database's place.
    place: PathBuf,
}

impl Drop for AsideFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
    }
}

/// The path of the database's `-wal` or `-shm` file.
pub(crate) fn with_suffix(db: &Path, suffix: &str) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Pages of SQLite's cache while all rows are read in one pass ([`Db::for_each_row`]).
const SCAN_CACHE_PAGES: i64 = 64;
/// Text chunks are at most this long (a large session's first scan is split).
const CHUNK_BYTES: usize = 1 << 20;
/// A row whose chunks exceed this count is rewritten as one (amortized: reads stay short).
pub const MAX_CHUNKS: i64 = 256;

impl Db {
    /// The connection, for tables kept by other modules ([`super::offsets`]).
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Every row, by path.
    pub fn rows(&self) -> rusqlite::Result<Vec<(PathBuf, Row)>> {
        let mut stmt = self.conn.prepare_cached(SELECT_ROWS)?;
        let rows = stmt.query_map([], read_row)?;
        rows.collect()
    }

    /// Calls `f` with every row's stored path and the row itself (read with [`decode_row`]
    /// only if `f` asks: a row of no file listed now needs only its id), in storage order,
    /// without collecting them.
    pub(crate) fn for_each_row(
        &self,
        mut f: impl FnMut(&[u8], StoredRow<'_, '_>) -> rusqlite::Result<()>,
    ) -> rusqlite::Result<()> {
        // One pass reads each page once: a small page cache for it (the default's 2 MB of
        // pages, ~500 of them touched for the first time, were a tenth of a warm listing's
        // page faults at 10k sessions), the cache set back after.
        let cache: i64 = self
            .conn
            .pragma_query_value(None, "cache_size", |r| r.get(0))?;
        self.conn
            .pragma_update(None, "cache_size", SCAN_CACHE_PAGES)?;
        let scan = (|| {
            let mut stmt = self.conn.prepare_cached(SELECT_ROWS)?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let path = row_path(r)?;
                f(path, StoredRow { r, path })?;
            }
            Ok(())
        })();
        self.conn.pragma_update(None, "cache_size", cache)?;
        scan
    }

    /// The row of one path.
    pub fn row(&self, path: &Path) -> rusqlite::Result<Option<Row>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{SELECT_ROWS} WHERE path = ?1"))?;
        Ok(stmt
            .query_row([path_bytes(path)], read_row)
            .optional()?
            .map(|(_, r)| r))
    }

    /// The stored text of a row (its chunks in order), if it is at most `max` bytes long.
    pub fn text(&self, id: i64, max: u64) -> rusqlite::Result<Option<String>> {
        self.chunks(Chunks::Text, id, max)
    }

    /// The stored chunks of a row in `table`, joined, if at most `max` bytes long.
    pub(crate) fn chunks(
        &self,
        table: Chunks,
        id: i64,
        max: u64,
    ) -> rusqlite::Result<Option<String>> {
        let t = table.name();
        let total: i64 = self.conn.query_row(
            &format!("SELECT coalesce(sum(octet_length(data)), 0) FROM {t} WHERE session = ?1"),
            [id],
            |r| r.get(0),
        )?;
        if total as u64 > max {
            return Ok(None);
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT data FROM {t} WHERE session = ?1 ORDER BY seq"
        ))?;
        let mut out = String::with_capacity(total as usize);
        let mut rows = stmt.query([id])?;
        while let Some(r) = rows.next()? {
            out.push_str(r.get_ref(0)?.as_str()?);
        }
        Ok(Some(out))
    }

    /// Every row's chunks in `table`, joined, by row id, for the rows in `wanted` (row id ->
    /// the most bytes it may have), in one pass over the table in storage order: a session's
    /// chunks were inserted in `seq` order, from 0 (a row whose chunks do not read so is left
    /// out, and rescanned).
    pub(crate) fn all_chunks(
        &self,
        table: Chunks,
        wanted: &HashMap<i64, u64>,
    ) -> rusqlite::Result<HashMap<i64, String>> {
        let mut out: HashMap<i64, (i64, String)> = Default::default();
        let mut bad = std::collections::HashSet::new();
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT session, seq, octet_length(data), data FROM {}",
            table.name()
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let Some(&max) = wanted.get(&id) else {
                continue;
            };
            if bad.contains(&id) {
                continue;
            }
            let seq: i64 = r.get(1)?;
            // The length first (from the record header): a crafted chunk larger than its
            // file is never loaded.
            let len: i64 = r.get(2)?;
            let (next, t) = out.entry(id).or_default();
            if seq != *next || (t.len() as u64).saturating_add(len.max(0) as u64) > max {
                bad.insert(id);
                out.remove(&id);
                continue;
            }
            *next += 1;
            t.push_str(r.get_ref(3)?.as_str()?);
        }
        Ok(out.into_iter().map(|(id, (_, t))| (id, t)).collect())
    }

    /// The stored state of a row: the state without nodes, and the node chunks in order, if
    /// together they are at most `max` bytes.
    pub fn state(&self, id: i64, max: u64) -> rusqlite::Result<Option<StoredState>> {
        let sizes: (i64, i64) = self.conn.query_row(
            "SELECT coalesce((SELECT length(data) FROM states WHERE session = ?1), 0),
                    (SELECT coalesce(sum(length(data)), 0) FROM state_nodes WHERE session = ?1)",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if (sizes.0 + sizes.1) as u64 > max {
            return Ok(None);
        }
        let state: Option<Vec<u8>> = self
            .conn
            .query_row("SELECT data FROM states WHERE session = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        let Some(state) = state else { return Ok(None) };
        let mut stmt = self
            .conn
            .prepare_cached("SELECT data FROM state_nodes WHERE session = ?1 ORDER BY seq")?;
        let nodes = stmt
            .query_map([id], |r| r.get::<_, Vec<u8>>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Some((state, nodes)))
    }

    /// Starts the listing's one write transaction (waits for another process's to end).
    pub fn begin(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")
    }

    /// Commits the listing's transaction; then, if the WAL has grown past
    /// [`WAL_CHECKPOINT_BYTES`], copies it into the database and truncates it (a checkpoint
    /// that cannot finish at once is left for a later commit: the WAL is still the database's).
    pub fn commit(&self) -> rusqlite::Result<()> {
        self.commit_part()?;
        let wal = with_suffix(&self.path, "-wal");
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_CHECKPOINT_BYTES) {
            // Without waiting: while another process reads, the checkpoint copies what it can
            // and the truncation is left to a later commit (a TRUNCATE checkpoint would wait
            // for the reader, up to the busy timeout).
            self.conn.busy_timeout(Duration::ZERO)?;
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
            self.conn.busy_timeout(BUSY_TIMEOUT)?;
        }
        Ok(())
    }

    /// Commits part of a listing's writes, leaving the WAL as it is (see [`Db::commit`]).
    pub fn commit_part(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("COMMIT")
    }

    pub fn rollback(&self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }

    /// Writes one file's row: a full row (`resumed_from` = `None`), or the row of a file
    /// resumed from the stored row with that key, whose text, tool text and nodes get one
    /// chunk more (`text` is then what the file added). Returns the bytes written (fields,
    /// text and state), or `None` when the stored row is no longer the one resumed from
    /// (another process wrote it meanwhile: its row stays).
    pub fn put(
        &self,
        path: &Path,
        row: &NewRow<'_>,
        text: NewText<'_>,
        resumed_from: Option<(i64, FileKey)>,
    ) -> rusqlite::Result<Option<u64>> {
        let pb = path_bytes(path);
        let appending = resumed_from.is_some();
        let id: i64 = match resumed_from {
            Some((id, old)) => {
                let still: Option<i64> = self
                    .conn
                    .query_row(
                        "SELECT id FROM sessions WHERE id = ?1 AND dev = ?2 AND ino = ?3
                         AND size = ?4 AND mtime_ns = ?5 AND ctime_ns = ?6",
                        params![
                            id,
                            old.dev as i64,
                            old.ino as i64,
                            old.size as i64,
                            old.mtime_ns,
                            old.ctime_ns
                        ],
                        |r| r.get(0),
                    )
                    .optional()?;
                if still.is_none() {
                    return Ok(None);
                }
                id
            }
            None => {
                let inserted: Option<i64> = self
                    .conn
                    .prepare_cached(
                        "INSERT INTO sessions(path, dev, ino, size, mtime_ns, ctime_ns, fields,
                         row_hash) VALUES (?1, 0, 0, 0, 0, 0, x'', 0)
                         ON CONFLICT(path) DO NOTHING RETURNING id",
                    )?
                    .query_row([&pb], |r| r.get(0))
                    .optional()?;
                match inserted {
                    // A new row has no chunks (a removed row's went with it: ON DELETE
                    // CASCADE), so nothing to delete: a cache's first fill skips three
                    // statements a session.
                    Some(id) => id,
                    None => {
                        let id = self
                            .conn
                            .prepare_cached(
                                "UPDATE sessions SET size = 0 WHERE path = ?1 RETURNING id",
                            )?
                            .query_row([&pb], |r| r.get(0))?;
                        for t in ["texts", "tools", "state_nodes"] {
                            self.conn
                                .prepare_cached(&format!("DELETE FROM {t} WHERE session = ?1"))?
                                .execute([id])?;
                        }
                        id
                    }
                }
            }
        };
        let mut written = 0u64;
        let (text_len, n) = self.add_chunks(Chunks::Text, id, text.text, appending)?;
        written += n;
        let (tools_len, n) = self.add_chunks(Chunks::Tools, id, text.tools, appending)?;
        written += n;
        if let Some(parts) = &row.state {
            // A new row's node chunks were removed above: none to count or remove again.
            let (next, count): (i64, i64) = if appending {
                self.conn
                    .prepare_cached(
                        "SELECT coalesce(max(seq) + 1, 0), count(*) FROM state_nodes
                         WHERE session = ?1",
                    )?
                    .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?
            } else {
                (0, 0)
            };
            let all;
            let nodes = if appending && count < MAX_CHUNKS {
                Some(parts.nodes_changed)
            } else {
                if appending {
                    self.conn
                        .prepare_cached("DELETE FROM state_nodes WHERE session = ?1")?
                        .execute([id])?;
                }
                // Folded or stored whole: all ids (a resume that settled without them is
                // never past MAX_CHUNKS; if it were, the row keeps no state).
                all = parts.nodes_all.and_then(|n| serde_json::to_vec(n).ok());
                all.as_deref()
            };
            match nodes {
                Some(nodes) if !nodes.is_empty() && nodes != b"{}" => {
                    self.conn
                        .prepare_cached(
                            "INSERT INTO state_nodes(session, seq, data) VALUES (?1, ?2, ?3)",
                        )?
                        .execute(params![id, next, nodes])?;
                    written += nodes.len() as u64;
                }
                Some(_) => {}
                None => {
                    self.conn
                        .prepare_cached("DELETE FROM states WHERE session = ?1")?
                        .execute([id])?;
                }
            }
            if nodes.is_some() {
                self.conn
                    .prepare_cached("INSERT OR REPLACE INTO states(session, data) VALUES (?1, ?2)")?
                    .execute(params![id, parts.rest])?;
                written += parts.rest.len() as u64;
            }
        } else {
            self.conn
                .prepare_cached("DELETE FROM state_nodes WHERE session = ?1")?
                .execute([id])?;
            self.conn
                .prepare_cached("DELETE FROM states WHERE session = ?1")?
                .execute([id])?;
        }
        let fields = Fields::of_new(row, text_len, tools_len).encode();
        written += fields.len() as u64 + 64;
        self.conn
            .prepare_cached(
                "UPDATE sessions SET dev = ?2, ino = ?3, size = ?4, mtime_ns = ?5, ctime_ns = ?6,
                fields = ?7, row_hash = ?8
             WHERE id = ?1",
            )?
            .execute(params![
                id,
                row.key.dev as i64,
                row.key.ino as i64,
                row.key.size as i64,
                row.key.mtime_ns,
                row.key.ctime_ns,
                fields,
                row_hash(&pb, &row.key, &fields) as i64,
            ])?;
        Ok(Some(written))
    }

    /// Adds `text` to a row's chunks in `table` (after the stored ones when `appending`, else
    /// as the only ones: the caller cleared them); returns the chunks' length now and the bytes
    /// written. Past [`MAX_CHUNKS`] the chunks are folded into one (amortized over as many
    /// growths), so a read stays a few chunks.
    fn add_chunks(
        &self,
        table: Chunks,
        id: i64,
        text: &str,
        appending: bool,
    ) -> rusqlite::Result<(u64, u64)> {
        if !appending {
            self.insert_chunks(table, id, 0, text)?;
            return Ok((text.len() as u64, text.len() as u64));
        }
        let t = table.name();
        let (next, count, len): (i64, i64, i64) = self
            .conn
            .prepare_cached(&format!(
                "SELECT coalesce(max(seq) + 1, 0), count(*), coalesce(sum(octet_length(data)), 0)
                 FROM {t} WHERE session = ?1"
            ))?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        let len = len as u64 + text.len() as u64;
        if text.is_empty() {
            return Ok((len, 0));
        }
        if count >= MAX_CHUNKS {
            let mut all = self.chunks(table, id, u64::MAX)?.unwrap_or_default();
            all.push_str(text);
            self.conn
                .prepare_cached(&format!("DELETE FROM {t} WHERE session = ?1"))?
                .execute([id])?;
            self.insert_chunks(table, id, 0, &all)?;
            return Ok((len, all.len() as u64));
        }
        self.insert_chunks(table, id, next, text)?;
        Ok((len, text.len() as u64))
    }

    fn insert_chunks(
        &self,
        table: Chunks,
        id: i64,
        first_seq: i64,
        text: &str,
    ) -> rusqlite::Result<()> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "INSERT INTO {}(session, seq, data) VALUES (?1, ?2, ?3)",
            table.name()
        ))?;
        let mut seq = first_seq;
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = rest.len().min(CHUNK_BYTES);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            stmt.execute(params![id, seq, &rest[..cut]])?;
            rest = &rest[cut..];
            seq += 1;
        }
        Ok(())
    }

    /// Lets `edit` change every row's fields, then stores them with a correct hash, as an
    /// attacker who knows the hash would after crafting rows: for tests that check the
    /// bounds, not the hash.
    #[doc(hidden)]
    pub fn edit_rows_for_tests(
        dir: &Path,
        mut edit: impl FnMut(&Path, &mut Row),
    ) -> rusqlite::Result<()> {
        let Some(db) = Db::open(dir) else {
            return Ok(());
        };
        let rows = db.rows()?;
        for (path, mut row) in rows {
            edit(&path, &mut row);
            let fields = Fields::of_row(&row).encode();
            let h = row_hash(&path_bytes(&path), &row.key, &fields);
            db.conn.execute(
                "UPDATE sessions SET fields = ?2, row_hash = ?3 WHERE id = ?1",
                params![row.id, fields, h as i64],
            )?;
        }
        Ok(())
    }

    /// Removes the rows of these paths (their files are gone).
    pub fn remove(&self, ids: &[i64]) -> rusqlite::Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached("DELETE FROM sessions WHERE id = ?1")?;
        for id in ids {
            stmt.execute([id])?;
        }
        Ok(())
    }
}

/// A row met by [`Db::for_each_row`], not yet decoded.
pub(crate) struct StoredRow<'a, 's> {
    r: &'a rusqlite::Row<'s>,
    path: &'a [u8],
}

impl StoredRow<'_, '_> {
    pub(crate) fn id(&self) -> rusqlite::Result<i64> {
        row_id(self.r)
    }

    /// The row, its fields decoded (see [`decode_row`]).
    pub(crate) fn decode(&self) -> rusqlite::Result<Row> {
        decode_row(self.r, self.path)
    }
}

/// The tables of chunks appended as a session grows.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Chunks {
    /// The searchable message text.
    Text,
    /// The tool-call text (also searched).
    Tools,
}

impl Chunks {
    fn name(self) -> &'static str {
        match self {
            Chunks::Text => "texts",
            Chunks::Tools => "tools",
        }
    }
}
