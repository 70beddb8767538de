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
use crate::model::tree::Session;
use crate::storage::read::detect_agent;
use crate::storage::roots::SessionRoot;

/// `grove show`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ShowArgs {
    pub session: String,
    #[arg(long)]
    pub json: bool,
}

/// `grove tree`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct TreeArgs {
    pub session: String,
    #[arg(long)]
    pub json: bool,
}

/// `grove context`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ContextArgs {
    pub session: String,
    /// Build from this entry instead of the session's leaf.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
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
    let labels: serde_json::Map<String, Value> = s
        .tree
        .labels
        .iter()
        .map(|(k, v)| (k.clone(), json!(v.text)))
        .collect();
    let issues: Vec<Value> = s
        .issues()
        .map(|i| json!({"line": i.line, "kind": i.kind, "message": i.message}))
        .collect();
    let count = |k: EntryKind| s.entries().iter().filter(|e| e.kind == k).count();
    let v = json!({
        "path": path_json(path),
        "id": h.map(|h| h.id.clone()),
        "cwd": h.map(|h| h.cwd.clone()),
        "created": h.map(|h| h.timestamp.clone()),
        "version": h.map(|h| h.version),
        "migratedFrom": s.parsed.migrated_from,
        "parentSessionPath": h.and_then(|h| h.parent_session.clone()),
        "agent": agent,
        "name": s.tree.name.name,
        "hasName": s.tree.name.has_name,
        "internal": h.is_some_and(|h| h.is_internal()),
        "workflow": h.and_then(|h| h.workflow()),
        "leafId": s.leaf_id(),
        "entryCount": s.entries().len(),
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
    if let Value::Object(m) = &v {
        for (k, val) in m {
            let text = match (k.as_str(), val) {
                ("path", _) => path.to_string_lossy().into_owned(),
                (_, Value::String(s)) => s.clone(),
                (_, Value::Null) => "-".into(),
                (_, other) => other.to_string(),
            };
            // Line breaks and tabs shown as ^J, ^M, ^I: a path with a newline is not another.
            writeln!(
                out,
                "{k:>18}: {}",
                crate::text::sanitize::sanitize_path(&text)
            )?;
        }
    }
    Ok(())
}
