//! Pins and archive marks, per session (id and path).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::db::{StateDb, StateError, now_ms};
use crate::storage::index::db::{path_bytes, path_of};

/// A session as the state knows it: its header id and its file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionKey {
    pub id: String,
    pub path: PathBuf,
}

impl SessionKey {
    pub fn new(id: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        SessionKey {
            id: id.into(),
            path: path.into(),
        }
    }
}

/// What grove keeps about one session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    pub pinned: bool,
    pub archived: bool,
}

impl Flags {
    fn is_empty(self) -> bool {
        !self.pinned && !self.archived
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    Pinned,
    Archived,
}

impl Flag {
    fn column(self) -> &'static str {
        match self {
            Flag::Pinned => "pinned",
            Flag::Archived => "archived",
        }
    }

    pub fn set(self, flags: &mut Flags, value: bool) {
        match self {
            Flag::Pinned => flags.pinned = value,
            Flag::Archived => flags.archived = value,
        }
    }

    pub fn get(self, flags: Flags) -> bool {
        match self {
            Flag::Pinned => flags.pinned,
            Flag::Archived => flags.archived,
        }
    }
}

/// Every session's flags, read once, for looking up many sessions without I/O.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateSnapshot {
    /// By path, with the id the row was written for.
    by_path: HashMap<PathBuf, (String, Flags)>,
    /// Rows whose file is gone, by id: a session that moved is found here.
    moved: HashMap<String, Flags>,
}

impl StateSnapshot {
    /// The flags of a session: its own row, else the row of a file with its id that is gone.
    pub fn flags(&self, id: &str, path: &Path) -> Flags {
        match self.by_path.get(path) {
            Some((row_id, flags)) if row_id == id => *flags,
            _ => self.moved.get(id).copied().unwrap_or_default(),
        }
    }

    /// Records a change made (or about to be made) in the database.
    pub fn set(&mut self, key: &SessionKey, flag: Flag, value: bool) {
        let mut flags = self.flags(&key.id, &key.path);
        flag.set(&mut flags, value);
        // The moved row follows the session to its new path (as the write does).
        self.moved.remove(&key.id);
        if flags.is_empty() {
            self.by_path.remove(&key.path);
        } else {
            self.by_path
                .insert(key.path.clone(), (key.id.clone(), flags));
        }
    }

    /// The number of sessions with a flag set.
    pub fn len(&self) -> usize {
        self.by_path.len() + self.moved.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl StateDb {
    /// Every session row, as stored.
    pub fn session_rows(&self) -> Result<Vec<(SessionKey, Flags)>, StateError> {
        let read = || -> rusqlite::Result<Vec<(SessionKey, Flags)>> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT session_id, path, pinned, archived FROM sessions ORDER BY session_id, path",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    SessionKey {
                        id: r.get(0)?,
                        path: path_of(r.get(1)?),
                    },
                    Flags {
                        pinned: r.get::<_, i64>(2)? != 0,
                        archived: r.get::<_, i64>(3)? != 0,
                    },
                ))
            })?;
            rows.collect()
        };
        read().map_err(|e| self.sql_error(e))
    }

    /// Every session's flags, with the rows of files that are gone looked up by id.
    pub fn snapshot(&self) -> Result<StateSnapshot, StateError> {
        let mut snap = StateSnapshot::default();
        for (key, flags) in self.session_rows()? {
            if key.path.symlink_metadata().is_ok() {
                snap.by_path.insert(key.path, (key.id, flags));
            } else {
                snap.moved.insert(key.id, flags);
            }
        }
        Ok(snap)
    }

    /// The flags of one session (its row, or the row of its moved file).
    pub fn flags(&self, key: &SessionKey) -> Result<Flags, StateError> {
        let exact: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT pinned, archived FROM sessions WHERE session_id = ?1 AND path = ?2",
                params![key.id, path_bytes(&key.path)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.sql_error(e))?;
        if let Some((p, a)) = exact {
            return Ok(Flags {
                pinned: p != 0,
                archived: a != 0,
            });
        }
        let snap = self.snapshot()?;
        Ok(snap.moved.get(&key.id).copied().unwrap_or_default())
    }

    /// Sets one flag on sessions, in one transaction. A session with no row of its own takes
    /// over the row of a file with its id that is gone (it moved).
    pub fn set_flag(
        &mut self,
        keys: &[SessionKey],
        flag: Flag,
        value: bool,
    ) -> Result<(), StateError> {
        let now = now_ms();
        let column = flag.column();
        self.write(|tx| {
            for key in keys {
                let path = path_bytes(&key.path);
                let own: bool = tx
                    .query_row(
                        "SELECT 1 FROM sessions WHERE session_id = ?1 AND path = ?2",
                        params![key.id, path],
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
                if !own {
                    let mut stmt =
                        tx.prepare_cached("SELECT path FROM sessions WHERE session_id = ?1")?;
                    let others: Vec<Vec<u8>> = stmt
                        .query_map([&key.id], |r| r.get(0))?
                        .collect::<rusqlite::Result<_>>()?;
                    let moved = others
                        .into_iter()
                        .find(|p| path_of(p.clone()).symlink_metadata().is_err());
                    match moved {
                        Some(old) => {
                            tx.execute(
                                "UPDATE sessions SET path = ?3 WHERE session_id = ?1 AND path = ?2",
                                params![key.id, old, path],
                            )?;
                        }
                        None => {
                            tx.execute(
                                "INSERT INTO sessions(session_id, path, updated_ms) VALUES(?1, ?2, ?3)",
                                params![key.id, path, now],
                            )?;
                        }
                    }
                }
                tx.execute(
                    &format!(
                        "UPDATE sessions SET {column} = ?3, updated_ms = ?4 WHERE session_id = ?1 AND path = ?2"
                    ),
                    params![key.id, path, i64::from(value), now],
                )?;
                tx.execute(
                    "DELETE FROM sessions WHERE session_id = ?1 AND path = ?2 AND pinned = 0 AND archived = 0",
                    params![key.id, path],
                )?;
            }
            Ok(())
        })
    }

    /// Replaces a session row's flags as given (import).
    pub(crate) fn put_session(
        tx: &rusqlite::Transaction,
        key: &SessionKey,
        flags: Flags,
    ) -> rusqlite::Result<()> {
        let path = path_bytes(&key.path);
        if flags.is_empty() {
            tx.execute(
                "DELETE FROM sessions WHERE session_id = ?1 AND path = ?2",
                params![key.id, path],
            )?;
            return Ok(());
        }
        tx.execute(
            "INSERT INTO sessions(session_id, path, pinned, archived, updated_ms)
             VALUES(?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(session_id, path) DO UPDATE SET
                pinned = excluded.pinned, archived = excluded.archived,
                updated_ms = excluded.updated_ms",
            params![
                key.id,
                path,
                i64::from(flags.pinned),
                i64::from(flags.archived),
                now_ms()
            ],
        )?;
        Ok(())
    }
}

impl StateDb {
    /// The last session opened in the session view.
    pub fn last_opened(&self) -> Result<Option<SessionKey>, StateError> {
        let value: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM settings WHERE key = 'last_opened'",
                [],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(|e| self.sql_error(e))?;
        Ok(value.and_then(|v| serde_json::from_str(&v).ok()))
    }

    pub fn set_last_opened(&mut self, key: &SessionKey) -> Result<(), StateError> {
        let value = serde_json::to_string(key).unwrap_or_default();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO settings(key, value) VALUES('last_opened', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [value],
            )
            .map(drop)
        })
    }
}
