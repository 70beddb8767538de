//! The commands that append one entry (`grove label`, `rename`, `checkout`) or write a new
//! session (`grove fork`). Each says what it did in a sentence, or as JSON with `--json`; a
//! write that would change nothing (a check-out to where the session already resumes, clearing
//! a label that is not there) writes nothing and says so.

use std::io::Write;
use std::path::Path;

use clap::Args;
use serde_json::json;

use super::args::GlobalArgs;
use super::error::{CliError, msg};
use super::json::to_json;
use super::output::{load_for_write, path_json, print_note, report_done, shown_path};
use super::resolve::{resolve_entry, resolve_entry_indexed, resolve_session};
use crate::storage::append::{NewEntry, normalize_name};
use crate::storage::fork::fork_session;
use crate::storage::index::Index;
use crate::storage::index::no_op::{self, NoOpWrite};
use crate::storage::index::write::{IndexedSession, WritePath, append_indexed, prepare};
use crate::storage::no_op_scan::{self, NoOpView, no_op_of_session};
use crate::storage::roots::SessionRoot;
use crate::text::sanitize::sanitize_line;

/// `grove label`'s examples.
pub const LABEL_EXAMPLES: &str = "\
Examples:
  grove label 01973299 a1b2c3d4 'before the refactor'   label an entry (id prefix from `grove tree`)
  grove label 01973299 a1b2c3d4 --clear                 remove its label";

/// `grove rename`'s examples.
pub const RENAME_EXAMPLES: &str = "\
Examples:
  grove rename 01973299 'auth refactor'    name a session (then `grove show 'auth refactor'`)
  grove rename 01973299 ''                 clear the name";

/// `grove checkout`'s examples.
pub const CHECKOUT_EXAMPLES: &str = "\
Examples:
  grove checkout 01973299 a1b2c3d4    resume from that entry next time (a user message: from
                                      its parent, as pi's /tree, so it can be asked again)";

/// `grove fork`'s examples.
pub const FORK_EXAMPLES: &str = "\
Examples:
  grove fork 01973299               a copy of the current branch, as a new session
  grove fork 01973299 --at a1b2c3d4 the branch up to that entry";

/// `grove label`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct LabelArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// The entry to label: its id or a unique id prefix (see `grove tree`).
    pub entry: String,
    /// The label text.
    pub text: Option<String>,
    /// Remove the entry's label instead.
    #[arg(long, conflicts_with = "text")]
    pub clear: bool,
    /// Print JSON (`{path, id}` of the appended entry) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// `grove rename`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct RenameArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// The new name (line breaks become spaces, as in pi; empty clears the name).
    pub name: String,
    /// Print JSON (`{path, id}` of the appended entry) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// `grove checkout`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct CheckoutArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// The entry to resume from: its id or a unique id prefix (see `grove tree`).
    pub entry: String,
    /// Print JSON (`{path, id, leafParentId}`) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// `grove fork`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ForkArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// Fork at this entry (id or unique id prefix) instead of the leaf.
    #[arg(long, value_name = "ENTRY")]
    pub at: Option<String>,
    /// Print JSON (`{path, id, leafId}` of the new session) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// The report of a write that was not needed (nothing was written): a sentence, or JSON with
/// `"written": null`.
fn report_unchanged(
    out: &mut dyn Write,
    path: &Path,
    why: &str,
    json_out: bool,
) -> Result<(), CliError> {
    let report = if json_out {
        to_json(&json!({"path": path_json(path), "id": null, "written": false, "why": why}))
    } else {
        format!("Nothing written: {why}.")
    };
    report_done(out, "nothing was written", &report)
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
        json,
    } = args;
    let no_cache = global.skip_cache();
    let (path, agent) = resolve_session(roots, &session, no_cache)?;
    if text.is_none() && !clear {
        return Err(msg("give the label TEXT, or --clear to remove it"));
    }
    // The writer stores the label trimmed, and an empty one as a removal.
    let label = text
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty() && !clear);
    let mut index = Index::open(no_cache);
    let target = resolve_entry_indexed(&mut index, &path, agent, &entry)?;
    // The session as the index has it, read once for the question and the write.
    let indexed = prepare(&mut index, &path, agent, label.is_none());
    if label.is_none() && changes_nothing(indexed.as_ref(), &path, &target, NoOpWrite::ClearLabel)?
    {
        let why = format!("entry {} has no label", sanitize_line(&target));
        return report_unchanged(out, &path, &why, json);
    }
    let (a, how) = append_indexed(
        &mut index,
        &path,
        agent,
        NewEntry::Label {
            target_id: target.clone(),
            label: label.clone(),
        },
        indexed,
    )?;
    report_write_path(how);
    print_note(a.note.as_deref());
    let shown = shown_path(&path);
    let sentence = match &label {
        Some(l) => format!(
            "Labelled entry {} \"{}\" in {shown}.",
            sanitize_line(&target),
            sanitize_line(l)
        ),
        None => format!(
            "Removed the label of entry {} in {shown}.",
            sanitize_line(&target)
        ),
    };
    let report = if json {
        to_json(&json!({"path": path_json(&path), "id": a.id}))
    } else {
        sentence
    };
    report_done(out, &format!("label {} written to {shown}", a.id), &report)
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
    let name = normalize_name(&args.name);
    let mut index = Index::open(no_cache);
    let (a, how) = append_indexed(
        &mut index,
        &path,
        agent,
        NewEntry::Rename { name: args.name },
        None,
    )?;
    report_write_path(how);
    print_note(a.note.as_deref());
    let shown = shown_path(&path);
    let report = if args.json {
        to_json(&json!({"path": path_json(&path), "id": a.id}))
    } else if name.is_empty() {
        format!("Cleared the name of {shown}.")
    } else {
        format!("Named {shown} \"{}\".", sanitize_line(&name))
    };
    report_done(out, &format!("name {} written to {shown}", a.id), &report)
}

