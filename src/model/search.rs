//! Session search: pi 1.6.0's `/resume` rules (`session-selector-search.js`), exactly, plus
//! grove's tool-call hits ranked after everything pi finds.
//!
//! Syntax:
//! * `re:<pattern>` — a case-insensitive regular expression (Rust `regex` syntax, so no
//!   look-around or backreferences). It matches when it finds something in the name (tier
//!   *name*), else in the id, the messages or the cwd (tier *text*).
//! * otherwise tokens, all of which must match (AND); a session's score is the sum of its
//!   tokens' scores, each `tier × 1,000,000 + score` as in pi:
//!   * a bare word matches **literally** (case-insensitive substring) in the name (tier *name*,
//!     scored by pi's fuzzy score of the word in the name), else in the id, the messages or the
//!     cwd (tier *text*, score 0); failing all of those, **fuzzily** (pi-tui's `fuzzyMatch`)
//!     within the name or the cwd alone (tier *fuzzy*, the better of the two scores). A word
//!     never matches across fields, and never fuzzily in the messages or the id.
//!   * `"exact phrase"` — literal in each field after collapsing whitespace runs, same tiers;
//!   * an unbalanced `"` makes the whole query plain whitespace-separated words, the quote
//!     characters included.
//!
//! "Messages" is pi's `allMessagesText`: the text blocks of every user and assistant message,
//! joined with spaces (no thinking, tool calls or tool results). grove also searches Atomic's
//! session summary (tier *text*; pi sessions have none) and, as an extension, the tool calls
//! ([`SearchFields::tools`]): a token found nowhere else but in a tool call's name, command or
//! path matches there (tier *tool*), and such sessions rank after every session pi would list,
//! so pi's results come first and in pi's order ([`Score::cmp_rank`]).
//!
//! Lower scores rank first; ties go to the most recent session ([`compare_matches`]).
//! Positions are counted in UTF-16 code units and lowercasing is Unicode's, as in Node, so the
//! scores equal pi's exactly (regex dialects differ slightly).

mod compact;
mod explain;
mod fuzzy;
mod highlight;
mod js;
mod tokens;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::path::Path;

use regex::{Regex, RegexBuilder};

pub use explain::{
    ContentHit, Field, MatchedField, TOOL_ARG_KEYS, content_hits, snippet_around, tool_call_line,
    tool_call_text,
};
pub use fuzzy::fuzzy_match;

use compact::Compact;
use js::{js_lower, js_trim, normalize_whitespace_lower, utf16};
use tokens::{Phrase, Token, Word, tokenize};

/// pi's tier weight: tiers dominate fuzzy scores.
const TIER_WEIGHT: f64 = 1_000_000.0;
/// The query text appears in the session name.
pub const TIER_NAME: u8 = 0;
/// The query text appears in the id, the messages or the cwd (or Atomic's summary).
pub const TIER_TEXT: u8 = 1;
/// The query characters appear scattered in the name or the cwd.
pub const TIER_FUZZY: u8 = 2;
/// grove: the query text appears only in a tool call.
pub const TIER_TOOL: u8 = 3;

/// Why a query could not be parsed. pi shows no sessions at all in that case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// `re:` with nothing after it.
    #[error("empty regex: type a pattern after `re:`")]
    EmptyRegex,
    /// The pattern after `re:` does not compile; holds the one-line reason.
    #[error("invalid regex: {0}")]
    InvalidRegex(String),
}

/// The fields of a session that a query searches.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchFields<'a> {
    /// Session id (from the header).
    pub id: &'a str,
    /// Session name, if any.
    pub name: Option<&'a str>,
    /// Atomic's session summary, if any.
    pub summary: Option<&'a str>,
    /// All user and assistant text of the session, joined with spaces (pi's `allMessagesText`).
    pub text: &'a str,
    /// Working directory from the header (`""` when missing).
    pub cwd: &'a str,
    /// The session's tool calls ([`tool_call_text`] of each, one per line); grove only.
    pub tools: &'a str,
}

/// The lowercased fields of one session, ready for repeated queries.
///
/// Building it costs one lowercase pass over the session text; callers cache it per session
/// (it replaces the original text for searching) and pass it to [`Query::score_prepared`] on
/// every keystroke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedText {
    id: Box<str>,
    /// `None` when the session has no name.
    name: Option<Box<str>>,
    name16: Box<[u16]>,
    /// The name with whitespace runs collapsed (phrases compare against it).
    name_norm: Box<str>,
    name_norm16: Box<[u16]>,
    cwd: Box<str>,
    cwd16: Box<[u16]>,
    cwd_norm: Box<str>,
    /// The message text and the tool text: as they are ([`PreparedText::new`]) or compressed
    /// ([`PreparedText::compressed`], what the browser keeps for every session).
    text: Compact,
    summary: Option<Box<str>>,
    tools: Compact,
}

