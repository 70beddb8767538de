//! grove's own state: pins, archive marks, bookmark notes and tags, the last-opened session.
//!
//! An SQLite database (`state.sqlite3`) in the platform data folder (`$XDG_DATA_HOME/grove`
//! on Linux, or `$GROVE_DATA_DIR`), separate from the index cache: the cache can be deleted,
//! this cannot. Session files are never written for any of it.
//!
//! - Rows are keyed by session id **and** path: a session whose file moved (same id, old path
//!   gone) is found again by its id, and its row follows it on the next write.
//! - WAL mode, a busy timeout and `BEGIN IMMEDIATE` writes: two grove processes at once take
//!   turns, neither loses the other's change.
//! - `PRAGMA user_version` is the schema version, with one migration step per version.
//! - A damaged file is **not** rebuilt (it holds the user's data): opening fails with an error
//!   naming the path and what to do.
//! - [`backup`] exports and imports the whole state as JSON.

pub mod backup;
mod bookmarks;
mod db;
mod schema;
mod sessions;

pub use bookmarks::{BookmarkEdit, BookmarkKey, BookmarkMeta};
pub use sessions::{Flag, Flags, SessionKey, StateSnapshot};

pub use db::{DB_FILE, StateDb, StateError, data_dir, db_path};

#[cfg(test)]
mod tests;
