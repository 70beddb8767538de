//! Why a session matched: which field each token matched in, and, for text found in the
//! messages or tool calls, the entries that hold it with a one-line snippet around each hit, so
//! a view can show the snippet, highlight the hit and open the session on that entry.

use std::ops::Range;

use serde_json::Value;

use super::Query;
use super::highlight::{LoweredChars, merge_ranges};
use super::tokens::{Token, find_phrase_from};
use crate::model::entry::{Entry, content_text};

/// A field of a session that a query token can match in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Field {
    Name,
    Id,
    /// pi's `allMessagesText`: user and assistant text.
    Messages,
    Cwd,
    /// Atomic's session summary (grove only).
    Summary,
    /// A tool call's name, command or path (grove only).
    Tool,
}

impl Field {
    /// The field's name as `grove list --query --json` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Id => "id",
            Field::Messages => "messages",
            Field::Cwd => "cwd",
            Field::Summary => "summary",
            Field::Tool => "tool",
        }
    }

    /// Whether hits in this field live in entries (so [`content_hits`] can find them).
    pub fn is_content(self) -> bool {
        matches!(self, Field::Messages | Field::Tool)
    }
}

/// Where one token of a query matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MatchedField {
    pub field: Field,
    /// Matched as a scattered subsequence (only ever in the name or the cwd).
    pub fuzzy: bool,
}

/// One occurrence of the query in a session's entries.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentHit {
    /// The id of the entry that holds the hit.
    pub entry_id: String,
    /// Found in one of the entry's tool calls rather than its text.
    pub tool: bool,
    /// One line of text around the hit (newlines and tabs made spaces; not yet sanitized).
    pub snippet: String,
    /// The hit's byte range within `snippet`.
    pub range: Range<usize>,
}

/// How many characters a snippet shows before the hit, and at most in all.
const SNIPPET_BEFORE: usize = 30;
const SNIPPET_CHARS: usize = 100;

/// Every occurrence of the query's words, phrases or regex in the text and the tool calls of
/// the session's user and assistant messages, in file order, at most `limit`.
///
/// pi joins all message text before searching it, so a phrase that spans two messages matches
/// the session but is found in no entry here.
pub fn content_hits(query: &Query, entries: &[Entry], limit: usize) -> Vec<ContentHit> {
    let mut hits = Vec::new();
    if query.is_empty() {
        return hits;
    }
    for e in entries {
        if hits.len() >= limit {
            break;
        }
        if !e.is_conversation_message() {
            continue;
        }
        let Some(message) = e.message() else { continue };
        let content = message.get("content");
        if let Some(text) = content_text(content) {
            push_hits(query, &e.id, &text, false, limit, &mut hits);
        }
        for block in content.and_then(Value::as_array).into_iter().flatten() {
            if block.get("type").and_then(Value::as_str) != Some("toolCall") {
                continue;
            }
            let name = block.get("name").and_then(Value::as_str).unwrap_or("");
            let args = block.get("arguments").unwrap_or(&Value::Null);
            push_hits(
                query,
                &e.id,
                &tool_call_text(name, args),
                true,
                limit,
                &mut hits,
            );
        }
    }
    hits.truncate(limit);
    hits
}

fn push_hits(
    query: &Query,
    id: &str,
    text: &str,
    tool: bool,
    limit: usize,
    out: &mut Vec<ContentHit>,
) {
    for range in find_all(query, text) {
        if out.len() >= limit {
            return;
        }
        let (snippet, range) = snippet_around(text, range);
        out.push(ContentHit {
            entry_id: id.to_owned(),
            tool,
            snippet,
            range,
        });
    }
}

impl Query {
    /// Byte ranges of `text` (an entry's text or tool call) that the query's words, phrases or
    /// regex match literally, case-insensitively, sorted and merged: what a view highlights in
    /// the entry a hit opened.
    pub fn find_in(&self, text: &str) -> Vec<Range<usize>> {
        find_all(self, text)
    }
}