impl PreparedText {
    /// Lowercase the searched fields of a session.
    pub fn new(fields: &SearchFields<'_>) -> Self {
        let name = fields.name.map(js_lower);
        let name_norm = fields
            .name
            .map(normalize_whitespace_lower)
            .unwrap_or_default();
        let cwd = js_lower(fields.cwd);
        Self {
            id: js_lower(fields.id).into(),
            name16: utf16(name.as_deref().unwrap_or("")).into(),
            name: name.map(Into::into),
            name_norm16: utf16(&name_norm).into(),
            name_norm: name_norm.into(),
            cwd16: utf16(&cwd).into(),
            cwd_norm: normalize_whitespace_lower(fields.cwd).into(),
            cwd: cwd.into(),
            text: Compact::Plain(js_lower(fields.text)),
            summary: fields.summary.map(|s| js_lower(s).into()),
            tools: Compact::Plain(js_lower(fields.tools)),
        }
    }

    /// [`PreparedText::new`] of `fields`, its message and tool text compressed: what the
    /// browser keeps for every session (each search decompresses it into a buffer of the
    /// searching thread). The text is held once, compressed, allocated at its size.
    pub fn compressed(fields: &SearchFields<'_>) -> Self {
        let mut p = Self::new(&SearchFields {
            text: "",
            tools: "",
            ..*fields
        });
        p.text = Compact::lowered(fields.text);
        p.tools = Compact::lowered(fields.tools);
        p
    }

    /// The bytes the message and tool text take as held.
    pub fn text_capacity(&self) -> usize {
        self.text.held() + self.tools.held()
    }

    /// The lowercased message text.
    pub fn text(&self) -> Cow<'_, str> {
        self.text.text()
    }

    /// The lowercased tool-call text.
    pub fn tools(&self) -> Cow<'_, str> {
        self.tools.text()
    }
}

/// How well a session matches a query; see [`Score::cmp_rank`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// pi's score for the whole query (the sum of `tier × 1e6 + score` over the tokens); lower
    /// is better. For a tool-only session it counts [`TIER_TOOL`] for the tool tokens.
    pub pi_score: f64,
    /// grove: some token matched only in a tool call, so pi would not list the session.
    pub tool_only: bool,
    /// Bit `k` set: token `k` (of the first 32) matched fuzzily, as a scattered subsequence of
    /// the name or the cwd. What a row highlights: a token that matched literally somewhere is
    /// never highlighted as scattered characters ([`Query::highlight_for`]).
    pub fuzzy_tokens: u32,
}

impl Score {
    /// Ranking order: sessions pi lists before tool-only ones, then pi's score ascending.
    ///
    /// `Equal` means a tie that the caller breaks by most recent `modified` first (pi relies on
    /// a stable sort of an already modified-desc list for the same effect).
    pub fn cmp_rank(&self, other: &Self) -> Ordering {
        self.tool_only.cmp(&other.tool_only).then_with(|| {
            // `==` first so that 0.0 and -0.0 tie, like pi's `a.score - b.score`.
            if self.pi_score == other.pi_score {
                Ordering::Equal
            } else {
                self.pi_score.total_cmp(&other.pi_score)
            }
        })
    }
}

/// The two orders of a searched list. pi's "threaded" sort with a query is relevance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchOrder {
    /// Best score first, ties most recent first.
    Relevance,
    /// Most recent first (pi's "recent": filter only).
    Recent,
}

/// What [`compare_matches`] orders: a match with the session's activity time and path.
#[derive(Debug, Clone, Copy)]
pub struct RankKey<'a> {
    pub score: &'a Score,
    pub modified_ms: i64,
    pub path: &'a Path,
}

/// The one order of search results, for the picker and `grove list --query` alike: by
/// [`Score::cmp_rank`] for relevance, then most recent first, then by path so it is total.
pub fn compare_matches(order: MatchOrder, a: RankKey<'_>, b: RankKey<'_>) -> Ordering {
    let recent = || {
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(b.path))
    };
    match order {
        MatchOrder::Relevance => a.score.cmp_rank(b.score).then_with(recent),
        MatchOrder::Recent => recent(),
    }
}

