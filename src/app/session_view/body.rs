//! One message of the transcript as display lines: a header naming its role, then its body as
//! the render model draws it ([`crate::model::render`]: Markdown, highlighted code, tool calls
//! as diffs and commands, images as placeholders), each line keeping its styled spans. Long
//! tool output, long tool calls and thinking fold; the user's toggles open them.

use std::collections::HashSet;
use std::ops::Range;

use serde_json::Value;

use super::transcript::{
    CALL_COLLAPSE_OVER, CALL_COLLAPSED_SHOWS, COLLAPSE_OVER, COLLAPSED_SHOWS, FoldKey, LineStyle,
    TLine, Transcript,
};
use crate::model::context::{ContextPlan, SessionContext};
use crate::model::flatten::{contains_all, search_tokens};
use crate::model::render::{self, Block, BlockKind, render_message};
use crate::model::tree::Session;
use crate::text::sanitize::sanitize_line;

/// Fold key of a message body folded whole (a long summary): no block has this index.
const WHOLE_BODY: usize = usize::MAX;

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
            spans: Vec::new(),
            fold,
        });
    }

    fn rendered(&mut self, style: LineStyle, line: &render::Line, fold: Option<FoldKey>) {
        self.out.lines.push(TLine {
            style,
            text: line.plain(),
            spans: line.spans.clone(),
            fold,
        });
    }

    fn empty(&mut self) {
        self.line(
            LineStyle::Dim,
            "(empty context: nothing before this entry)",
            None,
        );
    }

    fn end_fold(&mut self, key: FoldKey, start: usize) {
        let end = self.out.lines.len();
        if end > start {
            self.out.folds.push((key, start, end - 1));
        }
    }

    /// Lines that collapse to their first `shows` when there are more than `over`.
    fn foldable(
        &mut self,
        style: LineStyle,
        lines: &[render::Line],
        key: FoldKey,
        over: usize,
        shows: usize,
    ) {
        if lines.len() <= over {
            for l in lines {
                self.rendered(style, l, None);
            }
            return;
        }
        let start = self.out.lines.len();
        let expanded = self.toggled.contains(&key);
        let shown = if expanded { lines.len() } else { shows };
        for l in &lines[..shown] {
            self.rendered(style, l, Some(key));
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

    fn thinking(&mut self, lines: &[render::Line], key: FoldKey) {
        let start = self.out.lines.len();
        if self.toggled.contains(&key) {
            self.line(LineStyle::Fold, "▾ thinking", Some(key));
            for l in lines {
                self.rendered(LineStyle::Thinking, l, Some(key));
            }
        } else {
            let n = lines.len();
            let s = if n == 1 { "" } else { "s" };
            self.line(
                LineStyle::Fold,
                format!("▸ thinking · {n} line{s}"),
                Some(key),
            );
        }
        self.end_fold(key, start);
    }

    /// A message's blocks, a blank line between two.
    fn blocks(&mut self, mi: usize, blocks: &[Block]) {
        for (bi, b) in blocks.iter().enumerate() {
            if bi > 0 {
                self.line(LineStyle::Blank, "", None);
            }
            let key = (mi, bi);
            match &b.kind {
                BlockKind::Thinking => self.thinking(&b.lines, key),
                BlockKind::ToolOutput { is_error } => {
                    let style = if *is_error {
                        LineStyle::Error
                    } else {
                        LineStyle::Output
                    };
                    self.foldable(style, &b.lines, key, COLLAPSE_OVER, COLLAPSED_SHOWS);
                }
                // The spans carry the call's styles (name, path, diff lines).
                BlockKind::ToolCall { .. } => self.foldable(
                    LineStyle::Text,
                    &b.lines,
                    key,
                    CALL_COLLAPSE_OVER,
                    CALL_COLLAPSED_SHOWS,
                ),
                BlockKind::Text | BlockKind::Code { .. } | BlockKind::Table => {
                    for l in &b.lines {
                        self.rendered(LineStyle::Text, l, None);
                    }
                }
            }
        }
    }

    /// A summary's body, folded whole when long.
    fn summary(&mut self, mi: usize, blocks: &[Block]) {
        let mut lines: Vec<render::Line> = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            if i > 0 {
                lines.push(render::Line::default());
            }
            lines.extend(b.lines.iter().cloned());
        }
        self.foldable(
            LineStyle::Text,
            &lines,
            (mi, WHOLE_BODY),
            COLLAPSE_OVER,
            COLLAPSED_SHOWS,
        );
    }

    fn message(&mut self, mi: usize, m: &Value) {
        let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("");
        let blocks = render_message(m);
        match s("role") {
            "user" => {
                self.line(LineStyle::UserHeader, "▍user", None);
                self.blocks(mi, &blocks);
            }
            "assistant" => {
                let model = s("model");
                let head = if model.is_empty() {
                    "▍assistant".to_owned()
                } else {
                    format!("▍assistant · {}", sanitize_line(model))
                };
                self.line(LineStyle::AssistantHeader, head, None);
                self.blocks(mi, &blocks);
                let redacted = m
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|b| b.get("redacted").and_then(Value::as_bool) == Some(true));
                if redacted && !blocks.iter().any(|b| b.kind == BlockKind::Thinking) {
                    self.line(LineStyle::Fold, "▸ thinking (redacted)", None);
                }
                let has_error = !s("errorMessage").is_empty();
                match s("stopReason") {
                    "aborted" if !blocks.is_empty() => self.line(LineStyle::Dim, "(aborted)", None),
                    "error" if !has_error => self.line(LineStyle::Error, "error: (unknown)", None),
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
                self.blocks(mi, &blocks);
            }
            "bashExecution" => {
                self.line(LineStyle::ToolHeader, "▍bash (run by the user)", None);
                self.blocks(mi, &blocks);
                if m.get("cancelled").and_then(Value::as_bool) == Some(true) {
                    self.line(LineStyle::Dim, "(cancelled)", None);
                }
            }
            "custom" => {
                self.line(
                    LineStyle::OtherHeader,
                    format!("▍custom · {}", sanitize_line(s("customType"))),
                    None,
                );
                self.blocks(mi, &blocks);
            }
            "branchSummary" => {
                self.line(LineStyle::OtherHeader, "▍branch summary", None);
                self.summary(mi, &blocks);
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
                self.summary(mi, &blocks);
            }
            other => {
                let r = if other.is_empty() { "message" } else { other };
                self.line(
                    LineStyle::OtherHeader,
                    format!("▍{}", sanitize_line(r)),
                    None,
                );
                self.blocks(mi, &blocks);
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
struct Laid {
    lines: Vec<TLine>,
    folds: Vec<(FoldKey, usize, usize)>,
    unavailable: Option<String>,
}

impl Messages<'_> {
    pub fn count(&self) -> usize {
        self.plan.messages.len()
    }

    fn block(&self, mi: usize) -> Laid {
        let (message, unavailable) = self.plan.message(self.session, mi);
        let mut b = Builder {
            out: Transcript::default(),
            toggled: self.toggled,
        };
        if let Some(m) = message {
            b.message(mi, &m);
        }
        Laid {
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
        let mut back: Vec<Laid> = Vec::new();
        let mut lines_before = 0;
        let mut first = anchor;
        while first > 0 && lines_before < before {
            first -= 1;
            let block = self.block(first);
            lines_before += block.lines.len();
            back.push(block);
        }
        out.first = first;
        let append = |out: &mut Transcript, block: Laid| {
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
    /// `range`, one message made and laid out at a time. Code is not highlighted for it
    /// (highlighting changes spans, never lines).
    pub fn search(&self, query: &str, range: Range<usize>) -> Vec<(usize, usize)> {
        let tokens = search_tokens(query);
        if tokens.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for mi in range {
            let block = render::highlight::with_budget(0, || self.block(mi));
            for (li, l) in block.lines.iter().enumerate() {
                if contains_all(&l.text.to_lowercase(), &tokens) {
                    hits.push((mi, li));
                }
            }
        }
        hits
    }
}
