//! The HTML export: one self-contained page with the tree in a sidebar (pi's five filters and
//! a search), the transcript of the chosen branch rendered like the TUI's ([`render`]), tool
//! output and thinking folded, and a link to every entry.
//!
//! Safety: every piece of session text is HTML-escaped where the page is written, the sidebar
//! is built by the page's script with `textContent` only from JSON inside
//! `<script type="application/json">` (with `<`, `>` and `&` as `\u` escapes so nothing can
//! close the element), and a Content-Security-Policy allows only the page's own inline script
//! and style (by hash) and `data:` images: nothing remote is ever fetched. Links in session
//! text are shown as text and URL, never as live links. The builder is a pure function to a
//! `String`; writing it out is the caller's.
//!
//! The page runs a self-check when opened with `#selftest=QUERY` (tests drive it in headless
//! Chromium): it tries every filter and the search and writes what it saw into
//! `<pre id="selftest">`. Without that fragment the code does nothing.
//!
//! [`render`]: crate::model::render

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::markdown::title;
use crate::model::context::SessionContext;
use crate::model::entry::{Entry, EntryKind};
use crate::model::flatten::{FilterMode, RowStyle, TreeNav, row_text};
use crate::model::render::highlight;
use crate::model::render::markdown::render_markdown;
use crate::model::render::{Block, BlockKind, Line, SpanKind, render_message};
use crate::model::tree::Session;
use crate::text::sanitize::sanitize_line;

const SCRIPT: &str = include_str!("page.js");
const STYLE: &str = include_str!("page.css");

/// Bytes of code highlighted per page; the rest is shown plain, so a session full of written
/// files exports in time proportional to its size.
pub const HIGHLIGHT_BUDGET: usize = 256 * 1024;

/// Blocks of tool output longer than this are folded.
const FOLD_OVER_LINES: usize = 12;

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Sanitized (control characters visible) and escaped.
fn text(s: &str) -> String {
    escape(&sanitize_line(s))
}

/// JSON that can sit inside `<script type="application/json">`: no `<`, `>` or `&` (and no
/// line separators), which can only occur inside JSON strings, where `\u` escapes mean the same.
pub fn script_json(v: &Value) -> String {
    let raw = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(raw.len() + 16);
    for c in raw.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ => out.push(c),
        }
    }
    out
}

fn csp_hash(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page's Content-Security-Policy: nothing but its own inline script and style.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; font-src 'none'; \
         connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; \
         base-uri 'none'; form-action 'none'",
        csp_hash(SCRIPT),
        csp_hash(STYLE)
    )
}

fn span_class(kind: SpanKind) -> String {
    match kind {
        SpanKind::Text => "tx".into(),
        SpanKind::Heading(l) => format!("h h{}", l.clamp(1, 6)),
        SpanKind::Code => "code".into(),
        SpanKind::CodeToken(t) => format!("t-{}", t.name()),
        SpanKind::Link => "link".into(),
        SpanKind::LinkUrl => "url".into(),
        SpanKind::Quote => "quote".into(),
        SpanKind::Marker => "mk".into(),
        SpanKind::DiffAdd => "add".into(),
        SpanKind::DiffDel => "del".into(),
        SpanKind::DiffHunk => "hunk".into(),
        SpanKind::ToolName => "tool".into(),
        SpanKind::Path => "path".into(),
        SpanKind::Key => "key".into(),
        SpanKind::Command => "cmd".into(),
        SpanKind::Output => "out".into(),
        SpanKind::Muted => "muted".into(),
        SpanKind::Error => "err".into(),
        SpanKind::Thinking => "think".into(),
        SpanKind::Image => "img".into(),
    }
}

fn row_class(style: RowStyle) -> &'static str {
    match style {
        RowStyle::Plain => "plain",
        RowStyle::UserLabel => "user",
        RowStyle::AssistantLabel => "assistant",
        RowStyle::Muted => "muted",
        RowStyle::Dim => "dim",
        RowStyle::Error => "err",
        RowStyle::Warning => "warn",
        RowStyle::CustomLabel => "custom",
        RowStyle::Compaction => "compaction",
        RowStyle::DimItalic => "dimit",
    }
}

fn mode_name(mode: FilterMode) -> &'static str {
    match mode {
        FilterMode::Default => "default",
        FilterMode::NoTools => "no-tools",
        FilterMode::UserOnly => "user-only",
        FilterMode::LabeledOnly => "labeled-only",
        FilterMode::All => "all",
    }
}

fn push_line(out: &mut String, line: &Line) {
    for s in &line.spans {
        let mut class = span_class(s.kind);
        if s.strong {
            class.push_str(" b");
        }
        if s.emphasis {
            class.push_str(" i");
        }
        if s.strike {
            class.push_str(" s");
        }
        // Span text is sanitized by the renderer; escaping makes it inert here.
        let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(&s.text));
    }
}

