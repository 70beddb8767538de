//! Notes and tags on bookmarks (pi's labels), per session id and entry id.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::db::{StateDb, StateError, now_ms};
use crate::storage::index::db::{path_bytes, path_of};

/// A labelled entry: the session's header id and the entry's id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BookmarkKey {
    pub session_id: String,
    pub entry_id: String,
}

/// What grove keeps about a bookmark.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookmarkMeta {
    /// The session's file when the note was last written (informational: the key is the id).
    pub path: PathBuf,
    pub note: String,
    /// Sorted, without duplicates.
    pub tags: Vec<String>,
}

impl BookmarkMeta {
    pub fn is_empty(&self) -> bool {
        self.note.is_empty() && self.tags.is_empty()
    }
}

/// A change to one bookmark's note and tags.
#[derive(Clone, Debug, Default)]
pub struct BookmarkEdit {
    /// `Some("")` clears the note; `None` keeps it.
    pub note: Option<String>,
    pub add_tags: Vec<String>,
    pub remove_tags: Vec<String>,
}

impl StateDb {
    /// Every bookmark's note and tags.
    pub fn bookmarks(&self) -> Result<HashMap<BookmarkKey, BookmarkMeta>, StateError> {
        let read = || -> rusqlite::Result<HashMap<BookmarkKey, BookmarkMeta>> {
            let mut out = HashMap::new();
            let mut stmt = self
                .conn
                .prepare_cached("SELECT session_id, entry_id, path, note FROM bookmarks")?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    BookmarkKey {
                        session_id: r.get(0)?,
                        entry_id: r.get(1)?,
                    },
                    BookmarkMeta {
                        path: path_of(r.get(2)?),
                        note: r.get(3)?,
                        tags: Vec::new(),
                    },
                ))
            })?;
            for row in rows {
                let (k, m) = row?;
                out.insert(k, m);
            }
            let mut stmt = self.conn.prepare_cached(
                "SELECT session_id, entry_id, tag FROM bookmark_tags ORDER BY tag",
            )?;
            let tags = stmt.query_map([], |r| {
                Ok((
                    BookmarkKey {
                        session_id: r.get(0)?,
                        entry_id: r.get(1)?,
                    },
                    r.get::<_, String>(2)?,
                ))
            })?;
            for t in tags {
                let (k, tag) = t?;
                if let Some(m) = out.get_mut(&k) {
                    m.tags.push(tag);
                }
            }
            Ok(out)
        };
        read().map_err(|e| self.sql_error(e))
    }

    /// Changes a bookmark's note and tags; returns what it holds now. A bookmark left with
    /// neither is removed.
    pub fn edit_bookmark(
        &mut self,
        key: &BookmarkKey,
        path: &std::path::Path,
        edit: &BookmarkEdit,
    ) -> Result<BookmarkMeta, StateError> {
        let path = path.to_owned();
        self.write(|tx| {
            let note: Option<String> = tx
                .query_row(
                    "SELECT note FROM bookmarks WHERE session_id = ?1 AND entry_id = ?2",
                    params![key.session_id, key.entry_id],
                    |r| r.get(0),
                )
                .optional()?;
            let mut tags: BTreeSet<String> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT tag FROM bookmark_tags WHERE session_id = ?1 AND entry_id = ?2",
                )?;
                stmt.query_map(params![key.session_id, key.entry_id], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?
            };
            let note = edit.note.clone().or(note).unwrap_or_default();
            tags.extend(edit.add_tags.iter().cloned());
            for t in &edit.remove_tags {
                tags.remove(t);
            }
            let meta = BookmarkMeta {
                path: path.clone(),
                note,
                tags: tags.into_iter().collect(),
            };
            StateDb::put_bookmark(tx, key, &meta)?;
            Ok(meta)
        })
    }

    /// Replaces a bookmark's note and tags as given (also for import).
    pub(crate) fn put_bookmark(
        tx: &rusqlite::Transaction,
        key: &BookmarkKey,
        meta: &BookmarkMeta,
    ) -> rusqlite::Result<()> {
        tx.execute(
            "DELETE FROM bookmarks WHERE session_id = ?1 AND entry_id = ?2",
            params![key.session_id, key.entry_id],
        )?;
        if meta.is_empty() {
            return Ok(());
        }
        tx.execute(
            "INSERT INTO bookmarks(session_id, entry_id, path, note, updated_ms)
             VALUES(?1, ?2, ?3, ?4, ?5)",
            params![
                key.session_id,
                key.entry_id,
                path_bytes(&meta.path),
                meta.note,
                now_ms()
            ],
        )?;
        for tag in &meta.tags {
            tx.execute(
                "INSERT OR IGNORE INTO bookmark_tags(session_id, entry_id, tag) VALUES(?1, ?2, ?3)",
                params![key.session_id, key.entry_id, tag],
            )?;
        }
        Ok(())
    }
}
