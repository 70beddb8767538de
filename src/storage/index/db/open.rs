//! Opening the index database: created with its schema, migrated, or rebuilt when it is
//! damaged, foreign or of another page size.

use std::path::Path;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::super::schema::{MIGRATIONS, PREPARE_CHECKS, SCHEMA_VERSION, page_size_is_ours};
use super::*;

fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

impl Db {
    /// Opens (creating or rebuilding as needed) the database in `dir`. `None` when even a new
    /// one cannot be made there (the index then works as disabled).
    pub fn open(dir: &Path) -> Option<Db> {
        let path = dir.join(DB_FILE);
        match Db::try_open(&path) {
            Ok(db) => return Some(db),
            Err(OpenError::Rebuild) => {}
            Err(OpenError::Sql(e)) if is_damage(&e) => {}
            Err(OpenError::Sql(_)) => return None,
        }
        remove_db_files(&path);
        Db::try_open(&path).ok()
    }

    fn try_open(path: &Path) -> Result<Db, OpenError> {
        Db::try_open_as(path, Journal::Wal)
    }

    /// Opens (creating) a database written aside at `path` (see [`super::aside`]).
    pub(super) fn open_aside_file(path: &Path) -> Option<Db> {
        Db::try_open_as(path, Journal::Aside).ok()
    }

    /// Removes the files of the hand-written index of earlier versions in `dir`.
    pub(super) fn remove_old_files(dir: &Path) {
        remove_old_index_files(dir);
    }

    /// Opens (creating) the database at `path` with `journal`.
    fn try_open_as(path: &Path, journal: Journal) -> Result<Db, OpenError> {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let fresh = !path.exists();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        if !page_size_is_ours(&conn)? {
            return Err(OpenError::Rebuild);
        }
        match journal {
            Journal::Wal => {
                // WAL: readers do not block the writer; NORMAL sync: a crash may lose the last
                // transaction, never corrupt the file (a lost transaction is a rescan).
                conn.pragma_update(None, "journal_mode", "WAL")?;
                conn.pragma_update(None, "synchronous", "NORMAL")?;
                // Closing does not checkpoint: a small listing's pages stay in the WAL, and
                // several listings' pages are copied into the database once ([`Db::commit`]
                // does it when the WAL has grown past WAL_CHECKPOINT_BYTES), instead of every
                // page twice per process.
                conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
                // Nor does a commit on its own: a listing commits as it goes
                // ([`Db::commit_part`]), and each checkpoint syncs the file; the listing's
                // last commit checkpoints.
                conn.pragma_update(None, "wal_autocheckpoint", 0)?;
            }
            Journal::Aside => {
                // A file no other process opens, put in place only once complete
                // ([`super::aside`]): each page written once, no sync until then. The journal
                // is kept in memory so that a rollback still works.
                conn.pragma_update(None, "journal_mode", "MEMORY")?;
                conn.pragma_update(None, "synchronous", "OFF")?;
            }
        }
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if !(0..=SCHEMA_VERSION).contains(&version) {
            return Err(OpenError::Rebuild);
        }
        if version < SCHEMA_VERSION {
            let tx = conn.unchecked_transaction()?;
            // Re-read inside the write lock: another process may have migrated meanwhile.
            let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if version == 0 {
                let tables: i64 =
                    tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
                if tables > 0 {
                    // Tables without a version: not ours.
                    return Err(OpenError::Rebuild);
                }
            }
            for step in MIGRATIONS
                .iter()
                .skip(usize::try_from(version).unwrap_or(0))
            {
                tx.execute_batch(step)?;
            }
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            tx.commit()?;
            if fresh && let Some(dir) = path.parent() {
                remove_old_index_files(dir);
            }
        }
        // Every statement used must prepare: a table of the right name with other columns
        // (crafted or damaged) is rebuilt rather than half used.
        for sql in PREPARE_CHECKS {
            conn.prepare_cached(sql).map_err(|_| OpenError::Rebuild)?;
        }
        Ok(Db {
            conn,
            path: path.to_path_buf(),
            aside: None,
        })
    }
}

/// How an opened database journals its writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Journal {
    /// The database in place, shared with other grove processes.
    Wal,
    /// A new database written aside by one process (see [`super::aside`]).
    Aside,
}

/// Why a database could not be opened.
enum OpenError {
    /// A schema this grove cannot use (newer, foreign, or tables that do not fit): rebuild.
    Rebuild,
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> Self {
        OpenError::Sql(e)
    }
}

/// Deletes the database and its WAL files.
pub fn remove_db_files(path: &Path) {
    let _ = std::fs::remove_file(path);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(with_suffix(path, suffix));
    }
}

/// The files of the hand-written index of earlier versions.
fn remove_old_index_files(dir: &Path) {
    for f in OLD_FILES {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if OLD_PREFIXES.iter().any(|p| name.starts_with(p))
            && (name.ends_with(".journal") || name.ends_with(".bin"))
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
