//! Fixed-width columns by display width (a CJK character or an emoji takes two cells), for
//! tables printed as text: `format!("{:<44}")` pads by characters and misaligns such rows.

use unicode_width::UnicodeWidthStr;

use super::sanitize::{sanitize_line, truncate_width};

/// `s` sanitized, cut to `cols` display columns (ending in `…` when cut) and padded with spaces
/// to exactly `cols` columns.
pub fn fit_width(s: &str, cols: usize) -> String {
    let clean = sanitize_line(s);
    let cut = truncate_width(&clean, cols);
    let pad = cols.saturating_sub(cut.width());
    format!("{cut}{}", " ".repeat(pad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_cuts_by_display_width() {
        assert_eq!(fit_width("ab", 4), "ab  ");
        assert_eq!(fit_width("日本", 6), "日本  ");
        assert_eq!(fit_width("日本語の名前", 5), "日本…");
        // A wide character that would straddle the edge is left out; a space fills its cell.
        assert_eq!(fit_width("日本語の名前", 4), "日… ");
        assert_eq!(fit_width("日本語の名前", 4).width(), 4);
        assert_eq!(fit_width("a\u{1b}[2J", 6), "a^[[2J");
    }
}
