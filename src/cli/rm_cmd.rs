//! `grove rm`: a session (and Atomic's backups beside it) to the trash, or deleted for good
//! after a second, explicit confirmation.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use clap::Args;
use serde_json::json;

use super::args::GlobalArgs;
use super::error::{CliError, msg};
use super::json::to_json;
use super::output::{paths_json, report_done, shown_path};
use super::resolve::resolve_session;
use super::trash_cmd;
use crate::storage::roots::SessionRoot;
use crate::storage::trash::{check_in_roots, delete_permanently, trash_session};
use crate::text::count::counted_s;

/// `grove rm`'s examples.
pub const EXAMPLES: &str = "\
Examples:
  grove rm 01973299              asks, then moves the file (and its .bak files) to the trash
  grove rm 01973299 --yes        without asking (needed when stdin is not a terminal)
  grove trash restore '/path/of/the/session.jsonl'    undoes it, byte for byte
  grove rm 01973299 --permanent  deletes for good after a second, typed confirmation";

/// `grove rm`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct RmArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
    /// Delete for good instead of moving to the trash (asks again unless --yes).
    #[arg(long)]
    pub permanent: bool,
    /// Print JSON (`{trashed: [paths], undo}` or `{deleted, permanent}`) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// `grove rm`.
pub fn run(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: RmArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (path, _) = resolve_session(roots, &args.session, global.skip_cache())?;
    check_in_roots(&path, roots)?;
    rm(out, &path, args.yes, args.permanent, args.json)
}

fn rm(
    out: &mut dyn Write,
    path: &Path,
    yes: bool,
    permanent: bool,
    json_out: bool,
) -> Result<(), CliError> {
    let shown = shown_path(path);
    let interactive = io::stdin().is_terminal();
    if !yes {
        if !interactive {
            return Err(msg("rm needs --yes when standard input is not a terminal"));
        }
        if !confirm(&format!("Move {shown} to the trash? [y/N] "), "y")? {
            return Err(msg("cancelled"));
        }
    }
    if permanent {
        // The second, explicit confirmation.
        if interactive
            && !confirm(
                &format!("Delete {shown} permanently? This cannot be undone. Type 'delete': "),
                "delete",
            )?
        {
            return Err(msg("cancelled"));
        }
        if !interactive && !yes {
            return Err(msg("permanent deletion needs --yes"));
        }
        let removed = delete_permanently(path)?;
        let report = if json_out {
            to_json(&json!({"deleted": paths_json(&removed), "permanent": true}))
        } else {
            format!(
                "Deleted {shown} permanently ({}).",
                counted_s(removed.len() as u64, "file")
            )
        };
        report_done(out, &format!("{shown} was deleted permanently"), &report)?;
        return Ok(());
    }
    match trash_session(path) {
        Ok(t) => {
            let undo = trash_cmd::undo_command(t.paths.first().map_or(path, |p| p.as_path()));
            let report = if json_out {
                // The sentence's undo hint, for the person running the script.
                let _ = writeln!(
                    io::stderr().lock(),
                    "grove: moved to the trash; to undo: {undo}"
                );
                to_json(&json!({"trashed": paths_json(&t.paths), "undo": undo}))
            } else {
                let backups = match t.paths.len().saturating_sub(1) {
                    0 => String::new(),
                    n => format!(" with {}", counted_s(n as u64, "backup")),
                };
                format!("Moved {shown}{backups} to the trash. To undo: {undo}")
            };
            report_done(out, &format!("{shown} was moved to the trash"), &report)
        }
        Err(e) => Err(msg(format!(
            "{e}\nNothing was deleted. To delete for good, run again with --permanent."
        ))),
    }
}

fn confirm(prompt: &str, expected: &str) -> Result<bool, CliError> {
    let mut err = io::stderr().lock();
    write!(err, "{prompt}")?;
    err.flush()?;
    let mut line = String::new();
    io::stdin().read_line(&mut line)?;
    Ok(line.trim().eq_ignore_ascii_case(expected))
}
