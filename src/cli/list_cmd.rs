//! `grove list`: the sessions of a folder (or all), as text or JSON, or those a search finds.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use unicode_width::UnicodeWidthStr;

use super::args::GlobalArgs;
use super::error::{CliError, msg};
use super::json::write_sessions_json;
use super::list_query;
use super::output::{home_dir, shown_path};
use super::prefix::unique_prefix_lens;
use crate::app::first_run::{TRY_DEMO_OR_DIR, searched_summary};
use crate::model::info::SessionInfo;
use crate::storage::index::{Index, ListOptions};
use crate::storage::roots::SessionRoot;
use crate::storage::scan::Listing;
use crate::text::count::counted_s;
use crate::text::paths::shorten_home;
use crate::text::sanitize::{sanitize_line, sanitize_path, truncate_width};

/// `grove list`'s examples.
pub const EXAMPLES: &str = "\
Examples:
  grove list                         this folder's sessions
  grove list --all                   every folder's
  grove list --cwd ~/code/app        another folder's
  grove list --query 'parser bug'    sessions with both words, best match first
  grove list --query '\"exact phrase\"' --sort recent
  grove list --query 're:fn\\s+main' regular expressions
  grove list --all --json | jq '.[] | .path'

Columns: the id (its shortest unique prefix: give it to show, tree, label, ...), the number
of messages, the last activity, the session's folder (cwd) and its name or first message.";

/// `grove list`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Every session of every folder (not only the current folder's).
    #[arg(long)]
    pub all: bool,
    /// The sessions of this folder instead of the current one.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Sessions of every folder of the directory's git repository, worktrees included.
    #[arg(long, conflicts_with = "all")]
    pub repo: bool,
    /// Include Atomic's internal workflow sessions (hidden by default, as in Atomic).
    #[arg(long)]
    pub include_internal: bool,
    /// Only sessions matching this search, as the picker finds them (pi 1.6.0's rules:
    /// words, "phrases", re:regex), each with where it matched.
    #[arg(long, value_name = "Q")]
    pub query: Option<String>,
    /// The order of --query results ("threaded" lists like "relevance", as in the picker);
    /// created, size and cost (largest first) also order a listing without --query.
    #[arg(long, value_enum)]
    pub sort: Option<list_query::ListSort>,
    /// Only the archived sessions (`grove archive`), instead of the others.
    #[arg(long)]
    pub archived: bool,
    /// Print JSON (an array of pi's session fields plus grove's) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `grove list`.
pub fn run(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: ListArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let ListArgs {
        all,
        cwd,
        repo,
        include_internal,
        query,
        sort,
        archived,
        json,
    } = args;
    let mut index = Index::open(global.skip_cache());
    let opts = ListOptions {
        with_text: query.is_some(),
    };
    let listing = index.list(roots, opts, |_| {});
    report_problems(&listing);
    if std::env::var_os("GROVE_INDEX_STATS").is_some() {
        // For scripts/bench.sh: what the index did (files cached, resumed, bytes read).
        eprintln!("grove: index {:?}", index.stats());
    }
    let cwd = match (all, cwd) {
        (true, _) => None,
        (false, Some(c)) => Some(c),
        (false, None) => Some(std::env::current_dir()?),
    };
    // Sessions share a few dozen cwds: compare each distinct one once.
    let mut cwd_matches: std::collections::HashMap<&str, bool> = Default::default();
    let repo_dir = match (repo, &cwd) {
        (true, Some(c)) => {
            let dir = c.to_string_lossy().into_owned();
            if crate::storage::repo::repo_of(&dir).is_none() {
                return Err(msg(format!("{} is not in a git repository", shown_path(c))));
            }
            Some(dir)
        }
        _ => None,
    };
    let mut sessions: Vec<&SessionInfo> = listing
        .sessions
        .iter()
        .filter(|s| include_internal || !s.internal)
        .filter(|s| {
            cwd.as_deref().is_none_or(|c| {
                *cwd_matches
                    .entry(s.cwd.as_str())
                    .or_insert_with(|| match &repo_dir {
                        Some(r) => crate::storage::repo::same_repo(&s.cwd, r),
                        None => same_cwd(&s.cwd, c),
                    })
            })
        })
        .collect();
    let org = super::state_cmd::organise_listing(&mut sessions, archived);
    let pinned = |s: &SessionInfo| super::state_cmd::is_pinned(&org, s);
    if let Some(q) = query {
        let sort = sort.unwrap_or_default();
        let prefixes = unique_prefix_lens(listing.sessions.iter().map(|s| s.id.as_str()));
        return list_query::print_matches(out, &sessions, &q, sort, json, &prefixes, &pinned);
    }
    if sort.is_some_and(|s| s.key().is_none()) {
        return Err(msg(
            "--sort relevance, recent and threaded order --query results: give --query \
             (created, size and cost also sort a plain listing)",
        ));
    }
    if let Some(k) = sort.and_then(|s| s.key()) {
        sessions.sort_by(|a, b| k.compare(a, b));
    }
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    if sessions.is_empty() {
        let elsewhere = listing
            .sessions
            .iter()
            .filter(|s| include_internal || !s.internal)
            .count();
        let hint = empty_hint(roots, cwd.as_deref(), elsewhere);
        if json {
            write_sessions_json(&mut out, &sessions, &pinned)?;
            let mut err = io::stderr().lock();
            for line in hint.lines() {
                let _ = writeln!(err, "grove: {line}");
            }
        } else {
            writeln!(out, "{hint}")?;
        }
    } else if json {
        write_sessions_json(&mut out, &sessions, &pinned)?;
    } else {
        // Prefixes unique among every session grove knows, so each resolves in `grove show`.
        let prefixes = unique_prefix_lens(listing.sessions.iter().map(|s| s.id.as_str()));
        write_table(&mut out, &sessions, &prefixes)?;
    }
    out.flush()?;
    // Freeing 10k rows one by one costs more than the rest of a warm listing; the
    // process is about to exit. (The index is dropped: that closes its database.)
    std::mem::forget(listing);
    drop(index);
    Ok(())
}

