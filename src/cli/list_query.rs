//! `grove list --query Q [--sort relevance|recent|threaded]`: the picker's search from the
//! command line, the same sessions in the same order (pi 1.6.0's rules, [`compare_matches`]),
//! each with why it matched.

use std::collections::HashMap;
use std::io::{self, Write};

use clap::ValueEnum;
use rayon::prelude::*;
use serde_json::{Value, json};
use unicode_width::UnicodeWidthStr;

use crate::model::info::SessionInfo;
use crate::model::search::{
    ContentHit, MatchOrder, MatchedField, PreparedText, Query, RankKey, Score, SearchFields,
    compare_matches, content_hits,
};
use crate::storage::read::load_session;
use crate::text::sanitize::{sanitize_line, truncate_width};

use super::error::CliError;
use super::json::{info_json, to_json};

/// How many hits in one session `list --query --json` reports (the first one is the snippet).
const HITS_PER_SESSION: usize = 100;

/// `--sort` with a query. "threaded" lists like "relevance", as in pi's picker.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum ListSort {
    /// Best match first (pi 1.6.0's tiers and scores; ties: most recent).
    #[default]
    Relevance,
    /// Most recent activity first.
    Recent,
    /// As relevance (the picker's threaded view nests forks under their parent).
    Threaded,
    /// grove: newest created first (also without --query).
    Created,
    /// grove: largest file first (also without --query).
    Size,
    /// grove: most expensive first (also without --query).
    Cost,
}

impl ListSort {
    pub fn order(self) -> MatchOrder {
        match self {
            ListSort::Recent => MatchOrder::Recent,
            _ => MatchOrder::Relevance,
        }
    }

    /// The order of grove's own sorts.
    pub fn key(self) -> Option<crate::model::stats::order::SessionKey> {
        use crate::model::stats::order::SessionKey;
        match self {
            ListSort::Created => Some(SessionKey::Created),
            ListSort::Size => Some(SessionKey::Size),
            ListSort::Cost => Some(SessionKey::Cost),
            ListSort::Relevance | ListSort::Recent | ListSort::Threaded => None,
        }
    }
}

/// One session that matched, with its score and the field each token matched in.
#[derive(Debug, Clone)]
pub struct Match {
    /// Index into the searched sessions.
    pub index: usize,
    pub score: Score,
    pub fields: Vec<MatchedField>,
}

/// The searched fields of a listed session.
pub fn search_fields(s: &SessionInfo) -> SearchFields<'_> {
    SearchFields {
        id: &s.id,
        name: s.name.as_deref(),
        summary: s.summary.as_deref(),
        text: &s.all_messages_text,
        cwd: &s.cwd,
        tools: &s.tool_text,
    }
}

/// The sessions that match `query`, in the order the picker lists them.
pub fn ranked_matches(sessions: &[&SessionInfo], query: &Query, order: MatchOrder) -> Vec<Match> {
    let mut matches: Vec<Match> = sessions
        .par_iter()
        .enumerate()
        .filter_map(|(index, s)| {
            let prepared = PreparedText::new(&search_fields(s));
            let score = query.score_prepared(&prepared)?;
            let fields = query.matched_fields(&prepared).unwrap_or_default();
            Some(Match {
                index,
                score,
                fields,
            })
        })
        .collect();
    let key = |m: &Match| {
        let s = sessions[m.index];
        (m.score, s.modified_ms, s.path.as_path())
    };
    matches.sort_by(|a, b| {
        let ((sa, ma, pa), (sb, mb, pb)) = (key(a), key(b));
        compare_matches(
            order,
            RankKey {
                score: &sa,
                modified_ms: ma,
                path: pa,
            },
            RankKey {
                score: &sb,
                modified_ms: mb,
                path: pb,
            },
        )
    });
    matches
}

