//! Finding what a command names: a session by path, id, unique id prefix or exact name, and an
//! entry by id or unique id prefix; loading a session to print it.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::{CliError, msg};
use super::output::{home_dir, load_for_write};
use crate::app::first_run::searched_summary;
use crate::model::context::{Dialect, LeafChoice};
use crate::model::info::SessionInfo;
use crate::model::tree::Session;
use crate::storage::index::write::{entry_ids, header_id, resolve_id};
use crate::storage::index::{Index, ListOptions};
use crate::storage::read::load_session;
use crate::storage::roots::SessionRoot;
use crate::text::sanitize::sanitize_line;

/// Finds a session by path, id, unique id prefix, or exact name.
pub fn resolve_session(
    roots: &[SessionRoot],
    arg: &str,
    no_cache: bool,
) -> Result<(PathBuf, Option<Dialect>), CliError> {
    let as_path = Path::new(arg);
    if arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl") {
        if as_path.exists() {
            return Ok((as_path.to_path_buf(), root_agent_of(roots, as_path)));
        }
        return Err(msg(format!("{}: no such file", sanitize_line(arg))));
    }
    // Through the index, so naming a session by id or name costs one stat per file when warm.
    let listing = Index::open(no_cache).list(roots, ListOptions::default(), |_| {});
    match pick_session(&listing.sessions, arg)? {
        // The index is a cache, and caches can be crafted: the file itself must agree.
        Some(found) if no_cache || session_matches(&found.0, found.1, arg) => Ok(found),
        Some(_) => {
            let listing = Index::disabled().list(roots, ListOptions::default(), |_| {});
            pick_session(&listing.sessions, arg)?.ok_or_else(|| no_session(arg, roots))
        }
        None => Err(no_session(arg, roots)),
    }
}

fn no_session(arg: &str, roots: &[SessionRoot]) -> CliError {
    msg(format!(
        "no session matches {} (give a path, an id or unique id prefix, or an exact name; \
         `grove list --all` lists them)\nlooked in: {}",
        sanitize_line(arg),
        searched_summary(roots, home_dir().as_deref())
    ))
}

/// Whether the file resolved for `arg` says so itself: its header id is `arg` or starts with
/// it; else its name (read from the file) is `arg`.
fn session_matches(path: &Path, agent: Option<Dialect>, arg: &str) -> bool {
    if header_id(path).is_some_and(|id| id.starts_with(arg)) {
        return true;
    }
    crate::storage::read::scan_info(path, agent).is_ok_and(|i| i.name.as_deref() == Some(arg))
}

