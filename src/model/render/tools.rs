//! Tool calls as a person reads them: `edit` as a unified diff with its path, `write` as the
//! path and highlighted content, `bash` as `$ command`, `read` as path and range, anything else
//! as its name and `key: value` lines.

use serde_json::{Map, Value};
use similar::{ChangeTag, TextDiff};

use super::highlight::{highlight, lang_for_path};
use super::span::{Block, BlockKind, Line, Span, SpanKind, plain_lines};
use crate::text::sanitize::{sanitize_line, sanitize_multiline};

/// Beyond this many lines (old plus new) an edit is shown as removed and added text, undiffed:
/// diffing is quadratic in the worst case.
const MAX_DIFF_LINES: usize = 20_000;
/// Lines of context around a diff's changes.
const CONTEXT: usize = 3;

fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn header(name: &str, rest: Vec<Span>) -> Line {
    let mut spans = vec![Span::new(
        SpanKind::ToolName,
        sanitize_line(name).into_owned(),
    )];
    if !rest.is_empty() {
        spans.push(Span::new(SpanKind::Text, " "));
        spans.extend(rest);
    }
    Line::new(spans)
}

fn path_span(path: &str) -> Span {
    Span::new(SpanKind::Path, sanitize_line(path).into_owned())
}

/// A tool call block (`call` is a `toolCall` content block).
pub fn render_tool_call(call: &Value) -> Block {
    let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
    let empty = Map::new();
    let args = call
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let lines = match name {
        "edit" if str_arg(args, "path").is_some() => edit_lines(args),
        "write" if str_arg(args, "path").is_some() => write_lines(args),
        "bash" if str_arg(args, "command").is_some() => command_lines(
            str_arg(args, "command").unwrap_or(""),
            args.get("timeout").and_then(Value::as_f64),
        ),
        "read" if str_arg(args, "path").is_some() => read_lines(args),
        _ => generic_lines(name, args),
    };
    Block::new(
        BlockKind::ToolCall {
            name: sanitize_line(name).into_owned(),
        },
        lines,
    )
}

/// `$ command` (continuation lines indented) and the timeout when set.
pub fn command_lines(command: &str, timeout: Option<f64>) -> Vec<Line> {
    let clean = sanitize_multiline(command, 4);
    let mut out = Vec::new();
    for (i, l) in clean.split('\n').enumerate() {
        let prompt = if i == 0 { "$ " } else { "  " };
        out.push(Line::new(vec![
            Span::new(SpanKind::Marker, prompt),
            Span::new(SpanKind::Command, l),
        ]));
    }
    if let Some(t) = timeout {
        out.push(Line::single(SpanKind::Muted, format!("(timeout {t}s)")));
    }
    out
}

fn read_lines(args: &Map<String, Value>) -> Vec<Line> {
    let path = str_arg(args, "path").unwrap_or("");
    let num = |k: &str| args.get(k).and_then(Value::as_u64);
    let range = match (num("offset"), num("limit")) {
        (Some(o), Some(l)) if l > 0 => format!(" lines {o}–{}", o.saturating_add(l - 1)),
        (Some(o), _) => format!(" from line {o}"),
        (None, Some(l)) => format!(" lines 1–{l}"),
        (None, None) => String::new(),
    };
    let mut rest = vec![path_span(path)];
    if !range.is_empty() {
        rest.push(Span::new(SpanKind::Muted, range));
    }
    vec![header("read", rest)]
}

fn write_lines(args: &Map<String, Value>) -> Vec<Line> {
    let path = str_arg(args, "path").unwrap_or("");
    let content = str_arg(args, "content").unwrap_or("");
    let lines_n = content.lines().count();
    let mut out = vec![header(
        "write",
        vec![
            path_span(path),
            Span::new(
                SpanKind::Muted,
                format!(" ({lines_n} line{})", if lines_n == 1 { "" } else { "s" }),
            ),
        ],
    )];
    let clean = sanitize_multiline(content, 4);
    let clean = clean.strip_suffix('\n').unwrap_or(&clean);
    if !clean.is_empty() {
        out.extend(highlight(clean, lang_for_path(path).as_deref()));
    }
    out
}

/// The `(oldText, newText)` pairs of an edit: pi's `edits` list or the older single pair.
fn edit_pairs(args: &Map<String, Value>) -> Vec<(&str, &str)> {
    fn pair(o: &Map<String, Value>) -> Option<(&str, &str)> {
        Some((
            o.get("oldText").and_then(Value::as_str)?,
            o.get("newText").and_then(Value::as_str).unwrap_or(""),
        ))
    }
    match args.get("edits").and_then(Value::as_array) {
        Some(edits) => edits
            .iter()
            .filter_map(Value::as_object)
            .filter_map(pair)
            .collect(),
        None => pair(args).into_iter().collect(),
    }
}

fn edit_lines(args: &Map<String, Value>) -> Vec<Line> {
    let path = str_arg(args, "path").unwrap_or("");
    let pairs = edit_pairs(args);
    let mut rest = vec![path_span(path)];
    if pairs.len() > 1 {
        rest.push(Span::new(
            SpanKind::Muted,
            format!(" ({} edits)", pairs.len()),
        ));
    }
    let mut out = vec![header("edit", rest)];
    for (old, new) in pairs {
        out.extend(diff_lines(old, new));
    }
    out
}