/// What tells a write that would change nothing, in the memory of a line whatever the file's
/// size: a streaming pass, or a whole load where the pass cannot tell (as the write itself
/// does). Asked when the index and the file's tail cannot tell.
fn no_op_view(path: &Path, target: &str) -> Result<NoOpView, CliError> {
    Ok(match no_op_scan::no_op_view(path, target)? {
        Some(view) => view,
        None => no_op_of_session(&load_for_write(path)?, target),
    })
}

/// Whether `write` to `target` would change nothing: from the index and a few reads of the
/// file when they can tell, else [`no_op_view`].
fn changes_nothing(
    indexed: Option<&IndexedSession>,
    path: &Path,
    target: &str,
    write: NoOpWrite,
) -> Result<bool, CliError> {
    if let Some(answer) = indexed.and_then(|s| no_op::changes_nothing(s, target, write)) {
        return Ok(answer);
    }
    let view = no_op_view(path, target)?;
    Ok(match write {
        NoOpWrite::Checkout => view.checkout_changes_nothing(),
        NoOpWrite::ClearLabel => view.clearing_changes_nothing(),
    })
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
    let indexed = prepare(&mut index, &path, agent, true);
    if changes_nothing(indexed.as_ref(), &path, &target, NoOpWrite::Checkout)? {
        let why = format!(
            "{} already resumes from there (entry {})",
            shown_path(&path),
            sanitize_line(&target)
        );
        return report_unchanged(out, &path, &why, args.json);
    }
    let (a, how) = append_indexed(
        &mut index,
        &path,
        agent,
        NewEntry::Checkout {
            target_id: target.clone(),
        },
        indexed,
    )?;
    report_write_path(how);
    print_note(a.note.as_deref());
    let shown = shown_path(&path);
    let report = if args.json {
        to_json(&json!({"path": path_json(&path), "id": a.id, "leafParentId": a.parent_id}))
    } else {
        match &a.parent_id {
            Some(p) => format!(
                "{shown} now resumes from entry {} (checked out {}).",
                sanitize_line(p),
                sanitize_line(&target)
            ),
            None => format!(
                "{shown} now resumes before its first message (checked out {}).",
                sanitize_line(&target)
            ),
        }
    };
    report_done(
        out,
        &format!("checkout {} written to {shown}", a.id),
        &report,
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
    let report = if args.json {
        to_json(&json!({"path": path_json(&f.path), "id": f.id, "leafId": f.leaf_id}))
    } else {
        format!(
            "Forked {} into a new session {} ({}).",
            shown_path(&path),
            sanitize_line(&f.id),
            shown_path(&f.path)
        )
    };
    report_done(
        out,
        &format!("fork written to {}", shown_path(&f.path)),
        &report,
    )
}

/// For tests and scripts (`GROVE_INDEX_STATS`): whether a write came from the index.
fn report_write_path(how: WritePath) {
    if std::env::var_os("GROVE_INDEX_STATS").is_some() {
        eprintln!("grove: write path {how:?}");
    }
}
