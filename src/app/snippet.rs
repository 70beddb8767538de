//! A piece of untrusted text with some byte ranges marked (search hits), made ready to draw on
//! one line of a given width: cut to the cells it can fill first ([`clip_to_cells`]), then
//! sanitized piece by piece (sanitizing moves bytes, so the ranges are applied before), then
//! truncated to the width with `…`.

use std::ops::Range;

use unicode_width::UnicodeWidthStr;

use crate::text::clip::clip_to_cells;
use crate::text::sanitize::{sanitize_line, truncate_width};

use super::styled::Tone;

/// `text` as tone-tagged pieces no wider than `cells` columns: the bytes in `ranges` (sorted,
/// not overlapping; any that are out of range or not on character boundaries are ignored) get
/// `hit`, the rest `base`. Everything is sanitized for one line.
pub(crate) fn marked_pieces(
    text: &str,
    ranges: &[Range<usize>],
    base: Tone,
    hit: Tone,
    cells: usize,
) -> Vec<(Tone, String)> {
    // One more cell than shown, so a cut is seen and marked with `…`.
    let text = clip_to_cells(text, cells.saturating_add(1));
    let mut raw: Vec<(Tone, &str)> = Vec::new();
    let mut pos = 0;
    for r in ranges {
        let (start, end) = (r.start.min(text.len()), r.end.min(text.len()));
        if start >= end
            || start < pos
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        if start > pos {
            raw.push((base, &text[pos..start]));
        }
        raw.push((hit, &text[start..end]));
        pos = end;
    }
    if pos < text.len() {
        raw.push((base, &text[pos..]));
    }
    let mut out = Vec::new();
    let mut used = 0usize;
    let total: usize = raw.iter().map(|(_, s)| sanitize_line(s).width()).sum();
    for (k, (tone, s)) in raw.iter().enumerate() {
        let clean = sanitize_line(s);
        let w = clean.width();
        if total <= cells {
            out.push((*tone, clean.into_owned()));
            continue;
        }
        // Too wide: keep whole pieces while they fit with room for the `…`, cut the one that
        // does not.
        let room = cells.saturating_sub(used);
        if w < room || (w == room && k + 1 == raw.len()) {
            out.push((*tone, clean.into_owned()));
            used += w;
        } else {
            let cut = truncate_width(&clean, room).into_owned();
            if !cut.is_empty() {
                out.push((*tone, cut));
            }
            break;
        }
    }
    out
}

/// The plain text of pieces (for tests and widths).
#[cfg(test)]
pub(crate) fn plain(pieces: &[(Tone, String)]) -> String {
    pieces.iter().map(|(_, s)| s.as_str()).collect()
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init, clippy::reversed_empty_ranges)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_ranges_and_sanitizes_each_piece() {
        let p = marked_pieces(
            "a\x1b[31mb NEEDLE c",
            &[8..14],
            Tone::Plain,
            Tone::Matched,
            80,
        );
        assert_eq!(
            p,
            [
                (Tone::Plain, "a^[[31mb ".to_owned()),
                (Tone::Matched, "NEEDLE".to_owned()),
                (Tone::Plain, " c".to_owned()),
            ]
        );
    }

    #[test]
    fn cuts_to_the_width_with_an_ellipsis() {
        let p = marked_pieces(
            "abc NEEDLE defghij",
            &[4..10],
            Tone::Plain,
            Tone::Matched,
            8,
        );
        assert_eq!(plain(&p), "abc NEE…");
        assert_eq!(p[1].0, Tone::Matched);
        assert!(plain(&p).width() <= 8);
        let fits = marked_pieces("abc", &[0..3], Tone::Plain, Tone::Matched, 3);
        assert_eq!(plain(&fits), "abc");
        // Bad ranges are ignored, never a panic.
        let odd = marked_pieces("é x", &[1..2, 9..20, 2..1], Tone::Plain, Tone::Matched, 10);
        assert_eq!(plain(&odd), "é x");
        // A huge text costs what is shown.
        let long = "x".repeat(5_000_000);
        assert_eq!(
            plain(&marked_pieces(&long, &[], Tone::Plain, Tone::Matched, 20)).width(),
            20
        );
    }
}
