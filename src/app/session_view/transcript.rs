//! The transcript of a branch as display lines: the context the agent would get when resuming
//! at the selected entry, one styled logical line per source line, sanitised. Wrapping happens
//! at draw time and only for the lines on screen.

use std::collections::HashSet;

use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use crate::model::context::SessionContext;
use crate::model::entry::content_text;
use crate::model::export::image_placeholder;
use crate::model::flatten::{contains_all, search_tokens};
use crate::model::transcript::tool_call_text;
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

/// A built transcript.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    pub lines: Vec<TLine>,
    /// Collapsible blocks in line order: key, first line, last line (inclusive).
    pub folds: Vec<(FoldKey, usize, usize)>,
    pub message_count: usize,
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

/// Builds the transcript of a context; `toggled` holds the blocks the user opened.
pub fn build(ctx: &SessionContext, toggled: &HashSet<FoldKey>) -> Transcript {
    let mut b = Builder {
        out: Transcript::default(),
        toggled,
    };
    for (mi, cm) in ctx.messages.iter().enumerate() {
        b.message(mi, &cm.message);
    }
    if ctx.messages.is_empty() {
        b.line(
            LineStyle::Dim,
            "(empty context: nothing before this entry)",
            None,
        );
    }
    b.out.message_count = ctx.messages.len();
    b.out
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

/// The top line that shows the end of the transcript in `height` rows at `width` columns.
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
