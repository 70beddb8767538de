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

/// `grove rm`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct RmArgs {
    pub session: String,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
    /// Delete for good instead of moving to the trash (asks again unless --yes).
    #[arg(long)]
    pub permanent: bool,
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
    rm(out, &path, args.yes, args.permanent)
}

fn rm(out: &mut dyn Write, path: &Path, yes: bool, permanent: bool) -> Result<(), CliError> {
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
        report_done(
            out,
            &format!("{shown} was deleted permanently"),
            &to_json(&json!({"deleted": paths_json(&removed), "permanent": true})),
        )?;
        return Ok(());
    }
    match trash_session(path) {
        Ok(t) => {
            let undo = trash_cmd::undo_command(t.paths.first().map_or(path, |p| p.as_path()));
            let _ = writeln!(
                io::stderr().lock(),
                "grove: moved to the trash; to undo: {undo}"
            );
            report_done(
                out,
                &format!("{shown} was moved to the trash"),
                &to_json(&json!({"trashed": paths_json(&t.paths), "undo": undo})),
            )
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
