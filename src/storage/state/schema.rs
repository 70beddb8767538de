//! The state database's schema and its migrations (`PRAGMA user_version`).

use rusqlite::{Connection, TransactionBehavior};

/// `PRAGMA user_version` of the schema below.
pub(crate) const SCHEMA_VERSION: i64 = 1;

/// Migration steps: `MIGRATIONS[v]` takes the schema from version `v` to `v + 1`. A step is
/// never edited once released; a change is a new step.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1: the first schema.
    "CREATE TABLE sessions(
        session_id TEXT NOT NULL,
        path BLOB NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        archived INTEGER NOT NULL DEFAULT 0,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY(session_id, path)
    ) WITHOUT ROWID;
    CREATE INDEX sessions_by_path ON sessions(path);
    CREATE TABLE bookmarks(
        session_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        path BLOB NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY(session_id, entry_id)
    ) WITHOUT ROWID;
    CREATE TABLE bookmark_tags(
        session_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        tag TEXT NOT NULL,
        PRIMARY KEY(session_id, entry_id, tag),
        FOREIGN KEY(session_id, entry_id) REFERENCES bookmarks(session_id, entry_id)
            ON DELETE CASCADE
    ) WITHOUT ROWID;
    CREATE TABLE settings(
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;",
];
const _: () = assert!(MIGRATIONS.len() as i64 == SCHEMA_VERSION);

/// The tables a database at [`SCHEMA_VERSION`] has (checked on open: a file of the right
/// version without them is not ours or is damaged).
const TABLES: &[&str] = &["sessions", "bookmarks", "bookmark_tags", "settings"];

/// Why the schema could not be brought up to date.
#[derive(Debug)]
pub(crate) enum MigrateError {
    Sql(rusqlite::Error),
    /// Written by a newer grove.
    Newer(i64),
    /// Not grove's state, or damaged.
    Foreign(String),
}

impl From<rusqlite::Error> for MigrateError {
    fn from(e: rusqlite::Error) -> Self {
        MigrateError::Sql(e)
    }
}

/// Brings the schema to [`SCHEMA_VERSION`], one step per version, in one write transaction
/// (another process migrating at the same time waits, then finds it done).
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), MigrateError> {
    conn.pragma_update(None, "foreign_keys", "ON")?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(MigrateError::Newer(version));
    }
    if version < SCHEMA_VERSION {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Re-read inside the write lock: another process may have migrated meanwhile.
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version == 0 {
            let tables: i64 =
                tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
            if tables > 0 {
                return Err(MigrateError::Foreign(
                    "it has tables but no schema version: not grove's state".into(),
                ));
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
    }
    for table in TABLES {
        let found: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |r| r.get(0),
        )?;
        if found != 1 {
            return Err(MigrateError::Foreign(format!(
                "the table `{table}` is missing"
            )));
        }
    }
    Ok(())
}
