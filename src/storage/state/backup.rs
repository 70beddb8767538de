//! `grove state export` / `import`: the whole state as one JSON document.
//!
//! ```json
//! { "groveState": 1, "sessions": [{"id": "…", "path": "…", "pinned": true, "archived": false}],
//!   "bookmarks": [{"sessionId": "…", "entryId": "…", "path": "…", "note": "…", "tags": ["…"]}],
//!   "lastOpened": {"id": "…", "path": "…"} }
//! ```
//! Import merges: each session and bookmark in the file replaces the one with its key, others
//! are kept. The file is untrusted input: its size is bounded and every field is checked.

use serde::{Deserialize, Serialize};

use super::bookmarks::{BookmarkKey, BookmarkMeta};
use super::db::{StateDb, StateError};
use super::sessions::{Flags, SessionKey};

/// The format version written in `groveState`.
pub const FORMAT: u32 = 1;
/// An import file larger than this is refused (the state of a very heavy user is a few MB).
pub const MAX_IMPORT_BYTES: u64 = 256 << 20;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Backup {
    pub grove_state: u32,
    #[serde(default)]
    pub sessions: Vec<SessionBackup>,
    #[serde(default)]
    pub bookmarks: Vec<BookmarkBackup>,
    #[serde(default)]
    pub last_opened: Option<SessionKey>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionBackup {
    pub id: String,
    pub path: String,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub archived: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BookmarkBackup {
    pub session_id: String,
    pub entry_id: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub note: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// What an import changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub sessions: usize,
    pub bookmarks: usize,
}

impl StateDb {
    /// The whole state, in a stable order.
    pub fn export(&self) -> Result<Backup, StateError> {
        let sessions = self
            .session_rows()?
            .into_iter()
            .map(|(k, f)| SessionBackup {
                id: k.id,
                path: k.path.to_string_lossy().into_owned(),
                pinned: f.pinned,
                archived: f.archived,
            })
            .collect();
        let mut marks: Vec<(BookmarkKey, BookmarkMeta)> = self.bookmarks()?.into_iter().collect();
        marks.sort_by(|a, b| a.0.cmp(&b.0));
        let bookmarks = marks
            .into_iter()
            .map(|(k, m)| BookmarkBackup {
                session_id: k.session_id,
                entry_id: k.entry_id,
                path: m.path.to_string_lossy().into_owned(),
                note: m.note,
                tags: m.tags,
            })
            .collect();
        Ok(Backup {
            grove_state: FORMAT,
            sessions,
            bookmarks,
            last_opened: self.last_opened()?,
        })
    }

    /// Merges a backup into the state, in one transaction (all of it or nothing).
    pub fn import(&mut self, backup: &Backup) -> Result<Imported, StateError> {
        if backup.grove_state != FORMAT {
            return Err(StateError::Import(format!(
                "groveState is {}, this grove reads {FORMAT}",
                backup.grove_state
            )));
        }
        for s in &backup.sessions {
            if s.id.is_empty() || s.path.is_empty() {
                return Err(StateError::Import("a session without an id or path".into()));
            }
        }
        for b in &backup.bookmarks {
            if b.session_id.is_empty() || b.entry_id.is_empty() {
                return Err(StateError::Import(
                    "a bookmark without a sessionId or entryId".into(),
                ));
            }
        }
        let last = backup
            .last_opened
            .as_ref()
            .map(|k| serde_json::to_string(k).unwrap_or_default());
        self.write(|tx| {
            for s in &backup.sessions {
                let key = SessionKey::new(s.id.clone(), s.path.clone());
                let flags = Flags {
                    pinned: s.pinned,
                    archived: s.archived,
                };
                StateDb::put_session(tx, &key, flags)?;
            }
            for b in &backup.bookmarks {
                let key = BookmarkKey {
                    session_id: b.session_id.clone(),
                    entry_id: b.entry_id.clone(),
                };
                let mut tags = b.tags.clone();
                tags.sort();
                tags.dedup();
                let meta = BookmarkMeta {
                    path: b.path.clone().into(),
                    note: b.note.clone(),
                    tags,
                };
                StateDb::put_bookmark(tx, &key, &meta)?;
            }
            if let Some(v) = &last {
                tx.execute(
                    "INSERT INTO settings(key, value) VALUES('last_opened', ?1)
                     ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    [v],
                )?;
            }
            Ok(())
        })?;
        Ok(Imported {
            sessions: backup.sessions.len(),
            bookmarks: backup.bookmarks.len(),
        })
    }
}

/// Reads a backup file (bounded in size; a clear error naming the file otherwise).
pub fn read_backup(path: &std::path::Path) -> Result<Backup, StateError> {
    use std::io::Read;
    let io = |source| StateError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    file.take(MAX_IMPORT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > MAX_IMPORT_BYTES {
        return Err(StateError::Import(format!(
            "{}: larger than {} MiB, not a grove state export",
            path.display(),
            MAX_IMPORT_BYTES >> 20
        )));
    }
    serde_json::from_str(&text).map_err(|e| {
        StateError::Import(format!("{}: not a grove state export: {e}", path.display()))
    })
}
