//! `tree` and `context` output written as it is made: JSON through serde's serializer over
//! iterators (never a whole `serde_json::Value` of the output), one context message made from
//! its entry at a time and dropped once written. Memory is that of the slim session plus one
//! message, whatever the session's size; the bytes are those `to_json` gives for the whole
//! value (`tests/cli_stream.rs` compares them on the fixtures).

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::json::InertPretty;
use crate::model::context::{ContextPlan, ModelRef};
use crate::model::entry::EntryKind;
use crate::model::tree::Session;
use crate::text::sanitize::sanitize_line;

/// Output is written in blocks of this many bytes, not one `write` per JSON token.
const BUFFER: usize = 64 * 1024;

fn pretty<W: Write>(out: W) -> serde_json::Serializer<W, InertPretty<'static>> {
    serde_json::Serializer::with_formatter(
        out,
        InertPretty(serde_json::ser::PrettyFormatter::with_indent(b"  ")),
    )
}

/// Ids of entries by index, as a JSON array.
struct Ids<'a>(&'a Session, &'a [usize]);

impl Serialize for Ids<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries = self.0.entries();
        s.collect_seq(self.1.iter().map(|&i| entries[i].id.as_str()))
    }
}

#[derive(serde::Serialize)]
struct Node<'a> {
    id: &'a str,
    #[serde(rename = "parentId")]
    parent_id: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'a str,
    role: Option<&'a str>,
    label: Option<&'a str>,
    line: usize,
    children: Ids<'a>,
}

struct Nodes<'a>(&'a Session);

impl Serialize for Nodes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let session = self.0;
        let entries = session.entries();
        let tree = &session.tree;
        s.collect_seq(entries.iter().enumerate().map(|(i, e)| Node {
            id: &e.id,
            parent_id: tree.parent[i].map(|p| entries[p].id.as_str()),
            kind: e.type_name(),
            role: e.role(),
            label: tree.label_of(entries, i).map(|l| l.text.as_str()),
            line: e.line,
            children: Ids(session, &tree.children[i]),
        }))
    }
}

#[derive(serde::Serialize)]
struct TreeJson<'a> {
    #[serde(rename = "leafId")]
    leaf_id: Option<&'a str>,
    roots: Ids<'a>,
    nodes: Nodes<'a>,
}

/// `tree --json`: `{leafId, roots, nodes: [{id, parentId, type, role, label, line,
/// children}]}`, written node by node.
pub fn tree_json(out: &mut dyn Write, s: &Session) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(BUFFER, out);
    let doc = TreeJson {
        leaf_id: s.leaf_id(),
        roots: Ids(s, &s.tree.roots),
        nodes: Nodes(s),
    };
    let mut ser = pretty(&mut out);
    doc.serialize(&mut ser).map_err(io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The messages of a planned context, each made, given its `entryId`, written and dropped.
struct Messages<'a>(&'a Session, &'a ContextPlan);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (session, plan) = (self.0, self.1);
        s.collect_seq((0..plan.messages.len()).filter_map(|k| {
            let mut v = plan.message(session, k).0?;
            if let Value::Object(o) = &mut v {
                let id = &session.entries()[plan.messages[k].entry_index].id;
                o.insert("entryId".into(), Value::String(id.clone()));
            }
            Some(v)
        }))
    }
}

struct ContextJson<'a> {
    session: &'a Session,
    plan: &'a ContextPlan,
}

impl Serialize for ContextJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (session, plan) = (self.session, self.plan);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "leafId",
            &plan.leaf.map(|l| session.entries()[l].id.as_str()),
        )?;
        m.serialize_entry::<_, Option<ModelRef>>("model", &plan.model)?;
        m.serialize_entry("thinkingLevel", &plan.thinking_level)?;
        m.serialize_entry("messages", &Messages(session, plan))?;
        if let Some(w) = plan.context_window {
            m.serialize_entry("contextWindow", &w)?;
        }
        m.end()
    }
}

/// `context --json`: `{leafId, model, thinkingLevel, messages, contextWindow?}`, the
/// messages with their `entryId`, written one at a time.
pub fn context_json(out: &mut dyn Write, s: &Session, plan: &ContextPlan) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(BUFFER, out);
    let mut ser = pretty(&mut out);
    ContextJson { session: s, plan }
        .serialize(&mut ser)
        .map_err(io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `context` without `--json`: the model and thinking level, then a line per message.
pub fn context_plain(out: &mut dyn Write, s: &Session, plan: &ContextPlan) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(BUFFER, out);
    writeln!(
        out,
        "model: {}  thinking: {}",
        plan.model
            .as_ref()
            .map(|m| sanitize_line(&format!("{}/{}", m.provider, m.model_id)).into_owned())
            .unwrap_or_else(|| "-".into()),
        sanitize_line(&plan.thinking_level)
    )?;
    for k in 0..plan.messages.len() {
        let Some(message) = plan.message(s, k).0 else {
            continue;
        };
        let text = crate::model::entry::content_text(message.get("content"))
            .or_else(|| {
                message
                    .get("summary")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        writeln!(
            out,
            "{} {}: {}",
            sanitize_line(&s.entries()[plan.messages[k].entry_index].id),
            sanitize_line(role),
            sanitize_line(&crate::text::sanitize::truncate_width(&text, 100))
        )?;
    }
    out.flush()
}

/// Deepest indentation `tree` draws.
const MAX_INDENT: usize = 32;

/// `tree` without `--json`: one line per entry, depth first, forks indented.
pub fn tree_plain(out: &mut dyn Write, s: &Session) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(BUFFER, out);
    let entries = s.entries();
    let active = s.tree.active_path();
    // Iterative DFS; only forks add depth, so long chains stay flat.
    let mut stack: Vec<(usize, usize)> = s.tree.roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        let mark = if Some(i) == s.tree.leaf {
            "◆"
        } else if active.contains(&i) {
            "•"
        } else {
            " "
        };
        // A comb of forks could nest 100,000 levels deep: past a few dozen levels the depth is
        // printed as a number, so the output stays linear in the number of entries.
        let indent = if depth <= MAX_INDENT {
            "  ".repeat(depth)
        } else {
            format!("{}[{depth}] ", "  ".repeat(MAX_INDENT))
        };
        writeln!(
            out,
            "{indent}{mark} {} {}",
            sanitize_line(&entries[i].id),
            entry_summary(s, i)
        )?;
        let kids = &s.tree.children[i];
        let child_depth = if kids.len() > 1 { depth + 1 } else { depth };
        for &c in kids.iter().rev() {
            stack.push((c, child_depth));
        }
    }
    out.flush()
}

