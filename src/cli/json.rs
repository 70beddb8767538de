//! The JSON grove prints: listing rows (`info_json`, streamed by `write_sessions_json`), and
//! serialization with every character a terminal could act on escaped, so JSON output is inert.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{Value, json};

use super::output::{self, path_json};
use crate::model::context::Dialect;
use crate::model::info::SessionInfo;

/// The JSON of a listing row: pi's camelCase `SessionInfo` fields plus grove's.
pub fn info_json(s: &SessionInfo) -> Value {
    json!({
        "path": path_json(&s.path),
        "id": s.id,
        "cwd": s.cwd,
        "name": s.name,
        "parentSessionPath": s.parent_session_path,
        "created": s.created_iso(),
        "modified": s.modified_iso(),
        "messageCount": s.message_count,
        "firstMessage": s.first_message,
        "agent": s.agent,
        "version": s.version,
        "bytes": s.bytes,
        "entryCount": s.entry_count,
        "leafCount": s.leaf_count,
        "labelCount": s.label_count,
        "hasName": s.has_name,
        "internal": s.internal,
        "workflow": s.workflow,
        "summary": s.summary,
        "totalTokens": s.total_tokens,
        "cost": s.cost,
        "model": s.model,
        "outcome": outcome_of(s),
        "parseIssues": s.parse_issues,
    })
}

/// The last turn's outcome word (`done`, `aborted`, `error`, `cut off`, `unfinished`).
fn outcome_of(s: &SessionInfo) -> Option<&'static str> {
    crate::model::stats::outcome::Outcome::of(s.last_stop_reason.as_deref()).map(|o| o.label())
}

/// [`info_json`] as a borrowed struct: the same keys in the same order, so serde_json writes
/// the same bytes without building a `Value` per session (a listing of 10k sessions).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct InfoJson<'a> {
    #[serde(serialize_with = "output::serialize_path")]
    path: &'a Path,
    id: &'a str,
    cwd: &'a str,
    name: &'a Option<String>,
    parent_session_path: &'a Option<String>,
    created: Option<String>,
    modified: String,
    message_count: u64,
    first_message: &'a str,
    agent: Dialect,
    version: u32,
    bytes: u64,
    entry_count: u64,
    leaf_count: u64,
    label_count: u64,
    has_name: bool,
    internal: bool,
    workflow: &'a Option<crate::model::info::WorkflowInfo>,
    summary: &'a Option<String>,
    total_tokens: u64,
    cost: f64,
    model: &'a Option<String>,
    outcome: Option<&'static str>,
    parse_issues: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pinned: bool,
}

/// `write_json_array(out, sessions.map(info_json))`, byte for byte, in one pass: the array
/// serialized straight to `out`, with [`InertPretty`] escaping as the strings are written.
pub(crate) fn write_sessions_json<W: Write>(
    out: W,
    sessions: &[&SessionInfo],
    pinned: &dyn Fn(&SessionInfo) -> bool,
) -> io::Result<()> {
    let items = sessions.iter().map(|s| InfoJson {
        path: &s.path,
        id: &s.id,
        cwd: &s.cwd,
        name: &s.name,
        parent_session_path: &s.parent_session_path,
        created: s.created_iso(),
        modified: s.modified_iso(),
        message_count: s.message_count,
        first_message: &s.first_message,
        agent: s.agent,
        version: s.version,
        bytes: s.bytes,
        entry_count: s.entry_count,
        leaf_count: s.leaf_count,
        label_count: s.label_count,
        has_name: s.has_name,
        internal: s.internal,
        workflow: &s.workflow,
        summary: &s.summary,
        total_tokens: s.total_tokens,
        cost: s.cost,
        model: &s.model,
        outcome: outcome_of(s),
        parse_issues: s.parse_issues,
        pinned: pinned(s),
    });
    let mut ser = serde_json::Serializer::with_formatter(
        out,
        InertPretty(serde_json::ser::PrettyFormatter::with_indent(b"  ")),
    );
    serde::Serializer::collect_seq(&mut ser, items).map_err(io::Error::other)?;
    ser.into_inner().write_all(b"\n")
}

