//! pi-tui 1.6.0's `fuzzyMatch` (`dist/fuzzy.js`), exactly: the same matches and the same
//! floating-point scores, computed over UTF-16 code units as in JavaScript.
//!
//! pi 1.6.0 only runs it on a session's name and cwd (short strings), so it works on
//! precomputed UTF-16 copies rather than being tuned for megabytes.

use super::js::{is_boundary_char, js_lower, utf16};

/// `fuzzyMatch(query, text)`: `Some(score)` (lower is better) or `None` when it does not match.
pub fn fuzzy_match(query: &str, text: &str) -> Option<f64> {
    let q = js_lower(query);
    fuzzy_match_lower(&q, &utf16(&q), &utf16(&js_lower(text)))
}

/// [`fuzzy_match`] of an already lowercased query (`q`, and `q16` its UTF-16 units) against an
/// already lowercased text's UTF-16 units.
pub(crate) fn fuzzy_match_lower(q: &str, q16: &[u16], t16: &[u16]) -> Option<f64> {
    if let Some(score) = match_query(q16, t16) {
        return Some(score);
    }
    let swapped = swap_halves(q)?;
    match_query(&utf16(&swapped), t16).map(|s| s + 5.0)
}

/// pi's `matchQuery`: the greedy leftmost alignment, then every contiguous occurrence, keeping
/// the best score; an exact match of the whole text earns 100 more.
fn match_query(q: &[u16], t: &[u16]) -> Option<f64> {
    if q.is_empty() {
        return Some(0.0);
    }
    if q.len() > t.len() {
        return None;
    }
    let mut positions = Vec::with_capacity(q.len());
    let mut from = 0;
    for &unit in q {
        let i = from + t.get(from..)?.iter().position(|&u| u == unit)?;
        positions.push(i);
        from = i + 1;
    }
    let mut score = score_positions(t, &positions);
    let mut start = 0;
    while let Some(k) = find(t, q, start) {
        for (n, p) in positions.iter_mut().enumerate() {
            *p = k + n;
        }
        score = score.min(score_positions(t, &positions));
        start = k + 1;
    }
    if q == t {
        score -= 100.0;
    }
    Some(score)
}

/// `textLower.indexOf(query, from)` over code units.
fn find(t: &[u16], q: &[u16], from: usize) -> Option<usize> {
    let hay = t.get(from..)?;
    hay.windows(q.len()).position(|w| w == q).map(|k| from + k)
}

/// pi's `scorePositions`; the operations mirror pi's so the results are bit-identical.
fn score_positions(t: &[u16], positions: &[usize]) -> f64 {
    let mut score = 0.0f64;
    let mut last: i64 = -1;
    let mut consecutive: i64 = 0;
    for &p in positions {
        let i = i64::try_from(p).unwrap_or(i64::MAX);
        // As in pi, a match at index 0 counts as consecutive (last starts at -1).
        if last == i - 1 {
            consecutive += 1;
            score -= (consecutive * 5) as f64;
        } else {
            consecutive = 0;
            if last >= 0 {
                score += ((i - last - 1) * 2) as f64;
            }
        }
        let boundary = p == 0
            || t.get(p - 1)
                .and_then(|&u| char::from_u32(u32::from(u)))
                .is_some_and(is_boundary_char);
        if boundary {
            score -= 10.0;
        }
        score += i as f64 * 0.1;
        last = i;
    }
    score
}

/// pi's letters/digits swap: `ts1` → `1ts`, `12ab` → `ab12` (ASCII letters and digits only).
pub(crate) fn swap_halves(q: &str) -> Option<String> {
    let split = q.find(|c: char| !c.is_ascii_lowercase()).filter(|&k| k > 0);
    if let Some(k) = split
        && !q[k..].is_empty()
        && q[k..].bytes().all(|b| b.is_ascii_digit())
    {
        return Some(format!("{}{}", &q[k..], &q[..k]));
    }
    let split = q.find(|c: char| !c.is_ascii_digit()).filter(|&k| k > 0);
    if let Some(k) = split
        && !q[k..].is_empty()
        && q[k..].bytes().all(|b| b.is_ascii_lowercase())
    {
        return Some(format!("{}{}", &q[k..], &q[..k]));
    }
    None
}
