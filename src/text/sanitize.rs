//! Make untrusted session text safe to show in the TUI or print to a terminal.
//!
//! Session files hold whatever a model or a tool produced: escape sequences (OSC 52 clipboard
//! writes, screen clears), C0/C1 controls, bidi overrides that reorder what the reader sees,
//! invisible characters that hide text. None of it may reach the terminal as-is. Like `cat -v`
//! (and atuin), grove shows such characters in a visible, inert form instead of dropping them, so
//! the reader can tell that something was there:
//!
//! | input | shown as |
//! |---|---|
//! | C0 control `0x00..=0x1F` (incl. ESC) | caret form `^@` … `^_` (ESC is `^[`) |
//! | DEL `0x7F` | `^?` |
//! | C1 control `U+0080..=U+009F` | `<U+009B>` (hex, 4+ digits) |
//! | bidi controls, zero-width and other invisible format characters | `<U+202E>` |
//! | every other default-ignorable or format (Cf) character: soft hyphen, Hangul fillers, variation selectors, tags… | `<U+3164>` |
//! | the emoji/text presentation selectors `U+FE0E`, `U+FE0F` | removed |
//! | `U+2028` / `U+2029` | a space |
//! | `\t`, `\n`, `\r` | a space in [`sanitize_line`]; see [`sanitize_multiline`] |
//!
//! The replacement forms are plain printable ASCII, so the output never contains a character
//! from any of these sets.
//!
//! Why the default-ignorable and format characters: `unicode-width` (and so ratatui) measures
//! them as 0 columns, but terminals draw many of them (U+3164 HANGUL FILLER takes 2 cells,
//! U+00AD SOFT HYPHEN 1), so a row holding them spills into the next pane and leaves characters
//! on screen. Escaped, every character left measures what the terminal draws. The presentation
//! selectors are removed instead: terminals disagree on whether `❤\u{FE0F}` is 1 or 2 cells,
//! and the base character alone is drawn the same everywhere. Both functions borrow their input when nothing changes.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The ellipsis appended by [`truncate_width`].
pub const ELLIPSIS: char = '…';

/// What to do with one character.
enum Action {
    /// Printable: copy through.
    Keep,
    /// A C0 control or DEL: caret notation (`^[`, `^?`).
    Caret(u8),
    /// Invisible or reordering: `<U+XXXX>`.
    CodePoint(char),
    /// A line or paragraph separator (or, for one-line output, a tab/newline/CR): a space.
    Space,
    /// An emoji/text presentation selector: removed (its width is not agreed on).
    Drop,
}

/// Bidi controls: they reorder the displayed text (the "Trojan Source" trick).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Zero-width and other invisible format characters that can hide text from the reader.
///
/// Beyond the classic zero-width set this includes the invisible math operators, the deprecated
/// format characters, the interlinear annotation controls and the Unicode tag block, which is
/// used to smuggle invisible instructions into prompts.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// Default-ignorable code points (Unicode `Default_Ignorable_Code_Point`) and format characters
/// (general category Cf) that [`is_bidi_control`] and [`is_invisible`] do not already cover:
/// measured as 0 columns by `unicode-width` but drawn by terminals, or invisible.
fn is_ignorable_or_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{0600}'..='\u{0605}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{2065}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Whether `c` is shown escaped or removed by the sanitizers though it is not a control
/// character: bidi controls, zero-width, default-ignorable and format characters. JSON output
/// writes these as `\u` escapes.
pub fn is_hidden_or_ignorable(c: char) -> bool {
    !c.is_ascii() && (is_bidi_control(c) || is_invisible(c) || is_ignorable_or_format(c))
}

/// Classification shared by both sanitizers; `\t`, `\n` and `\r` are handled by the callers.
fn classify(c: char) -> Action {
    match c {
        // Fast path: printable ASCII.
        ' '..='~' => Action::Keep,
        '\u{0}'..='\u{1F}' => Action::Caret(c as u8 + 0x40),
        '\u{7F}' => Action::Caret(b'?'),
        '\u{80}'..='\u{9F}' => Action::CodePoint(c),
        '\u{2028}' | '\u{2029}' => Action::Space,
        '\u{FE0E}' | '\u{FE0F}' => Action::Drop,
        _ if is_bidi_control(c) || is_invisible(c) || is_ignorable_or_format(c) => {
            Action::CodePoint(c)
        }
        _ => Action::Keep,
    }
}

/// Whether `c` would be changed by [`sanitize_line`].
fn needs_change(c: char) -> bool {
    !matches!(classify(c), Action::Keep)
}