fn push_block(out: &mut String, block: &Block) {
    let (class, fold_label) = match &block.kind {
        BlockKind::Text => ("text", None),
        BlockKind::Code { .. } => ("codeblock", None),
        BlockKind::Table => ("table", None),
        BlockKind::ToolCall { .. } => ("call", None),
        BlockKind::ToolOutput { is_error: false } => ("output", Some("output")),
        BlockKind::ToolOutput { is_error: true } => ("output error", Some("error output")),
        BlockKind::Thinking => ("thinking", Some("thinking")),
    };
    let n = block.lines.len();
    let fold = match (&block.kind, fold_label) {
        (BlockKind::Thinking, Some(label)) => Some((label, false)),
        (_, Some(label)) => Some((label, n <= FOLD_OVER_LINES)),
        _ => None,
    };
    if let Some((label, open)) = fold {
        let _ = write!(
            out,
            "<details class=\"fold\"{}><summary>{label} ({n} line{})</summary>",
            if open { " open" } else { "" },
            if n == 1 { "" } else { "s" }
        );
    }
    let tag = if block.kind.is_preformatted() {
        "pre"
    } else {
        "div"
    };
    let _ = write!(out, "<{tag} class=\"block {class}\">");
    for (i, line) in block.lines.iter().enumerate() {
        if tag == "pre" {
            if i > 0 {
                out.push('\n');
            }
            push_line(out, line);
        } else {
            out.push_str("<div class=\"l\">");
            push_line(out, line);
            out.push_str("</div>");
        }
    }
    let _ = write!(out, "</{tag}>");
    if fold.is_some() {
        out.push_str("</details>");
    }
}

/// What an entry shows in the transcript.
fn entry_blocks(e: &Entry) -> Vec<Block> {
    let raw = e.raw();
    let summary = || {
        raw.get("summary")
            .and_then(Value::as_str)
            .map(render_markdown)
            .unwrap_or_default()
    };
    match e.kind {
        EntryKind::Message => e
            .message()
            .map(|m| render_message(&Value::Object(m.clone())))
            .unwrap_or_default(),
        EntryKind::Compaction | EntryKind::BranchSummary => summary(),
        EntryKind::CustomMessage => {
            let content = raw.get("content").cloned().unwrap_or(Value::Null);
            render_message(&json!({"role": "custom", "content": content}))
        }
        _ => Vec::new(),
    }
}

/// The heading of an entry's section: its role or kind.
fn entry_heading(e: &Entry) -> (&'static str, String) {
    match e.kind {
        EntryKind::Message => match e.role().unwrap_or("") {
            "user" => ("user", "User".into()),
            "assistant" => {
                let model = e
                    .message()
                    .and_then(|m| m.get("model"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if model.is_empty() {
                    ("assistant", "Assistant".into())
                } else {
                    ("assistant", format!("Assistant ({model})"))
                }
            }
            "toolResult" => {
                let name = e
                    .message()
                    .and_then(|m| m.get("toolName"))
                    .and_then(Value::as_str)
                    .unwrap_or("tool");
                let failed = e.message().and_then(|m| m.get("isError")) == Some(&Value::Bool(true));
                if failed {
                    ("tool error", format!("Tool result: {name} (error)"))
                } else {
                    ("tool", format!("Tool result: {name}"))
                }
            }
            "bashExecution" => ("tool", "Bash".into()),
            other => ("other", other.to_owned()),
        },
        EntryKind::Compaction => ("summary", "Compaction summary".into()),
        EntryKind::BranchSummary => ("summary", "Branch summary".into()),
        EntryKind::CustomMessage => (
            "custom",
            format!("Custom: {}", e.str_field("customType").unwrap_or("")),
        ),
        _ => ("meta", e.type_name().to_owned()),
    }
}

/// A fragment id for each entry: its id when that is plain and unique, else its index.
fn anchors(session: &Session) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    session
        .entries()
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let plain = !e.id.is_empty()
                && e.id.len() <= 64
                && e.id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if plain && seen.insert(e.id.clone()) {
                format!("e-{}", e.id)
            } else {
                format!("i-{i}")
            }
        })
        .collect()
}

