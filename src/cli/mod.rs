//! Command-line interface: argument parsing and the non-interactive subcommands (JSON out).
//!
//! Everything printed goes through the sanitizer (plain output) or is JSON with every
//! non-printing character escaped, so session text can never drive the terminal.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

pub mod output;
mod trash_cmd;
use output::{load_for_write, path_json, paths_json, print_note, report_done, shown_path};
use serde_json::{Value, json};

use crate::model::context::{Dialect, LeafChoice, build_context, plan_context};
use crate::model::entry::{EntryKind, format_iso_ms};
use crate::model::export;
use crate::model::info::SessionInfo;
use crate::model::tree::Session;
use crate::storage::append::NewEntry;
use crate::storage::fork::fork_session;
use crate::storage::index::write::{append_indexed, entry_ids, header_id, resolve_id};
use crate::storage::index::{Index, ListOptions};
use crate::storage::read::{detect_agent, load_session};
use crate::storage::roots::SessionRoot;
use crate::storage::scan::Listing;
use crate::storage::trash::{check_in_roots, delete_permanently, trash_session};
use crate::text::sanitize::sanitize_line;

pub mod list_query;
mod stats_cmd;
mod stream;

/// grove: browse, search and safely edit pi and Atomic sessions.
#[derive(Debug, Parser)]
#[command(name = "grove", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options shared by the browser and every subcommand.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Scan this folder instead of the default roots (repeatable). A root of per-cwd folders
    /// or a flat folder of .jsonl files.
    #[arg(long = "session-dir", value_name = "DIR", global = true)]
    pub session_dirs: Vec<PathBuf>,
    /// The agent of the --session-dir folders (default: from the path or the files).
    #[arg(long, value_enum, global = true)]
    pub agent: Option<AgentArg>,
    /// Use the bundled demo sessions (a temporary copy; the originals are never written).
    #[arg(long, global = true)]
    pub demo: bool,
    /// Do not read or write the index cache.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Browser: show sessions of every folder, not just the current one.
    #[arg(long)]
    pub all: bool,
    /// Browser: act as a picker for scripts: Enter prints the chosen path, Esc exits 1.
    #[arg(long)]
    pub print: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AgentArg {
    Pi,
    Atomic,
}

