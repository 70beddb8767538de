//! The session view opened from a search: on the entry that holds the hit, its text
//! highlighted by the transcript search (seeded with the query), and `n`/`N` stepping through
//! every hit of the session in file order, across branches ([`SessionHits`]).

use crate::app::search_hits::{OpenSearch, SessionHits};
use crate::model::search::ContentHit;

use super::seeded::SeededHits;
use super::state::SessionViewState;
use super::types::Status;

/// The words of a token query as the transcript search takes them (whitespace-separated
/// words, all on one line): the query without its quotes. `None` for a regex.
fn query_words(hits: &SessionHits) -> Option<String> {
    let q = hits.query();
    if q.is_regex() {
        return None;
    }
    let words: Vec<&str> = q
        .as_str()
        .split(|c: char| c.is_whitespace() || c == '"')
        .filter(|w| !w.is_empty())
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The text of the hit itself, lowercased (the transcript search ignores case).
fn hit_text(hit: &ContentHit) -> Option<String> {
    let t = hit.snippet.get(hit.range.clone())?.trim();
    (!t.is_empty()).then(|| t.to_lowercase())
}

impl SessionViewState {
    /// Opens the view on the first hit of the picker's search in this session, if it holds
    /// one (a name or folder match opens on the leaf, as without a search).
    pub fn open_search(&mut self, search: OpenSearch) {
        if let Some(hits) = SessionHits::find(search.query, &self.session, search.prefer_tool) {
            self.open_at_hits(hits);
        }
    }

    /// Opens the view on the first hit (or the first tool-call hit, see [`SessionHits::find`]).
    pub fn open_at_hits(&mut self, hits: SessionHits) {
        self.seeded_hits = Some(SeededHits { hits, seed: None });
        self.show_seeded_hit();
    }

    /// The picker's hits, while they are what `n`/`N` steps through.
    pub fn seeded_hits(&self) -> Option<&SessionHits> {
        self.seeded_hits.as_ref().map(|s| &s.hits)
    }

    /// `n`/`N` with the picker's hits on: the next or previous hit of the session, wrapping.
    /// `false` (and the hits dropped) once the user searched for something else.
    pub(super) fn step_seeded_hit(&mut self, forward: bool) -> bool {
        let Some(seeded) = &mut self.seeded_hits else {
            return false;
        };
        if self.tree_search.is_some() || self.transcript_search != seeded.seed {
            self.seeded_hits = None;
            return false;
        }
        if forward {
            seeded.hits.next_hit();
        } else {
            seeded.hits.prev_hit();
        }
        self.show_seeded_hit();
        true
    }

    /// Selects the entry of the current hit, shows its branch and scrolls to the hit.
    fn show_seeded_hit(&mut self) {
        let Some(seeded) = &self.seeded_hits else {
            return;
        };
        let hits = seeded.hits.clone();
        let Some(entry) = hits.entry_index(&self.session) else {
            return;
        };
        self.nav.select_entry(&self.session, entry);
        self.sync_transcript();
        let message = self
            .context
            .messages
            .iter()
            .rposition(|m| m.entry_index == entry);
        // The query's words on one line, else the hit's own text: either way the entry's line
        // holding the hit is a transcript hit, highlighted.
        let mut seed = None;
        for candidate in [query_words(&hits), hit_text(hits.current())]
            .into_iter()
            .flatten()
        {
            self.search_transcript(&candidate, true);
            let found = self
                .transcript
                .hits
                .iter()
                .find(|h| Some(h.0) == message)
                .copied();
            seed = Some(candidate);
            if let Some(h) = found {
                self.show_hit(h);
                break;
            }
        }
        if seed.is_none() {
            self.clear_transcript_search();
        }
        if let Some(s) = &mut self.seeded_hits {
            s.seed = self.transcript_search.clone();
        }
        let (n, total) = hits.position();
        let what = if hits.current().tool {
            "tool call"
        } else {
            "message"
        };
        self.status = Some(Status {
            text: format!("hit {n}/{total} ({what}) · n/N next/previous hit"),
            is_error: false,
        });
    }
}