/// Byte ranges of `text` the query's literal tokens (or regex) match, case-insensitively,
/// sorted and merged.
pub(crate) fn find_all(query: &Query, text: &str) -> Vec<Range<usize>> {
    if let Some(re) = query.regex() {
        return re
            .find_iter(text)
            .map(|m| m.range())
            .filter(|r| !r.is_empty())
            .collect();
    }
    let mut ranges = Vec::new();
    if text.is_ascii() {
        // Lowercasing ASCII keeps every byte where it was.
        let lower = text.to_ascii_lowercase();
        for token in query.tokens() {
            match token {
                Token::Word(w) => ranges.extend(
                    w.finder
                        .find_iter(lower.as_bytes())
                        .map(|k| k..k + w.lower.len()),
                ),
                Token::Phrase(p) => {
                    let mut from = 0;
                    while let Some(r) = find_phrase_from(&lower, p, from) {
                        from = r.end.max(r.start + 1);
                        ranges.push(r);
                    }
                }
            }
        }
    } else {
        let lowered = LoweredChars::new(text);
        for token in query.tokens() {
            match token {
                Token::Word(w) => lowered.phrases(std::slice::from_ref(&w.lower), &mut ranges),
                Token::Phrase(p) => lowered.phrases(&p.words, &mut ranges),
            }
        }
    }
    merge_ranges(ranges)
}

/// One line of `text` around the byte range `hit`: up to [`SNIPPET_BEFORE`] characters before
/// it, [`SNIPPET_CHARS`] in all (more if the hit is longer), `…` where cut. Returns the snippet
/// and the hit's range within it.
pub fn snippet_around(text: &str, hit: Range<usize>) -> (String, Range<usize>) {
    let hit = hit.start.min(text.len())..hit.end.min(text.len()).max(hit.start.min(text.len()));
    if !text.is_char_boundary(hit.start) || !text.is_char_boundary(hit.end) {
        return (String::new(), 0..0);
    }
    let start = text[..hit.start]
        .char_indices()
        .rev()
        .nth(SNIPPET_BEFORE.saturating_sub(1))
        .map_or(0, |(b, _)| b);
    let before_chars = text[start..hit.start].chars().count();
    let hit_chars = text[hit.clone()].chars().count();
    let after = SNIPPET_CHARS.saturating_sub(before_chars + hit_chars);
    let end = text[hit.end..]
        .char_indices()
        .nth(after)
        .map_or(text.len(), |(b, _)| hit.end + b);
    let mut snippet = String::new();
    if start > 0 {
        snippet.push('…');
    }
    let prefix = snippet.len();
    // Whitespace controls become spaces byte for byte, so the range still holds.
    snippet.extend(text[start..end].chars().map(|c| match c {
        '\n' | '\r' | '\t' => ' ',
        c => c,
    }));
    if end < text.len() {
        snippet.push('…');
    }
    (
        snippet,
        prefix + hit.start - start..prefix + hit.end - start,
    )
}

/// The arguments whose string values [`tool_call_text`] keeps, in its order.
pub const TOOL_ARG_KEYS: [&str; 4] = ["command", "path", "file_path", "pattern"];

/// The searchable text of one tool call: its name, then the string values of the arguments that
/// name what it acted on ([`TOOL_ARG_KEYS`]), separated by spaces.
pub fn tool_call_text(name: &str, arguments: &Value) -> String {
    tool_call_line(
        name,
        TOOL_ARG_KEYS.map(|k| arguments.get(k).and_then(Value::as_str)),
    )
}

/// [`tool_call_text`] of a name and the values of [`TOOL_ARG_KEYS`]. NUL characters become
/// spaces (the index stores the text after a NUL-delimited marker).
pub fn tool_call_line(name: &str, args: [Option<&str>; 4]) -> String {
    let args = args.map(|v| v.filter(|v| !v.is_empty()));
    // Allocated once at its final length: a command or a pattern can be long, and growing
    // the line by doubling cost ~2% of a cold listing's instructions (callgrind).
    let len = name.len() + args.iter().flatten().map(|v| v.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(len);
    out.push_str(name);
    for v in args.into_iter().flatten() {
        out.push(' ');
        out.push_str(v);
    }
    if out.contains('\0') {
        out = out.replace('\0', " ");
    }
    out
}