impl From<AgentArg> for Dialect {
    fn from(a: AgentArg) -> Self {
        match a {
            AgentArg::Pi => Dialect::Pi,
            AgentArg::Atomic => Dialect::Atomic,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExportFormat {
    Md,
    Jsonl,
    /// A self-contained page: tree sidebar, filters, search, the rendered branch.
    Html,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// List sessions (default: those whose cwd is the current directory).
    List {
        /// Every session of every folder.
        #[arg(long)]
        all: bool,
        /// Sessions of this directory instead of the current one.
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Sessions of every folder of the directory's git repository, worktrees included.
        #[arg(long, conflicts_with = "all")]
        repo: bool,
        /// Include Atomic's internal workflow sessions.
        #[arg(long)]
        include_internal: bool,
        /// Only sessions matching this search, as the picker finds them (pi 1.6.0's rules:
        /// words, "phrases", re:regex), each with where it matched.
        #[arg(long, value_name = "Q")]
        query: Option<String>,
        /// The order of --query results ("threaded" lists like "relevance", as in the picker);
        /// created, size and cost (largest first) also order a listing without --query.
        #[arg(long, value_enum)]
        sort: Option<list_query::ListSort>,
        #[arg(long)]
        json: bool,
    },
    /// Show a session's details.
    Show {
        session: String,
        #[arg(long)]
        json: bool,
    },
    /// Show a session's entry tree.
    Tree {
        session: String,
        #[arg(long)]
        json: bool,
    },
    /// Show the context the agent would get on resuming a branch.
    Context {
        session: String,
        /// Build from this entry instead of the session's leaf.
        #[arg(long, value_name = "ID")]
        leaf: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Set (or clear) the label of an entry.
    Label {
        session: String,
        entry: String,
        /// The label text.
        text: Option<String>,
        /// Remove the label.
        #[arg(long, conflicts_with = "text")]
        clear: bool,
    },
    /// Rename a session (an empty name clears it).
    Rename { session: String, name: String },
    /// Make an entry the session's leaf, so resuming continues on its branch.
    Checkout { session: String, entry: String },
    /// Write a new session holding the path to an entry (default: the leaf).
    Fork {
        session: String,
        #[arg(long, value_name = "ENTRY")]
        at: Option<String>,
    },
    /// Move a session (and Atomic's backups beside it) to the trash.
    Rm {
        session: String,
        /// Do not ask for confirmation.
        #[arg(long)]
        yes: bool,
        /// Delete for good instead of moving to the trash (asks again unless --yes).
        #[arg(long)]
        permanent: bool,
    },
    /// Export a branch as Markdown, JSONL or a self-contained HTML page.
    Export {
        session: String,
        #[arg(long, value_name = "ID")]
        leaf: Option<String>,
        #[arg(long, value_enum, default_value = "md")]
        format: ExportFormat,
        /// Write to this file instead of standard output (never overwrites).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Messages, tokens, cache hit rate and cost, as pi counts them, per day, project, model
    /// or session.
    Stats(stats_cmd::StatsArgs),
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

#[derive(Debug, Clone, Subcommand)]
pub enum TrashAction {
    /// List the session files in the trash: deletion time and original path.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Restore a trashed session, byte for byte, with its backups.
    Restore {
        /// The session's original path (or its file name, when only one has it).
        session: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum CacheAction {
    /// Remove the cache.
    Clear,
}

/// A CLI failure: printed to stderr, exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Msg(String),
    #[error(transparent)]
    Read(#[from] crate::storage::read::ReadError),
    #[error(transparent)]
    Write(#[from] crate::storage::append::WriteError),
    #[error(transparent)]
    Trash(#[from] crate::storage::trash::TrashError),
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The change is made; only printing its report failed (exit status 3, not 1).
    #[error(
        "{done}, but printing the result failed: {source}. The change is made: do not run the command again."
    )]
    DoneButOutputFailed {
        done: String,
        #[source]
        source: io::Error,
    },
}

impl CliError {
    /// The process exit status: 1 when nothing was changed, 3 when the change was made but
    /// its report could not be printed (see [`output`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::DoneButOutputFailed { .. } => output::EXIT_DONE_OUTPUT_FAILED,
            _ => 1,
        }
    }

    /// Only the reader of stdout went away (`grove … | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            CliError::Io(e) | CliError::DoneButOutputFailed { source: e, .. } => {
                output::is_broken_pipe(e)
            }
            _ => false,
        }
    }
}

fn msg(s: impl Into<String>) -> CliError {
    CliError::Msg(s.into())
}

/// The roots a run scans.
pub fn resolve_roots(g: &GlobalArgs) -> io::Result<Vec<SessionRoot>> {
    g.browser_args().roots()
}

impl GlobalArgs {
    /// The options the browser needs.
    pub fn browser_args(&self) -> crate::app::launch::BrowserArgs {
        crate::app::launch::BrowserArgs {
            session_dirs: self.session_dirs.clone(),
            agent: self.agent.map(Into::into),
            demo: self.demo,
            no_cache: self.no_cache,
            all: self.all,
            print: self.print,
        }
    }
}

/// Runs a subcommand, writing to `out`.
pub fn run(global: &GlobalArgs, command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    let roots = resolve_roots(global)?;
    match command {
        Command::List {
            all,
            cwd,
            repo,
            include_internal,
            query,
            sort,
            json,
        } => {
            // The demo is a fresh temp copy each run: caching it would only leave stale rows.
            let mut index = Index::open(global.no_cache || global.demo);
            let opts = ListOptions {
                with_text: query.is_some(),
            };
            let listing = index.list(&roots, opts, |_| {});
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
            let sessions: Vec<&SessionInfo> = listing
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
            if let Some(q) = query {
                let sort = sort.unwrap_or_default();
                return list_query::print_matches(out, &sessions, &q, sort, json);
            }
            if sort.is_some_and(|s| s.key().is_none()) {
                return Err(msg(
                    "--sort relevance, recent and threaded order --query results: give --query \
                     (created, size and cost also sort a plain listing)",
                ));
            }
            let mut sessions = sessions;
            if let Some(k) = sort.and_then(|s| s.key()) {
                sessions.sort_by(|a, b| k.compare(a, b));
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
        }
        Command::Show { session, json } => {
            let (path, agent) = resolve_session(&roots, &session, global.no_cache || global.demo)?;
            let s = load_for_display(&path)?;
            let agent = agent.unwrap_or_else(|| detect_agent(&path, &s, None));
            show(out, &path, &s, agent, json)?;
        }
        Command::Tree { session, json } => {
            let (path, _) = resolve_session(&roots, &session, global.no_cache || global.demo)?;
            let s = load_for_display(&path)?;
            tree(out, &s, json)?;
        }
        Command::Context {
            session,
            leaf,
            json,
        } => {
            let (path, agent) = resolve_session(&roots, &session, global.no_cache || global.demo)?;
            let s = load_for_display(&path)?;
            let agent = agent.unwrap_or_else(|| detect_agent(&path, &s, None));
            let choice = leaf_choice(&s, leaf.as_deref())?;
            // Planned, not built: each message is made, written and dropped in turn.
            let plan = plan_context(&s, choice, agent);
            if json {
                stream::context_json(out, &s, &plan)?;
            } else {
                stream::context_plain(out, &s, &plan)?;
            }
        }
        Command::Label {
            session,
            entry,
            text,
            clear,
        } => {
            let no_cache = global.no_cache || global.demo;
            let (path, agent) = resolve_session(&roots, &session, no_cache)?;
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
            )?;
        }
        Command::Rename { session, name } => {
            let no_cache = global.no_cache || global.demo;
            let (path, agent) = resolve_session(&roots, &session, no_cache)?;
            let mut index = Index::open(no_cache);
            let (a, how) = append_indexed(&mut index, &path, agent, NewEntry::Rename { name })?;
            report_write_path(how);
            print_note(a.note.as_deref());
            report_done(
                out,
                &format!("name {} written to {}", a.id, shown_path(&path)),
                &to_json(&json!({"path": path_json(&path), "id": a.id})),
            )?;
        }
        Command::Checkout { session, entry } => {
            let no_cache = global.no_cache || global.demo;
            let (path, agent) = resolve_session(&roots, &session, no_cache)?;
            let mut index = Index::open(no_cache);
            let target = resolve_entry_indexed(&mut index, &path, agent, &entry)?;
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
                &to_json(
                    &json!({"path": path_json(&path), "id": a.id, "leafParentId": a.parent_id}),
                ),
            )?;
        }
        Command::Fork { session, at } => {
            let (path, _) = resolve_session(&roots, &session, global.no_cache || global.demo)?;
            let at = match at {
                Some(a) => Some(resolve_entry(&load_for_write(&path)?, &a)?),
                None => None,
            };
            let f = fork_session(&path, at.as_deref())?;
            report_done(
                out,
                &format!("fork written to {}", shown_path(&f.path)),
                &to_json(&json!({"path": path_json(&f.path), "id": f.id, "leafId": f.leaf_id})),
            )?;
        }
        Command::Rm {
            session,
            yes,
            permanent,
        } => {
            let (path, _) = resolve_session(&roots, &session, global.no_cache || global.demo)?;
            check_in_roots(&path, &roots)?;
            rm(out, &path, yes, permanent)?;
        }
        Command::Export {
            session,
            leaf,
            format,
            output,
        } => {
            let (path, agent) = resolve_session(&roots, &session, global.no_cache || global.demo)?;
            let s = load_for_display(&path)?;
            let agent = agent.unwrap_or_else(|| detect_agent(&path, &s, None));
            let ctx = build_context(&s, leaf_choice(&s, leaf.as_deref())?, agent);
            let text = match format {
                ExportFormat::Md => export::to_markdown(&s, &ctx),
                ExportFormat::Jsonl => export::to_jsonl(&s, &ctx),
                ExportFormat::Html => export::html::to_html(&s, &ctx),
            };
            match output {
                Some(file) => {
                    write_new_file(&file, text.as_bytes())?;
                    report_done(
                        out,
                        &format!("export written to {}", shown_path(&file)),
                        &to_json(&json!({"written": path_json(&file)})),
                    )?;
                }
                // JSONL on a terminal: C1, bidi and invisible characters as \u escapes (the same
                // JSON), so what is printed is inert. A file gets the lines as stored.
                None => match format {
                    ExportFormat::Jsonl => out.write_all(escape_inert(&text).as_bytes())?,
                    ExportFormat::Md | ExportFormat::Html => out.write_all(text.as_bytes())?,
                },
            }
        }
        Command::Trash { action } => match action {
            TrashAction::List { json } => trash_cmd::list(out, json)?,
            TrashAction::Restore { session, json } => trash_cmd::restore(out, &session, json)?,
        },
        Command::Stats(args) => stats_cmd::run(global, &roots, args, out)?,
        Command::Cache { action } => match action {
            CacheAction::Clear => {
                let removed = crate::storage::cache::clear()?;
                report_done(
                    out,
                    "the cache is cleared",
                    &to_json(&json!({"removed": removed.as_deref().map(path_json)})),
                )?;
            }
        },
    }
    Ok(())
}

/// Writes a new file, whole or not at all (see [`crate::storage::safe_fs::write_new_file`]);
/// refuses to overwrite. The error names the path.
pub fn write_new_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    crate::storage::safe_fs::write_new_file(path, &mut |w| w.write_all(bytes)).map_err(|e| {
        msg(format!(
            "{}: {}; no file was created",
            shown_path(&e.path),
            e.source
        ))
    })
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

/// The last turn's outcome word (`done`, `aborted`, `error`, `cut off`, `unfinished`).
fn outcome_of(s: &SessionInfo) -> Option<&'static str> {
    crate::model::stats::outcome::Outcome::of(s.last_stop_reason.as_deref()).map(|o| o.label())
}

/// The JSON of a listing row: pi's camelCase `SessionInfo` fields plus grove's.
pub fn info_json(s: &SessionInfo) -> Value {
    json!({
        "path": path_json(&s.path),
        "id": s.id,
        "cwd": s.cwd,
        "name": s.name,
        "parentSessionPath": s.parent_session_path,
        "created": s.created_iso(),
        "modified": s.modified_iso(),
        "messageCount": s.message_count,
        "firstMessage": s.first_message,
        "agent": s.agent,
        "version": s.version,
        "bytes": s.bytes,
        "entryCount": s.entry_count,
        "leafCount": s.leaf_count,
        "labelCount": s.label_count,
        "hasName": s.has_name,
        "internal": s.internal,
        "workflow": s.workflow,
        "summary": s.summary,
        "totalTokens": s.total_tokens,
        "cost": s.cost,
        "model": s.model,
        "outcome": outcome_of(s),
        "parseIssues": s.parse_issues,
    })
}

/// [`info_json`] as a borrowed struct: the same keys in the same order, so serde_json writes
/// the same bytes without building a `Value` per session (a listing of 10k sessions).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct InfoJson<'a> {
    #[serde(serialize_with = "output::serialize_path")]
    path: &'a Path,
    id: &'a str,
    cwd: &'a str,
    name: &'a Option<String>,
    parent_session_path: &'a Option<String>,
    created: Option<String>,
    modified: String,
    message_count: u64,
    first_message: &'a str,
    agent: Dialect,
    version: u32,
    bytes: u64,
    entry_count: u64,
    leaf_count: u64,
    label_count: u64,
    has_name: bool,
    internal: bool,
    workflow: &'a Option<crate::model::info::WorkflowInfo>,
    summary: &'a Option<String>,
    total_tokens: u64,
    cost: f64,
    model: &'a Option<String>,
    outcome: Option<&'static str>,
    parse_issues: u64,
}

