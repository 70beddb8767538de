//! The transcript of a branch as display lines: the context the agent would get when resuming
//! at the selected entry, one styled logical line per source line, sanitised. Wrapping happens
//! at draw time and only for the lines on screen.

use std::collections::HashSet;

use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use crate::model::context::{ContextPlan, SessionContext};
use crate::model::entry::content_text;
use crate::model::export::image_placeholder;
use crate::model::flatten::{contains_all, search_tokens};
use crate::model::transcript::tool_call_text;
use crate::model::tree::Session;
use crate::text::sanitize::{sanitize_line, sanitize_multiline};

/// Tool output, bash output and summaries longer than this many lines start collapsed.
pub const COLLAPSE_OVER: usize = 12;
/// Lines of a collapsed block still shown.
pub const COLLAPSED_SHOWS: usize = 6;
/// A tool call's arguments longer than this start collapsed to this many characters.
pub const CALL_ARGS_CHARS: usize = 240;

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
    pub style: LineStyle,
    pub text: String,
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

struct Builder<'a> {
    out: Transcript,
    /// Blocks that are in their non-default state (expanded, or collapsed for short ones).
    toggled: &'a HashSet<FoldKey>,
}

impl Builder<'_> {
    fn line(&mut self, style: LineStyle, text: impl Into<String>, fold: Option<FoldKey>) {
        self.out.lines.push(TLine {
            style,
            text: text.into(),
            fold,
        });
    }

    fn text(&mut self, style: LineStyle, text: &str, fold: Option<FoldKey>) {
        let clean = sanitize_multiline(text, 4);
        for l in clean.trim_end_matches('\n').split('\n') {
            self.line(style, l, fold);
        }
    }

    fn empty(&mut self) {
        self.line(
            LineStyle::Dim,
            "(empty context: nothing before this entry)",
            None,
        );
    }

    fn begin_fold(&mut self) -> usize {
        self.out.lines.len()
    }

    fn end_fold(&mut self, key: FoldKey, start: usize) {
        let end = self.out.lines.len();
        if end > start {
            self.out.folds.push((key, start, end - 1));
        }
    }

    /// A block of text that collapses to its first lines when long.
    fn long_text(&mut self, style: LineStyle, text: &str, key: FoldKey) {
        let clean = sanitize_multiline(text, 4);
        let lines: Vec<&str> = clean.trim_end_matches('\n').split('\n').collect();
        if lines.len() <= COLLAPSE_OVER {
            for l in lines {
                self.line(style, l, None);
            }
            return;
        }
        let start = self.begin_fold();
        let expanded = self.toggled.contains(&key);
        let shown = if expanded {
            lines.len()
        } else {
            COLLAPSED_SHOWS
        };
        for l in &lines[..shown] {
            self.line(style, *l, Some(key));
        }
        if expanded {
            self.line(LineStyle::Fold, "▾ collapse", Some(key));
        } else {
            self.line(
                LineStyle::Fold,
                format!("… {} more lines (Enter expands)", lines.len() - shown),
                Some(key),
            );
        }
        self.end_fold(key, start);
    }

    fn thinking(&mut self, text: &str, key: FoldKey) {
        let start = self.begin_fold();
        let n = text.trim_end().lines().count();
        if self.toggled.contains(&key) {
            self.line(LineStyle::Fold, "▾ thinking", Some(key));
            self.text(LineStyle::Thinking, text, Some(key));
        } else {
            let s = if n == 1 { "" } else { "s" };
            self.line(
                LineStyle::Fold,
                format!("▸ thinking · {n} line{s}"),
                Some(key),
            );
        }
        self.end_fold(key, start);
    }

    fn tool_call(&mut self, block: &Value, key: FoldKey) {
        let text = sanitize_line(&tool_call_text(block)).into_owned();
        if text.chars().count() <= CALL_ARGS_CHARS {
            self.line(LineStyle::ToolCall, format!("→ {text}"), None);
            return;
        }
        let start = self.begin_fold();
        if self.toggled.contains(&key) {
            self.line(LineStyle::ToolCall, format!("→ {text}"), Some(key));
        } else {
            let cut: String = text.chars().take(CALL_ARGS_CHARS).collect();
            self.line(LineStyle::ToolCall, format!("→ {cut}…"), Some(key));
        }
        self.end_fold(key, start);
    }

    /// Text and image blocks of a content value (string or array).
    fn content(&mut self, content: Option<&Value>, style: LineStyle, mi: usize, long: bool) {
        match content {
            Some(Value::String(s)) => {
                if long {
                    self.long_text(style, s, (mi, 0));
                } else {
                    self.text(style, s, None);
                }
            }
            Some(Value::Array(blocks)) => {
                for (bi, b) in blocks.iter().enumerate() {
                    self.block(b, style, (mi, bi), long);
                }
            }
            _ => {}
        }
    }

    fn block(&mut self, b: &Value, style: LineStyle, key: FoldKey, long: bool) {
        match b.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                if long {
                    self.long_text(style, t, key);
                } else {
                    self.text(style, t, None);
                }
            }
            "image" => self.line(LineStyle::Dim, image_placeholder(b), None),
            "thinking" => {
                let t = b.get("thinking").and_then(Value::as_str).unwrap_or("");
                if b.get("redacted").and_then(Value::as_bool) == Some(true) && t.is_empty() {
                    self.line(LineStyle::Fold, "▸ thinking (redacted)", None);
                } else {
                    self.thinking(t, key);
                }
            }
            "toolCall" => self.tool_call(b, key),
            other => self.line(
                LineStyle::Dim,
                format!(
                    "[{}]",
                    sanitize_line(if other.is_empty() { "?" } else { other })
                ),
                None,
            ),
        }
    }

    fn message(&mut self, mi: usize, m: &Value) {
        let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("");
        let role = s("role");
        match role {
            "user" => {
                self.line(LineStyle::UserHeader, "▍user", None);
                self.content(m.get("content"), LineStyle::Text, mi, false);
            }
            "assistant" => {
                let model = s("model");
                let head = if model.is_empty() {
                    "▍assistant".to_owned()
                } else {
                    format!("▍assistant · {}", sanitize_line(model))
                };
                self.line(LineStyle::AssistantHeader, head, None);
                self.content(m.get("content"), LineStyle::Text, mi, false);
                match s("stopReason") {
                    "aborted" => self.line(LineStyle::Dim, "(aborted)", None),
                    "error" => {
                        let e = s("errorMessage");
                        self.text(
                            LineStyle::Error,
                            &format!("error: {}", if e.is_empty() { "(unknown)" } else { e }),
                            None,
                        );
                    }
                    _ => {}
                }
            }
            "toolResult" => {
                let is_error = m.get("isError").and_then(Value::as_bool) == Some(true);
                let name = s("toolName");
                let head = format!(
                    "▍tool result · {}{}",
                    sanitize_line(if name.is_empty() { "tool" } else { name }),
                    if is_error { " (error)" } else { "" }
                );
                let style = if is_error {
                    LineStyle::ToolErrorHeader
                } else {
                    LineStyle::ToolHeader
                };
                self.line(style, head, None);
                self.content(m.get("content"), LineStyle::Output, mi, true);
            }
            "bashExecution" => {
                self.line(LineStyle::ToolHeader, "▍bash (run by the user)", None);
                self.line(
                    LineStyle::ToolCall,
                    format!("$ {}", sanitize_line(s("command"))),
                    None,
                );
                self.long_text(LineStyle::Output, s("output"), (mi, 0));
                match m.get("exitCode").and_then(Value::as_i64) {
                    Some(0) | None => {}
                    Some(code) => self.line(LineStyle::Error, format!("exit code {code}"), None),
                }
                if m.get("cancelled").and_then(Value::as_bool) == Some(true) {
                    self.line(LineStyle::Dim, "(cancelled)", None);
                }
            }
            "custom" => {
                let t = s("customType");
                self.line(
                    LineStyle::OtherHeader,
                    format!("▍custom · {}", sanitize_line(t)),
                    None,
                );
                self.content(m.get("content"), LineStyle::Text, mi, true);
            }
            "branchSummary" => {
                self.line(LineStyle::OtherHeader, "▍branch summary", None);
                self.long_text(LineStyle::Text, s("summary"), (mi, 0));
            }
            "compactionSummary" => {
                let tokens = m
                    .get("tokensBefore")
                    .and_then(Value::as_f64)
                    .map(|t| format!(" · {}k tokens before", (t / 1000.0).round() as i64))
                    .unwrap_or_default();
                self.line(
                    LineStyle::OtherHeader,
                    format!("▍compaction summary{tokens}"),
                    None,
                );
                self.long_text(LineStyle::Text, s("summary"), (mi, 0));
            }
            other => {
                let r = if other.is_empty() { "message" } else { other };
                self.line(
                    LineStyle::OtherHeader,
                    format!("▍{}", sanitize_line(r)),
                    None,
                );
                match m.get("content") {
                    Some(c @ (Value::String(_) | Value::Array(_))) => {
                        self.content(Some(c), LineStyle::Text, mi, true);
                    }
                    _ => {
                        if let Some(t) = content_text(m.get("content")) {
                            self.text(LineStyle::Text, &t, None);
                        }
                    }
                }
            }
        }
        self.line(LineStyle::Blank, "", None);
    }
}

