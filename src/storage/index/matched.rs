//! What a listing's stored rows say about the files it found ([`Matched`]), filled row by row
//! as the database is read (see `Index::match_rows`).

use std::collections::HashMap;

use super::db::{FileKey, Row};
use super::fits;
use crate::model::context::Dialect;
use crate::model::info::SessionInfo;
use crate::storage::roots::FoundFile;

/// What the stored rows say about the files found (by their position in `found`).
pub(super) struct Matched {
    /// The listings of files whose rows are current (their paths left empty), and whose
    /// they are.
    pub(super) sessions: Vec<SessionInfo>,
    pub(super) owners: Vec<usize>,
    /// With text: the stored lengths of each of `sessions`.
    pub(super) lens: Vec<StoredLens>,
    pub(super) with_text: bool,
    /// Files whose current rows are problems, with the reason.
    pub(super) problems: Vec<(usize, String)>,
    /// Rows of files that changed (or whose rows cannot be used as they are).
    pub(super) stale: HashMap<usize, Row>,
    /// Files whose rows are current (listed or problems).
    pub(super) done: Vec<bool>,
    /// Rows of files gone from the roots listed.
    pub(super) gone: Vec<i64>,
}

impl Matched {
    pub(super) fn new(files: usize, with_text: bool) -> Matched {
        Matched {
            sessions: Vec::with_capacity(files),
            owners: Vec::with_capacity(files),
            lens: Vec::with_capacity(if with_text { files } else { 0 }),
            with_text,
            problems: Vec::new(),
            stale: HashMap::new(),
            done: vec![false; files],
            gone: Vec::new(),
        }
    }

    /// The stored row of file `i`: its listing when the file is unchanged, else kept for
    /// the rescan.
    pub(super) fn take(&mut self, i: usize, file: &FoundFile, key: FileKey, mut row: Row) {
        if row.key != key || !fits(&row, key.size) {
            self.stale.insert(i, row);
            return;
        }
        if let Some(reason) = row.problem.take() {
            self.problems.push((i, reason));
            self.done[i] = true;
            return;
        }
        let agent = file.agent.or(row.detected_agent);
        match (row.info.take(), agent) {
            (Some(mut info), Some(agent)) => {
                info.agent = agent;
                // Searchable text only when asked for, tool calls included.
                if self.with_text {
                    info.all_messages_text = std::mem::take(&mut row.torn_text);
                    info.tool_text = std::mem::take(&mut row.torn_tools);
                    self.lens.push(StoredLens {
                        id: row.id,
                        text_len: row.text_len,
                        tools_len: row.tools_len,
                        agent: file.agent,
                    });
                }
                self.sessions.push(info);
                self.owners.push(i);
                self.done[i] = true;
            }
            // (Rescanned from the start: the listing taken.)
            _ => {
                self.stale.insert(i, row);
            }
        }
    }
}

/// The stored lengths of a cached row's chunks, for [`Index::fill_texts`].
pub(super) struct StoredLens {
    pub(super) id: i64,
    pub(super) text_len: u64,
    pub(super) tools_len: u64,
    pub(super) agent: Option<Dialect>,
}
