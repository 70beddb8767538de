//! [`Index::texts`]: the searchable text of listed sessions, read after the listing (the
//! browser shows the rows first), one session at a time into buffers used again for each, so
//! that a caller that keeps each text in its own (prepared) form never holds them raw.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::db::{FileKey, Row};
use super::{Index, fits};

impl Index {
    /// Reads the stored text of each of `paths` whose row is current (its key equals the
    /// file's `stat`), in the order given, calling `on_text(path, text, tool_text)` with each
    /// as soon as it is read (what a listing with [`super::ListOptions::with_text`] gives in
    /// `all_messages_text` and `tool_text`); `on_text` returns `false` to stop. Returns the
    /// paths whose text could not be read here (no row, a stale or damaged one, chunks of
    /// another length): a listing with text reads those from their files.
    pub fn texts(
        &self,
        paths: &[PathBuf],
        mut on_text: impl FnMut(&Path, &str, &str) -> bool,
    ) -> Vec<PathBuf> {
        let Some(db) = &self.db else {
            return paths.to_vec();
        };
        let mut rows: HashMap<PathBuf, Row> = match db.rows() {
            Ok(rows) => rows.into_iter().collect(),
            Err(_) => return paths.to_vec(),
        };
        let (mut text, mut tools) = (String::new(), String::new());
        let mut missing = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            let read = rows.remove(path).is_some_and(|row| {
                let Ok(meta) = fs::metadata(path) else {
                    return false;
                };
                row.key == FileKey::of(&meta)
                    && fits(&row, meta.len())
                    && row.info.is_some()
                    && self.chunk_text(&mut text, "texts", row.id, row.text_len, &row.torn_text)
                    && self.chunk_text(&mut tools, "tools", row.id, row.tools_len, &row.torn_tools)
            });
            if !read {
                missing.push(path.clone());
            } else if !on_text(path, &text, &tools) {
                missing.extend(paths[i + 1..].iter().cloned());
                break;
            }
            // A large session's text is not kept around for the small ones after it.
            for buf in [&mut text, &mut tools] {
                if buf.capacity() > 8 << 20 {
                    *buf = String::new();
                }
            }
        }
        missing
    }

    /// Puts the chunks of row `id` in `table` joined, then `torn`, in `out`, if the chunks are
    /// exactly `len` bytes of UTF-8 (`len` is bounded by the file's size: see [`fits`]).
    fn chunk_text(&self, out: &mut String, table: &str, id: i64, len: u64, torn: &str) -> bool {
        out.clear();
        let Some(db) = self.db.as_ref() else {
            return false;
        };
        let Some(total) = usize::try_from(len)
            .ok()
            .and_then(|n| n.checked_add(torn.len()))
        else {
            return false;
        };
        out.reserve(total);
        if len > 0 {
            let sql = format!("SELECT data FROM {table} WHERE session = ?1 ORDER BY seq");
            let Ok(mut stmt) = db.conn().prepare_cached(&sql) else {
                return false;
            };
            let Ok(mut rows) = stmt.query([id]) else {
                return false;
            };
            while let Ok(Some(r)) = rows.next() {
                let Some(chunk) = r.get_ref(0).ok().and_then(|v| v.as_str().ok()) else {
                    return false;
                };
                if (out.len() + chunk.len()) as u64 > len {
                    return false;
                }
                out.push_str(chunk);
            }
            if out.len() as u64 != len {
                return false;
            }
        }
        out.push_str(torn);
        true
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
        let missing = index.texts(&[a.clone(), b.clone()], |p, text, tools| {
            got.push((p.to_path_buf(), text.to_owned(), tools.to_owned()));
            true
        });
        assert!(missing.is_empty(), "{missing:?}");
        assert_eq!(got.len(), 2);
        for (path, text, tools) in &got {
            let s = with_text.sessions.iter().find(|s| &s.path == path).unwrap();
            assert_eq!(text, &s.all_messages_text);
            assert_eq!(tools, &s.tool_text);
            assert!(!tools.is_empty() && !text.is_empty(), "{text:?} {tools:?}");
        }
        // Changed since the listing, and never listed.
        std::fs::write(&a, "changed").unwrap();
        let c = sessions.join("c.jsonl");
        let missing = index.texts(&[a.clone(), b.clone(), c.clone()], |_, _, _| true);
        assert_eq!(missing, [a.clone(), c]);
        // Stopped after the first.
        let missing = index.texts(&[b.clone(), a.clone()], |_, _, _| false);
        assert_eq!(missing, [a]);
    }
}