/// The session as a self-contained HTML page, showing the branch to `ctx.leaf`.
pub fn to_html(session: &Session, ctx: &SessionContext) -> String {
    let entries = session.entries();
    let leaf = ctx.leaf.filter(|&l| l < entries.len());
    let anchors = anchors(session);
    let on_path: std::collections::HashSet<usize> = leaf
        .map(|l| session.tree.path_to(l).into_iter().collect())
        .unwrap_or_default();

    // The sidebar: pi's layout under each filter, rows by entry index.
    let mut filters = serde_json::Map::new();
    let mut tool_calls = None;
    for mode in FilterMode::CYCLE {
        let nav = TreeNav::new(session, leaf, None, mode);
        let rows: Vec<Value> = nav
            .rows()
            .iter()
            .map(|r| json!([r.entry, nav.row_prefix(r)]))
            .collect();
        filters.insert(mode_name(mode).into(), Value::Array(rows));
        if tool_calls.is_none() {
            tool_calls = Some(nav.tool_calls().clone());
        }
    }
    let tool_calls = tool_calls.unwrap_or_default();
    let rows: Vec<Value> = entries
        .iter()
        .map(|e| {
            let t = row_text(e, &tool_calls, None);
            Value::Array(
                t.spans
                    .iter()
                    .map(|(style, s)| json!([row_class(*style), s]))
                    .collect(),
            )
        })
        .collect();
    let labels: Vec<Value> = entries
        .iter()
        .map(|e| match session.tree.labels.get(&e.id) {
            Some(l) => Value::String(sanitize_line(&l.text).into_owned()),
            None => Value::Null,
        })
        .collect();
    let parents: Vec<Value> = session
        .tree
        .parent
        .iter()
        .map(|p| p.map_or(Value::Null, |p| json!(p)))
        .collect();
    let data = json!({
        "modes": FilterMode::CYCLE.iter().map(|m| mode_name(*m)).collect::<Vec<_>>(),
        "filters": filters,
        "rows": rows,
        "labels": labels,
        "parents": parents,
        "ids": entries.iter().map(|e| sanitize_line(&e.id).into_owned()).collect::<Vec<_>>(),
        "anchors": anchors,
        "leaf": leaf,
    });

    let title = title(session, ctx);
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · grove</title><style>{STYLE}</style></head><body>",
        escape(&content_security_policy()),
        text(&title)
    );
    out.push_str("<aside id=\"side\"><div id=\"controls\">");
    out.push_str(
        "<input id=\"search\" type=\"search\" placeholder=\"Search entries\" autocomplete=\"off\">",
    );
    out.push_str("<select id=\"filter\" title=\"Filter\">");
    for mode in FilterMode::CYCLE {
        let name = mode_name(mode);
        let _ = write!(out, "<option value=\"{name}\">{name}</option>");
    }
    out.push_str("</select><span id=\"count\"></span></div><nav id=\"tree\"></nav></aside>");
    let _ = write!(
        out,
        "<main id=\"main\"><header><h1>{}</h1><dl>",
        text(&title)
    );
    if let Some(h) = &session.parsed.header {
        for (k, v) in [("id", &h.id), ("cwd", &h.cwd), ("created", &h.timestamp)] {
            let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", text(v));
        }
    }
    if let Some(m) = &ctx.model {
        let _ = write!(
            out,
            "<dt>model</dt><dd>{}/{}</dd>",
            text(&m.provider),
            text(&m.model_id)
        );
    }
    out.push_str("</dl><noscript><p>The tree and filters need JavaScript; the exported branch is shown below.</p></noscript></header>");
    out.push_str("<div id=\"transcript\">");
    let bodies: Vec<Vec<Block>> = highlight::with_budget(HIGHLIGHT_BUDGET, || {
        entries.iter().map(entry_blocks).collect()
    });
    for (i, (e, blocks)) in entries.iter().zip(bodies).enumerate() {
        if blocks.is_empty() {
            continue;
        }
        let (class, heading) = entry_heading(e);
        let _ = write!(
            out,
            "<section class=\"entry {class}\" id=\"{}\" data-i=\"{i}\"{}><h2><a class=\"anchor\" href=\"#{}\">#</a> {}",
            escape(&anchors[i]),
            if on_path.contains(&i) { "" } else { " hidden" },
            escape(&anchors[i]),
            text(&heading)
        );
        if let Some(l) = session.tree.labels.get(&e.id) {
            let _ = write!(out, " <span class=\"label\">{}</span>", text(&l.text));
        }
        let _ = write!(out, " <time>{}</time></h2>", text(e.timestamp()));
        for b in &blocks {
            push_block(&mut out, b);
        }
        out.push_str("</section>");
    }
    out.push_str("</div><pre id=\"selftest\" hidden></pre></main>");
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"grove-data\">{}</script><script>{SCRIPT}</script></body></html>",
        script_json(&data)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_cannot_close_its_script() {
        let v = json!({"t": "</script><script>alert(1)</script> & \u{2028}"});
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
    }

    #[test]
    fn csp_forbids_remote_and_hashes_the_inline_parts() {
        let csp = content_security_policy();
        assert!(csp.starts_with("default-src 'none'; script-src 'sha256-"));
        assert!(!csp.contains("http") && !csp.contains("unsafe"));
    }

    #[test]
    fn escape_escapes() {
        assert_eq!(
            escape("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