/// `write_json_array(out, sessions.map(info_json))`, byte for byte, in one pass: the array
/// serialized straight to `out`, with [`InertPretty`] escaping as the strings are written.
fn write_sessions_json<W: Write>(out: W, sessions: &[&SessionInfo]) -> io::Result<()> {
    let items = sessions.iter().map(|s| InfoJson {
        path: &s.path,
        id: &s.id,
        cwd: &s.cwd,
        name: &s.name,
        parent_session_path: &s.parent_session_path,
        created: s.created_iso(),
        modified: s.modified_iso(),
        message_count: s.message_count,
        first_message: &s.first_message,
        agent: s.agent,
        version: s.version,
        bytes: s.bytes,
        entry_count: s.entry_count,
        leaf_count: s.leaf_count,
        label_count: s.label_count,
        has_name: s.has_name,
        internal: s.internal,
        workflow: &s.workflow,
        summary: &s.summary,
        total_tokens: s.total_tokens,
        cost: s.cost,
        model: &s.model,
        outcome: outcome_of(s),
        parse_issues: s.parse_issues,
    });
    let mut ser = serde_json::Serializer::with_formatter(
        out,
        InertPretty(serde_json::ser::PrettyFormatter::with_indent(b"  ")),
    );
    serde::Serializer::collect_seq(&mut ser, items).map_err(io::Error::other)?;
    ser.into_inner().write_all(b"\n")
}

