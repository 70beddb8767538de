//! [`Index::texts`]: the searchable text of listed sessions, read after the listing (the
//! browser shows the rows first), one session at a time, so that a caller that prepares each
//! text as it comes never holds more than a batch of them raw.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::db::{FileKey, Row};
use super::{Index, fits};

/// One session's stored text, as a listing with [`super::ListOptions::with_text`] gives it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StoredText {
    /// [`crate::model::info::SessionInfo::all_messages_text`].
    pub text: String,
    /// [`crate::model::info::SessionInfo::tool_text`].
    pub tools: String,
}

impl Index {
    /// Reads the stored text of each of `paths` whose row is current (its key equals the
    /// file's `stat`), in the order given, calling `on_text` with each as soon as it is read;
    /// `on_text` returns `false` to stop. Returns the paths whose text could not be read here
    /// (no row, a stale or damaged one, chunks of another length): a listing with text reads
    /// those from their files. Each text is allocated at its stored length, bounded by the
    /// file's size.
    pub fn texts(
        &self,
        paths: &[PathBuf],
        mut on_text: impl FnMut(&Path, StoredText) -> bool,
    ) -> Vec<PathBuf> {
        let Some(db) = &self.db else {
            return paths.to_vec();
        };
        let mut rows: HashMap<PathBuf, Row> = match db.rows() {
            Ok(rows) => rows.into_iter().collect(),
            Err(_) => return paths.to_vec(),
        };
        let mut missing = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            let read = rows.remove(path).and_then(|row| {
                let meta = fs::metadata(path).ok()?;
                let current = row.key == FileKey::of(&meta) && fits(&row, meta.len());
                if !current || row.info.is_none() {
                    return None;
                }
                let text = self.chunk_text("texts", row.id, row.text_len, &row.torn_text)?;
                let tools = self.chunk_text("tools", row.id, row.tools_len, &row.torn_tools)?;
                Some(StoredText { text, tools })
            });
            match read {
                Some(t) => {
                    if !on_text(path, t) {
                        missing.extend(paths[i + 1..].iter().cloned());
                        return missing;
                    }
                }
                None => missing.push(path.clone()),
            }
        }
        missing
    }

    /// The chunks of row `id` in `table` joined, then `torn`, if the chunks are exactly `len`
    /// bytes of UTF-8.
    fn chunk_text(&self, table: &str, id: i64, len: u64, torn: &str) -> Option<String> {
        let db = self.db.as_ref()?;
        let mut out = String::with_capacity(usize::try_from(len).ok()?.checked_add(torn.len())?);
        if len > 0 {
            let sql = format!("SELECT data FROM {table} WHERE session = ?1 ORDER BY seq");
            let mut stmt = db.conn().prepare_cached(&sql).ok()?;
            let mut rows = stmt.query([id]).ok()?;
            while let Some(r) = rows.next().ok()? {
                let chunk = r.get_ref(0).ok()?.as_str().ok()?;
                if (out.len() + chunk.len()) as u64 > len {
                    return None;
                }
                out.push_str(chunk);
            }
            if out.len() as u64 != len {
                return None;
            }
        }
        out.push_str(torn);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::index::ListOptions;
    use crate::storage::roots::SessionRoot;

    fn session(dir: &Path, name: &str, words: &str) -> PathBuf {
        let p = dir.join(format!("{name}.jsonl"));
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{name}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
        );
        let msg = format!(
            r#"{{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{words}","timestamp":1767225601000}}}}"#
        );
        let tool = r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"cargo test"}}],"timestamp":1767225602000}}"#;
        std::fs::write(&p, format!("{header}\n{msg}\n{tool}\n")).unwrap();
        p
    }

    /// The texts read after a listing without text equal a listing's with text; a file
    /// changed since (its row stale) and one never listed are given back to be read.
    #[test]
    fn texts_read_after_the_listing_equal_the_listing_with_text() {
        let tmp = tempfile::tempdir().unwrap();
        let sessions = tmp.path().join("sessions");
        std::fs::create_dir(&sessions).unwrap();
        let a = session(&sessions, "a", "Hello Wörld of search");
        let b = session(&sessions, "b", "second session");
        let roots = [SessionRoot {
            path: sessions.clone(),
            agent: None,
        }];
        let mut index = Index::open_at(&tmp.path().join("cache"));
        index.list(&roots, ListOptions::default(), |_| {});
        let with_text = index.list(&roots, ListOptions { with_text: true }, |_| {});
        let mut got = Vec::new();
        let missing = index.texts(&[a.clone(), b.clone()], |p, t| {
            got.push((p.to_path_buf(), t));
            true
        });
        assert!(missing.is_empty(), "{missing:?}");
        for (path, t) in &got {
            let s = with_text.sessions.iter().find(|s| &s.path == path).unwrap();
            assert_eq!(t.text, s.all_messages_text);
            assert_eq!(t.tools, s.tool_text);
            assert!(!t.tools.is_empty() && !t.text.is_empty(), "{t:?}");
            assert_eq!(t.text.capacity(), t.text.len(), "allocated at its length");
        }
        // Changed since the listing, and never listed.
        std::fs::write(&a, "changed").unwrap();
        let c = sessions.join("c.jsonl");
        let missing = index.texts(&[a.clone(), b.clone(), c.clone()], |_, _| true);
        assert_eq!(missing, [a.clone(), c]);
        // Stopped after the first.
        let missing = index.texts(&[b.clone(), a.clone()], |_, _| false);
        assert_eq!(missing, [a]);
    }
}
