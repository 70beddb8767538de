//! Command-line interface: argument parsing and the non-interactive subcommands (JSON out).
//!
//! Everything printed goes through the sanitizer (plain output) or is JSON with every
//! non-printing character escaped, so session text can never drive the terminal.
//!
//! This file registers the subcommands (the [`Command`] enum and the match in [`run`]); each
//! group lives in its own file, and the shared pieces (arguments, errors, output, JSON,
//! resolving names) in leaf modules that never import back from here.

use std::io::Write;

use clap::{Parser, Subcommand};
use serde_json::json;

pub mod args;
pub mod bookmarks_cmd;
pub mod error;
mod export_cmd;
pub mod json;
pub mod list_cmd;
pub mod list_query;
pub mod output;
mod prefix;
pub mod resolve;
mod rm_cmd;
mod show_cmd;
pub mod state_cmd;
mod stats_cmd;
mod stream;
mod trash_cmd;
mod write_cmd;

pub use args::{AgentArg, CacheAction, GlobalArgs, resolve_roots};
pub use error::CliError;
pub use export_cmd::ExportFormat;
pub use json::{escape_inert, info_json, to_json};
pub use resolve::{load_for_display, resolve_entry, resolve_session};
pub use trash_cmd::TrashAction;

/// What `grove --help` says after the commands.
const AFTER_HELP: &str = "\
Without a command, grove opens the browser (the session picker and viewer). No command opens
the browser: each one prints its result (text for people, or JSON with --json) and exits.
Exit status: 0 done; 1 failed, nothing changed; 2 wrong usage (such as a --session-dir that
is not a folder); 3 the change was made but printing its report failed (do not retry).

Examples:
  grove                          browse this folder's sessions
  grove --all                    browse every folder's sessions
  grove --demo                   try grove on the bundled demo sessions
  grove list --all               every session, newest first
  grove list --query 'auth bug'  the sessions that mention it, best first
  grove show 01973299            one session's details (by id prefix, path or name)
  grove rm 01973299              move it to the trash (`grove trash restore` undoes it)";

/// grove: browse, search and safely edit pi and Atomic sessions.
#[derive(Debug, Parser)]
#[command(name = "grove", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands. A new one: a variant here (its examples as `after_help`), its arguments
/// and code in its own file, and an arm in [`run`].
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// List sessions, newest first (default: those whose cwd is the current folder).
    #[command(after_help = list_cmd::EXAMPLES)]
    List(list_cmd::ListArgs),
    /// Show a session's details: where it is, when it was made and last used, its counts and
    /// labels.
    #[command(after_help = show_cmd::SHOW_EXAMPLES)]
    Show(show_cmd::ShowArgs),
    /// Show a session's entry tree (`*` marks the leaf, the entry resuming continues from).
    #[command(after_help = show_cmd::TREE_EXAMPLES)]
    Tree(show_cmd::TreeArgs),
    /// Show the context the agent would get on resuming a branch.
    #[command(after_help = show_cmd::CONTEXT_EXAMPLES)]
    Context(show_cmd::ContextArgs),
    /// Set (or clear) the label of an entry, as pi's /tree does (one line appended).
    #[command(after_help = write_cmd::LABEL_EXAMPLES)]
    Label(write_cmd::LabelArgs),
    /// Rename a session, as pi's /name does (one line appended; an empty name clears it).
    #[command(after_help = write_cmd::RENAME_EXAMPLES)]
    Rename(write_cmd::RenameArgs),
    /// Make an entry the session's leaf, so resuming continues on its branch (one line
    /// appended).
    #[command(after_help = write_cmd::CHECKOUT_EXAMPLES)]
    Checkout(write_cmd::CheckoutArgs),
    /// Write a new session holding the path to an entry (default: the leaf), beside the
    /// original.
    #[command(after_help = write_cmd::FORK_EXAMPLES)]
    Fork(write_cmd::ForkArgs),
    /// Move a session (and Atomic's backups beside it) to the trash.
    #[command(after_help = rm_cmd::EXAMPLES)]
    Rm(rm_cmd::RmArgs),
    /// Export a branch as Markdown, JSONL or a self-contained HTML page.
    #[command(after_help = export_cmd::EXAMPLES)]
    Export(export_cmd::ExportArgs),
    /// Manage the index cache (what makes the second launch instant).
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Session files in the platform trash: list them, restore one (with its `.bak` files).
    #[command(after_help = trash_cmd::EXAMPLES)]
    Trash {
        #[command(subcommand)]
        action: TrashAction,
    },
    /// Messages, tokens, cache hit rate and cost, as pi counts them, per day, project, model
    /// or session.
    #[command(after_help = stats_cmd::EXAMPLES)]
    Stats(stats_cmd::StatsArgs),
    #[command(flatten)]
    Organise(state_cmd::OrganiseCommand),
}