/// Prints the matches of `query` among `sessions`: one row each, or a JSON array of the listing
/// objects with `score` and `match` added.
pub fn print_matches(
    out: &mut dyn Write,
    sessions: &[&SessionInfo],
    query_text: &str,
    sort: ListSort,
    json: bool,
    prefixes: &HashMap<&str, usize>,
    pinned: &dyn Fn(&SessionInfo) -> bool,
) -> Result<(), CliError> {
    let query = Query::parse(query_text).map_err(|e| CliError::Msg(e.to_string()))?;
    let mut matches = if query.is_empty() {
        Vec::new()
    } else {
        ranked_matches(sessions, &query, sort.order())
    };
    if let Some(k) = sort.key() {
        matches.sort_by(|a, b| k.compare(sessions[a.index], sessions[b.index]));
    }
    // Pinned sessions first, in the order of the ranking (grove's state: `grove pin`).
    matches.sort_by_key(|m| !pinned(sessions[m.index]));
    // The entries holding each hit, read from the files (in parallel: one read per match).
    let hits: Vec<Vec<ContentHit>> = matches
        .par_iter()
        .map(|m| {
            if !m.fields.iter().any(|f| f.field.is_content()) {
                return Vec::new();
            }
            load_session(&sessions[m.index].path)
                .map(|s| content_hits(&query, s.entries(), HITS_PER_SESSION))
                .unwrap_or_default()
        })
        .collect();
    let mut out = io::BufWriter::new(out);
    if json {
        let items: Vec<Value> = matches
            .iter()
            .zip(&hits)
            .map(|(m, hits)| match_json(sessions[m.index], m, hits))
            .collect();
        writeln!(out, "{}", to_json(&Value::Array(items)))?;
    } else {
        let id_of = |s: &SessionInfo| {
            let len = prefixes.get(s.id.as_str()).copied().unwrap_or(s.id.len());
            sanitize_line(s.id.get(..len).unwrap_or(&s.id)).into_owned()
        };
        let id_w = matches
            .iter()
            .map(|m| id_of(sessions[m.index]).width())
            .max()
            .unwrap_or(0)
            .max(2);
        if !matches.is_empty() {
            writeln!(
                out,
                "{:<id_w$}  {:>5}  {:<24}  {:<60}  [WHERE IT MATCHED]",
                "ID", "MSGS", "LAST ACTIVITY", "TITLE"
            )?;
        }
        for (m, hits) in matches.iter().zip(&hits) {
            let s = sessions[m.index];
            let why = match primary_hit(m, hits) {
                Some(h) => format!("{}: {}", if h.tool { "tool" } else { "text" }, h.snippet),
                None => fields_label(&m.fields),
            };
            writeln!(
                out,
                "{}{}  {:>5}  {}  {}  [{}]",
                id_of(s),
                " ".repeat(id_w.saturating_sub(id_of(s).width())),
                s.message_count,
                s.modified_iso(),
                {
                    let t = truncate_width(&sanitize_line(s.title()), 60).into_owned();
                    let pad = 60usize.saturating_sub(t.width());
                    format!("{t}{}", " ".repeat(pad))
                },
                sanitize_line(&truncate_width(&why, 80)),
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The hit that explains the match: for a tool-only session its first tool-call hit (what pi
/// would not find), else its first hit in the message text.
fn primary_hit<'h>(m: &Match, hits: &'h [ContentHit]) -> Option<&'h ContentHit> {
    hits.iter()
        .find(|h| h.tool == m.score.tool_only)
        .or(hits.first())
}

/// `name`, `messages`, `cwd (fuzzy)`…: the fields the tokens matched in.
fn fields_label(fields: &[MatchedField]) -> String {
    let mut labels: Vec<String> = Vec::new();
    for f in fields {
        let l = if f.fuzzy {
            format!("{} (fuzzy)", f.field.as_str())
        } else {
            f.field.as_str().to_owned()
        };
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    labels.join(", ")
}

/// A listing object with `score`, `toolOnly` and `match`: the fields each token matched in and,
/// for text found in the messages or tool calls, the [`primary_hit`]'s snippet, its byte range in
/// the snippet and the entry holding it, and every hit in file order (for stepping through them).
fn match_json(s: &SessionInfo, m: &Match, hits: &[ContentHit]) -> Value {
    let mut item = info_json(s);
    let first = primary_hit(m, hits);
    let fields: Vec<Value> = m
        .fields
        .iter()
        .map(|f| json!({"field": f.field.as_str(), "fuzzy": f.fuzzy}))
        .collect();
    let primary = first.map_or_else(
        || m.fields.first().map(|f| f.field.as_str()),
        |h| Some(if h.tool { "tool" } else { "messages" }),
    );
    let why = json!({
        "field": primary,
        "fields": fields,
        "snippet": first.map(|h| &h.snippet),
        "range": first.map(|h| [h.range.start, h.range.end]),
        "entryId": first.map(|h| &h.entry_id),
        "tool": first.is_some_and(|h| h.tool),
        "hits": hits.iter().map(|h| json!({
            "entryId": h.entry_id,
            "tool": h.tool,
            "snippet": h.snippet,
            "range": [h.range.start, h.range.end],
        })).collect::<Vec<_>>(),
    });
    if let Value::Object(map) = &mut item {
        map.insert("score".into(), json!(m.score.pi_score));
        map.insert("toolOnly".into(), json!(m.score.tool_only));
        map.insert("match".into(), why);
    }
    item
}