/// Lays out the whole transcript of a context; `toggled` holds the blocks the user opened.
pub fn build(ctx: &SessionContext, toggled: &HashSet<FoldKey>) -> Transcript {
    let mut b = Builder {
        out: Transcript::default(),
        toggled,
    };
    for (mi, cm) in ctx.messages.iter().enumerate() {
        b.out.starts.push(b.out.lines.len());
        b.message(mi, &cm.message);
    }
    if ctx.messages.is_empty() {
        b.empty();
    }
    b.out.message_count = ctx.messages.len();
    b.out
}

/// A branch's messages, made from their entries as they are laid out.
pub struct Messages<'a> {
    pub session: &'a Session,
    pub plan: &'a ContextPlan,
    pub toggled: &'a HashSet<FoldKey>,
}

/// The lines of one message, its folds counted from its first line.
struct Block {
    lines: Vec<TLine>,
    folds: Vec<(FoldKey, usize, usize)>,
    unavailable: Option<String>,
}

impl Messages<'_> {
    pub fn count(&self) -> usize {
        self.plan.messages.len()
    }

    fn block(&self, mi: usize) -> Block {
        let (message, unavailable) = self.plan.message(self.session, mi);
        let mut b = Builder {
            out: Transcript::default(),
            toggled: self.toggled,
        };
        if let Some(m) = message {
            b.message(mi, &m);
        }
        Block {
            lines: b.out.lines,
            folds: b.out.folds,
            unavailable,
        }
    }

    /// Lays out the messages around `anchor`: it and those after it until `after` lines,
    /// those before it until `before` lines (whole messages, so a little more).
    pub fn window(&self, anchor: usize, before: usize, after: usize) -> Transcript {
        let count = self.count();
        let mut out = Transcript {
            message_count: count,
            ..Transcript::default()
        };
        if count == 0 {
            let mut b = Builder {
                out,
                toggled: self.toggled,
            };
            b.empty();
            return b.out;
        }
        let anchor = anchor.min(count - 1);
        let mut back: Vec<Block> = Vec::new();
        let mut lines_before = 0;
        let mut first = anchor;
        while first > 0 && lines_before < before {
            first -= 1;
            let block = self.block(first);
            lines_before += block.lines.len();
            back.push(block);
        }
        out.first = first;
        let append = |out: &mut Transcript, block: Block| {
            let base = out.lines.len();
            out.starts.push(base);
            out.folds.extend(
                block
                    .folds
                    .into_iter()
                    .map(|(k, a, b)| (k, a + base, b + base)),
            );
            out.lines.extend(block.lines);
            if out.unavailable.is_none() {
                out.unavailable = block.unavailable;
            }
        };
        for block in back.into_iter().rev() {
            append(&mut out, block);
        }
        let anchor_line = out.lines.len();
        let mut mi = anchor;
        while mi < count && (mi == anchor || out.lines.len() - anchor_line < after) {
            append(&mut out, self.block(mi));
            mi += 1;
        }
        out
    }

    /// Every (message, line within it) holding all tokens of `query`, over messages
    /// `range`, one message made and laid out at a time.
    pub fn search(&self, query: &str, range: std::ops::Range<usize>) -> Vec<(usize, usize)> {
        let tokens = search_tokens(query);
        if tokens.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for mi in range {
            let block = self.block(mi);
            for (li, l) in block.lines.iter().enumerate() {
                if contains_all(&l.text.to_lowercase(), &tokens) {
                    hits.push((mi, li));
                }
            }
        }
        hits
    }
}

