//! Session search: pi's `/resume` query syntax and scoring, plus grove's ranking tiers.
//!
//! Syntax (pi 0.58, `session-selector-search.ts`):
//! * `re:<pattern>` — a case-insensitive regular expression (Rust `regex` syntax, so no
//!   look-around or backreferences); the score is the UTF-16 index of the first match × 0.1.
//! * otherwise tokens, all of which must match (AND), scores summed:
//!   * `"exact phrase"` — case-insensitive substring after collapsing whitespace runs, scored by
//!     its index in the whitespace-normalised text × 0.1;
//!   * bare words — pi's fuzzy subsequence match ([`fuzzy_match`]).
//!   * an unbalanced `"` makes the whole query plain whitespace-separated fuzzy words, the quote
//!     characters included.
//!
//! The searched text is `"{id} {name} {summary} {text} {cwd}"` (the summary and its space only
//! when present, as Atomic does). Lower pi scores are better.
//!
//! grove ranks on top of that ([`Score`]): exact name / id-prefix matches first, then sessions
//! where every token is a plain substring, then fuzzy-only matches; the caller breaks ties by
//! most recent activity.
//!
//! Positions are counted in UTF-16 code units and lowercasing is Unicode's, as in Node, so the
//! fuzzy and phrase scores equal pi's exactly (regex dialects differ slightly).

use std::cmp::Ordering;
use std::ops::Range;

use memchr::memmem;
use regex::{Regex, RegexBuilder};

/// Tier of a query that equals the session name or is a prefix of its id.
pub const TIER_EXACT: u8 = 0;
/// Tier of a session in which every token occurs as a plain (case-insensitive) substring.
pub const TIER_SUBSTRING: u8 = 1;
/// Tier of a session that matches only through fuzzy subsequences.
pub const TIER_FUZZY: u8 = 2;

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
    /// All user and assistant text of the session, joined with spaces.
    pub text: &'a str,
    /// Working directory from the header (`""` when missing).
    pub cwd: &'a str,
}

/// How well a session matches a query; see [`Score::cmp_rank`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// [`TIER_EXACT`], [`TIER_SUBSTRING`] or [`TIER_FUZZY`]; lower ranks first.
    pub tier: u8,
    /// pi's score for the whole query; lower is better.
    pub pi_score: f64,
}

impl Score {
    /// Ranking order: tier ascending, then pi score ascending.
    ///
    /// `Equal` means a tie that the caller breaks by most recent `modified` first (pi relies on
    /// a stable sort of an already modified-desc list for the same effect).
    pub fn cmp_rank(&self, other: &Self) -> Ordering {
        self.tier.cmp(&other.tier).then_with(|| {
            // `==` first so that 0.0 and -0.0 tie, like pi's `a.score - b.score`.
            if self.pi_score == other.pi_score {
                Ordering::Equal
            } else {
                self.pi_score.total_cmp(&other.pi_score)
            }
        })
    }
}

/// The lowercased searched text of one session, ready for repeated queries.
///
/// Building it costs one join and one lowercase pass over the session text; callers should
/// cache it per session (it replaces the original text for searching) and pass it to
/// [`Query::score_prepared`] on every keystroke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedText {
    lower: String,
    ascii: bool,
    utf16_len: usize,
}

impl PreparedText {
    /// Join and lowercase the searched fields of a session.
    pub fn new(fields: &SearchFields<'_>) -> Self {
        Self::from_joined(searched_text(fields))
    }

    fn from_joined(mut joined: String) -> Self {
        if joined.is_ascii() {
            joined.make_ascii_lowercase();
        } else {
            joined = joined.to_lowercase();
        }
        let ascii = joined.is_ascii();
        let utf16_len = if ascii {
            joined.len()
        } else {
            utf16_len(joined.as_bytes())
        };
        Self {
            lower: joined,
            ascii,
            utf16_len,
        }
    }

    /// The lowercased searched text.
    pub fn as_str(&self) -> &str {
        &self.lower
    }

    /// Whether the text is pure ASCII (byte offsets are then UTF-16 offsets).
    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    /// Byte offset → UTF-16 offset (pi's string index).
    fn utf16_index(&self, byte: usize) -> usize {
        if self.ascii {
            byte
        } else {
            utf16_len(&self.lower.as_bytes()[..byte.min(self.lower.len())])
        }
    }
}

/// A parsed search query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The trimmed input.
    trimmed: String,
    /// The trimmed input, lowercased (for the exact tier).
    lower: String,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Tokens(Vec<Token>),
    Regex(Regex),
}

#[derive(Debug, Clone)]
enum Token {
    Fuzzy(FuzzyToken),
    Phrase(Phrase),
}

#[derive(Debug, Clone)]
struct FuzzyToken {
    /// Lowercased token.
    lower: String,
    /// pi's letters/digits swap of `lower` (`ts1` ⇄ `1ts`), if it applies.
    swapped: Option<String>,
    /// Finds `lower` as a plain substring (for the tier).
    finder: memmem::Finder<'static>,
}

