//! The index database's schema: its version, one migration step per version, and the
//! statements an opened database must prepare (see [`super::db`]).

use rusqlite::Connection;

use super::row::SELECT_ROWS;

/// `PRAGMA user_version` of the schema below.
pub const SCHEMA_VERSION: i64 = 3;

/// Migration steps: `MIGRATIONS[v]` takes the schema from version `v` to `v + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
    // 0 -> 1: the first schema.
    "CREATE TABLE sessions(
        id INTEGER PRIMARY KEY,
        path BLOB NOT NULL UNIQUE,
        dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
        head_hash INTEGER NOT NULL,
        problem TEXT,
        detected_agent INTEGER,
        info_id TEXT, cwd TEXT, name TEXT, parent_session_path TEXT,
        created_ms INTEGER, modified_ms INTEGER, message_count INTEGER,
        first_message TEXT, version INTEGER, entry_count INTEGER, leaf_count INTEGER,
        label_count INTEGER, has_name INTEGER, workflow TEXT, summary TEXT,
        total_tokens INTEGER, cost REAL, parse_issues INTEGER, first_issue TEXT,
        text_len INTEGER NOT NULL DEFAULT 0,
        torn_text TEXT NOT NULL DEFAULT '',
        state BLOB,
        resume_offset INTEGER NOT NULL DEFAULT 0,
        tail_hash INTEGER NOT NULL DEFAULT 0,
        row_hash INTEGER NOT NULL DEFAULT 0,
        tool_text TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE texts(
        session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY(session, seq)
    ) WITHOUT ROWID;
    CREATE TABLE state_nodes(
        session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY(session, seq)
    ) WITHOUT ROWID;",
    // 1 -> 2: the last turn's stop reason and model; every row is read again (no stored state
    // to resume from: the cost now counts `usage` entries too).
    "ALTER TABLE sessions ADD COLUMN last_stop_reason TEXT;
    ALTER TABLE sessions ADD COLUMN model TEXT;
    UPDATE sessions SET state = NULL, row_hash = 0;
    DELETE FROM state_nodes;",
    // 2 -> 3 (issue "Storage", round four): the listing fields in one blob, the scan state in
    // a table of its own, the tool-call text in chunks like the text. Every row is read again.
    // Chunks are rowid tables: a growth's chunk goes at the end of the table (SQLite's quick
    // append) and a small index entry into (session, seq), where a WITHOUT ROWID table of
    // KB-long records split and rebalanced several pages a growth.
    "DROP TABLE texts;
    DELETE FROM state_nodes;
    DROP TABLE sessions;
    CREATE TABLE sessions(
        id INTEGER PRIMARY KEY,
        path BLOB NOT NULL UNIQUE,
        dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
        fields BLOB NOT NULL,
        row_hash INTEGER NOT NULL
    );
    CREATE TABLE states(
        session INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        data BLOB NOT NULL
    );
    CREATE TABLE texts(
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        UNIQUE(session, seq)
    );
    CREATE TABLE tools(
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        UNIQUE(session, seq)
    );",
];
const _: () = assert!(MIGRATIONS.len() as i64 == SCHEMA_VERSION);

/// Statements that must prepare on an opened database (each table with the columns used).
pub(super) const PREPARE_CHECKS: &[&str] = &[
    SELECT_ROWS,
    "SELECT session, data FROM states",
    "SELECT session, seq, data FROM texts",
    "SELECT session, seq, data FROM tools",
    "SELECT session, seq, data FROM state_nodes",
];

/// The database's page size: the file system's block size. A growth of a session changes a
/// handful of pages (its row, its state, the last page of each chunk table and of their
/// indexes, the header), each written whole, so smaller pages write fewer bytes; but a page
/// smaller than a block costs the kernel more for each one written to a new file (every 2 KB
/// page that starts a 4 KB block had the block's other half zeroed first, and each half took a
/// `pwrite` of its own: 17.5% of a 10k fill's CPU was `pwrite`). Measured on the real-pi 1k
/// corpus (docs/bench.md, round twelve): a ~4.1 KB growth writes ~25 KB with 2 KB pages,
/// ~29 KB with 4 KB pages, 41–57 KB with 8 KB pages; filling the cache took 6% less CPU with
/// 4 KB pages than with 2 KB (3.6% at 10k), and the warm listing reads half the pages.
pub(super) const PAGE_SIZE: i64 = 4096;

/// Sets the page size of an empty database; false for a cache made with another (rebuilt).
///
/// The page count is asked first: it reads the file's header, and with it the page size. Asked
/// first, the page size is what the connection assumed when it opened the file, which is
/// SQLite's default if the file was still empty then. A second process that opened the file
/// while the first was creating it then took the new database for one of another page size,
/// and removed it from under the first.
pub(super) fn page_size_is_ours(conn: &Connection) -> rusqlite::Result<bool> {
    let pages: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0))?;
    let page_size: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0))?;
    if page_size == PAGE_SIZE {
        return Ok(true);
    }
    if pages > 0 {
        return Ok(false);
    }
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process that opened the file while another was creating the database (still empty
    /// then) takes the new database for its own page size, not for a foreign cache.
    #[test]
    fn a_database_created_after_the_file_was_opened_is_not_taken_for_a_foreign_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite3");
        let early = Connection::open(&path).unwrap();
        let creator = Connection::open(&path).unwrap();
        assert!(page_size_is_ours(&creator).unwrap());
        creator.pragma_update(None, "journal_mode", "WAL").unwrap();
        creator.execute_batch(MIGRATIONS[0]).unwrap();
        assert!(page_size_is_ours(&early).unwrap());
        let size: i64 = early
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .unwrap();
        assert_eq!(size, PAGE_SIZE);
    }

    /// A cache made with another page size is one to rebuild.
    #[test]
    fn a_cache_of_another_page_size_is_not_ours() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite3");
        let old = Connection::open(&path).unwrap();
        old.pragma_update(None, "page_size", 2048).unwrap();
        old.execute_batch("CREATE TABLE t(x)").unwrap();
        drop(old);
        assert!(!page_size_is_ours(&Connection::open(&path).unwrap()).unwrap());
    }
}
