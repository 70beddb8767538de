//! Why the selected session matched the search, for the top of the preview pane: the fields
//! each token matched in, and for text found in the messages or tool calls the hits themselves,
//! one line each with the hit highlighted (like fzf's or atuin's preview).
//!
//! The fields come from the record's prepared text (on the UI thread, once per selection and
//! query); the hits need the session's own text (the record keeps only a lowercased copy), so
//! they are found off the UI thread by reading the file ([`find_preview_hits`]), latest request
//! only.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::search::{ContentHit, Field, MatchedField, Query, content_hits};
use crate::storage::read::{SlimMode, load_session_cancellable};

use super::event::Effect;
use super::snippet::marked_pieces;
use super::state::AppState;
use super::styled::{TextLine, Tone};

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
    record_id: usize,
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
    // Two words of one short text give two hits with the same snippet: show it once.
    hits.dedup_by(|b, a| a.entry_id == b.entry_id && a.tool == b.tool && a.snippet == b.snippet);
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

/// After every event: when the preview pane shows a session that matched the search, know why,
/// and ask for its hits if they are in its text.
pub(crate) fn want_hits(state: &mut AppState, fx: &mut Vec<Effect>) {
    let wanted = state.screen.is_picker() && state.preview_visible();
    let (Some(query), Some(rec)) = (
        state.picker.search.query.clone().filter(|_| wanted),
        state.selected().filter(|_| wanted),
    ) else {
        state.hits = None;
        return;
    };
    let record_id = Arc::as_ptr(rec) as usize;
    if state.hits.as_ref().is_some_and(|h| {
        h.record_id == record_id && h.path == rec.info.path && h.query == query.as_str()
    }) {
        return;
    }
    let fields = query.matched_fields(&rec.prepared).unwrap_or_default();
    let content = fields.iter().any(|f| f.field.is_content());
    let path = rec.info.path.clone();
    if content {
        fx.push(Effect::FindHits {
            path: path.clone(),
            query: Arc::clone(&query),
        });
    }
    state.hits = Some(HitsSlot {
        path,
        query: query.as_str().to_owned(),
        record_id,
        fields,
        hits: content.then_some(HitsResult::Loading),
    });
}

/// The hits of `path` for `query` were found (or could not be).
pub(crate) fn on_hits_found(
    state: &mut AppState,
    path: &Path,
    query: &str,
    result: Result<Vec<PreviewHit>, String>,
) {
    if let Some(slot) = &mut state.hits
        && slot.path == path
        && slot.query == query
    {
        slot.hits = Some(match result {
            Ok(h) => HitsResult::Ready(Arc::new(h)),
            Err(e) => HitsResult::Failed(e),
        });
    }
}

/// "name (fuzzy), messages": the fields the tokens matched in, each once.
fn why(fields: &[MatchedField]) -> String {
    let mut seen: Vec<MatchedField> = Vec::new();
    for f in fields {
        if !seen.contains(f) {
            seen.push(*f);
        }
    }
    seen.iter()
        .map(|f| {
            let name = match f.field {
                Field::Tool => "tool call",
                other => other.as_str(),
            };
            if f.fuzzy {
                format!("{name} (fuzzy)")
            } else {
                name.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Width of the role column of a hit line.
const ROLE_W: usize = 10;

/// The lines that head the preview of `path` while a search is on: a rule saying where the
/// query matched, then up to `max` hits. Empty when the slot is about another session.
pub(crate) fn hit_lines(state: &AppState, path: &Path, width: usize, max: usize) -> Vec<TextLine> {
    let Some(slot) = state.hits.as_ref().filter(|s| s.path == path) else {
        return Vec::new();
    };
    if slot.fields.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![super::preview_text::rule(
        &format!("matched in {}", why(&slot.fields)),
        width,
    )];
    let query = state.picker.search.query.as_deref();
    match &slot.hits {
        None => {}
        Some(HitsResult::Loading) => lines.push(TextLine::one(Tone::Muted, "Finding the hits…")),
        Some(HitsResult::Failed(e)) => lines.push(TextLine::new(marked_pieces(
            e,
            &[],
            Tone::Error,
            Tone::Error,
            width,
        ))),
        Some(HitsResult::Ready(hits)) if hits.is_empty() => lines.push(TextLine::one(
            Tone::Muted,
            "(the words are in different messages: no one message holds them all)",
        )),
        Some(HitsResult::Ready(hits)) => {
            let room = width.saturating_sub(ROLE_W).max(1);
            for h in hits.iter().take(max) {
                let (label, tone) = if h.hit.tool {
                    ("tool call", Tone::Warning)
                } else {
                    match h.role.as_str() {
                        "user" => ("user", Tone::AccentBold),
                        "assistant" => ("assistant", Tone::OkBold),
                        _ => ("message", Tone::MutedBold),
                    }
                };
                let snippet = &h.hit.snippet;
                let ranges = match query {
                    Some(q) => q.find_in(snippet),
                    None => vec![h.hit.range.clone()],
                };
                let ranges = if ranges.is_empty() {
                    vec![h.hit.range.clone()]
                } else {
                    ranges
                };
                let mut spans = vec![(tone, format!("{label:<ROLE_W$}"))];
                spans.extend(marked_pieces(
                    snippet,
                    &ranges,
                    Tone::Plain,
                    Tone::Matched,
                    room,
                ));
                lines.push(TextLine::new(spans));
            }
            let more = hits.len().saturating_sub(max);
            if more > 0 {
                let plus = if hits.len() >= PREVIEW_HITS { "+" } else { "" };
                lines.push(TextLine::one(
                    Tone::Muted,
                    format!("  … {more}{plus} more hits (Enter opens the first, n/N steps)"),
                ));
            }
        }
    }
    lines
}