/// Runs a subcommand, writing to `out`.
pub fn run(global: &GlobalArgs, command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    let roots = resolve_roots(global)?;
    match command {
        Command::List(a) => list_cmd::run(global, &roots, a, out),
        Command::Show(a) => show_cmd::run_show(global, &roots, a, out),
        Command::Tree(a) => show_cmd::run_tree(global, &roots, a, out),
        Command::Context(a) => show_cmd::run_context(global, &roots, a, out),
        Command::Label(a) => write_cmd::label(global, &roots, a, out),
        Command::Rename(a) => write_cmd::rename(global, &roots, a, out),
        Command::Checkout(a) => write_cmd::checkout(global, &roots, a, out),
        Command::Fork(a) => write_cmd::fork(global, &roots, a, out),
        Command::Rm(a) => rm_cmd::run(global, &roots, a, out),
        Command::Export(a) => export_cmd::run(global, &roots, a, out),
        Command::Trash { action } => match action {
            TrashAction::List { json } => trash_cmd::list(out, json),
            TrashAction::Restore { session, json } => trash_cmd::restore(out, &session, json),
        },
        Command::Stats(a) => stats_cmd::run(global, &roots, a, out),
        Command::Organise(c) => state_cmd::run(global, &roots, c, out),
        Command::Cache { action } => match action {
            CacheAction::Clear { json } => {
                let removed = crate::storage::cache::clear()?;
                let report = if json {
                    to_json(&json!({"removed": removed.as_deref().map(output::path_json)}))
                } else {
                    match &removed {
                        Some(p) => format!("Removed the cache {}.", output::shown_path(p)),
                        None => "There was no cache to remove.".to_owned(),
                    }
                };
                output::report_done(out, "the cache is cleared", &report)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Every argument and option of every command says what it is, and every command that
    /// takes arguments shows examples.
    #[test]
    fn every_argument_has_a_description_and_every_command_examples() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() {
                    missing.push(format!("{path} {id}: no description"));
                }
                let flag = !arg.get_action().takes_values();
                for v in arg.get_possible_values().iter().filter(|_| !flag) {
                    if v.get_help().is_none() && !v.is_hide_set() {
                        missing.push(format!("{path} {id}={}: no description", v.get_name()));
                    }
                }
            }
            // Commands with arguments of their own show examples (the `cache` and `trash`
            // actions: their parent's).
            let positional = cmd.get_positionals().next().is_some();
            let examples = cmd
                .get_after_help()
                .is_some_and(|h| h.to_string().contains("Examples:"));
            if positional && !examples && !path.starts_with("grove trash") {
                missing.push(format!("{path}: no examples"));
            }
            if cmd.get_about().is_none() && path != "grove" {
                missing.push(format!("{path}: no summary"));
            }
            for sub in cmd.get_subcommands() {
                if sub.get_name() == "help" {
                    continue;
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let cli = Cli::command();
        cli.clone().debug_assert();
        let mut missing = Vec::new();
        walk(&cli, "grove", &mut missing);
        assert!(missing.is_empty(), "{missing:#?}");
        let top = cli
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        assert!(top.contains("No command opens\nthe browser"), "{top}");
        assert!(top.contains("Examples:"), "{top}");
    }
}