#[derive(Debug, Clone)]
struct Phrase {
    /// Lowercased words; in the text they must be separated by whitespace runs.
    words: Vec<String>,
    /// Finds the first word.
    first: memmem::Finder<'static>,
}

impl Query {
    /// Parse raw search input (pi 0.58 syntax, see the [module docs](self)).
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
            lower: trimmed.to_lowercase(),
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

    /// Score a session, or `None` if it does not match.
    ///
    /// Builds the searched text on every call; for repeated searches cache a [`PreparedText`]
    /// and use [`Query::score_prepared`].
    pub fn score(&self, fields: &SearchFields<'_>) -> Option<Score> {
        let joined = searched_text(fields);
        if self.is_regex() {
            // pi runs the regex on the original text; keep it beside the lowercased copy.
            let prepared = PreparedText::from_joined(joined.clone());
            self.score_inner(&prepared, Some(&joined), fields)
        } else {
            self.score_inner(&PreparedText::from_joined(joined), None, fields)
        }
    }

    /// Score a session whose searched text was prepared with [`PreparedText::new`] from the
    /// same `fields`.
    ///
    /// Regexes run on the lowercased text here (still case-insensitively); this can only move
    /// the reported index for the rare characters whose lowercase form is longer (`İ`).
    pub fn score_prepared(
        &self,
        prepared: &PreparedText,
        fields: &SearchFields<'_>,
    ) -> Option<Score> {
        self.score_inner(prepared, None, fields)
    }

    fn score_inner(
        &self,
        prepared: &PreparedText,
        original: Option<&str>,
        fields: &SearchFields<'_>,
    ) -> Option<Score> {
        let exact = self.is_exact(fields);
        let matched = match &self.kind {
            Kind::Regex(re) => {
                let start = match original {
                    Some(text) => re
                        .find(text)
                        .map(|m| utf16_len(&text.as_bytes()[..m.start()])),
                    None => re
                        .find(&prepared.lower)
                        .map(|m| prepared.utf16_index(m.start())),
                };
                start.map(|idx| (idx as f64 * 0.1, TIER_SUBSTRING))
            }
            Kind::Tokens(tokens) => score_tokens(tokens, prepared),
        };
        match (matched, exact) {
            (Some((pi_score, _)), true) => Some(Score {
                tier: TIER_EXACT,
                pi_score,
            }),
            (Some((pi_score, tier)), false) => Some(Score { tier, pi_score }),
            // pi would have matched too in practice; never hide an exact hit.
            (None, true) => Some(Score {
                tier: TIER_EXACT,
                pi_score: 0.0,
            }),
            (None, false) => None,
        }
    }

    /// The exact tier: the whole query is the name, or a prefix of the id (case-insensitive).
    fn is_exact(&self, fields: &SearchFields<'_>) -> bool {
        if self.lower.is_empty() || self.is_regex() {
            return false;
        }
        let name_equal = fields
            .name
            .is_some_and(|name| lowercase_chars(js_trim(name)).eq(self.lower.chars()));
        name_equal || {
            let mut id = lowercase_chars(fields.id);
            self.lower.chars().all(|c| id.next() == Some(c))
        }
    }

    /// Byte ranges of `shown` (e.g. a row's name or first message) that the query matches,
    /// sorted and merged, for highlighting.
    ///
    /// Fuzzy words mark their greedy matched characters (only if the whole word matches within
    /// `shown`), phrases and regexes every match span.
    pub fn highlight(&self, shown: &str) -> Vec<Range<usize>> {
        let mut ranges = Vec::new();
        match &self.kind {
            Kind::Regex(re) => ranges.extend(
                re.find_iter(shown)
                    .map(|m| m.range())
                    .filter(|r| !r.is_empty()),
            ),
            Kind::Tokens(tokens) => {
                let lowered = LoweredChars::new(shown);
                for token in tokens {
                    match token {
                        Token::Fuzzy(t) => {
                            if !lowered.fuzzy(&t.lower, &mut ranges)
                                && let Some(swapped) = &t.swapped
                            {
                                lowered.fuzzy(swapped, &mut ranges);
                            }
                        }
                        Token::Phrase(p) => lowered.phrases(&p.words, &mut ranges),
                    }
                }
            }
        }
        merge_ranges(ranges)
    }
}

/// pi's fuzzy match of `query` against `text`: `Some(score)` (lower is better) or `None`.
///
/// Both are lowercased; every query character must appear in order (greedy, leftmost).
/// Consecutive matches, matches at word boundaries (after whitespace or `-_./:`) and early
/// matches score better, gaps worse. A query of letters then digits (or digits then letters)
/// that fails is retried with the two halves swapped, at a cost of 5.
pub fn fuzzy_match(query: &str, text: &str) -> Option<f64> {
    let q = query.to_lowercase();
    let prepared = PreparedText::from_joined(text.to_owned());
    fuzzy_prepared(&q, swap_halves(&q).as_deref(), &prepared)
}

