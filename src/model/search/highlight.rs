//! Which characters of a shown string (a row's name, first message or folder) a query matches,
//! for highlighting.
//!
//! Literal matches mark every occurrence. A word that is not in the string literally is marked
//! by its fuzzy alignment from the `fuzzy-matcher` crate (skim's best alignment, nicer to read
//! than pi's greedy one); pi's rules still decide which sessions match and in what order.

use std::ops::Range;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::js::is_js_space;
use super::tokens::Token;
use super::{Query, Score};

impl Query {
    /// Byte ranges of `shown` that the query matches, sorted and merged.
    ///
    /// Words mark their literal occurrences, else (when the whole word matches fuzzily within
    /// `shown`) their matched characters; phrases and regexes every match span.
    pub fn highlight(&self, shown: &str) -> Vec<Range<usize>> {
        self.highlight_tokens(shown, u32::MAX)
    }

    /// [`Query::highlight`] for a session whose `score` says which tokens matched fuzzily
    /// ([`Score::fuzzy_tokens`]): only those are marked by their scattered characters; the
    /// others mark their literal occurrences only. Without a score, nothing fuzzy is marked.
    pub fn highlight_for(&self, shown: &str, score: Option<&Score>) -> Vec<Range<usize>> {
        self.highlight_tokens(shown, score.map_or(0, |s| s.fuzzy_tokens))
    }

    fn highlight_tokens(&self, shown: &str, fuzzy_tokens: u32) -> Vec<Range<usize>> {
        let mut ranges = Vec::new();
        if let Some(re) = self.regex() {
            ranges.extend(
                re.find_iter(shown)
                    .map(|m| m.range())
                    .filter(|r| !r.is_empty()),
            );
            return merge_ranges(ranges);
        }
        let lowered = LoweredChars::new(shown);
        for (k, token) in self.tokens().iter().enumerate() {
            let fuzzy_allowed = k < 32 && fuzzy_tokens & (1 << k) != 0;
            match token {
                Token::Word(w) => {
                    let words = [w.lower.clone()];
                    let before = ranges.len();
                    lowered.phrases(&words, &mut ranges);
                    if ranges.len() == before && fuzzy_allowed {
                        ranges.extend(fuzzy_ranges(&w.lower, shown));
                    }
                }
                Token::Phrase(p) => lowered.phrases(&p.words, &mut ranges),
            }
        }
        merge_ranges(ranges)
    }
}

/// The byte ranges of the characters of `shown` that skim's fuzzy matcher aligns `lower_query`
/// with (case-insensitively), or nothing when it does not match.
pub(crate) fn fuzzy_ranges(lower_query: &str, shown: &str) -> Vec<Range<usize>> {
    let matcher = SkimMatcherV2::default().ignore_case();
    let Some((_, indices)) = matcher.fuzzy_indices(shown, lower_query) else {
        return Vec::new();
    };
    // The indices count characters.
    let mut wanted = indices.into_iter().peekable();
    let mut out = Vec::new();
    for (n, (b, c)) in shown.char_indices().enumerate() {
        if wanted.peek() == Some(&n) {
            out.push(b..b + c.len_utf8());
            wanted.next();
        }
    }
    out
}

/// A displayed string lowercased character by character, each lowered character remembering
/// the byte range of the original character it came from.
pub(crate) struct LoweredChars {
    chars: Vec<(char, Range<usize>)>,
}

impl LoweredChars {
    pub(crate) fn new(s: &str) -> Self {
        let chars = s
            .char_indices()
            .flat_map(|(i, c)| {
                let range = i..i + c.len_utf8();
                c.to_lowercase().map(move |l| (l, range.clone()))
            })
            .collect();
        Self { chars }
    }

    /// Every non-overlapping occurrence of the phrase (words separated by whitespace runs).
    pub(crate) fn phrases(&self, words: &[String], out: &mut Vec<Range<usize>>) {
        if words.is_empty() {
            return;
        }
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
pub(crate) fn merge_ranges(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
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
