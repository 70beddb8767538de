//! Why the selected session matched the search, for the top of the preview pane: the fields
//! each token matched in, and for text found in the messages or tool calls the hits themselves,
//! one line each with the hit highlighted (like fzf's or atuin's preview).
//!
//! The fields come from the record's prepared text (on the UI thread, once per selection and
//! query); the hits need the session's own text (the record keeps only a lowercased copy), so
//! they are found off the UI thread by reading the file ([`find_preview_hits`]), latest request
//! only. Asking for them and drawing them is [`super::hits_ops`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::search::{ContentHit, MatchedField, Query, content_hits};
use crate::storage::read::{SlimMode, load_session_cancellable};

/// Hits found for the preview, at most.
pub const PREVIEW_HITS: usize = 50;

/// One hit with the role of the message that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewHit {
    /// `user`, `assistant`, …
    pub role: String,
    pub hit: ContentHit,
}

/// The hits of the selected session, being found or found.
#[derive(Clone, Debug)]
pub enum HitsResult {
    Loading,
    Ready(Arc<Vec<PreviewHit>>),
    Failed(String),
}

/// Why the selected session matched: for which record and query.
#[derive(Clone, Debug)]
pub struct HitsSlot {
    pub path: PathBuf,
    /// The query's text.
    pub query: String,
    /// Which record version (a re-read record gets a new one).
    pub record_id: usize,
    /// Where each token matched.
    pub fields: Vec<MatchedField>,
    /// The hits, when some token matched in the messages or tool calls.
    pub hits: Option<HitsResult>,
}

/// Reads the session at `path` and finds the query's hits in its messages and tool calls,
/// each with its message's role.
pub fn find_preview_hits(
    path: &Path,
    query: &Query,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<PreviewHit>, String> {
    let session =
        load_session_cancellable(path, SlimMode::Auto, cancelled).map_err(|e| e.to_string())?;
    let mut hits = content_hits(query, session.entries(), PREVIEW_HITS);
    // Several words (or a phrase and its words) in one text give several hits of one entry,
    // cut around each: the preview shows each entry once, at its first hit.
    hits.dedup_by(|b, a| a.entry_id == b.entry_id && a.tool == b.tool);
    Ok(hits
        .into_iter()
        .map(|hit| {
            let role = session
                .tree
                .index_of(&hit.entry_id)
                .and_then(|i| session.entry(i))
                .and_then(|e| e.role())
                .unwrap_or("message")
                .to_owned();
            PreviewHit { role, hit }
        })
        .collect())
}
