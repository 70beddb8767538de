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
///
/// `str::to_lowercase` goes a character at a time from the first non-ASCII one on (a session's
/// text with one curly quote took 3× longer); here the ASCII runs are lowercased as bytes and
/// only the whitespace-delimited words holding other characters go through `to_lowercase`.
/// The same result: the one context-dependent rule, final sigma, looks past case-ignorable
/// characters only, and ASCII whitespace is neither case-ignorable nor cased, so it ends the
/// context as the string's ends do.
pub(crate) fn js_lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    js_lower_into(s, &mut out);
    out
}

/// [`js_lower`] appended to `out` (a buffer used again and again).
pub(crate) fn js_lower_into(s: &str, out: &mut String) {
    if s.is_ascii() {
        push_ascii_lower(out, s);
        return;
    }
    let bytes = s.as_bytes();
    let mut done = 0;
    while let Some(off) = bytes[done..].iter().position(|b| !b.is_ascii()) {
        let at = done + off;
        let start = bytes[done..at]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(done, |p| done + p + 1);
        let end = bytes[at..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(s.len(), |p| at + p);
        push_ascii_lower(out, &s[done..start]);
        out.push_str(&s[start..end].to_lowercase());
        done = end;
    }
    push_ascii_lower(out, &s[done..]);
}

fn push_ascii_lower(out: &mut String, ascii: &str) {
    let from = out.len();
    out.push_str(ascii);
    out[from..].make_ascii_lowercase();
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The word-wise lowercase equals `str::to_lowercase` (final sigma included).
    #[test]
    fn lowercase_by_words_equals_the_standard_one() {
        for s in [
            "ΣΑΣ ΣΑΣ. ΟΔΟΣ\nΣ",
            "A’s \u{2018}Quoted\u{2019} ÉCOLE İstanbul ẞ",
            "x Σ y",
            "AΣ\tΣB ,Σ' 'Σ",
            "日本語 MIXED テキスト",
            "",
        ] {
            assert_eq!(js_lower(s), s.to_lowercase(), "{s:?}");
            let mut out = "Kept ".to_owned();
            js_lower_into(s, &mut out);
            assert_eq!(out, format!("Kept {}", s.to_lowercase()), "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn lowercase_by_words_equals_the_standard_one_on_any_text(
            s in "[a-zA-Z Σσς.'’\t\n\u{300}ÉİẞΑ-Ωа-яА-Я0-9-]{0,40}"
        ) {
            prop_assert_eq!(js_lower(&s), s.to_lowercase());
        }

        #[test]
        fn lowercase_by_words_equals_the_standard_one_on_any_string(s in any::<String>()) {
            prop_assert_eq!(js_lower(&s), s.to_lowercase());
        }
    }
}