/// One line describing an entry, for plain output.
pub fn entry_summary(s: &Session, i: usize) -> String {
    let e = &s.entries()[i];
    let body = match e.kind {
        EntryKind::Message => {
            let role = e.role().unwrap_or("?");
            // Read back and dropped: `tree` walks every entry once.
            let (raw, _) = e.raw_transient();
            let text = raw
                .get("message")
                .and_then(|m| crate::model::entry::content_text(m.get("content")))
                .unwrap_or_default();
            format!("{role}: {text}")
        }
        _ => e.type_name().to_owned(),
    };
    let label = s
        .tree
        .label_of(s.entries(), i)
        .map(|l| format!("[{}] ", l.text))
        .unwrap_or_default();
    sanitize_line(&crate::text::sanitize::truncate_width(
        &format!("{label}{body}"),
        120,
    ))
    .into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cli::json::to_json;
    use crate::model::context::{Dialect, LeafChoice, SessionContext, build_context, plan_context};

    /// `tree --json` as it was built before streaming: one whole `Value`.
    fn tree_value(s: &Session) -> Value {
        let entries = s.entries();
        let nodes: Vec<Value> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                json!({
                    "id": e.id,
                    "parentId": s.tree.parent[i].map(|p| entries[p].id.clone()),
                    "type": e.type_name(),
                    "role": e.role(),
                    "label": s.tree.label_of(entries, i).map(|l| l.text.clone()),
                    "line": e.line,
                    "children": s.tree.children[i].iter().map(|&c| entries[c].id.clone()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let roots: Vec<&str> = s
            .tree
            .roots
            .iter()
            .map(|&r| entries[r].id.as_str())
            .collect();
        json!({"leafId": s.leaf_id(), "roots": roots, "nodes": nodes})
    }

    /// `context --json` as it was built before streaming.
    fn context_value(s: &Session, ctx: &SessionContext) -> Value {
        let messages: Vec<Value> = ctx
            .messages
            .iter()
            .map(|m| {
                let mut v = m.message.clone();
                if let Value::Object(o) = &mut v {
                    o.insert("entryId".into(), json!(s.entries()[m.entry_index].id));
                }
                v
            })
            .collect();
        let mut obj = json!({
            "leafId": ctx.leaf.map(|l| s.entries()[l].id.clone()),
            "model": ctx.model,
            "thinkingLevel": ctx.thinking_level,
            "messages": messages,
        });
        if let (Some(w), Value::Object(o)) = (ctx.context_window, &mut obj) {
            o.insert("contextWindow".into(), json!(w));
        }
        obj
    }

    fn fixtures() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    files.push(p);
                }
            }
        }
        files.sort();
        assert!(files.len() > 20, "fixtures missing");
        files
    }

    #[test]
    fn streamed_output_is_the_whole_value_s_on_every_fixture() {
        for path in fixtures() {
            let s = crate::storage::read::load_session(&path).unwrap();
            let mut out = Vec::new();
            tree_json(&mut out, &s).unwrap();
            let want = format!("{}\n", to_json(&tree_value(&s)));
            assert_eq!(String::from_utf8(out).unwrap(), want, "{}", path.display());
            // The leaf and a dozen entries spread over the file as leaves.
            let step = (s.entries().len() / 12).max(1);
            let leaves = [None]
                .into_iter()
                .chain((0..s.entries().len()).step_by(step).map(Some));
            for leaf in leaves {
                for dialect in [Dialect::Pi, Dialect::Atomic] {
                    let choice = leaf.map_or(LeafChoice::Current, LeafChoice::Index);
                    let ctx = build_context(&s, choice, dialect);
                    let plan = plan_context(&s, choice, dialect);
                    let mut out = Vec::new();
                    context_json(&mut out, &s, &plan).unwrap();
                    let want = format!("{}\n", to_json(&context_value(&s, &ctx)));
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        want,
                        "{} at {leaf:?}",
                        path.display()
                    );
                }
            }
        }
    }
}