/// A session by exact id, then unique id prefix, then exact name, among those listed.
fn pick_session(
    all: &[SessionInfo],
    arg: &str,
) -> Result<Option<(PathBuf, Option<Dialect>)>, CliError> {
    let pick = |v: Vec<&SessionInfo>| -> Result<Option<(PathBuf, Option<Dialect>)>, CliError> {
        match v.len() {
            0 => Ok(None),
            1 => Ok(Some((v[0].path.clone(), Some(v[0].agent)))),
            _ => Err(msg(format!(
                "{} matches {} sessions: {}",
                sanitize_line(arg),
                v.len(),
                v.iter()
                    .take(5)
                    .map(|s| sanitize_line(&s.id).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    };
    if let Some(found) = pick(all.iter().filter(|s| s.id == arg).collect())? {
        return Ok(Some(found));
    }
    if let Some(found) = pick(all.iter().filter(|s| s.id.starts_with(arg)).collect())? {
        return Ok(Some(found));
    }
    pick(
        all.iter()
            .filter(|s| s.name.as_deref() == Some(arg))
            .collect(),
    )
}

/// An entry by id or unique id prefix: among the ids of a current index row when there is one
/// (no load of the file), else from the file loaded whole.
pub(crate) fn resolve_entry_indexed(
    index: &mut Index,
    path: &Path,
    agent: Option<Dialect>,
    arg: &str,
) -> Result<String, CliError> {
    let resolved = match entry_ids(index, path, agent) {
        Some(ids) => resolve_id(&ids, arg),
        // No index: a streaming pass, not a load (a file without a header: the load says why).
        None => match crate::storage::append_scan::resolve_prefix(path, arg)? {
            Some(resolved) => resolved,
            None => return resolve_entry(&load_for_write(path)?, arg),
        },
    };
    resolved.map_err(|n| match n {
        0 => msg(format!("no entry {} in this session", sanitize_line(arg))),
        n => msg(format!("{} matches {n} entries", sanitize_line(arg))),
    })
}

fn root_agent_of(roots: &[SessionRoot], path: &Path) -> Option<Dialect> {
    let abs = std::fs::canonicalize(path).ok()?;
    roots.iter().find_map(|r| {
        let root = std::fs::canonicalize(&r.path).ok()?;
        abs.starts_with(root).then_some(r.agent).flatten()
    })
}

/// Loads a session to print it: a file without a session header is refused with the same
/// message the listing gives, and skipped or repaired lines are reported on stderr.
pub fn load_for_display(path: &Path) -> Result<Session, CliError> {
    let s = load_session(path)?;
    if s.parsed.header.is_none() {
        return Err(crate::storage::read::ReadError::NoHeader {
            path: path.to_path_buf(),
        }
        .into());
    }
    let issues: Vec<_> = s.issues().collect();
    if let Some(first) = issues.first() {
        let _ = writeln!(
            io::stderr().lock(),
            "grove: note: {}: {} problem(s) while reading; first: line {}: {}",
            crate::text::sanitize::sanitize_path(&path.to_string_lossy()),
            issues.len(),
            first.line,
            sanitize_line(&crate::text::sanitize::truncate_width(&first.message, 200))
        );
    }
    Ok(s)
}

/// An entry by id or unique id prefix.
pub fn resolve_entry(s: &Session, arg: &str) -> Result<String, CliError> {
    if s.tree.index_of(arg).is_some() {
        return Ok(arg.to_owned());
    }
    let matches: Vec<&str> = s
        .entries()
        .iter()
        .filter(|e| !e.id.is_empty() && e.id.starts_with(arg))
        .map(|e| e.id.as_str())
        .collect();
    let mut unique = matches.clone();
    unique.dedup();
    match unique.len() {
        1 => Ok(unique[0].to_owned()),
        0 => Err(msg(format!(
            "no entry {} in this session",
            sanitize_line(arg)
        ))),
        n => Err(msg(format!("{} matches {n} entries", sanitize_line(arg)))),
    }
}

pub(crate) fn leaf_choice<'a>(
    s: &Session,
    leaf: Option<&'a str>,
) -> Result<LeafChoice<'a>, CliError> {
    match leaf {
        None => Ok(LeafChoice::Current),
        Some(id) => {
            if s.tree.index_of(id).is_none() {
                return Err(msg(format!(
                    "no entry {} in this session",
                    sanitize_line(id)
                )));
            }
            Ok(LeafChoice::Id(id))
        }
    }
}

pub(crate) fn state_error(e: crate::storage::state::StateError) -> CliError {
    super::error::msg(e.to_string())
}

/// A session argument resolved like every other command's, with the id its file says.
pub(crate) fn session_key(
    roots: &[SessionRoot],
    arg: &str,
    no_cache: bool,
) -> Result<crate::storage::state::SessionKey, CliError> {
    let (path, agent) = resolve_session(roots, arg, no_cache)?;
    // The id the listing and the picker know the session by (the header's, read from the file).
    let id = match crate::storage::index::write::header_id(&path) {
        Some(id) => id,
        None => crate::storage::read::scan_info(&path, agent)?.id,
    };
    Ok(crate::storage::state::SessionKey::new(id, path))
}