pub(crate) fn report_problems(listing: &Listing) {
    let mut err = io::stderr().lock();
    for p in &listing.problems {
        let _ = writeln!(
            err,
            "grove: skipped {}: {}",
            crate::text::sanitize::sanitize_path(&p.path.to_string_lossy()),
            sanitize_line(&p.reason)
        );
    }
}

fn same_cwd(session_cwd: &str, cwd: &Path) -> bool {
    crate::text::paths::same_folder(session_cwd, cwd)
}

/// The folder column is cut at this many cells.
const MAX_FOLDER: usize = 40;

/// The human listing: a header line, then one row per session.
fn write_table(
    out: &mut dyn Write,
    sessions: &[&SessionInfo],
    prefixes: &HashMap<&str, usize>,
) -> io::Result<()> {
    let home = home_dir();
    let id_of = |s: &SessionInfo| {
        let len = prefixes.get(s.id.as_str()).copied().unwrap_or(s.id.len());
        sanitize_line(s.id.get(..len).unwrap_or(&s.id)).into_owned()
    };
    let folder_of = |s: &SessionInfo| {
        if s.cwd.is_empty() {
            return "-".to_owned();
        }
        let shown = sanitize_line(&shorten_home(&s.cwd, home.as_deref())).into_owned();
        truncate_width(&shown, MAX_FOLDER).into_owned()
    };
    let id_w = sessions
        .iter()
        .map(|s| id_of(s).width())
        .max()
        .unwrap_or(0)
        .max(2);
    let folder_w = sessions
        .iter()
        .map(|s| folder_of(s).width())
        .max()
        .unwrap_or(0)
        .max(6);
    let pad =
        |text: &str, w: usize| format!("{text}{}", " ".repeat(w.saturating_sub(text.width())));
    writeln!(
        out,
        "{}  {:>5}  {:<24}  {}  TITLE",
        pad("ID", id_w),
        "MSGS",
        "LAST ACTIVITY",
        pad("FOLDER", folder_w)
    )?;
    for s in sessions {
        let title = sanitize_line(s.title()).into_owned();
        writeln!(
            out,
            "{}  {:>5}  {:<24}  {}  {}",
            pad(&id_of(s), id_w),
            s.message_count,
            s.modified_iso(),
            pad(&folder_of(s), folder_w),
            truncate_width(&title, 100)
        )?;
    }
    Ok(())
}

/// What an empty listing says: where grove looked and how to see sessions.
fn empty_hint(roots: &[SessionRoot], cwd: Option<&Path>, elsewhere: usize) -> String {
    let home = home_dir();
    let mut text = match cwd {
        Some(dir) => format!(
            "No sessions for {}.",
            sanitize_path(&shorten_home(&dir.to_string_lossy(), home.as_deref()))
        ),
        None => "No sessions.".to_owned(),
    };
    if cwd.is_some() && elsewhere > 0 {
        text.push_str(&format!(
            "\n{} in other folders: `grove list --all` lists them.",
            counted_s(elsewhere as u64, "session")
        ));
        return text;
    }
    text.push_str(&format!(
        "\nLooked in: {}.\n{}",
        searched_summary(roots, home.as_deref()),
        TRY_DEMO_OR_DIR
    ));
    text
}
