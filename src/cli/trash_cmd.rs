//! `grove trash list|restore`: the session files in the platform trash, whatever run of grove
//! (or other program) deleted them, restored byte for byte with their `.bak` files.

use std::io::Write;
use std::path::Path;

use clap::Subcommand;
use serde_json::{Value, json};

use super::error::{CliError, msg};
use super::json::to_json;
use super::output::{path_json, paths_json, report_done};
use crate::model::entry::format_iso_ms;
use crate::storage::restore::{TrashedSession, list_trashed_sessions, restore_trashed};
use crate::text::count::counted_s;
use crate::text::sanitize::sanitize_path;

/// `grove trash`'s examples.
pub const EXAMPLES: &str = "\
Examples:
  grove trash list                     deletion time and original path of each trashed session
  grove trash restore '/home/me/.pi/agent/sessions/--home-me-app--/2025-06-02T10-00-00-000Z_0197....jsonl'
  grove trash restore 2025-06-02T10-00-00-000Z_0197....jsonl    by file name, when only one has it
(The browser's trash view, alt+t in the picker, does the same.)";

#[derive(Debug, Clone, Subcommand)]
pub enum TrashAction {
    /// List the session files in the trash: deletion time and original path.
    List {
        /// Print JSON (`[{name, originalPath, deleted, inTrash, backups}]`) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Restore a trashed session, byte for byte, with its backups.
    Restore {
        /// The session's original path (or its file name, when only one has it).
        session: String,
        /// Print JSON (`{restored: [paths]}`) instead of sentences.
        #[arg(long)]
        json: bool,
    },
}

fn deleted_iso(s: &TrashedSession) -> Option<String> {
    (s.item.time_deleted >= 0).then(|| format_iso_ms(s.item.time_deleted.saturating_mul(1000)))
}

fn entry_json(s: &TrashedSession) -> Value {
    json!({
        "name": path_json(Path::new(&s.item.name)),
        "originalPath": path_json(&s.item.original_path()),
        "deleted": deleted_iso(s),
        "inTrash": s.in_trash.as_deref().map(path_json),
        "backups": paths_json(s.backups.iter().map(|b| b.original_path()).collect::<Vec<_>>().iter()),
    })
}

/// `grove trash list [--json]`.
pub fn list(out: &mut dyn Write, json_out: bool) -> Result<(), CliError> {
    let sessions = list_trashed_sessions()?;
    if json_out {
        let v = Value::Array(sessions.iter().map(entry_json).collect());
        writeln!(out, "{}", to_json(&v))?;
        return Ok(());
    }
    if sessions.is_empty() {
        writeln!(out, "No session files in the trash.")?;
    }
    for s in &sessions {
        let backups = match s.backups.len() {
            0 => String::new(),
            n => format!("  (+{})", counted_s(n as u64, "backup")),
        };
        writeln!(
            out,
            "{}  {}{backups}",
            deleted_iso(s).unwrap_or_else(|| "-".into()),
            sanitize_path(&s.item.original_path().to_string_lossy())
        )?;
    }
    Ok(())
}

/// The trashed session `arg` names: its original path (the most recent delete of it), or its
/// file name when only one trashed session has it.
fn find<'a>(sessions: &'a [TrashedSession], arg: &str) -> Result<&'a TrashedSession, CliError> {
    let wanted = Path::new(arg);
    let resolved = crate::storage::trash::entry_path(wanted).ok();
    if let Some(s) = sessions.iter().find(|s| {
        let p = s.item.original_path();
        p == wanted || resolved.as_deref() == Some(p.as_path())
    }) {
        return Ok(s);
    }
    let by_name: Vec<&TrashedSession> = sessions
        .iter()
        .filter(|s| s.item.name.to_string_lossy() == arg)
        .collect();
    match by_name.as_slice() {
        [one] => Ok(one),
        [] => Err(msg(format!(
            "no session {} in the trash (see `grove trash list`)",
            sanitize_path(arg)
        ))),
        many => Err(msg(format!(
            "{} sessions named {} are in the trash; give the original path: {}",
            many.len(),
            sanitize_path(arg),
            many.iter()
                .map(|s| sanitize_path(&s.item.original_path().to_string_lossy()).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// `grove trash restore SESSION [--json]`.
pub fn restore(out: &mut dyn Write, arg: &str, json_out: bool) -> Result<(), CliError> {
    let sessions = list_trashed_sessions()?;
    let s = find(&sessions, arg)?;
    let restored = restore_trashed(s)?;
    let shown = sanitize_path(&s.item.original_path().to_string_lossy()).into_owned();
    let report = if json_out {
        to_json(&json!({"restored": paths_json(&restored)}))
    } else {
        restored
            .iter()
            .map(|p| format!("Restored {}.", sanitize_path(&p.to_string_lossy())))
            .collect::<Vec<_>>()
            .join("\n")
    };
    report_done(out, &format!("{shown} was restored"), &report)
}

/// The command that undoes `grove rm` of `path`, quoted for a POSIX shell.
pub fn undo_command(path: &Path) -> String {
    let p = path.to_string_lossy().replace('\'', "'\\''");
    format!("grove trash restore '{}'", sanitize_path(&p))
}
