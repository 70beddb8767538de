//! The commands that append one entry (`grove label`, `rename`, `checkout`) or write a new
//! session (`grove fork`).

use std::io::Write;

use clap::Args;
use serde_json::json;

use super::args::GlobalArgs;
use super::error::{CliError, msg};
use super::json::to_json;
use super::output::{load_for_write, path_json, print_note, report_done, shown_path};
use super::resolve::{resolve_entry, resolve_entry_indexed, resolve_session};
use crate::storage::append::NewEntry;
use crate::storage::fork::fork_session;
use crate::storage::index::Index;
use crate::storage::index::write::append_indexed;
use crate::storage::roots::SessionRoot;

/// `grove label`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct LabelArgs {
    pub session: String,
    pub entry: String,
    /// The label text.
    pub text: Option<String>,
    /// Remove the label.
    #[arg(long, conflicts_with = "text")]
    pub clear: bool,
}

/// `grove rename`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct RenameArgs {
    pub session: String,
    pub name: String,
}

/// `grove checkout`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct CheckoutArgs {
    pub session: String,
    pub entry: String,
}

/// `grove fork`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ForkArgs {
    pub session: String,
    #[arg(long, value_name = "ENTRY")]
    pub at: Option<String>,
}

/// `grove label`.
pub fn label(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: LabelArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let LabelArgs {
        session,
        entry,
        text,
        clear,
    } = args;
    let no_cache = global.skip_cache();
    let (path, agent) = resolve_session(roots, &session, no_cache)?;
    if text.is_none() && !clear {
        return Err(msg("give the label TEXT, or --clear to remove it"));
    }
    let mut index = Index::open(no_cache);
    let target = resolve_entry_indexed(&mut index, &path, agent, &entry)?;
    let (a, how) = append_indexed(
        &mut index,
        &path,
        agent,
        NewEntry::Label {
            target_id: target,
            label: if clear { None } else { text },
        },
    )?;
    report_write_path(how);
    print_note(a.note.as_deref());
    report_done(
        out,
        &format!("label {} written to {}", a.id, shown_path(&path)),
        &to_json(&json!({"path": path_json(&path), "id": a.id})),
    )
}

/// `grove rename`.
pub fn rename(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: RenameArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let no_cache = global.skip_cache();
    let (path, agent) = resolve_session(roots, &args.session, no_cache)?;
    let mut index = Index::open(no_cache);
    let (a, how) = append_indexed(
        &mut index,
        &path,
        agent,
        NewEntry::Rename { name: args.name },
    )?;
    report_write_path(how);
    print_note(a.note.as_deref());
    report_done(
        out,
        &format!("name {} written to {}", a.id, shown_path(&path)),
        &to_json(&json!({"path": path_json(&path), "id": a.id})),
    )
}

/// `grove checkout`.
pub fn checkout(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: CheckoutArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let no_cache = global.skip_cache();
    let (path, agent) = resolve_session(roots, &args.session, no_cache)?;
    let mut index = Index::open(no_cache);
    let target = resolve_entry_indexed(&mut index, &path, agent, &args.entry)?;
    let (a, how) = append_indexed(
        &mut index,
        &path,
        agent,
        NewEntry::Checkout { target_id: target },
    )?;
    report_write_path(how);
    print_note(a.note.as_deref());
    report_done(
        out,
        &format!("checkout {} written to {}", a.id, shown_path(&path)),
        &to_json(&json!({"path": path_json(&path), "id": a.id, "leafParentId": a.parent_id})),
    )
}

/// `grove fork`.
pub fn fork(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: ForkArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (path, _) = resolve_session(roots, &args.session, global.skip_cache())?;
    let at = match args.at {
        Some(a) => Some(resolve_entry(&load_for_write(&path)?, &a)?),
        None => None,
    };
    let f = fork_session(&path, at.as_deref())?;
    report_done(
        out,
        &format!("fork written to {}", shown_path(&f.path)),
        &to_json(&json!({"path": path_json(&f.path), "id": f.id, "leafId": f.leaf_id})),
    )
}

/// For tests and scripts (`GROVE_INDEX_STATS`): whether a write came from the index.
fn report_write_path(how: crate::storage::index::write::WritePath) {
    if std::env::var_os("GROVE_INDEX_STATS").is_some() {
        eprintln!("grove: write path {how:?}");
    }
}