/// A parsed search query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The trimmed input.
    trimmed: String,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Tokens(Vec<Token>),
    Regex(Regex),
}

impl Query {
    /// Parse raw search input (see the [module docs](self)).
    ///
    /// An all-whitespace input gives an empty query, which matches every session.
    pub fn parse(input: &str) -> Result<Query, QueryError> {
        let trimmed = js_trim(input);
        let kind = match trimmed.strip_prefix("re:") {
            Some(rest) => Kind::Regex(compile_regex(js_trim(rest))?),
            None => Kind::Tokens(tokenize(trimmed)),
        };
        Ok(Query {
            trimmed: trimmed.to_owned(),
            kind,
        })
    }

    /// `true` when the trimmed input is empty: the caller shows every session in its own order.
    pub fn is_empty(&self) -> bool {
        self.trimmed.is_empty()
    }

    /// The trimmed input this query was parsed from.
    pub fn as_str(&self) -> &str {
        &self.trimmed
    }

    /// Whether this is a `re:` query.
    pub fn is_regex(&self) -> bool {
        matches!(self.kind, Kind::Regex(_))
    }

    /// Score a session, or `None` if it does not match. Lowercases every field on each call;
    /// for repeated searches cache a [`PreparedText`] and use [`Query::score_prepared`].
    pub fn score(&self, fields: &SearchFields<'_>) -> Option<Score> {
        self.score_prepared(&PreparedText::new(fields))
    }

    /// Score a prepared session, or `None` if it does not match.
    pub fn score_prepared(&self, p: &PreparedText) -> Option<Score> {
        self.run(p, None)
    }

    /// Which field each token matched in (one entry per token; one for a regex), or `None` if
    /// the session does not match.
    pub fn matched_fields(&self, p: &PreparedText) -> Option<Vec<MatchedField>> {
        let mut fields = Vec::new();
        self.run(p, Some(&mut fields))?;
        Some(fields)
    }

    fn run(&self, p: &PreparedText, why: Option<&mut Vec<MatchedField>>) -> Option<Score> {
        compact::with_both(&p.text, &p.tools, |text, tools| {
            self.run_on(&Texts { p, text, tools }, why)
        })
    }

    fn run_on(&self, p: &Texts<'_>, mut why: Option<&mut Vec<MatchedField>>) -> Option<Score> {
        let mut total = 0.0;
        let mut tool_only = false;
        let mut fuzzy_tokens = 0u32;
        let mut k = 0u32;
        let mut add = |m: FieldScore, why: &mut Option<&mut Vec<MatchedField>>| {
            total += f64::from(m.tier) * TIER_WEIGHT + m.score;
            tool_only |= m.tier == TIER_TOOL;
            if m.field.fuzzy && k < 32 {
                fuzzy_tokens |= 1 << k;
            }
            k += 1;
            if let Some(w) = why.as_deref_mut() {
                w.push(m.field);
            }
        };
        match &self.kind {
            Kind::Regex(re) => add(match_regex(re, p)?, &mut why),
            Kind::Tokens(tokens) => {
                for token in tokens {
                    let m = match token {
                        Token::Word(w) => match_word(w, p),
                        Token::Phrase(ph) => match_phrase(ph, p),
                    };
                    add(m?, &mut why);
                }
            }
        }
        Some(Score {
            pi_score: total,
            tool_only,
            fuzzy_tokens,
        })
    }

    pub(crate) fn tokens(&self) -> &[Token] {
        match &self.kind {
            Kind::Tokens(t) => t,
            Kind::Regex(_) => &[],
        }
    }

    pub(crate) fn regex(&self) -> Option<&Regex> {
        match &self.kind {
            Kind::Regex(re) => Some(re),
            Kind::Tokens(_) => None,
        }
    }
}

/// A prepared session with its texts at hand (decompressed for one search).
struct Texts<'a> {
    p: &'a PreparedText,
    text: &'a str,
    tools: &'a str,
}

impl std::ops::Deref for Texts<'_> {
    type Target = PreparedText;
    fn deref(&self) -> &PreparedText {
        self.p
    }
}

/// A token's tier, score and field.
struct FieldScore {
    tier: u8,
    score: f64,
    field: MatchedField,
}

impl FieldScore {
    fn literal(tier: u8, score: f64, field: explain::Field) -> Self {
        FieldScore {
            tier,
            score,
            field: MatchedField {
                field,
                fuzzy: false,
            },
        }
    }
}