/// `true` if neither [`sanitize_line`] nor [`sanitize_multiline`] would change `s`.
///
/// A cheap check (one pass, no allocation) for callers that want to skip sanitizing. Tabs,
/// newlines and carriage returns count as unclean.
pub fn is_clean(s: &str) -> bool {
    // Printable ASCII is by far the common case; checking bytes first keeps it branch-light.
    if s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return true;
    }
    !s.chars().any(needs_change)
}

/// Append the visible form of `action` for `c` to `out`; returns the display width added.
fn push_action(out: &mut String, c: char, action: Action) -> usize {
    match action {
        Action::Keep => {
            out.push(c);
            c.width().unwrap_or(0)
        }
        Action::Caret(b) => {
            out.push('^');
            out.push(char::from(b));
            2
        }
        Action::CodePoint(c) => {
            let before = out.len();
            // Writing to a String cannot fail.
            let _ = write!(out, "<U+{:04X}>", u32::from(c));
            out.len() - before
        }
        Action::Space => {
            out.push(' ');
            1
        }
        Action::Drop => 0,
    }
}

/// Sanitize text for a one-line row.
///
/// Tabs, `\n`, `\r`, `U+2028` and `U+2029` become single spaces (as pi does for its rows);
/// everything else follows the table in the [module docs](self). The result never contains a
/// C0/C1 control, DEL, a bidi control or a zero-width character. Borrows `s` when it is clean.
pub fn sanitize_line(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find(|c: char| needs_change(c)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        let action = match c {
            '\t' | '\n' | '\r' => Action::Space,
            _ => classify(c),
        };
        push_action(&mut out, c, action);
    }
    Cow::Owned(out)
}

/// Sanitize a path (or any text where a line break is part of the value) for one line:
/// like [`sanitize_line`], but a tab, `\n` or `\r` is shown in caret form (`^I`, `^J`, `^M`)
/// instead of as a space, so a file name with a newline never reads as another name.
pub fn sanitize_path(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find(|c: char| needs_change(c)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        push_action(&mut out, c, classify(c));
    }
    Cow::Owned(out)
}

/// Sanitize text shown over several lines.
///
/// Like [`sanitize_line`], except that `\n` is kept, `\r\n` becomes `\n`, a lone `\r` is shown
/// as `^M` (it would move the cursor back over what was printed), and a tab is expanded with
/// spaces to the next multiple of `tab_width` display columns (a `tab_width` of 0 counts as 1).
/// Borrows `s` when it is clean.
pub fn sanitize_multiline(s: &str, tab_width: usize) -> Cow<'_, str> {
    let Some(first) = s.find(|c: char| c != '\n' && needs_change(c)) else {
        return Cow::Borrowed(s);
    };
    let tab_width = tab_width.max(1);
    let mut out = String::with_capacity(s.len() + 16);
    let prefix = &s[..first];
    out.push_str(prefix);
    // Tab stops are relative to the start of the current output line.
    let mut col = prefix.rsplit('\n').next().map_or(0, UnicodeWidthStr::width);
    let mut chars = s[first..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                out.push('\n');
                col = 0;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\t' => {
                let n = tab_width - col % tab_width;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            _ => col += push_action(&mut out, c, classify(c)),
        }
    }
    Cow::Owned(out)
}

