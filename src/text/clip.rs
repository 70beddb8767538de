//! Cutting untrusted text to what a view can show before any per-character work (sanitizing,
//! measuring, wrapping): drawing text then costs what the cells it fills cost, not what the
//! text weighs. A 10 MB one-word title is cut to a few hundred bytes before it is wrapped.

use unicode_width::UnicodeWidthChar;

/// Zero-width characters (combining marks, joiners) kept per visible one, at most: past that
/// a run of them cannot add to what is shown.
const ZERO_WIDTH_PER_CELL: usize = 4;

/// The longest start of `s` that can matter when at most `cells` terminal cells are drawn from
/// it: every character that takes room takes at least one cell (a control or an invisible one
/// is drawn escaped, wider still; a line break ends a row), so the characters after the first
/// `cells` of them are never seen. Zero-width characters are kept, up to a bound. O(`cells`).
pub fn clip_to_cells(s: &str, cells: usize) -> &str {
    let mut visible = 0usize;
    let mut zero_width = 0usize;
    for (i, c) in s.char_indices() {
        // Controls have no width of their own but are drawn escaped (`^[`): they take room.
        if c.width().unwrap_or(1) == 0 {
            zero_width += 1;
            if zero_width > cells.saturating_mul(ZERO_WIDTH_PER_CELL) {
                return &s[..i];
            }
            continue;
        }
        if visible == cells {
            return &s[..i];
        }
        visible += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_fits_and_cuts_the_rest() {
        assert_eq!(clip_to_cells("hello", 10), "hello");
        assert_eq!(clip_to_cells("hello", 3), "hel");
        assert_eq!(clip_to_cells("hello", 0), "");
        assert_eq!(clip_to_cells("日本語です", 2), "日本");
        // Combining marks stay with their letter.
        assert_eq!(clip_to_cells("e\u{301}x", 1), "e\u{301}");
        assert_eq!(clip_to_cells("a\nb\nc", 3), "a\nb");
        let long = "x".repeat(10_000_000);
        assert_eq!(clip_to_cells(&long, 300).len(), 300);
        let marks = format!("a{}", "\u{301}".repeat(1000));
        assert_eq!(clip_to_cells(&marks, 2).chars().count(), 1 + 8);
    }
}