fn fuzzy_prepared(q: &str, swapped: Option<&str>, t: &PreparedText) -> Option<f64> {
    fuzzy_scan(q, t).or_else(|| swapped.and_then(|s| fuzzy_scan(s, t)).map(|s| s + 5.0))
}

/// One greedy pass of pi's `matchQuery` over the lowercased text.
fn fuzzy_scan(q: &str, t: &PreparedText) -> Option<f64> {
    let q_len = utf16_len(q.as_bytes());
    if q_len == 0 {
        return Some(0.0);
    }
    if q_len > t.utf16_len {
        return None;
    }
    if q.chars().any(|c| c.len_utf16() == 2) {
        // pi compares code units, so a surrogate can match half of another character.
        return fuzzy_scan_units(q, &t.lower);
    }
    let bytes = t.lower.as_bytes();
    let mut state = FuzzyState::default();
    let mut from = 0;
    // UTF-16 index of byte `counted_to`, advanced incrementally to stay linear.
    let (mut counted_to, mut counted16) = (0, 0);
    for qc in q.chars() {
        let b = find_char(bytes, from, qc)?;
        let i = if t.ascii {
            b
        } else {
            counted16 += utf16_len(&bytes[counted_to..b]);
            counted_to = b;
            counted16
        };
        let boundary = b == 0
            || t.lower
                .get(..b)
                .and_then(|p| p.chars().next_back())
                .is_some_and(is_boundary_char);
        state.hit(i, boundary);
        from = b + qc.len_utf8();
    }
    Some(state.score)
}

/// pi's loop over UTF-16 code units, used for queries with non-BMP characters.
fn fuzzy_scan_units(q: &str, t: &str) -> Option<f64> {
    let q: Vec<u16> = q.encode_utf16().collect();
    let mut state = FuzzyState::default();
    let mut qi = 0;
    let mut prev: Option<u16> = None;
    for (i, unit) in t.encode_utf16().enumerate() {
        let Some(&want) = q.get(qi) else { break };
        if unit == want {
            let boundary = i == 0
                || prev.is_some_and(|p| char::from_u32(u32::from(p)).is_some_and(is_boundary_char));
            state.hit(i, boundary);
            qi += 1;
        }
        prev = Some(unit);
    }
    (qi == q.len()).then_some(state.score)
}

/// Running score of pi's fuzzy loop; the operations mirror pi's exactly so that the floating
/// point results are identical.
struct FuzzyState {
    score: f64,
    last: i64,
    consecutive: i64,
}

impl Default for FuzzyState {
    fn default() -> Self {
        Self {
            score: 0.0,
            last: -1,
            consecutive: 0,
        }
    }
}

impl FuzzyState {
    fn hit(&mut self, i: usize, boundary: bool) {
        let i = i64::try_from(i).unwrap_or(i64::MAX);
        // As in pi, a match at index 0 counts as consecutive (last starts at -1).
        if self.last == i - 1 {
            self.consecutive += 1;
            self.score -= (self.consecutive * 5) as f64;
        } else {
            self.consecutive = 0;
            if self.last >= 0 {
                self.score += ((i - self.last - 1) * 2) as f64;
            }
        }
        if boundary {
            self.score -= 10.0;
        }
        self.score += i as f64 * 0.1;
        self.last = i;
    }
}

/// Byte index of the first `c` in `bytes[from..]`.
fn find_char(bytes: &[u8], from: usize, c: char) -> Option<usize> {
    let hay = bytes.get(from..)?;
    if c.is_ascii() {
        return memchr::memchr(c as u8, hay).map(|k| from + k);
    }
    let mut buf = [0; 4];
    let needle = c.encode_utf8(&mut buf).as_bytes();
    let mut at = 0;
    while let Some(k) = memchr::memchr(needle[0], &hay[at..]) {
        if hay[at + k..].starts_with(needle) {
            return Some(from + at + k);
        }
        at += k + 1;
    }
    None
}

/// pi's letters/digits swap: `ts1` → `1ts`, `12ab` → `ab12`.
fn swap_halves(q: &str) -> Option<String> {
    let split = q.find(|c: char| !c.is_ascii_lowercase()).filter(|&k| k > 0);
    if let Some(k) = split
        && q[k..].bytes().all(|b| b.is_ascii_digit())
    {
        return Some(format!("{}{}", &q[k..], &q[..k]));
    }
    let split = q.find(|c: char| !c.is_ascii_digit()).filter(|&k| k > 0);
    if let Some(k) = split
        && q[k..].bytes().all(|b| b.is_ascii_lowercase())
    {
        return Some(format!("{}{}", &q[k..], &q[..k]));
    }
    None
}

