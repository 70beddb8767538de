//! pi's query tokenizer (`parseSearchQuery`) and the whitespace-tolerant phrase finder.

use memchr::memmem;

use super::js::{is_js_space, js_lower, js_trim, utf16};

/// One search token.
#[derive(Debug, Clone)]
pub(crate) enum Token {
    Word(Word),
    Phrase(Phrase),
}

/// A bare word: literal in every field, fuzzy in the name and cwd.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    /// `value.toLowerCase()`.
    pub lower: String,
    /// `lower` in UTF-16 code units, for the fuzzy match.
    pub lower16: Vec<u16>,
    /// Finds `lower` as a substring.
    pub finder: memmem::Finder<'static>,
}

/// A quoted phrase: literal in every field, whitespace runs counting as one space.
#[derive(Debug, Clone)]
pub(crate) struct Phrase {
    /// `normalizeWhitespaceLower(value)`: the words joined by single spaces.
    pub normalized: String,
    /// `normalized` in UTF-16 code units, for the name's score.
    pub normalized16: Vec<u16>,
    /// The lowercased words.
    pub words: Vec<String>,
    /// Finds the first word.
    pub first: memmem::Finder<'static>,
}

/// pi's tokenizer: quotes toggle phrase mode, whitespace outside quotes separates words; an
/// unbalanced quote makes the whole query plain whitespace-separated words, quotes included.
pub(crate) fn tokenize(trimmed: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut buf = String::new();
    let mut in_quote = false;
    for c in trimmed.chars() {
        if c == '"' {
            push_token(&mut tokens, &buf, in_quote);
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
    let lower = js_lower(value);
    if phrase {
        let words: Vec<String> = lower
            .split(is_js_space)
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        // pi skips a phrase that normalises to nothing.
        let Some(first) = words.first() else { return };
        let first = memmem::Finder::new(first.as_bytes()).into_owned();
        let normalized = words.join(" ");
        tokens.push(Token::Phrase(Phrase {
            normalized16: utf16(&normalized),
            normalized,
            words,
            first,
        }));
    } else {
        tokens.push(Token::Word(Word {
            lower16: utf16(&lower),
            finder: memmem::Finder::new(lower.as_bytes()).into_owned(),
            lower,
        }));
    }
}

impl Word {
    /// Whether the (lowercased) `text` holds the word.
    pub fn is_in(&self, text: &str) -> bool {
        self.finder.find(text.as_bytes()).is_some()
    }
}

impl Phrase {
    /// Whether the lowercased `text` holds the phrase once its whitespace is normalised.
    pub fn is_in(&self, text: &str) -> bool {
        find_phrase(text, self).is_some()
    }
}

/// Byte range of the first occurrence of the phrase in lowercased `text`, where each gap between
/// words may be any whitespace run (pi compares whitespace-normalised strings).
pub(crate) fn find_phrase(text: &str, phrase: &Phrase) -> Option<std::ops::Range<usize>> {
    find_phrase_from(text, phrase, 0)
}

/// [`find_phrase`] starting at byte `from`.
pub(crate) fn find_phrase_from(
    text: &str,
    phrase: &Phrase,
    mut from: usize,
) -> Option<std::ops::Range<usize>> {
    let (first, rest) = phrase.words.split_first()?;
    let bytes = text.as_bytes();
    // Overlapping candidates: in "bbb a" the phrase "bb a" starts at the second `b`.
    'candidates: while let Some(found) = bytes.get(from..).and_then(|b| phrase.first.find(b)) {
        let start = from + found;
        from = start + 1;
        let mut end = start + first.len();
        for word in rest {
            let Some(tail) = text.get(end..) else {
                continue 'candidates;
            };
            let gap = tail.len() - tail.trim_start_matches(is_js_space).len();
            if gap == 0 || !tail[gap..].starts_with(word.as_str()) {
                continue 'candidates;
            }
            end += gap + word.len();
        }
        return Some(start..end);
    }
    None
}