/// serde_json's pretty printer, writing every character a terminal could act on as its `\u`
/// escape: the output of [`escape_inert`] over the pretty text, without a second pass over
/// it (such characters only occur inside strings, which serde_json writes as fragments).
pub(crate) struct InertPretty<'a>(pub(crate) serde_json::ser::PrettyFormatter<'a>);

impl serde_json::ser::Formatter for InertPretty<'_> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, s: &str) -> io::Result<()> {
        // Every such character starts with a byte >= 0x7f (both checks are word at a time).
        if s.is_ascii() && !s.as_bytes().contains(&0x7f) {
            return w.write_all(s.as_bytes());
        }
        let mut start = 0;
        for (i, c) in s.char_indices() {
            if needs_json_escape(c) {
                w.write_all(&s.as_bytes()[start..i])?;
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    write!(w, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        w.write_all(&s.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Writes `[items]` exactly as `to_json(&Value::Array(items))` would, one item at a time
/// (the reference for [`write_sessions_json`]).
#[cfg(test)]
fn write_json_array(out: &mut dyn Write, items: impl Iterator<Item = Value>) -> io::Result<()> {
    let mut first = true;
    for item in items {
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        first = false;
        // Pretty JSON never has a raw newline inside a string: indenting by lines is exact.
        for (i, line) in to_json(&item).split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"  ")?;
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(if first { b"[]\n" } else { b"\n]\n" })
}

/// Serializes JSON with every character a terminal could act on escaped (C0/C1 controls,
/// bidi and zero-width characters), so the output is both valid JSON and inert.
pub fn to_json(v: &Value) -> String {
    escape_inert(&serde_json::to_string_pretty(v).unwrap_or_default())
}

/// Replaces, in serialized JSON, every character a terminal could act on with its `\u` escape.
/// Such characters only occur inside JSON strings, so the result is the same JSON.
pub fn escape_inert(s: &str) -> String {
    // Every such character starts with a byte >= 0x7f: a byte scan (vectorized) rules most
    // output out without decoding it.
    if !s.bytes().any(|b| b >= 0x7f) || !s.chars().any(needs_json_escape) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_json_escape(c) {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_json_escape(c: char) -> bool {
    // serde_json already escapes C0 controls inside strings; the rest only occur in strings.
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}' | '\u{061C}' | '\u{2028}' | '\u{2029}')
        || crate::text::sanitize::is_hidden_or_ignorable(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    use crate::model::info::WorkflowInfo;

    #[test]
    fn the_session_writer_matches_the_value_writer() {
        let base = SessionInfo {
            path: PathBuf::from("/s/caf\u{e9} \u{202e}x.jsonl"),
            id: "id\u{1b}[31m".into(),
            cwd: "/w \"q\"".into(),
            name: Some("n\u{200b}\u{9b}".into()),
            parent_session_path: None,
            created_ms: None,
            modified_ms: -1,
            message_count: 3,
            first_message: "line\nbreak \u{1F600} \u{e0041}".into(),
            agent: Dialect::Atomic,
            version: 3,
            bytes: u64::MAX,
            entry_count: 7,
            leaf_count: 2,
            label_count: 1,
            has_name: true,
            internal: true,
            workflow: Some(WorkflowInfo {
                run_id: "r".into(),
                stage_id: "s".into(),
                stage_name: "t\u{2028}".into(),
            }),
            summary: Some(String::new()),
            total_tokens: 12,
            cost: 0.1 + 0.2,
            last_stop_reason: Some("length".into()),
            model: Some("m\u{1b}".into()),
            parse_issues: 4,
            first_issue: Some("line 2".into()),
            all_messages_text: "not listed".into(),
            tool_text: "not listed".into(),
        };
        let mut sessions = vec![base.clone()];
        for cost in [f64::NAN, f64::INFINITY, 0.0, -0.0, 1e300, 5e-324] {
            sessions.push(SessionInfo {
                cost,
                workflow: None,
                name: None,
                created_ms: Some(1_700_000_000_123),
                ..base.clone()
            });
        }
        for n in [0, 1, sessions.len()] {
            let refs: Vec<&SessionInfo> = sessions[..n].iter().collect();
            let mut fast = Vec::new();
            write_sessions_json(&mut fast, &refs, &|_| false).unwrap();
            let mut reference = Vec::new();
            write_json_array(&mut reference, refs.iter().map(|s| info_json(s))).unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(reference).unwrap()
            );
        }
    }
}