/// Match all tokens; returns the summed pi score and the tier (substring or fuzzy).
fn score_tokens(tokens: &[Token], t: &PreparedText) -> Option<(f64, u8)> {
    let mut total = 0.0;
    let mut tier = TIER_SUBSTRING;
    for token in tokens {
        match token {
            Token::Phrase(p) => {
                let start = find_phrase(&t.lower, p)?;
                total += normalized_index(t.lower.get(..start).unwrap_or_default()) as f64 * 0.1;
            }
            Token::Fuzzy(f) => {
                total += fuzzy_prepared(&f.lower, f.swapped.as_deref(), t)?;
                if tier == TIER_SUBSTRING && f.finder.find(t.lower.as_bytes()).is_none() {
                    tier = TIER_FUZZY;
                }
            }
        }
    }
    Some((total, tier))
}

/// Byte offset of the first occurrence of the phrase in `text`, where each gap between words
/// may be any whitespace run (pi compares whitespace-normalised strings).
fn find_phrase(text: &str, phrase: &Phrase) -> Option<usize> {
    let (first, rest) = phrase.words.split_first()?;
    let bytes = text.as_bytes();
    let mut from = 0;
    // Overlapping candidates: in "bbb a" the phrase "bb a" starts at the second `b`.
    'candidates: while let Some(found) = bytes.get(from..).and_then(|b| phrase.first.find(b)) {
        let start = from + found;
        from = start + 1;
        let mut end = start + first.len();
        for word in rest {
            let tail = text.get(end..)?;
            let gap = tail.len() - tail.trim_start_matches(is_js_space).len();
            if gap == 0 || !tail[gap..].starts_with(word.as_str()) {
                continue 'candidates;
            }
            end += gap + word.len();
        }
        return Some(start);
    }
    None
}

/// Length in UTF-16 units of `prefix` after pi's `replace(/\s+/g, " ").trim()`, for a prefix
/// that is followed by a non-space character.
fn normalized_index(prefix: &str) -> usize {
    let mut idx = 0;
    let mut seen_text = false;
    let mut in_space = false;
    for c in prefix.chars() {
        if is_js_space(c) {
            // A run counts as one space, except a leading run (trimmed away).
            if seen_text && !in_space {
                idx += 1;
            }
            in_space = true;
        } else {
            seen_text = true;
            in_space = false;
            idx += c.len_utf16();
        }
    }
    idx
}

/// pi's tokenizer: quotes toggle phrase mode, whitespace outside quotes separates words.
fn tokenize(trimmed: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut buf = String::new();
    let mut in_quote = false;
    for c in trimmed.chars() {
        if c == '"' {
            let phrase = in_quote;
            push_token(&mut tokens, &buf, phrase);
            buf.clear();
            in_quote = !in_quote;
        } else if !in_quote && is_js_space(c) {
            push_token(&mut tokens, &buf, false);
            buf.clear();
        } else {
            buf.push(c);
        }
    }
    if in_quote {
        // Unbalanced quote: plain words, quote characters kept.
        tokens.clear();
        for word in trimmed.split(is_js_space).filter(|w| !w.is_empty()) {
            push_token(&mut tokens, word, false);
        }
        return tokens;
    }
    push_token(&mut tokens, &buf, false);
    tokens
}

fn push_token(tokens: &mut Vec<Token>, raw: &str, phrase: bool) {
    let value = js_trim(raw);
    if value.is_empty() {
        return;
    }
    let lower = value.to_lowercase();
    if phrase {
        let words: Vec<String> = lower
            .split(is_js_space)
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        let Some(first) = words.first() else { return };
        let first = memmem::Finder::new(first.as_bytes()).into_owned();
        tokens.push(Token::Phrase(Phrase { words, first }));
    } else {
        let finder = memmem::Finder::new(lower.as_bytes()).into_owned();
        let swapped = swap_halves(&lower);
        tokens.push(Token::Fuzzy(FuzzyToken {
            lower,
            swapped,
            finder,
        }));
    }
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

/// pi's searched text: `${id} ${name ?? ""} ${summary} ${text} ${cwd}`.
fn searched_text(f: &SearchFields<'_>) -> String {
    let name = f.name.unwrap_or("");
    let summary_len = f.summary.map_or(0, |s| s.len() + 1);
    let mut s = String::with_capacity(
        f.id.len() + name.len() + summary_len + f.text.len() + f.cwd.len() + 3,
    );
    s.push_str(f.id);
    s.push(' ');
    s.push_str(name);
    s.push(' ');
    if let Some(summary) = f.summary {
        s.push_str(summary);
        s.push(' ');
    }
    s.push_str(f.text);
    s.push(' ');
    s.push_str(f.cwd);
    s
}

/// Length in UTF-16 code units of UTF-8 `bytes`: one unit per character, two for 4-byte ones.
/// Written as a branch-free sum so that it vectorises.
fn utf16_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// JavaScript's `\s` (and `String.prototype.trim`) set, which differs from Rust's.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// pi's word-boundary class `[\s\-_./:]`.
fn is_boundary_char(c: char) -> bool {
    is_js_space(c) || matches!(c, '-' | '_' | '.' | '/' | ':')
}

/// Unicode lowercase, character by character, without allocating.
fn lowercase_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(char::to_lowercase)
}