/// pi's `matchFuzzyToken` (literal first, then fuzzy in the name or the cwd), then grove's
/// tool calls.
fn match_word(w: &Word, p: &Texts<'_>) -> Option<FieldScore> {
    use explain::Field;
    if let Some(name) = &p.name
        && w.is_in(name)
    {
        let score = fuzzy::fuzzy_match_lower(&w.lower, &w.lower16, &p.name16).unwrap_or(0.0);
        return Some(FieldScore::literal(TIER_NAME, score, Field::Name));
    }
    let text_field = if w.is_in(&p.id) {
        Some(Field::Id)
    } else if w.is_in(p.text) {
        Some(Field::Messages)
    } else if w.is_in(&p.cwd) {
        Some(Field::Cwd)
    } else if p.summary.as_deref().is_some_and(|s| w.is_in(s)) {
        Some(Field::Summary)
    } else {
        None
    };
    if let Some(field) = text_field {
        return Some(FieldScore::literal(TIER_TEXT, 0.0, field));
    }
    let in_name = fuzzy::fuzzy_match_lower(&w.lower, &w.lower16, &p.name16);
    let in_cwd = fuzzy::fuzzy_match_lower(&w.lower, &w.lower16, &p.cwd16);
    // pi keeps the name's score unless the cwd's is strictly lower.
    let best = match (in_name, in_cwd) {
        (Some(n), Some(c)) if c < n => Some((c, Field::Cwd)),
        (Some(n), _) => Some((n, Field::Name)),
        (None, Some(c)) => Some((c, Field::Cwd)),
        (None, None) => None,
    };
    if let Some((score, field)) = best {
        return Some(FieldScore {
            tier: TIER_FUZZY,
            score,
            field: MatchedField { field, fuzzy: true },
        });
    }
    w.is_in(p.tools)
        .then(|| FieldScore::literal(TIER_TOOL, 0.0, Field::Tool))
}

/// pi's `matchPhraseToken`, then grove's tool calls.
fn match_phrase(ph: &Phrase, p: &Texts<'_>) -> Option<FieldScore> {
    use explain::Field;
    if p.name_norm.contains(ph.normalized.as_str()) {
        let score = fuzzy::fuzzy_match_lower(&ph.normalized, &ph.normalized16, &p.name_norm16)
            .unwrap_or(0.0);
        return Some(FieldScore::literal(TIER_NAME, score, Field::Name));
    }
    let field = if p.id.contains(ph.normalized.as_str()) {
        Field::Id
    } else if ph.is_in(p.text) {
        Field::Messages
    } else if p.cwd_norm.contains(ph.normalized.as_str()) {
        Field::Cwd
    } else if p.summary.as_deref().is_some_and(|s| ph.is_in(s)) {
        Field::Summary
    } else if ph.is_in(p.tools) {
        return Some(FieldScore::literal(TIER_TOOL, 0.0, Field::Tool));
    } else {
        return None;
    };
    Some(FieldScore::literal(TIER_TEXT, 0.0, field))
}

/// pi's `matchRegex` (on the lowercased fields, still case-insensitively), then grove's tool
/// calls.
fn match_regex(re: &Regex, p: &Texts<'_>) -> Option<FieldScore> {
    use explain::Field;
    if p.name.as_deref().is_some_and(|n| re.is_match(n)) {
        return Some(FieldScore::literal(TIER_NAME, 0.0, Field::Name));
    }
    let field = if re.is_match(&p.id) {
        Field::Id
    } else if re.is_match(p.text) {
        Field::Messages
    } else if re.is_match(&p.cwd) {
        Field::Cwd
    } else if p.summary.as_deref().is_some_and(|s| re.is_match(s)) {
        Field::Summary
    } else if re.is_match(p.tools) {
        return Some(FieldScore::literal(TIER_TOOL, 0.0, Field::Tool));
    } else {
        return None;
    };
    Some(FieldScore::literal(TIER_TEXT, 0.0, field))
}

fn compile_regex(pattern: &str) -> Result<Regex, QueryError> {
    if pattern.is_empty() {
        return Err(QueryError::EmptyRegex);
    }
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .map_err(|e| QueryError::InvalidRegex(one_line_regex_error(&e)))
}

/// `regex` errors span several lines (pattern, caret, reason); a status line wants the reason.
fn one_line_regex_error(e: &regex::Error) -> String {
    let msg = e.to_string();
    msg.lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map_or_else(
            || msg.split_whitespace().collect::<Vec<_>>().join(" "),
            str::to_owned,
        )
}
