//! The bits of JavaScript string semantics pi's search depends on: its `\s` set, `trim`,
//! UTF-16 lengths and `toLowerCase` over UTF-16 code units.

/// JavaScript's `\s` (and `String.prototype.trim`) set, which differs from Rust's.
pub(crate) fn is_js_space(c: char) -> bool {
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

pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// pi's word-boundary class `[\s\-_./:]`.
pub(crate) fn is_boundary_char(c: char) -> bool {
    is_js_space(c) || matches!(c, '-' | '_' | '.' | '/' | ':')
}

/// `s.toLowerCase()`: Unicode's lowercase (Rust's matches JavaScript's, final sigma included).
pub(crate) fn js_lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// `s.toLowerCase().replace(/\s+/g, " ").trim()`.
pub(crate) fn normalize_whitespace_lower(s: &str) -> String {
    let lower = js_lower(s);
    let mut out = String::with_capacity(lower.len());
    for word in lower.split(is_js_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The UTF-16 code units of `s` (pi indexes strings by them).
pub(crate) fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}
