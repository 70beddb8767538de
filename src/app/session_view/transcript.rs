//! The transcript of a branch as display lines: the context the agent would get when resuming
//! at the selected entry, rendered ([`super::body`] lays the messages out) into logical lines
//! of styled spans, sanitised. Wrapping happens at draw time and only for the lines on screen.

use std::ops::Range;

use unicode_width::UnicodeWidthChar;

use crate::model::flatten::{contains_all, search_tokens};
use crate::model::render;

/// Tool output, bash output and summaries longer than this many lines start collapsed.
pub const COLLAPSE_OVER: usize = 12;
/// Lines of a collapsed block still shown.
pub const COLLAPSED_SHOWS: usize = 6;
/// Tool calls (a diff, a file written) longer than this many lines start collapsed…
pub const CALL_COLLAPSE_OVER: usize = 40;
/// …to this many lines.
pub const CALL_COLLAPSED_SHOWS: usize = 20;

/// How a line is styled; the UI maps these to colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineStyle {
    UserHeader,
    AssistantHeader,
    ToolHeader,
    ToolErrorHeader,
    OtherHeader,
    Text,
    Thinking,
    ToolCall,
    Output,
    Error,
    Dim,
    /// A fold line: `▸ thinking · 12 lines`, `… 40 more lines`.
    Fold,
    Blank,
}

/// Identifies a collapsible block: message index and block index within it.
pub type FoldKey = (usize, usize);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TLine {
    /// The line's base style (headers, fold lines, the kind of block it is in).
    pub style: LineStyle,
    /// The line's text, without styles: what search and wrapping see.
    pub text: String,
    /// The rendered spans over `text` (their texts concatenate to it); empty when the line is
    /// `text` in its base style alone.
    pub spans: Vec<render::Span>,
    /// The collapsible block this line belongs to.
    pub fold: Option<FoldKey>,
}

/// The laid-out part of a branch's transcript: the lines of messages `first..first +
/// starts.len()` of its context, a window around what is on screen. A branch of 200,000
/// messages is never laid out whole: the window moves with the scroll position (kept as a
/// message and a line within it), and its messages are made from their entries when laid out.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    pub lines: Vec<TLine>,
    /// Collapsible blocks in line order: key, first line, last line (inclusive).
    pub folds: Vec<(FoldKey, usize, usize)>,
    /// Messages in the whole context.
    pub message_count: usize,
    /// The first message laid out.
    pub first: usize,
    /// The first line of each message laid out.
    pub starts: Vec<usize>,
    /// Search hits, as (message, line within it); over the whole context once
    /// `hits_cover_all`, else over the window.
    pub hits: Vec<(usize, usize)>,
    pub hits_cover_all: bool,
    /// Why a message's entry could not be read back from the file, if one could not.
    pub unavailable: Option<String>,
}

impl Transcript {
    /// One past the last message laid out.
    pub fn end(&self) -> usize {
        self.first + self.starts.len()
    }

    /// Whether the window holds the end of the context.
    pub fn at_end(&self) -> bool {
        self.end() >= self.message_count
    }

    /// Whether the window holds every message.
    pub fn is_whole(&self) -> bool {
        self.first == 0 && self.at_end()
    }

    /// The message laid out at `line`, and the line within it.
    pub fn anchor(&self, line: usize) -> (usize, usize) {
        let k = self
            .starts
            .partition_point(|&s| s <= line)
            .saturating_sub(1);
        let start = self.starts.get(k).copied().unwrap_or(0);
        (self.first + k, line.saturating_sub(start))
    }

    /// The line of `(message, line within it)` if that message is laid out.
    pub fn line_of(&self, (message, offset): (usize, usize)) -> Option<usize> {
        let k = message.checked_sub(self.first)?;
        let start = *self.starts.get(k)?;
        let end = self.starts.get(k + 1).copied().unwrap_or(self.lines.len());
        (start + offset < end).then_some(start + offset)
    }

    /// Where `line` is, for the pane's border: `line/lines` when everything is laid out, else
    /// the message it is in.
    pub fn position(&self, line: usize) -> String {
        if self.is_whole() {
            format!(
                " {}/{} ",
                (line + 1).min(self.lines.len()),
                self.lines.len()
            )
        } else {
            format!(
                " message {}/{} ",
                (self.anchor(line).0 + 1).min(self.message_count),
                self.message_count
            )
        }
    }
}

/// Wraps one line to `width` columns: at spaces when possible, else mid-word. Always at least
/// one (possibly empty) row.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    wrap_ranges(text, width)
        .into_iter()
        .map(|r| text[r].to_owned())
        .collect()
}

