//! The state database's connection: opening (with the damage checks and the migrations), the
//! write transaction every change goes through, the errors.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::schema;

/// The database file in the data folder.
pub const DB_FILE: &str = "state.sqlite3";
/// How long a writer waits for another process's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the state database cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("no data folder for grove's state (set HOME, XDG_DATA_HOME or GROVE_DATA_DIR)")]
    NoDataDir,
    #[error(
        "grove's state database {} is damaged ({detail}); it is left as it is, since it holds your pins, archive marks and bookmark notes. Restore it from a backup (`grove state import FILE` after moving it aside), or move it aside to start afresh",
        path.display()
    )]
    Damaged { path: PathBuf, detail: String },
    #[error(
        "grove's state database {} has schema version {version}, newer than this grove knows ({known}); update grove",
        path.display()
    )]
    Newer {
        path: PathBuf,
        version: i64,
        known: i64,
    },
    #[error("grove's state database {}: {source}", path.display())]
    Sql {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Import(String),
}

/// The folder the state lives in: `$GROVE_DATA_DIR`, else the platform data folder.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("GROVE_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "grove").map(|d| d.data_dir().to_path_buf())
}

/// The state database path (whether or not it exists yet).
pub fn db_path() -> Result<PathBuf, StateError> {
    data_dir()
        .map(|d| d.join(DB_FILE))
        .ok_or(StateError::NoDataDir)
}

/// An open state database.
pub struct StateDb {
    pub(super) conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for StateDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateDb").field("path", &self.path).finish()
    }
}

pub(super) fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

impl StateDb {
    /// Opens (creating it if needed) the state database in the data folder.
    pub fn open() -> Result<StateDb, StateError> {
        StateDb::open_at(&db_path()?)
    }

    /// Opens (creating it if needed) the state database at `path`.
    pub fn open_at(path: &Path) -> Result<StateDb, StateError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| StateError::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        let sql = |source: rusqlite::Error| {
            if is_damage(&source) {
                StateError::Damaged {
                    path: path.to_owned(),
                    detail: source.to_string(),
                }
            } else {
                StateError::Sql {
                    path: path.to_owned(),
                    source,
                }
            }
        };
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        // The first statement that reads the file: a file that is not a database fails here.
        let check: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(sql)?;
        if check != "ok" {
            return Err(StateError::Damaged {
                path: path.to_owned(),
                detail: check,
            });
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        // FULL: a pin the user saw being made survives a power cut.
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sql)?;
        schema::migrate(&mut conn).map_err(|e| match e {
            schema::MigrateError::Sql(e) => sql(e),
            schema::MigrateError::Newer(version) => StateError::Newer {
                path: path.to_owned(),
                version,
                known: schema::SCHEMA_VERSION,
            },
            schema::MigrateError::Foreign(detail) => StateError::Damaged {
                path: path.to_owned(),
                detail,
            },
        })?;
        Ok(StateDb {
            conn,
            path: path.to_owned(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn sql_error(&self, source: rusqlite::Error) -> StateError {
        if is_damage(&source) {
            StateError::Damaged {
                path: self.path.clone(),
                detail: source.to_string(),
            }
        } else {
            StateError::Sql {
                path: self.path.clone(),
                source,
            }
        }
    }

    /// Runs `f` in one write transaction, taken at once (`BEGIN IMMEDIATE`): another process
    /// writing waits for it (busy timeout) instead of failing half-way.
    pub(super) fn write<T>(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction) -> rusqlite::Result<T>,
    ) -> Result<T, StateError> {
        let result = (|| {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        })();
        result.map_err(|e| self.sql_error(e))
    }
}

/// Milliseconds since the epoch, for the rows' `updated_ms`.
pub(super) fn now_ms() -> i64 {
    crate::storage::append::now_ms()
}