/// serde_json's pretty printer, writing every character a terminal could act on as its `\u`
/// escape: the output of [`escape_inert`] over the pretty text, without a second pass over
/// it (such characters only occur inside strings, which serde_json writes as fragments).
struct InertPretty<'a>(serde_json::ser::PrettyFormatter<'a>);

impl serde_json::ser::Formatter for InertPretty<'_> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, s: &str) -> io::Result<()> {
        // Every such character starts with a byte >= 0x7f (both checks are word at a time).
        if s.is_ascii() && !s.as_bytes().contains(&0x7f) {
            return w.write_all(s.as_bytes());
        }
        let mut start = 0;
        for (i, c) in s.char_indices() {
            if needs_json_escape(c) {
                w.write_all(&s.as_bytes()[start..i])?;
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    write!(w, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        w.write_all(&s.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Writes `[items]` exactly as `to_json(&Value::Array(items))` would, one item at a time
/// (the reference for [`write_sessions_json`]).
#[cfg(test)]
fn write_json_array(out: &mut dyn Write, items: impl Iterator<Item = Value>) -> io::Result<()> {
    let mut first = true;
    for item in items {
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        first = false;
        // Pretty JSON never has a raw newline inside a string: indenting by lines is exact.
        for (i, line) in to_json(&item).split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"  ")?;
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(if first { b"[]\n" } else { b"\n]\n" })
}

/// Serializes JSON with every character a terminal could act on escaped (C0/C1 controls,
/// bidi and zero-width characters), so the output is both valid JSON and inert.
pub fn to_json(v: &Value) -> String {
    escape_inert(&serde_json::to_string_pretty(v).unwrap_or_default())
}

/// Replaces, in serialized JSON, every character a terminal could act on with its `\u` escape.
/// Such characters only occur inside JSON strings, so the result is the same JSON.
pub fn escape_inert(s: &str) -> String {
    // Every such character starts with a byte >= 0x7f: a byte scan (vectorized) rules most
    // output out without decoding it.
    if !s.bytes().any(|b| b >= 0x7f) || !s.chars().any(needs_json_escape) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_json_escape(c) {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_json_escape(c: char) -> bool {
    // serde_json already escapes C0 controls inside strings; the rest only occur in strings.
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}' | '\u{061C}' | '\u{2028}' | '\u{2029}')
        || crate::text::sanitize::is_hidden_or_ignorable(c)
}

/// Finds a session by path, id, unique id prefix, or exact name.
pub fn resolve_session(
    roots: &[SessionRoot],
    arg: &str,
    no_cache: bool,
) -> Result<(PathBuf, Option<Dialect>), CliError> {
    let as_path = Path::new(arg);
    if arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl") {
        if as_path.exists() {
            return Ok((as_path.to_path_buf(), root_agent_of(roots, as_path)));
        }
        return Err(msg(format!("{}: no such file", sanitize_line(arg))));
    }
    // Through the index, so naming a session by id or name costs one stat per file when warm.
    let listing = Index::open(no_cache).list(roots, ListOptions::default(), |_| {});
    match pick_session(&listing.sessions, arg)? {
        // The index is a cache, and caches can be crafted: the file itself must agree.
        Some(found) if no_cache || session_matches(&found.0, found.1, arg) => Ok(found),
        Some(_) => {
            let listing = Index::disabled().list(roots, ListOptions::default(), |_| {});
            pick_session(&listing.sessions, arg)?.ok_or_else(|| no_session(arg))
        }
        None => Err(no_session(arg)),
    }
}

/// For tests and scripts (`GROVE_INDEX_STATS`): whether a write came from the index.
fn report_write_path(how: crate::storage::index::write::WritePath) {
    if std::env::var_os("GROVE_INDEX_STATS").is_some() {
        eprintln!("grove: write path {how:?}");
    }
}

fn no_session(arg: &str) -> CliError {
    msg(format!(
        "no session matches {} (give a path, an id or unique id prefix, or an exact name)",
        sanitize_line(arg)
    ))
}

/// Whether the file resolved for `arg` says so itself: its header id is `arg` or starts with
/// it; else its name (read from the file) is `arg`.
fn session_matches(path: &Path, agent: Option<Dialect>, arg: &str) -> bool {
    if header_id(path).is_some_and(|id| id.starts_with(arg)) {
        return true;
    }
    crate::storage::read::scan_info(path, agent).is_ok_and(|i| i.name.as_deref() == Some(arg))
}

/// A session by exact id, then unique id prefix, then exact name, among those listed.
fn pick_session(
    all: &[SessionInfo],
    arg: &str,
) -> Result<Option<(PathBuf, Option<Dialect>)>, CliError> {
    let pick = |v: Vec<&SessionInfo>| -> Result<Option<(PathBuf, Option<Dialect>)>, CliError> {
        match v.len() {
            0 => Ok(None),
            1 => Ok(Some((v[0].path.clone(), Some(v[0].agent)))),
            _ => Err(msg(format!(
                "{} matches {} sessions: {}",
                sanitize_line(arg),
                v.len(),
                v.iter()
                    .take(5)
                    .map(|s| sanitize_line(&s.id).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    };
    if let Some(found) = pick(all.iter().filter(|s| s.id == arg).collect())? {
        return Ok(Some(found));
    }
    if let Some(found) = pick(all.iter().filter(|s| s.id.starts_with(arg)).collect())? {
        return Ok(Some(found));
    }
    pick(
        all.iter()
            .filter(|s| s.name.as_deref() == Some(arg))
            .collect(),
    )
}

/// An entry by id or unique id prefix: among the ids of a current index row when there is one
/// (no load of the file), else from the file loaded whole.
fn resolve_entry_indexed(
    index: &mut Index,
    path: &Path,
    agent: Option<Dialect>,
    arg: &str,
) -> Result<String, CliError> {
    match entry_ids(index, path, agent) {
        Some(ids) => resolve_id(&ids, arg).map_err(|n| match n {
            0 => msg(format!("no entry {} in this session", sanitize_line(arg))),
            n => msg(format!("{} matches {n} entries", sanitize_line(arg))),
        }),
        None => resolve_entry(&load_for_write(path)?, arg),
    }
}

fn root_agent_of(roots: &[SessionRoot], path: &Path) -> Option<Dialect> {
    let abs = std::fs::canonicalize(path).ok()?;
    roots.iter().find_map(|r| {
        let root = std::fs::canonicalize(&r.path).ok()?;
        abs.starts_with(root).then_some(r.agent).flatten()
    })
}

/// Loads a session to print it: a file without a session header is refused with the same
/// message the listing gives, and skipped or repaired lines are reported on stderr.
pub fn load_for_display(path: &Path) -> Result<Session, CliError> {
    let s = load_session(path)?;
    if s.parsed.header.is_none() {
        return Err(crate::storage::read::ReadError::NoHeader {
            path: path.to_path_buf(),
        }
        .into());
    }
    let issues: Vec<_> = s.issues().collect();
    if let Some(first) = issues.first() {
        let _ = writeln!(
            io::stderr().lock(),
            "grove: note: {}: {} problem(s) while reading; first: line {}: {}",
            crate::text::sanitize::sanitize_path(&path.to_string_lossy()),
            issues.len(),
            first.line,
            sanitize_line(&crate::text::sanitize::truncate_width(&first.message, 200))
        );
    }
    Ok(s)
}

/// An entry by id or unique id prefix.
pub fn resolve_entry(s: &Session, arg: &str) -> Result<String, CliError> {
    if s.tree.index_of(arg).is_some() {
        return Ok(arg.to_owned());
    }
    let matches: Vec<&str> = s
        .entries()
        .iter()
        .filter(|e| !e.id.is_empty() && e.id.starts_with(arg))
        .map(|e| e.id.as_str())
        .collect();
    let mut unique = matches.clone();
    unique.dedup();
    match unique.len() {
        1 => Ok(unique[0].to_owned()),
        0 => Err(msg(format!(
            "no entry {} in this session",
            sanitize_line(arg)
        ))),
        n => Err(msg(format!("{} matches {n} entries", sanitize_line(arg)))),
    }
}

fn leaf_choice<'a>(s: &Session, leaf: Option<&'a str>) -> Result<LeafChoice<'a>, CliError> {
    match leaf {
        None => Ok(LeafChoice::Current),
        Some(id) => {
            if s.tree.index_of(id).is_none() {
                return Err(msg(format!(
                    "no entry {} in this session",
                    sanitize_line(id)
                )));
            }
            Ok(LeafChoice::Id(id))
        }
    }
}

fn show(
    out: &mut dyn Write,
    path: &Path,
    s: &Session,
    agent: Dialect,
    json_out: bool,
) -> Result<(), CliError> {
    let h = s.parsed.header.as_ref();
    let labels: serde_json::Map<String, Value> = s
        .tree
        .labels
        .iter()
        .map(|(k, v)| (k.clone(), json!(v.text)))
        .collect();
    let issues: Vec<Value> = s
        .issues()
        .map(|i| json!({"line": i.line, "kind": i.kind, "message": i.message}))
        .collect();
    let count = |k: EntryKind| s.entries().iter().filter(|e| e.kind == k).count();
    let v = json!({
        "path": path_json(path),
        "id": h.map(|h| h.id.clone()),
        "cwd": h.map(|h| h.cwd.clone()),
        "created": h.map(|h| h.timestamp.clone()),
        "version": h.map(|h| h.version),
        "migratedFrom": s.parsed.migrated_from,
        "parentSessionPath": h.and_then(|h| h.parent_session.clone()),
        "agent": agent,
        "name": s.tree.name.name,
        "hasName": s.tree.name.has_name,
        "internal": h.is_some_and(|h| h.is_internal()),
        "workflow": h.and_then(|h| h.workflow()),
        "leafId": s.leaf_id(),
        "entryCount": s.entries().len(),
        "messageCount": count(EntryKind::Message),
        "leafCount": s.tree.leaf_count(),
        "roots": s.tree.roots.len(),
        "labels": labels,
        "loadout": s.loadout(),
        "bytes": s.parsed.bytes,
        "issues": issues,
    });
    if json_out {
        writeln!(out, "{}", to_json(&v))?;
        return Ok(());
    }
    if let Value::Object(m) = &v {
        for (k, val) in m {
            let text = match (k.as_str(), val) {
                ("path", _) => path.to_string_lossy().into_owned(),
                (_, Value::String(s)) => s.clone(),
                (_, Value::Null) => "-".into(),
                (_, other) => other.to_string(),
            };
            // Line breaks and tabs shown as ^J, ^M, ^I: a path with a newline is not another.
            writeln!(
                out,
                "{k:>18}: {}",
                crate::text::sanitize::sanitize_path(&text)
            )?;
        }
    }
    Ok(())
}

/// One line describing an entry, for plain output.
pub fn entry_summary(s: &Session, i: usize) -> String {
    let e = &s.entries()[i];
    let body = match e.kind {
        EntryKind::Message => {
            let role = e.role().unwrap_or("?");
            // Read back and dropped: `tree` walks every entry once.
            let (raw, _) = e.raw_transient();
            let text = raw
                .get("message")
                .and_then(|m| crate::model::entry::content_text(m.get("content")))
                .unwrap_or_default();
            format!("{role}: {text}")
        }
        _ => e.type_name().to_owned(),
    };
    let label = s
        .tree
        .label_of(s.entries(), i)
        .map(|l| format!("[{}] ", l.text))
        .unwrap_or_default();
    sanitize_line(&crate::text::sanitize::truncate_width(
        &format!("{label}{body}"),
        120,
    ))
    .into_owned()
}

fn tree(out: &mut dyn Write, s: &Session, json_out: bool) -> Result<(), CliError> {
    if json_out {
        stream::tree_json(out, s)?;
    } else {
        stream::tree_plain(out, s)?;
    }
    Ok(())
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

/// `now` as an ISO string, for messages.
pub fn now_iso() -> String {
    format_iso_ms(crate::storage::append::now_ms())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::info::WorkflowInfo;

    #[test]
    fn the_session_writer_matches_the_value_writer() {
        let base = SessionInfo {
            path: PathBuf::from("/s/caf\u{e9} \u{202e}x.jsonl"),
            id: "id\u{1b}[31m".into(),
            cwd: "/w \"q\"".into(),
            name: Some("n\u{200b}\u{9b}".into()),
            parent_session_path: None,
            created_ms: None,
            modified_ms: -1,
            message_count: 3,
            first_message: "line\nbreak \u{1F600} \u{e0041}".into(),
            agent: Dialect::Atomic,
            version: 3,
            bytes: u64::MAX,
            entry_count: 7,
            leaf_count: 2,
            label_count: 1,
            has_name: true,
            internal: true,
            workflow: Some(WorkflowInfo {
                run_id: "r".into(),
                stage_id: "s".into(),
                stage_name: "t\u{2028}".into(),
            }),
            summary: Some(String::new()),
            total_tokens: 12,
            cost: 0.1 + 0.2,
            last_stop_reason: Some("length".into()),
            model: Some("m\u{1b}".into()),
            parse_issues: 4,
            first_issue: Some("line 2".into()),
            all_messages_text: "not listed".into(),
            tool_text: "not listed".into(),
        };
        let mut sessions = vec![base.clone()];
        for cost in [f64::NAN, f64::INFINITY, 0.0, -0.0, 1e300, 5e-324] {
            sessions.push(SessionInfo {
                cost,
                workflow: None,
                name: None,
                created_ms: Some(1_700_000_000_123),
                ..base.clone()
            });
        }
        for n in [0, 1, sessions.len()] {
            let refs: Vec<&SessionInfo> = sessions[..n].iter().collect();
            let mut fast = Vec::new();
            write_sessions_json(&mut fast, &refs).unwrap();
            let mut reference = Vec::new();
            write_json_array(&mut reference, refs.iter().map(|s| info_json(s))).unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(reference).unwrap()
            );
        }
    }
}