/// A displayed string lowercased character by character, each lowered character remembering
/// the byte range of the original character it came from.
struct LoweredChars {
    chars: Vec<(char, Range<usize>)>,
}

impl LoweredChars {
    fn new(s: &str) -> Self {
        let chars = s
            .char_indices()
            .flat_map(|(i, c)| {
                let range = i..i + c.len_utf8();
                c.to_lowercase().map(move |l| (l, range.clone()))
            })
            .collect();
        Self { chars }
    }

    /// Greedy subsequence match; pushes the matched ranges only if every character matched.
    fn fuzzy(&self, q: &str, out: &mut Vec<Range<usize>>) -> bool {
        if q.is_empty() {
            return false;
        }
        let mut found = Vec::new();
        let mut pos = 0;
        for qc in q.chars() {
            let Some(k) = self.chars[pos..].iter().position(|(c, _)| *c == qc) else {
                return false;
            };
            found.push(self.chars[pos + k].1.clone());
            pos += k + 1;
        }
        out.extend(found);
        true
    }

    /// Every non-overlapping occurrence of the phrase (words separated by whitespace runs).
    fn phrases(&self, words: &[String], out: &mut Vec<Range<usize>>) {
        let mut pos = 0;
        while pos < self.chars.len() {
            match self.phrase_at(pos, words) {
                Some(end) if end > pos => {
                    out.push(self.chars[pos].1.start..self.chars[end - 1].1.end);
                    pos = end;
                }
                _ => pos += 1,
            }
        }
    }

    /// End index (exclusive) of the phrase if it starts at `pos`.
    fn phrase_at(&self, mut pos: usize, words: &[String]) -> Option<usize> {
        for (n, word) in words.iter().enumerate() {
            if n > 0 {
                let gap = self.chars[pos..]
                    .iter()
                    .take_while(|(c, _)| is_js_space(*c))
                    .count();
                if gap == 0 {
                    return None;
                }
                pos += gap;
            }
            for wc in word.chars() {
                if self.chars.get(pos).map(|(c, _)| *c) != Some(wc) {
                    return None;
                }
                pos += 1;
            }
        }
        Some(pos)
    }
}