/// A unified diff of `old` and `new` (hunks with `@@ -a,b +c,d @@`, relative to the snippets).
pub fn diff_lines(old: &str, new: &str) -> Vec<Line> {
    let old = sanitize_multiline(old, 4);
    let new = sanitize_multiline(new, 4);
    let line = |kind: SpanKind, sign: &str, text: &str| {
        let text = text.strip_suffix('\n').unwrap_or(text);
        Line::single(kind, format!("{sign}{text}"))
    };
    if old.lines().count() + new.lines().count() > MAX_DIFF_LINES {
        let mut out = vec![Line::single(
            SpanKind::Muted,
            "(too long to diff: old and new text in full)",
        )];
        out.extend(old.lines().map(|l| line(SpanKind::DiffDel, "-", l)));
        out.extend(new.lines().map(|l| line(SpanKind::DiffAdd, "+", l)));
        return out;
    }
    let diff = TextDiff::from_lines(old.as_ref(), new.as_ref());
    let mut out = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o0, o1) = (first.old_range().start, last.old_range().end);
        let (n0, n1) = (first.new_range().start, last.new_range().end);
        out.push(Line::single(
            SpanKind::DiffHunk,
            format!("@@ -{},{} +{},{} @@", o0 + 1, o1 - o0, n0 + 1, n1 - n0),
        ));
        for op in &group {
            for change in diff.iter_changes(op) {
                let value = change.value();
                out.push(match change.tag() {
                    ChangeTag::Delete => line(SpanKind::DiffDel, "-", value),
                    ChangeTag::Insert => line(SpanKind::DiffAdd, "+", value),
                    ChangeTag::Equal => line(SpanKind::Text, " ", value),
                });
            }
        }
    }
    if out.is_empty() {
        out.push(Line::single(SpanKind::Muted, "(no change)"));
    }
    out
}

/// Name, then one `key: value` line per argument; strings as they are (several lines
/// indented under the key), other values as compact JSON.
fn generic_lines(name: &str, args: &Map<String, Value>) -> Vec<Line> {
    let mut out = vec![header(name, Vec::new())];
    for (key, value) in args {
        let key_span = Span::new(SpanKind::Key, format!("{}: ", sanitize_line(key)));
        let text = match value {
            Value::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        let mut lines = plain_lines(&text, SpanKind::Text).into_iter();
        let mut first = lines.next().unwrap_or_default();
        first.spans.insert(0, key_span);
        out.push(first);
        for mut l in lines {
            l.spans.insert(0, Span::new(SpanKind::Text, "  "));
            out.push(l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn plain(b: &Block) -> Vec<String> {
        b.lines.iter().map(Line::plain).collect()
    }

    #[test]
    fn edit_is_a_unified_diff_with_its_path() {
        let call = json!({"type": "toolCall", "name": "edit", "arguments": {
            "path": "src/log.rs",
            "edits": [{"oldText": "a\nb\nc\n", "newText": "a\nB\nc\n"}]
        }});
        let b = render_tool_call(&call);
        assert_eq!(
            plain(&b),
            ["edit src/log.rs", "@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]
        );
        assert_eq!(b.lines[3].spans[0].kind, SpanKind::DiffDel);
        assert_eq!(b.lines[4].spans[0].kind, SpanKind::DiffAdd);
        assert_eq!(b.lines[0].spans[2].kind, SpanKind::Path);
        // The older single-pair form.
        let old =
            json!({"name": "edit", "arguments": {"path": "x", "oldText": "1", "newText": "2"}});
        assert_eq!(plain(&render_tool_call(&old))[2..], ["-1", "+2"]);
    }

    #[test]
    fn bash_read_write_and_others() {
        let bash = json!({"name": "bash", "arguments": {"command": "ls -la\necho hi"}});
        assert_eq!(plain(&render_tool_call(&bash)), ["$ ls -la", "  echo hi"]);
        let read = json!({"name": "read", "arguments": {"path": "a.rs", "offset": 10, "limit": 5}});
        assert_eq!(plain(&render_tool_call(&read)), ["read a.rs lines 10–14"]);
        let write =
            json!({"name": "write", "arguments": {"path": "a.rs", "content": "fn x() {}\n"}});
        let w = render_tool_call(&write);
        assert_eq!(plain(&w), ["write a.rs (1 line)", "fn x() {}"]);
        assert!(
            w.lines[1]
                .spans
                .iter()
                .any(|s| s.kind
                    == SpanKind::CodeToken(crate::model::render::span::TokenKind::Keyword))
        );
        let other =
            json!({"name": "grep", "arguments": {"pattern": "a\nb", "limit": 3, "glob": ["*.rs"]}});
        assert_eq!(
            plain(&render_tool_call(&other)),
            ["grep", "pattern: a", "  b", "limit: 3", "glob: [\"*.rs\"]"]
        );
    }
}
