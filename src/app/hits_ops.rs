//! Keeping the preview's search hits ([`super::preview_hits`]) up to date with the selection
//! and the query, and the lines that head the preview with them.

use std::path::Path;
use std::sync::Arc;

use crate::model::search::{Field, MatchedField};

use super::event::Effect;
use super::preview_hits::{HitsResult, HitsSlot, PREVIEW_HITS, PreviewHit};
use super::snippet::marked_pieces;
use super::state::AppState;
use super::styled::{TextLine, Tone};

/// After every event: when the preview pane shows a session that matched the search, know why,
/// and ask for its hits if they are in its text.
pub(crate) fn want_hits(state: &mut AppState, fx: &mut Vec<Effect>) {
    // Without the preview pane the status line shows the first hit (see `first_hit_line`).
    let wanted = state.screen.is_picker();
    let (Some(query), Some(rec)) = (
        state.picker.search.query.clone().filter(|_| wanted),
        state.selected().filter(|_| wanted),
    ) else {
        state.hits = None;
        return;
    };
    // Until the search's results land the selection may still move: keep what is shown.
    if state.picker.search.pending {
        return;
    }
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
                lines.push(hit_line(h, query, room));
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

/// One hit: its role column, then the snippet (`room` columns) with the query's matches marked.
fn hit_line(h: &PreviewHit, query: Option<&crate::model::search::Query>, room: usize) -> TextLine {
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
    let mut ranges = query.map(|q| q.find_in(snippet)).unwrap_or_default();
    if ranges.is_empty() {
        ranges = vec![h.hit.range.clone()];
    }
    let mut spans = vec![(tone, format!("{label:<ROLE_W$}"))];
    spans.extend(marked_pieces(
        snippet,
        &ranges,
        Tone::Plain,
        Tone::Matched,
        room,
    ));
    TextLine::new(spans)
}

/// Without the preview pane: the selected session's first hit, for the status line.
pub(crate) fn first_hit_line(state: &AppState, width: usize) -> Option<TextLine> {
    let rec = state.selected()?;
    let slot = state.hits.as_ref().filter(|s| s.path == rec.info.path)?;
    let Some(HitsResult::Ready(hits)) = &slot.hits else {
        return None;
    };
    let first = hits.first()?;
    let query = state.picker.search.query.as_deref();
    Some(hit_line(first, query, width.saturating_sub(ROLE_W).max(1)))
}
