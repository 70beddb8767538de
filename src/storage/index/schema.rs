//! The index database's schema: its version, one migration step per version, and the
//! statements an opened database must prepare (see [`super::db`]).

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
