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
pub mod error;
mod export_cmd;
pub mod json;
pub mod list_cmd;
pub mod list_query;
pub mod output;
pub mod resolve;
mod rm_cmd;
mod show_cmd;
mod stream;
mod trash_cmd;
mod write_cmd;

pub use args::{AgentArg, CacheAction, GlobalArgs, resolve_roots};
pub use error::CliError;
pub use export_cmd::ExportFormat;
pub use json::{escape_inert, info_json, to_json};
pub use resolve::{load_for_display, resolve_entry, resolve_session};
pub use trash_cmd::TrashAction;

/// grove: browse, search and safely edit pi and Atomic sessions.
#[derive(Debug, Parser)]
#[command(name = "grove", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands. A new one: a variant here, its arguments and code in its own file, and
/// an arm in [`run`].
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// List sessions (default: those whose cwd is the current directory).
    List(list_cmd::ListArgs),
    /// Show a session's details.
    Show(show_cmd::ShowArgs),
    /// Show a session's entry tree.
    Tree(show_cmd::TreeArgs),
    /// Show the context the agent would get on resuming a branch.
    Context(show_cmd::ContextArgs),
    /// Set (or clear) the label of an entry.
    Label(write_cmd::LabelArgs),
    /// Rename a session (an empty name clears it).
    Rename(write_cmd::RenameArgs),
    /// Make an entry the session's leaf, so resuming continues on its branch.
    Checkout(write_cmd::CheckoutArgs),
    /// Write a new session holding the path to an entry (default: the leaf).
    Fork(write_cmd::ForkArgs),
    /// Move a session (and Atomic's backups beside it) to the trash.
    Rm(rm_cmd::RmArgs),
    /// Export a branch as Markdown, JSONL or a self-contained HTML page.
    Export(export_cmd::ExportArgs),
    /// Manage the index cache.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Session files in the platform trash: list them, restore one (with its `.bak` files).
    Trash {
        #[command(subcommand)]
        action: TrashAction,
    },
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
        Command::Cache { action } => match action {
            CacheAction::Clear => {
                let removed = crate::storage::cache::clear()?;
                output::report_done(
                    out,
                    "the cache is cleared",
                    &to_json(&json!({"removed": removed.as_deref().map(output::path_json)})),
                )
            }
        },
    }
}
