//! `grove bookmarks [--json] [--query Q]`: every labelled entry of every session, with grove's
//! notes and tags; `grove bookmarks note SESSION ENTRY [TEXT] [--tag T] [--untag T]` keeps a
//! note and tags in the state database (the session file is not written).

use std::io::{self, Write};

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::error::CliError;
use super::error::msg;
use super::json::to_json;
use super::output::{path_json, report_done};
use super::resolve::{load_for_display, resolve_entry};
use super::resolve::{session_key, state_error};
use crate::app::bookmarks::{Bookmark, attach_meta, collect_bookmarks};
use crate::model::entry::format_iso_ms;
use crate::storage::index::{Index, ListOptions};
use crate::storage::roots::SessionRoot;
use crate::storage::state::{BookmarkEdit, BookmarkKey, StateDb, db_path};
use crate::text::sanitize::{sanitize_line, truncate_width};

#[derive(Debug, Clone, Args)]
pub struct BookmarksArgs {
    #[command(subcommand)]
    pub action: Option<BookmarksAction>,
    /// Only bookmarks whose label, note, tags, text or session title hold every word
    /// (`#tag` matches a tag).
    #[arg(long, value_name = "Q")]
    pub query: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Subcommand)]
pub enum BookmarksAction {
    /// Set a bookmark's note (an empty TEXT clears it) and add or remove tags.
    #[command(after_help = NOTE_EXAMPLES)]
    Note {
        /// The session: a path, id, unique id prefix or exact name.
        session: String,
        /// The labelled entry: its id or a unique prefix.
        entry: String,
        /// The note (`#words` in it are tags); empty clears it, absent keeps it.
        text: Option<String>,
        /// Add a tag (repeatable).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// Remove a tag (repeatable).
        #[arg(long = "untag", value_name = "TAG")]
        untags: Vec<String>,
        /// Print JSON instead of a sentence.
        #[arg(long)]
        json: bool,
    },
}

const NOTE_EXAMPLES: &str = "\
Examples:
  grove bookmarks note 01973299 a1b2 'the fix that worked #auth'
  grove bookmarks note 01973299 a1b2 --tag later --untag auth";

pub fn run(
    roots: &[SessionRoot],
    no_cache: bool,
    args: BookmarksArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    match args.action {
        Some(BookmarksAction::Note {
            session,
            entry,
            text,
            tags,
            untags,
            json,
        }) => note(
            roots, no_cache, &session, &entry, text, tags, untags, json, out,
        ),
        None => list(roots, no_cache, args.query.as_deref(), args.json, out),
    }
}

fn bookmark_json(b: &Bookmark) -> Value {
    json!({
        "sessionId": b.session_id,
        "sessionPath": path_json(&b.session_path),
        "sessionTitle": b.session_title,
        "cwd": b.session_cwd,
        "agent": b.agent,
        "entryId": b.entry_id,
        "label": b.label,
        "labelledAt": b.labelled_at,
        "kind": b.kind,
        "text": b.text,
        "note": b.note,
        "tags": b.tags,
    })
}

/// The bookmarks of every session under the roots, with the notes and tags of the state.
pub(crate) fn all_bookmarks(
    roots: &[SessionRoot],
    no_cache: bool,
) -> Result<Vec<Bookmark>, CliError> {
    let listing = Index::open(no_cache).list(roots, ListOptions::default(), |_| {});
    let infos: Vec<_> = listing.sessions.iter().filter(|s| !s.internal).collect();
    let (mut bookmarks, problems) = collect_bookmarks(&infos, &|| false);
    for (path, reason) in problems {
        eprintln!(
            "grove: skipped {}: {}",
            crate::text::sanitize::sanitize_path(&path.to_string_lossy()),
            sanitize_line(&reason)
        );
    }
    // No state yet: no notes (a listing creates no database).
    if db_path().is_ok_and(|p| p.exists()) {
        let db = StateDb::open().map_err(state_error)?;
        attach_meta(&mut bookmarks, &db.bookmarks().map_err(state_error)?);
    }
    Ok(bookmarks)
}

fn list(
    roots: &[SessionRoot],
    no_cache: bool,
    query: Option<&str>,
    json_out: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let mut bookmarks = all_bookmarks(roots, no_cache)?;
    if let Some(q) = query {
        bookmarks.retain(|b| b.matches(q));
    }
    let mut out = io::BufWriter::new(out);
    if json_out {
        let v = Value::Array(bookmarks.iter().map(bookmark_json).collect());
        writeln!(out, "{}", to_json(&v))?;
    } else {
        for b in &bookmarks {
            let tags: String = b.tags.iter().map(|t| format!(" #{t}")).collect();
            let note = if b.note.is_empty() {
                String::new()
            } else {
                format!("  — {}", b.note)
            };
            let when = crate::model::entry::parse_iso_ms(&b.labelled_at)
                .map(format_iso_ms)
                .unwrap_or_default();
            writeln!(
                out,
                "{}  {}  {}{}{}  ({} {}: {})",
                sanitize_line(b.session_id.get(..8).unwrap_or(&b.session_id)),
                sanitize_line(b.entry_id.get(..8).unwrap_or(&b.entry_id)),
                sanitize_line(&truncate_width(&b.label, 60)),
                sanitize_line(&tags),
                sanitize_line(&truncate_width(&note, 80)),
                sanitize_line(&when),
                sanitize_line(&b.kind),
                sanitize_line(&truncate_width(&b.text, 60)),
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn note(
    roots: &[SessionRoot],
    no_cache: bool,
    session: &str,
    entry: &str,
    text: Option<String>,
    tags: Vec<String>,
    untags: Vec<String>,
    json_out: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if text.is_none() && tags.is_empty() && untags.is_empty() {
        return Err(msg("give the note TEXT, or --tag / --untag"));
    }
    for t in tags.iter().chain(&untags) {
        if t.trim().is_empty() || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(msg(format!(
                "{}: a tag is one word without spaces",
                sanitize_line(t)
            )));
        }
    }
    let key = session_key(roots, session, no_cache)?;
    let s = load_for_display(&key.path)?;
    let entry_id = resolve_entry(&s, entry)?;
    let labelled = s
        .tree
        .labels
        .get(&entry_id)
        .is_some_and(|l| !l.text.is_empty());
    if !labelled {
        return Err(msg(format!(
            "entry {} has no label: bookmarks are labelled entries (`grove label` sets one)",
            sanitize_line(&entry_id)
        )));
    }
    let bkey = BookmarkKey {
        session_id: key.id.clone(),
        entry_id: entry_id.clone(),
    };
    let edit = BookmarkEdit {
        note: text.map(|t| t.trim().to_owned()),
        add_tags: tags,
        remove_tags: untags,
    };
    let mut db = StateDb::open().map_err(state_error)?;
    let meta = db
        .edit_bookmark(&bkey, &key.path, &edit)
        .map_err(state_error)?;
    let done = format!("bookmark {} of {} updated", entry_id, key.id);
    let report = if json_out {
        to_json(&json!({
            "sessionId": key.id,
            "entryId": entry_id,
            "note": meta.note,
            "tags": meta.tags,
        }))
    } else {
        sanitize_line(&done).into_owned()
    };
    report_done(out, &done, &report)
}
