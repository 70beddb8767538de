//! A searched session's hits, for the session view: the entry that Enter on a content match
//! opens at, and `n`/`N` stepping through the others (wrapping, like a pager's search).
//!
//! Built off the UI thread from the loaded session ([`SessionHits::find`]); the view keeps it
//! beside its state and asks [`SessionHits::entry_index`] which row to select, and
//! [`Query::find_in`] what to highlight in that entry's text.

use std::sync::Arc;

use crate::model::search::{ContentHit, Query, content_hits};
use crate::model::tree::Session;

/// How many hits of one session are kept for stepping.
pub const MAX_HITS: usize = 1000;

/// The picker's search, handed to the session view it opens (Enter on a match).
#[derive(Debug, Clone)]
pub struct OpenSearch {
    pub query: Arc<Query>,
    /// Only grove's tool-call search found the session: open on a tool-call hit.
    pub prefer_tool: bool,
}

/// The hits of a query in one session, and the one the view is on.
#[derive(Debug, Clone)]
pub struct SessionHits {
    query: Arc<Query>,
    hits: Vec<ContentHit>,
    current: usize,
}

impl SessionHits {
    /// The query's hits in the session's user and assistant messages and tool calls, in file
    /// order, starting on the first; `None` when there are none (a name or cwd match).
    /// `prefer_tool` starts on the first tool-call hit instead, for a session only grove's
    /// tool search found ([`crate::model::search::Score::tool_only`]).
    pub fn find(query: Arc<Query>, session: &Session, prefer_tool: bool) -> Option<Self> {
        let hits = content_hits(&query, session.entries(), MAX_HITS);
        let current = hits.iter().position(|h| h.tool == prefer_tool).unwrap_or(0);
        (!hits.is_empty()).then_some(SessionHits {
            query,
            hits,
            current,
        })
    }

    pub fn query(&self) -> &Query {
        &self.query
    }

    /// The hit the view is on.
    pub fn current(&self) -> &ContentHit {
        // `find` never builds an empty list and `current` stays in range.
        &self.hits[self.current.min(self.hits.len() - 1)]
    }

    /// `(n, total)`, 1-based, for a "hit 2/7" status.
    pub fn position(&self) -> (usize, usize) {
        (self.current + 1, self.hits.len())
    }

    /// `n`: the next hit, wrapping to the first after the last.
    pub fn next_hit(&mut self) -> &ContentHit {
        self.current = (self.current + 1) % self.hits.len();
        self.current()
    }

    /// `N`: the previous hit, wrapping to the last before the first.
    pub fn prev_hit(&mut self) -> &ContentHit {
        self.current = (self.current + self.hits.len() - 1) % self.hits.len();
        self.current()
    }

    /// The index (into the session's entries) of the entry holding the current hit.
    pub fn entry_index(&self, session: &Session) -> Option<usize> {
        session.tree.index_of(&self.current().entry_id)
    }

    pub fn hits(&self) -> &[ContentHit] {
        &self.hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tree::tests::session;

    fn line(id: &str, parent: Option<&str>, role: &str, content: serde_json::Value) -> String {
        serde_json::json!({
            "type": "message", "id": id, "parentId": parent,
            "timestamp": "2025-01-01T00:00:00.000Z",
            "message": {"role": role, "content": content, "timestamp": 1},
        })
        .to_string()
    }

    fn sample() -> Session {
        session(&[
            line(
                "e1",
                None,
                "user",
                serde_json::json!("Where is the Needle?"),
            ),
            line(
                "e2",
                Some("e1"),
                "assistant",
                serde_json::json!([
                    {"type": "text", "text": "found a needle and another NEEDLE"},
                    {"type": "toolCall", "id": "t", "name": "bash", "arguments": {"command": "grep needle"}},
                ]),
            ),
            line(
                "e3",
                Some("e2"),
                "toolResult",
                serde_json::json!("needle in a result"),
            ),
        ])
    }

    #[test]
    fn steps_through_hits_in_file_order_and_wraps() {
        let s = sample();
        let q = Arc::new(Query::parse("needle").unwrap());
        let mut hits = SessionHits::find(q, &s, false).unwrap();
        // Tool results are not searched (pi does not search them either).
        let at: Vec<(&str, bool)> = hits
            .hits()
            .iter()
            .map(|h| (h.entry_id.as_str(), h.tool))
            .collect();
        assert_eq!(
            at,
            [("e1", false), ("e2", false), ("e2", false), ("e2", true)]
        );
        assert_eq!(hits.position(), (1, 4));
        assert_eq!(hits.entry_index(&s), s.tree.index_of("e1"));
        assert_eq!(hits.prev_hit().entry_id, "e2");
        assert!(hits.current().tool);
        assert_eq!(hits.next_hit().entry_id, "e1");
        assert_eq!(hits.next_hit().entry_id, "e2");
        let h = hits.current();
        assert_eq!(&h.snippet[h.range.clone()], "needle");
        assert_eq!(hits.query().find_in("A needle, a NEEDLE"), [2..8, 12..18]);
    }

    #[test]
    fn tool_only_sessions_open_on_the_tool_hit() {
        let s = sample();
        let q = Arc::new(Query::parse("grep").unwrap());
        let hits = SessionHits::find(q, &s, true).unwrap();
        assert!(hits.current().tool);
        assert_eq!(hits.current().snippet, "bash grep needle");
        let none = SessionHits::find(Arc::new(Query::parse("absent").unwrap()), &s, false);
        assert!(none.is_none());
    }
}