/// Wraps one line to `width` columns: at spaces when possible, else mid-word. Always at least
/// one (possibly empty) row.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut row_w = 0;
    // Position in `row` just after the last space, and the width up to there.
    let mut last_space: Option<(usize, usize)> = None;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if c == ' ' && row_w + w > width {
            // Break at this space; it is not carried to the next row.
            rows.push(std::mem::take(&mut row));
            row_w = 0;
            last_space = None;
            continue;
        }
        if row_w + w > width && !row.is_empty() {
            match last_space {
                Some((byte, sw)) if byte < row.len() => {
                    let rest = row.split_off(byte);
                    rows.push(row.trim_end().to_owned());
                    row = rest;
                    row_w -= sw;
                }
                _ => {
                    let full = std::mem::take(&mut row);
                    rows.push(full.trim_end_matches(' ').to_owned());
                    row_w = 0;
                }
            }
            last_space = None;
        }
        row.push(c);
        row_w += w;
        if c == ' ' {
            last_space = Some((row.len(), row_w));
        }
    }
    rows.push(row);
    rows
}

/// The number of screen rows a line takes at `width`.
pub fn wrapped_height(text: &str, width: usize) -> usize {
    wrap(text, width).len()
}

/// The top line that shows the end of the transcript in `height` rows at `width` columns (of
/// the lines laid out).
pub fn bottom_top(lines: &[TLine], width: usize, height: usize) -> usize {
    let mut used = 0;
    let mut top = lines.len();
    while top > 0 {
        let h = wrapped_height(&lines[top - 1].text, width);
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
    }
}