/// Truncate `s` to at most `max_cols` display columns, ending with `…` when something was cut.
///
/// Widths follow `unicode-width` (CJK and most emoji are two columns). Meant for sanitized
/// text; control characters count as zero columns. Borrows `s` when it already fits.
pub fn truncate_width(s: &str, max_cols: usize) -> Cow<'_, str> {
    if s.width() <= max_cols {
        return Cow::Borrowed(s);
    }
    let Some(budget) = max_cols.checked_sub(1) else {
        return Cow::Borrowed("");
    };
    // Per-character widths give a first cut; the string width (which knows about emoji
    // presentation and ZWJ sequences) can only be larger, so back off until it fits.
    let mut end = 0;
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        used += w;
        end = i + c.len_utf8();
    }
    while end > 0 && s[..end].width() > budget {
        end = s[..end].char_indices().next_back().map_or(0, |(i, _)| i);
    }
    // A dangling joiner would glue the ellipsis onto the previous emoji.
    let kept = s[..end].trim_end_matches('\u{200D}');
    let mut out = String::with_capacity(kept.len() + ELLIPSIS.len_utf8());
    out.push_str(kept);
    out.push(ELLIPSIS);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Characters that must never reach the terminal.
    fn forbidden(c: char) -> bool {
        matches!(c, '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{2028}' | '\u{2029}')
            || is_bidi_control(c)
            || is_invisible(c)
    }

    #[test]
    fn osc52_is_inert() {
        assert_eq!(
            sanitize_line("\x1b]52;c;SGVsbG8=\x07"),
            "^[]52;c;SGVsbG8=^G"
        );
        assert_eq!(
            sanitize_multiline("\x1b]52;c;SGVsbG8=\x07", 4),
            "^[]52;c;SGVsbG8=^G"
        );
    }

    #[test]
    fn csi_is_inert() {
        assert_eq!(sanitize_line("\x1b[2J"), "^[[2J");
        assert_eq!(sanitize_line("a\x1b[31mred\x1b[0m"), "a^[[31mred^[[0m");
    }

    #[test]
    fn c0_del_and_c1() {
        assert_eq!(sanitize_line("\0\x01\x1f\x7f"), "^@^A^_^?");
        assert_eq!(sanitize_line("x\u{9b}2J"), "x<U+009B>2J");
        assert_eq!(sanitize_line("\u{85}\u{80}"), "<U+0085><U+0080>");
    }

    #[test]
    fn bidi_and_zero_width_are_visible() {
        assert_eq!(sanitize_line("abc\u{202E}def"), "abc<U+202E>def");
        assert_eq!(
            sanitize_line("\u{2066}\u{2069}\u{200E}\u{200F}\u{61C}"),
            "<U+2066><U+2069><U+200E><U+200F><U+061C>"
        );
        assert_eq!(
            sanitize_line("a\u{200B}b\u{200D}c\u{2060}d\u{FEFF}"),
            "a<U+200B>b<U+200D>c<U+2060>d<U+FEFF>"
        );
        assert_eq!(sanitize_line("tag\u{E0041}"), "tag<U+E0041>");
        assert_eq!(sanitize_line("a\u{2028}b\u{2029}c"), "a b c");
    }

    #[test]
    fn line_whitespace_becomes_spaces() {
        assert_eq!(sanitize_line("a\tb\nc\r\nd\re"), "a b c  d e");
    }

    #[test]
    fn multiline_tabs_and_newlines() {
        assert_eq!(sanitize_multiline("a\tb", 4), "a   b");
        assert_eq!(sanitize_multiline("abcd\tb", 4), "abcd    b");
        assert_eq!(sanitize_multiline("x\n\ty", 4), "x\n    y");
        assert_eq!(sanitize_multiline("ab\ncd\tx", 4), "ab\ncd  x");
        // Tab stops count display columns, and escapes widen the line.
        assert_eq!(sanitize_multiline("日\tx", 4), "日  x");
        assert_eq!(sanitize_multiline("\x1b\tx", 4), "^[  x");
        assert_eq!(sanitize_multiline("a\tb", 0), "a b");
    }

    #[test]
    fn multiline_crlf_and_lone_cr() {
        assert_eq!(sanitize_multiline("a\r\nb\r\n", 4), "a\nb\n");
        assert_eq!(sanitize_multiline("progress\rdone", 4), "progress^Mdone");
        assert_eq!(sanitize_multiline("a\r\r\nb", 4), "a^M\nb");
        assert_eq!(sanitize_multiline("end\r", 4), "end^M");
    }

    #[test]
    fn ignorable_and_format_characters_are_escaped_or_removed() {
        // Drawn by terminals (2 and 1 cells) but measured 0 by unicode-width: escaped.
        assert_eq!(sanitize_line("a\u{3164}b"), "a<U+3164>b");
        assert_eq!(sanitize_line("soft\u{AD}hyphen"), "soft<U+00AD>hyphen");
        assert_eq!(
            sanitize_line("\u{115F}\u{1160}\u{FFA0}"),
            "<U+115F><U+1160><U+FFA0>"
        );
        assert_eq!(sanitize_line("\u{600}1"), "<U+0600>1");
        assert_eq!(sanitize_line("x\u{E0100}\u{FE00}"), "x<U+E0100><U+FE00>");
        assert_eq!(
            sanitize_line("\u{34F}\u{180E}\u{2065}"),
            "<U+034F><U+180E><U+2065>"
        );
        // Presentation selectors: removed (terminals disagree on the width they give).
        assert_eq!(sanitize_line("\u{2764}\u{FE0F} ok\u{FE0E}"), "\u{2764} ok");
        assert!(!is_clean("a\u{FE0F}"));
        assert_eq!(
            sanitize_multiline("a\u{3164}\n\u{AD}", 4),
            "a<U+3164>\n<U+00AD>"
        );
    }

    #[test]
    fn clean_input_is_borrowed() {
        for s in ["", "hello world", "日本語 😀 café", "e\u{301}"] {
            assert!(is_clean(s), "{s:?}");
            assert!(matches!(sanitize_line(s), Cow::Borrowed(_)));
            assert!(matches!(sanitize_multiline(s, 4), Cow::Borrowed(_)));
        }
        assert!(matches!(sanitize_multiline("a\nb", 4), Cow::Borrowed(_)));
        assert!(!is_clean("a\nb"));
        assert!(!is_clean("a\tb"));
        assert!(!is_clean("\u{202E}"));
        assert!(!is_clean("\u{9b}"));
    }

    #[test]
    fn truncate_ascii() {
        assert_eq!(truncate_width("hello", 5), "hello");
        assert_eq!(truncate_width("hello world", 5), "hell…");
        assert_eq!(truncate_width("hello", 1), "…");
        assert_eq!(truncate_width("hello", 0), "");
        assert_eq!(truncate_width("", 0), "");
        assert!(matches!(truncate_width("hello", 9), Cow::Borrowed(_)));
    }

    #[test]
    fn truncate_cjk() {
        assert_eq!(truncate_width("日本語テキスト", 14), "日本語テキスト");
        assert_eq!(truncate_width("日本語テキスト", 5), "日本…");
        // A wide char that does not fit whole is dropped, never split.
        assert_eq!(truncate_width("日本語テキスト", 6), "日本…");
        assert_eq!(truncate_width("日本語テキスト", 7), "日本語…");
        assert_eq!(truncate_width("a日本", 4), "a日…");
        assert_eq!(truncate_width("日本", 1), "…");
    }

    #[test]
    fn truncate_emoji() {
        assert_eq!(truncate_width("😀😀😀", 6), "😀😀😀");
        assert_eq!(truncate_width("😀😀😀", 4), "😀…");
        assert_eq!(truncate_width("😀😀😀", 5), "😀😀…");
        assert_eq!(truncate_width("ok 👍 fine", 5), "ok …");
        // Emoji presentation (VS16) makes ❤ two columns wide.
        let heart = "\u{2764}\u{FE0F}\u{2764}\u{FE0F}";
        assert_eq!(heart.width(), 4);
        assert_eq!(truncate_width(heart, 3), "\u{2764}\u{FE0F}…");
        for max in 0..8 {
            assert!(truncate_width(heart, max).width() <= max);
        }
    }

    proptest! {
        #[test]
        fn line_output_is_safe(s in any::<String>()) {
            let out = sanitize_line(&s);
            prop_assert!(!out.chars().any(forbidden), "{:?} -> {:?}", s, out);
        }

        #[test]
        fn multiline_output_is_safe(s in any::<String>(), tab in 0usize..9) {
            let out = sanitize_multiline(&s, tab);
            prop_assert!(!out.chars().any(|c| c != '\n' && forbidden(c)), "{:?} -> {:?}", s, out);
        }

        // Biased towards the interesting characters, which `any::<String>()` rarely produces.
        #[test]
        fn nasty_output_is_safe(s in "[\\x00-\\x1f\\x7f-\\u{9f}\\u{200b}-\\u{200f}\\u{202a}-\\u{202e}\\u{2028}\\u{2029}\\u{2066}-\\u{2069}\\u{feff}a日 ]{0,40}") {
            prop_assert!(!sanitize_line(&s).chars().any(forbidden));
            prop_assert!(!sanitize_multiline(&s, 4).chars().any(|c| c != '\n' && forbidden(c)));
        }

        #[test]
        fn clean_ascii_passes_through(s in "[ -~]{0,200}") {
            prop_assert!(is_clean(&s));
            prop_assert!(matches!(sanitize_line(&s), Cow::Borrowed(x) if x == s));
            prop_assert!(matches!(sanitize_multiline(&s, 4), Cow::Borrowed(x) if x == s));
        }

        #[test]
        fn is_clean_agrees_with_sanitizers(s in any::<String>()) {
            let line = sanitize_line(&s);
            let multi = sanitize_multiline(&s, 4);
            if is_clean(&s) {
                prop_assert_eq!(line.as_ref(), s.as_str());
                prop_assert_eq!(multi.as_ref(), s.as_str());
            } else {
                prop_assert_ne!(line.as_ref(), s.as_str());
            }
        }

        #[test]
        fn truncation_fits(s in "[a-z日😀\u{301}\u{fe0f} ]{0,30}", max in 0usize..20) {
            let out = truncate_width(&s, max);
            prop_assert!(out.width() <= max, "{:?} {} -> {:?}", s, max, out);
            if s.width() <= max {
                prop_assert_eq!(out.as_ref(), s.as_str());
            } else if max > 0 {
                prop_assert!(out.ends_with(ELLIPSIS));
            }
        }
    }
}
