//! `grove pin|unpin|archive|unarchive SESSION…`, `grove state export|import|path`, and what
//! the state does to `grove list` (pinned first, archived hidden or alone with `--archived`).
//! All of it lives in grove's state database; no session file is ever written for it.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use serde_json::json;

use super::args::GlobalArgs;
use super::error::CliError;
use super::error::msg;
use super::json::{escape_inert, to_json};
use super::output::{path_json, report_done, shown_path};
use super::resolve::{session_key, state_error};
use crate::model::info::SessionInfo;
use crate::storage::roots::SessionRoot;
use crate::storage::state::backup::read_backup;
use crate::storage::state::{Flag, StateDb, StateSnapshot, db_path};
use crate::text::sanitize::sanitize_line;

/// The organising subcommands (flattened into the top-level command list).
#[derive(Debug, Clone, Subcommand)]
pub enum OrganiseCommand {
    /// Pin sessions: they come first in every list, sort and scope.
    #[command(after_help = PIN_EXAMPLES)]
    Pin(Sessions),
    /// Unpin sessions.
    #[command(after_help = PIN_EXAMPLES)]
    Unpin(Sessions),
    /// Archive sessions: they leave the default lists (`grove list --archived` shows them).
    /// Nothing moves on disk.
    #[command(after_help = ARCHIVE_EXAMPLES)]
    Archive(Sessions),
    /// Bring archived sessions back into the default lists.
    #[command(after_help = ARCHIVE_EXAMPLES)]
    Unarchive(Sessions),
    /// grove's state database (pins, archive marks, bookmark notes): back it up, restore it.
    State {
        #[command(subcommand)]
        action: StateAction,
    },
    /// Every labelled entry (pi's bookmarks) of every session, with grove's notes and tags.
    Bookmarks(super::bookmarks_cmd::BookmarksArgs),
}

#[derive(Debug, Clone, clap::Args)]
pub struct Sessions {
    /// Sessions: paths, ids, unique id prefixes or exact names.
    #[arg(required = true)]
    pub sessions: Vec<String>,
    /// Print JSON instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

const PIN_EXAMPLES: &str = "\
Examples:
  grove pin 01973299            pin a session (by id prefix, path or name)
  grove unpin 01973299 'auth'   unpin two sessions";

const ARCHIVE_EXAMPLES: &str = "\
Examples:
  grove archive 01973299        hide a session from the default lists (nothing moves)
  grove list --archived         the archived sessions
  grove unarchive 01973299      bring it back";

const IMPORT_EXAMPLES: &str = "\
Examples:
  grove state export -o grove-state.json   back up pins, archive marks and notes
  grove state import grove-state.json      merge a backup into this machine's state";

#[derive(Debug, Clone, Subcommand)]
pub enum StateAction {
    /// Write the whole state as JSON (to standard output, or a new file).
    Export {
        /// Write to this file instead of standard output (never overwrites).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Merge a JSON export into the state (each entry replaces the one with its key).
    #[command(after_help = IMPORT_EXAMPLES)]
    Import {
        /// The file written by `grove state export`.
        file: PathBuf,
        /// Print JSON instead of a sentence.
        #[arg(long)]
        json: bool,
    },
    /// Print where the state database is.
    Path,
}

/// Runs an organising subcommand.
pub fn run(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    command: OrganiseCommand,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let no_cache = global.no_cache || global.demo;
    let (args, flag, value, verb) = match command {
        OrganiseCommand::Pin(a) => (a, Flag::Pinned, true, "pinned"),
        OrganiseCommand::Unpin(a) => (a, Flag::Pinned, false, "unpinned"),
        OrganiseCommand::Archive(a) => (a, Flag::Archived, true, "archived"),
        OrganiseCommand::Unarchive(a) => (a, Flag::Archived, false, "unarchived"),
        OrganiseCommand::State { action } => return state(action, out),
        OrganiseCommand::Bookmarks(a) => return super::bookmarks_cmd::run(roots, no_cache, a, out),
    };
    let mut keys = Vec::new();
    for arg in &args.sessions {
        keys.push(session_key(roots, arg, no_cache)?);
    }
    let mut db = StateDb::open().map_err(state_error)?;
    db.set_flag(&keys, flag, value).map_err(state_error)?;
    let done = format!("{} session{} {verb}", keys.len(), plural(keys.len()));
    let report = if args.json {
        let items: Vec<_> = keys
            .iter()
            .map(|k| json!({"path": path_json(&k.path), "id": k.id, verb: true}))
            .collect();
        to_json(&serde_json::Value::Array(items))
    } else {
        keys.iter()
            .map(|k| format!("{verb} {}", shown_path(&k.path)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    report_done(out, &done, &report)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn state(action: StateAction, out: &mut dyn Write) -> Result<(), CliError> {
    match action {
        StateAction::Path => {
            let path = db_path().map_err(state_error)?;
            writeln!(
                out,
                "{}",
                crate::text::sanitize::sanitize_path(&path.to_string_lossy())
            )?;
        }
        StateAction::Export { output } => {
            let db = StateDb::open().map_err(state_error)?;
            let backup = db.export().map_err(state_error)?;
            let text = serde_json::to_string_pretty(&backup).map_err(|e| msg(e.to_string()))?;
            match output {
                Some(file) => {
                    super::export_cmd::write_new_file(&file, format!("{text}\n").as_bytes())?;
                    report_done(
                        out,
                        &format!("state exported to {}", shown_path(&file)),
                        &format!("state exported to {}", shown_path(&file)),
                    )?;
                }
                None => writeln!(out, "{}", escape_inert(&text))?,
            }
        }
        StateAction::Import { file, json } => {
            let backup = read_backup(&file).map_err(state_error)?;
            let mut db = StateDb::open().map_err(state_error)?;
            let n = db.import(&backup).map_err(state_error)?;
            let done = format!(
                "imported {} session{} and {} bookmark{} from {}",
                n.sessions,
                plural(n.sessions),
                n.bookmarks,
                plural(n.bookmarks),
                shown_path(&file)
            );
            let report = if json {
                to_json(&json!({"sessions": n.sessions, "bookmarks": n.bookmarks}))
            } else {
                done.clone()
            };
            report_done(out, &done, &report)?;
        }
    }
    Ok(())
}

/// The state for a listing: empty when there is none yet (a listing creates no database). A
/// damaged database is reported and the listing goes on without it (never rebuilt).
pub(crate) fn listing_state() -> StateSnapshot {
    let Ok(path) = db_path() else {
        return StateSnapshot::default();
    };
    if !path.exists() {
        return StateSnapshot::default();
    }
    match StateDb::open_at(&path).and_then(|db| db.snapshot()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "grove: warning: {} (listing without pins and archive marks)",
                sanitize_line(&e.to_string())
            );
            StateSnapshot::default()
        }
    }
}

/// `grove list`: archived sessions out (or only them with `--archived`), pinned ones first
/// (the order otherwise kept). Returns the state, for the rows' `pinned` field.
pub(crate) fn organise_listing(sessions: &mut Vec<&SessionInfo>, archived: bool) -> StateSnapshot {
    let state = listing_state();
    if state.is_empty() && !archived {
        return state;
    }
    sessions.retain(|s| state.flags(&s.id, &s.path).archived == archived);
    sessions.sort_by_key(|s| !state.flags(&s.id, &s.path).pinned);
    state
}

/// Whether a session is pinned, for `grove list --json`.
pub(crate) fn is_pinned(state: &StateSnapshot, s: &SessionInfo) -> bool {
    state.flags(&s.id, &s.path).pinned
}
