//! `grove list`: the sessions of a folder (or all), as text or JSON, or those a search finds.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::args::GlobalArgs;
use super::error::CliError;
use super::json::write_sessions_json;
use super::list_query;
use crate::model::info::SessionInfo;
use crate::storage::index::{Index, ListOptions};
use crate::storage::roots::SessionRoot;
use crate::storage::scan::Listing;
use crate::text::sanitize::sanitize_line;

/// `grove list`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Every session of every folder.
    #[arg(long)]
    pub all: bool,
    /// Sessions of this directory instead of the current one.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Include Atomic's internal workflow sessions.
    #[arg(long)]
    pub include_internal: bool,
    /// Only sessions matching this search, as the picker finds them (pi 1.6.0's rules:
    /// words, "phrases", re:regex), each with where it matched.
    #[arg(long, value_name = "Q")]
    pub query: Option<String>,
    /// The order of --query results ("threaded" lists like "relevance", as in the picker).
    #[arg(long, value_enum, requires = "query", default_value_t)]
    pub sort: list_query::ListSort,
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
        include_internal,
        query,
        sort,
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
    let sessions: Vec<&SessionInfo> = listing
        .sessions
        .iter()
        .filter(|s| include_internal || !s.internal)
        .filter(|s| {
            cwd.as_deref().is_none_or(|c| {
                *cwd_matches
                    .entry(s.cwd.as_str())
                    .or_insert_with(|| same_cwd(&s.cwd, c))
            })
        })
        .collect();
    if let Some(q) = query {
        return list_query::print_matches(out, &sessions, &q, sort, json);
    }
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    if json {
        write_sessions_json(&mut out, &sessions)?;
    } else {
        for s in sessions {
            writeln!(
                out,
                "{}  {:>5}  {}  {}",
                short_id(&s.id),
                s.message_count,
                s.modified_iso(),
                sanitize_line(&crate::text::sanitize::truncate_width(s.title(), 100))
            )?;
        }
    }
    out.flush()?;
    // Freeing 10k rows one by one costs more than the rest of a warm listing; the
    // process is about to exit. (The index is dropped: that closes its database.)
    std::mem::forget(listing);
    drop(index);
    Ok(())
}

fn report_problems(listing: &Listing) {
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

fn short_id(id: &str) -> String {
    sanitize_line(id.get(..8).unwrap_or(id)).into_owned()
}
