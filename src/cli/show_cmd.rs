//! The read-only commands: `grove show`, `grove tree`, `grove context`.

use std::io::Write;
use std::path::Path;

use clap::Args;
use serde_json::{Value, json};

use super::args::GlobalArgs;
use super::error::CliError;
use super::json::to_json;
use super::output::path_json;
use super::resolve::{leaf_choice, load_for_display, resolve_session};
use super::stream;
use crate::model::context::{Dialect, plan_context};
use crate::model::entry::EntryKind;
use crate::model::info::SessionInfo;
use crate::model::tree::Session;
use crate::storage::read::{detect_agent, scan_info};
use crate::storage::roots::SessionRoot;
use crate::text::count::{counted, counted_s};
use crate::text::sanitize::{sanitize_path, truncate_width};

/// `grove show`'s examples.
pub const SHOW_EXAMPLES: &str = "\
Examples:
  grove show 01973299                 by id prefix (as `grove list` prints it)
  grove show 'auth refactor'          by exact session name
  grove show ~/.pi/agent/sessions/--home-me-app--/2025-06-02T10-00-00-000Z_0197....jsonl
  grove show 01973299 --json | jq .labels";

/// `grove tree`'s examples.
pub const TREE_EXAMPLES: &str = "\
Examples:
  grove tree 01973299           one line per entry, forks indented, `*` on the leaf
  grove tree 01973299 --json    {leafId, roots, nodes: [{id, parentId, type, role, label, ...}]}";

/// `grove context`'s examples.
pub const CONTEXT_EXAMPLES: &str = "\
Examples:
  grove context 01973299                 what resuming the session gives the agent
  grove context 01973299 --leaf a1b2c3d4 what resuming from that entry would give
  grove context 01973299 --json          the messages as JSON, with the model and thinking level";

/// `grove show`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ShowArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `grove tree`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct TreeArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `grove context`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ContextArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// Build from this entry (id or unique id prefix) instead of the session's leaf.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `grove show`.
pub fn run_show(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: ShowArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (path, agent) = resolve_session(roots, &args.session, global.skip_cache())?;
    let s = load_for_display(&path)?;
    let agent = agent.unwrap_or_else(|| detect_agent(&path, &s, None));
    show(out, &path, &s, agent, args.json)
}

/// `grove tree`.
pub fn run_tree(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: TreeArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (path, _) = resolve_session(roots, &args.session, global.skip_cache())?;
    let s = load_for_display(&path)?;
    if args.json {
        stream::tree_json(out, &s)?;
    } else {
        stream::tree_plain(out, &s)?;
    }
    Ok(())
}

/// `grove context`.
pub fn run_context(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: ContextArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (path, agent) = resolve_session(roots, &args.session, global.skip_cache())?;
    let s = load_for_display(&path)?;
    let agent = agent.unwrap_or_else(|| detect_agent(&path, &s, None));
    let choice = leaf_choice(&s, args.leaf.as_deref())?;
    // Planned, not built: each message is made, written and dropped in turn.
    let plan = plan_context(&s, choice, agent);
    if args.json {
        stream::context_json(out, &s, &plan)?;
    } else {
        stream::context_plain(out, &s, &plan)?;
    }
    Ok(())
}

fn show(
    out: &mut dyn Write,
    path: &Path,
    s: &Session,
    agent: Dialect,
    json_out: bool,
) -> Result<(), CliError> {
    let h = s.parsed.header.as_ref();
    let entries = s.entries();
    // Labels in file order of the entries they name.
    let labelled: Vec<(&str, &str)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((e.id.as_str(), s.tree.label_of(entries, i)?.text.as_str())))
        .collect();
    let labels: serde_json::Map<String, Value> = labelled
        .iter()
        .map(|(id, text)| ((*id).to_owned(), json!(text)))
        .collect();
    let issues: Vec<Value> = s
        .issues()
        .map(|i| json!({"line": i.line, "kind": i.kind, "message": i.message}))
        .collect();
    let count = |k: EntryKind| entries.iter().filter(|e| e.kind == k).count();
    // The listing's own reading of the file: last activity and first message as `list` and
    // the picker give them.
    let info = scan_info(path, Some(agent)).ok();
    let v = json!({
        "path": path_json(path),
        "id": h.map(|h| h.id.clone()),
        "cwd": h.map(|h| h.cwd.clone()),
        "created": h.map(|h| h.timestamp.clone()),
        "lastActivity": info.as_ref().map(SessionInfo::modified_iso),
        "firstMessage": info.as_ref().map(|i| i.first_message.clone()),
        "version": h.map(|h| h.version),
        "migratedFrom": s.parsed.migrated_from,
        "parentSessionPath": h.and_then(|h| h.parent_session.clone()),
        "agent": agent,
        "name": s.tree.name.name,
        "hasName": s.tree.name.has_name,
        "internal": h.is_some_and(|h| h.is_internal()),
        "workflow": h.and_then(|h| h.workflow()),
        "leafId": s.leaf_id(),
        "entryCount": entries.len(),
        "messageCount": count(EntryKind::Message),
        "leafCount": s.tree.leaf_count(),
        "roots": s.tree.roots.len(),
        "labels": labels,
        "loadout": s.loadout(),
        "bytes": s.parsed.bytes,
        "issues": issues,
    });
    if json_out {
        writeln!(out, "{}", to_json(&v))?;
        return Ok(());
    }
    let text = |k: &str| match &v[k] {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("path", path.to_string_lossy().into_owned()),
        ("id", text("id")),
        ("name", text("name")),
        ("folder", text("cwd")),
        ("agent", {
            let mut a = format!("{agent} · format v{}", text("version"));
            if s.parsed.migrated_from.is_some() {
                a.push_str(" (migrated as pi does, in memory only)");
            }
            a
        }),
        ("created", text("created")),
        ("last activity", text("lastActivity")),
        (
            "first message",
            truncate_width(&text("firstMessage"), 200).into_owned(),
        ),
        (
            "counts",
            format!(
                "{} · {} · {} · {}",
                counted_s(count(EntryKind::Message) as u64, "message"),
                counted(entries.len() as u64, "entry", "entries"),
                counted(s.tree.leaf_count() as u64, "branch", "branches"),
                counted_s(labelled.len() as u64, "label"),
            ),
        ),
        ("leaf", text("leafId")),
    ];
    for (i, (id, label)) in labelled.iter().enumerate() {
        rows.push((if i == 0 { "labels" } else { "" }, format!("{id}  {label}")));
    }
    if let Some(parent) = h.and_then(|h| h.parent_session.as_deref()) {
        rows.push(("forked from", parent.to_owned()));
    }
    if !v["workflow"].is_null() {
        rows.push(("workflow", v["workflow"].to_string()));
    }
    if !v["loadout"].is_null() {
        rows.push(("loadout", v["loadout"].to_string()));
    }
    rows.push(("size", counted_s(s.parsed.bytes, "byte")));
    for (i, issue) in s.issues().enumerate() {
        rows.push((
            if i == 0 { "issues" } else { "" },
            format!("line {}: {}", issue.line, issue.message),
        ));
    }
    for (k, val) in rows {
        // Line breaks and tabs shown as ^J, ^M, ^I: a path with a newline is not another.
        writeln!(
            out,
            "{k:>13}{} {}",
            if k.is_empty() { " " } else { ":" },
            sanitize_path(&val)
        )?;
    }
    Ok(())
}