/// [`wrap`] as byte ranges of `text`: a row is a slice of the line (the spaces it breaks at
/// left out), so styled spans are cut at the same places.
pub fn wrap_ranges(text: &str, width: usize) -> Vec<Range<usize>> {
    wrap_ranges_hanging(text, width, width)
}

/// [`wrap_ranges`] with the first row `first` columns wide and the others `rest`.
fn wrap_ranges_hanging(text: &str, first: usize, rest: usize) -> Vec<Range<usize>> {
    let (first, rest) = (first.max(1), rest.max(1));
    let trimmed = |start: usize, end: usize, all_ws: bool| {
        let row = &text[start..end];
        let kept = if all_ws {
            row.trim_end()
        } else {
            row.trim_end_matches(' ')
        };
        start..start + kept.len()
    };
    let mut rows = Vec::new();
    let mut start = 0;
    let mut row_w = 0;
    // Byte just after the last space of the row, and the row's width up to there.
    let mut last_space: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        let width = if rows.is_empty() { first } else { rest };
        if c == ' ' && row_w + w > width {
            // Break at this space; it is not carried to the next row.
            rows.push(start..i);
            start = i + 1;
            row_w = 0;
            last_space = None;
            continue;
        }
        if row_w + w > width && i > start {
            match last_space {
                Some((byte, sw)) if byte < i => {
                    rows.push(trimmed(start, byte, true));
                    start = byte;
                    row_w -= sw;
                }
                _ => {
                    rows.push(trimmed(start, i, false));
                    start = i;
                    row_w = 0;
                }
            }
            last_space = None;
        }
        row_w += w;
        if c == ' ' {
            last_space = Some((i + 1, row_w));
        }
    }
    rows.push(start..text.len());
    rows
}

/// How far a line's wrapped rows are indented: under a list item's text (past its bullet or
/// number and the quote bars), so a wrapped item reads as one; 0 when that would leave less
/// than half the width.
pub fn hang(line: &TLine, width: usize) -> usize {
    let lead: usize = line
        .spans
        .iter()
        .take_while(|s| {
            s.kind == render::SpanKind::Marker
                || (s.kind == render::SpanKind::Text && s.text.trim().is_empty())
        })
        .map(|s| unicode_width::UnicodeWidthStr::width(s.text.as_str()))
        .sum();
    let bulleted = line
        .spans
        .iter()
        .any(|s| s.kind == render::SpanKind::Marker && !s.text.trim_start().starts_with('─'));
    if bulleted && lead > 0 && lead * 2 <= width && lead < line.text.len() {
        lead
    } else {
        0
    }
}

/// A line's screen rows at `width`, as byte ranges of its text; rows after the first are
/// drawn [`hang`] columns in.
pub fn rows_of(line: &TLine, width: usize) -> Vec<Range<usize>> {
    let hang = hang(line, width);
    wrap_ranges_hanging(&line.text, width, width - hang)
}

/// The number of screen rows a line takes at `width`.
pub fn wrapped_height(line: &TLine, width: usize) -> usize {
    rows_of(line, width).len()
}

/// The top line that shows the end of the transcript in `height` rows at `width` columns (of
/// the lines laid out).
pub fn bottom_top(lines: &[TLine], width: usize, height: usize) -> usize {
    let mut used = 0;
    let mut top = lines.len();
    while top > 0 {
        let h = wrapped_height(&lines[top - 1], width);
        if used + h > height && used > 0 {
            break;
        }
        used += h;
        top -= 1;
        if used >= height {
            break;
        }
    }
    top.min(lines.len().saturating_sub(1))
}

/// Lines (indices) holding every whitespace-separated token of `query`, case-insensitively.
pub fn search(lines: &[TLine], query: &str) -> Vec<usize> {
    let tokens = search_tokens(query);
    if tokens.is_empty() {
        return Vec::new();
    }
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| contains_all(&l.text.to_lowercase(), &tokens))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_long_words() {
        assert_eq!(wrap("hello world foo", 11), ["hello world", "foo"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
        assert_eq!(wrap("ab cd", 3), ["ab", "cd"]);
        assert_eq!(wrap("a  b", 1), ["a", "", "b"]);
        assert_eq!(wrap("漢字漢字", 5), ["漢字", "漢字"]);
        assert_eq!(wrap("ab  cd ef", 4), ["ab", "cd", "ef"]);
    }

    #[test]
    fn wrap_ranges_are_slices_of_the_line() {
        for text in [
            "hello world foo",
            "a  b c   d",
            "abcdefghij klm",
            "x 漢字 y z",
        ] {
            for w in 1..8 {
                for r in wrap_ranges(text, w) {
                    assert!(text.get(r.clone()).is_some(), "{text:?} {w} {r:?}");
                }
            }
        }
    }
}