/// Sort and merge overlapping or touching ranges.
fn merge_ranges(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// pi's `fuzzyMatch`, transcribed literally over UTF-16 code units.
    fn reference_fuzzy(query: &str, text: &str) -> Option<f64> {
        fn match_query(q: &[u16], t: &[u16]) -> Option<f64> {
            if q.is_empty() {
                return Some(0.0);
            }
            if q.len() > t.len() {
                return None;
            }
            let (mut qi, mut score, mut last, mut consec) = (0usize, 0.0f64, -1i64, 0i64);
            let mut i = 0usize;
            while i < t.len() && qi < q.len() {
                if t[i] == q[qi] {
                    let boundary = i == 0
                        || char::from_u32(u32::from(t[i - 1]))
                            .is_some_and(|c| is_js_space(c) || "-_./:".contains(c));
                    let ii = i as i64;
                    if last == ii - 1 {
                        consec += 1;
                        score -= (consec * 5) as f64;
                    } else {
                        consec = 0;
                        if last >= 0 {
                            score += ((ii - last - 1) * 2) as f64;
                        }
                    }
                    if boundary {
                        score -= 10.0;
                    }
                    score += ii as f64 * 0.1;
                    last = ii;
                    qi += 1;
                }
                i += 1;
            }
            (qi == q.len()).then_some(score)
        }
        let q = query.to_lowercase();
        let t: Vec<u16> = text.to_lowercase().encode_utf16().collect();
        let q16: Vec<u16> = q.encode_utf16().collect();
        if let Some(s) = match_query(&q16, &t) {
            return Some(s);
        }
        let swapped = swap_halves(&q)?;
        let s16: Vec<u16> = swapped.encode_utf16().collect();
        match_query(&s16, &t).map(|s| s + 5.0)
    }

    #[test]
    fn reference_vectors() {
        let cases: &[(&str, &str, Option<f64>)] = &[
            ("brave", "xxxx brave", Some(-56.5)),
            ("brave", "brave xxxx", Some(-84.0)),
            ("abc", "abc", Some(-39.7)),
            ("abc", "xabc", Some(-14.4)),
            ("abc", "a-b-c", Some(-30.4)),
            ("fb", "foo bar", Some(-18.6)),
            ("ab", "a b", Some(-22.8)),
            ("NODE", "my node", Some(-38.2)),
            ("ts1", "1ts", Some(-34.7)),
            ("a1", "1a", Some(-19.9)),
            ("xyz", "abc", None),
        ];
        for &(q, t, want) in cases {
            let got = fuzzy_match(q, t);
            match (got, want) {
                (Some(g), Some(w)) => assert!(close(g, w), "{q:?}/{t:?}: {g} != {w}"),
                (None, None) => {}
                _ => panic!("{q:?}/{t:?}: {got:?} != {want:?}"),
            }
            assert_eq!(got, reference_fuzzy(q, t), "{q:?}/{t:?}");
        }
    }

    #[test]
    fn fuzzy_edge_cases() {
        assert_eq!(fuzzy_match("", "anything"), Some(0.0));
        assert_eq!(fuzzy_match("", ""), Some(0.0));
        assert_eq!(fuzzy_match("abcd", "abc"), None);
        // Positions are UTF-16 units: the emoji before the match counts twice.
        assert_eq!(fuzzy_match("b", "😀 b"), reference_fuzzy("b", "😀 b"));
        assert!(close(
            fuzzy_match("b", "😀 b").unwrap_or(f64::NAN),
            -10.0 + 0.3
        ));
        // Unicode lowercase on both sides.
        assert_eq!(fuzzy_match("ÄB", "xäb"), reference_fuzzy("ÄB", "xäb"));
        assert!(fuzzy_match("ÄB", "xäb").is_some());
        // Non-BMP query characters go through the code-unit path.
        assert_eq!(fuzzy_match("😀", "😁x😀"), reference_fuzzy("😀", "😁x😀"));
        assert!(swap_halves("abc").is_none());
        assert_eq!(swap_halves("ab12").as_deref(), Some("12ab"));
        assert_eq!(swap_halves("12ab").as_deref(), Some("ab12"));
        assert!(swap_halves("a1b").is_none());
        assert!(swap_halves("1").is_none());
    }

    proptest! {
        #[test]
        fn fuzzy_equals_reference(
            q in "[aAbB1 \\-./日İΣσς😀😁é\u{301}]{0,4}",
            t in "[aAbB1 \\-_./:日İΣσς😀😁é\u{301}\u{a0}x]{0,24}",
        ) {
            let got = fuzzy_match(&q, &t);
            let want = reference_fuzzy(&q, &t);
            prop_assert_eq!(got, want, "{:?} / {:?}", q, t);
        }

        #[test]
        fn phrase_index_equals_normalized_index_of(
            phrase in "[ab ]{1,5}",
            t in "[ab \\t\\n\u{a0}😀]{0,24}",
        ) {
            let norm = |s: &str| {
                let lower = s.to_lowercase();
                lower.split(is_js_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
            };
            let np = norm(&phrase);
            prop_assume!(!np.is_empty());
            let fields = SearchFields { id: "", text: &t, ..SearchFields::default() };
            let query = Query::parse(&format!("\"{phrase}\"")).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let nt = norm(&searched_text(&fields));
            let want = nt.find(&np).map(|b| utf16_len(&nt.as_bytes()[..b]) as f64 * 0.1);
            prop_assert_eq!(query.score(&fields).map(|s| s.pi_score), want);
        }
    }

    fn tokens_of(q: &str) -> Vec<(bool, String)> {
        match Query::parse(q).map(|q| q.kind) {
            Ok(Kind::Tokens(tokens)) => tokens
                .into_iter()
                .map(|t| match t {
                    Token::Fuzzy(f) => (false, f.lower),
                    Token::Phrase(p) => (true, p.words.join(" ")),
                })
                .collect(),
            other => panic!("{q:?}: {other:?}"),
        }
    }

    #[test]
    fn a_phrase_may_start_inside_an_earlier_candidate() {
        let fields = SearchFields {
            id: "",
            text: "bbb a",
            ..SearchFields::default()
        };
        let query = Query::parse("\"bb a\"").unwrap();
        assert_eq!(query.score(&fields).map(|s| s.pi_score), Some(0.1));
    }

    #[test]
    fn parse_tokens() {
        assert!(Query::parse("   ").is_ok_and(|q| q.is_empty()));
        assert_eq!(
            tokens_of("foo Bar"),
            [(false, "foo".into()), (false, "bar".into())]
        );
        assert_eq!(
            tokens_of(r#"foo "Node   CVE" bar"#),
            [
                (false, "foo".into()),
                (true, "node cve".into()),
                (false, "bar".into())
            ]
        );
        assert_eq!(
            tokens_of(r#"a"b c"d"#),
            [
                (false, "a".into()),
                (true, "b c".into()),
                (false, "d".into())
            ]
        );
        assert_eq!(tokens_of(r#""""#), []);
        // Unbalanced: plain words, quotes kept.
        assert_eq!(
            tokens_of(r#"foo "bar baz"#),
            [
                (false, "foo".into()),
                (false, "\"bar".into()),
                (false, "baz".into())
            ]
        );
        assert_eq!(
            tokens_of(r#"a "b" "c"#),
            [
                (false, "a".into()),
                (false, "\"b\"".into()),
                (false, "\"c".into())
            ]
        );
    }

    #[test]
    fn parse_regex() {
        assert_eq!(Query::parse("re:").err(), Some(QueryError::EmptyRegex));
        assert_eq!(Query::parse("  re:   ").err(), Some(QueryError::EmptyRegex));
        let err = Query::parse("re:(").err();
        assert!(
            matches!(&err, Some(QueryError::InvalidRegex(m)) if !m.contains('\n')),
            "{err:?}"
        );
        assert!(err.is_some_and(|e| e.to_string().starts_with("invalid regex: ")));
        assert!(Query::parse("re: a+b ").is_ok_and(|q| q.is_regex() && q.as_str() == "re: a+b"));
        // Only at the start of the trimmed query.
        assert!(Query::parse("x re:(").is_ok_and(|q| !q.is_regex()));
    }

    struct Session {
        id: &'static str,
        name: Option<&'static str>,
        modified: u64,
        text: &'static str,
    }

    impl Session {
        fn new(id: &'static str, modified: u64, text: &'static str) -> Self {
            Self {
                id,
                name: None,
                modified,
                text,
            }
        }
        fn fields(&self) -> SearchFields<'_> {
            SearchFields {
                id: self.id,
                name: self.name,
                summary: None,
                text: self.text,
                cwd: "",
            }
        }
    }

    /// pi's `filterAndSortSessions`, with grove's ranking for "relevance".
    fn filter_and_sort(sessions: &[Session], query: &str, relevance: bool) -> Vec<&'static str> {
        let Ok(q) = Query::parse(query) else {
            return Vec::new();
        };
        if q.is_empty() {
            return sessions.iter().map(|s| s.id).collect();
        }
        let mut scored: Vec<(&Session, Score)> = sessions
            .iter()
            .filter_map(|s| {
                let prepared = PreparedText::new(&s.fields());
                let score = q.score_prepared(&prepared, &s.fields());
                assert_eq!(score, q.score(&s.fields()), "{}", s.id);
                score.map(|sc| (s, sc))
            })
            .collect();
        if relevance {
            scored.sort_by(|a, b| a.1.cmp_rank(&b.1).then(b.0.modified.cmp(&a.0.modified)));
        }
        scored.into_iter().map(|(s, _)| s.id).collect()
    }

    #[test]
    fn pi_quoted_phrase_normalizes_whitespace() {
        let sessions = [
            Session::new("a", 1, "node\n\n   cve was discussed"),
            Session::new("b", 2, "node something else"),
        ];
        assert_eq!(filter_and_sort(&sessions, r#""node cve""#, false), ["a"]);
    }

    #[test]
    fn pi_regex_is_case_insensitive() {
        let sessions = [
            Session::new("a", 2, "Brave is great"),
            Session::new("b", 3, "bravery is not the same"),
        ];
        assert_eq!(filter_and_sort(&sessions, r"re:\bbrave\b", false), ["a"]);
        let q = Query::parse(r"re:\bbrave\b").ok();
        let score = q.and_then(|q| q.score(&sessions[0].fields()));
        // "a  Brave…": index 3.
        assert!(score.is_some_and(|s| s.tier == TIER_SUBSTRING && close(s.pi_score, 0.3)));
    }

    #[test]
    fn pi_recent_keeps_input_order() {
        let sessions = [
            Session::new("newer", 3, "brave"),
            Session::new("older", 1, "brave"),
            Session::new("nomatch", 4, "something else"),
        ];
        assert_eq!(
            filter_and_sort(&sessions, r#""brave""#, false),
            ["newer", "older"]
        );
    }

    #[test]
    fn pi_relevance_orders_by_score_then_modified() {
        let sessions = [
            Session::new("late", 3, "xxxx brave"),
            Session::new("early", 1, "brave xxxx"),
        ];
        assert_eq!(
            filter_and_sort(&sessions, r#""brave""#, true),
            ["early", "late"]
        );
        let ties = [
            Session::new("older", 1, "brave"),
            Session::new("newer", 3, "brave"),
        ];
        assert_eq!(
            filter_and_sort(&ties, r#""brave""#, true),
            ["newer", "older"]
        );
    }

    #[test]
    fn pi_invalid_regex_matches_nothing() {
        let sessions = [Session::new("a", 1, "brave")];
        assert!(filter_and_sort(&sessions, "re:(", false).is_empty());
    }

    #[test]
    fn unbalanced_quote_searches_literal_quote() {
        let sessions = [
            Session::new("a", 1, "say \"hello world"),
            Session::new("b", 2, "hello world"),
        ];
        assert_eq!(filter_and_sort(&sessions, "\"hello world", false), ["a"]);
    }

    #[test]
    fn all_tokens_must_match() {
        let sessions = [
            Session::new("a", 1, "alpha beta"),
            Session::new("b", 2, "alpha gamma"),
        ];
        assert_eq!(filter_and_sort(&sessions, "alpha beta", false), ["a"]);
        assert_eq!(filter_and_sort(&sessions, r#"alpha "gamma""#, false), ["b"]);
    }

    #[test]
    fn score_sums_tokens() {
        let f = SearchFields {
            id: "id",
            text: "foo bar",
            ..SearchFields::default()
        };
        let q = Query::parse("foo bar").ok();
        let want = fuzzy_match("foo", "id  foo bar ").unwrap_or(f64::NAN)
            + fuzzy_match("bar", "id  foo bar ").unwrap_or(f64::NAN);
        assert!(
            q.and_then(|q| q.score(&f))
                .is_some_and(|s| close(s.pi_score, want))
        );
    }

    #[test]
    fn searched_text_layout() {
        let mut f = SearchFields {
            id: "i",
            name: None,
            summary: None,
            text: "t",
            cwd: "/c",
        };
        assert_eq!(searched_text(&f), "i  t /c");
        f.name = Some("N");
        f.summary = Some("S");
        assert_eq!(searched_text(&f), "i N S t /c");
        assert_eq!(PreparedText::new(&f).as_str(), "i n s t /c");
    }

    #[test]
    fn grove_tiers() {
        let named = Session {
            id: "0d6f3a",
            name: Some("Fix Parser"),
            modified: 1,
            text: "we fixed the parser",
        };
        let plain = Session::new("99aa", 2, "fix the parser now");
        let fuzzy = Session::new("77bb", 3, "fun index parsing");
        let tier = |s: &Session, q: &str| {
            Query::parse(q)
                .ok()
                .and_then(|q| q.score(&s.fields()))
                .map(|s| s.tier)
        };
        assert_eq!(tier(&named, "fix parser"), Some(TIER_EXACT));
        assert_eq!(tier(&named, "  FIX PARSER "), Some(TIER_EXACT));
        assert_eq!(tier(&named, "0D6"), Some(TIER_EXACT));
        assert_eq!(tier(&named, "d6"), Some(TIER_SUBSTRING));
        assert_eq!(tier(&plain, "fix parser"), Some(TIER_SUBSTRING));
        assert_eq!(tier(&plain, r#""the parser""#), Some(TIER_SUBSTRING));
        assert_eq!(tier(&fuzzy, "fix"), Some(TIER_FUZZY));
        assert_eq!(tier(&plain, "re:fix"), Some(TIER_SUBSTRING));
        assert_eq!(tier(&plain, "zzz"), None);

        let sessions = [fuzzy, plain, named];
        assert_eq!(
            filter_and_sort(&sessions, "fix parser", true),
            ["0d6f3a", "99aa"]
        );
        let ranked = filter_and_sort(&sessions, "fix pars", true);
        assert_eq!(ranked.len(), 3);
        assert_eq!(
            ranked[2], "77bb",
            "fuzzy-only ranks last despite being the most recent"
        );
    }

    #[test]
    fn cmp_rank_orders_tier_then_score() {
        let s = |tier, pi_score| Score { tier, pi_score };
        assert_eq!(s(0, 5.0).cmp_rank(&s(1, -50.0)), Ordering::Less);
        assert_eq!(s(1, -5.0).cmp_rank(&s(1, 2.0)), Ordering::Less);
        assert_eq!(s(2, 1.0).cmp_rank(&s(2, 1.0)), Ordering::Equal);
        assert_eq!(s(2, 0.0).cmp_rank(&s(2, -0.0)), Ordering::Equal);
    }

    #[test]
    fn prepared_regex_uses_utf16_index() {
        let f = SearchFields {
            id: "😀",
            text: "X",
            ..SearchFields::default()
        };
        let q = Query::parse("re:x").ok();
        let prepared = PreparedText::new(&f);
        assert!(!prepared.is_ascii());
        // "😀  X ": the emoji is two units, then two spaces.
        let want = Some(Score {
            tier: TIER_SUBSTRING,
            pi_score: 4.0 * 0.1,
        });
        assert_eq!(
            q.as_ref().and_then(|q| q.score_prepared(&prepared, &f)),
            want
        );
        assert_eq!(q.and_then(|q| q.score(&f)), want);
    }

    fn marked(q: &str, shown: &str) -> Vec<&'static str> {
        let q = Query::parse(q).ok();
        let ranges = q.map(|q| q.highlight(shown)).unwrap_or_default();
        ranges
            .into_iter()
            .map(|r| &*shown[r].to_owned().leak())
            .collect()
    }

    #[test]
    fn highlight_ranges() {
        assert_eq!(marked("fb", "foo bar"), ["f", "b"]);
        assert_eq!(marked("foo", "a foo"), ["foo"]);
        assert_eq!(marked("zzz", "foo"), Vec::<&str>::new());
        assert_eq!(marked("fo zzz", "foo"), ["fo"]);
        assert_eq!(
            marked(r#""Node  CVE""#, "a node\n cve and NODE CVE"),
            ["node\n cve", "NODE CVE"]
        );
        assert_eq!(marked("re:b+", "abbcb"), ["bb", "b"]);
        assert_eq!(marked("ts1", "1ts"), ["1ts"]);
        assert_eq!(marked("ÉTÉ", "un été"), ["été"]);
        // Ranges are byte ranges of the original, even when lowercasing changes lengths.
        assert_eq!(
            Query::parse("i").ok().map(|q| q.highlight("İx")),
            Some(vec![Range { start: 0, end: 2 }])
        );
        assert_eq!(marked("ab ab", "xab"), ["ab"]);
        assert_eq!(marked("", "abc"), Vec::<&str>::new());
    }
}
