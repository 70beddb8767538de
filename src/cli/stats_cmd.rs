//! `grove stats [--by day|project|model|session] [--since DATE] [--json]`: messages, tokens,
//! cache hit rate and cost over many sessions, counted as pi counts them
//! ([`crate::model::stats`]).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use crate::app::stats_view::short_count;
use crate::model::stats::Totals;
use crate::model::stats::report::{GroupBy, Report, SessionMeta};
use crate::storage::index::{Index, ListOptions};
use crate::storage::roots::SessionRoot;
use crate::storage::stats::report_over;
use crate::text::pad::fit_width;
use crate::text::sanitize::sanitize_line;

use super::args::GlobalArgs;
use super::error::CliError;
use super::json::to_json;

/// Examples for `grove stats --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  grove stats                      messages, tokens and cost per day, every session
  grove stats --by model --json    per model, as JSON
  grove stats --by project --since 2026-11-01";

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum ByArg {
    /// One row per UTC calendar day.
    #[default]
    Day,
    /// One row per project (the session's cwd).
    Project,
    /// One row per provider/model.
    Model,
    /// One row per session.
    Session,
}

impl From<ByArg> for GroupBy {
    fn from(b: ByArg) -> Self {
        match b {
            ByArg::Day => GroupBy::Day,
            ByArg::Project => GroupBy::Project,
            ByArg::Model => GroupBy::Model,
            ByArg::Session => GroupBy::Session,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// One row per UTC day, project (cwd), model or session.
    #[arg(long, value_enum, default_value_t)]
    pub by: ByArg,
    /// Only count entries of this UTC day (YYYY-MM-DD) and later.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only the sessions of this directory (default: every session).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Checks `--since`: a calendar date `YYYY-MM-DD`.
pub fn parse_since(s: &str) -> Result<String, CliError> {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(s.trim(), &fmt)
        .map(|_| s.trim().to_owned())
        .map_err(|_| {
            CliError::Msg(format!(
                "--since {}: not a date; give it as YYYY-MM-DD",
                sanitize_line(s)
            ))
        })
}

pub fn run(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: StatsArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let since = args.since.as_deref().map(parse_since).transpose()?;
    let mut index = Index::open(global.no_cache || global.demo);
    let listing = index.list(roots, ListOptions { with_text: false }, |_| {});
    super::list_cmd::report_problems(&listing);
    drop(index);
    let mut same: std::collections::HashMap<&str, bool> = Default::default();
    let sessions: Vec<(PathBuf, SessionMeta)> = listing
        .sessions
        .iter()
        .filter(|s| {
            args.cwd.as_deref().is_none_or(|c| {
                *same
                    .entry(s.cwd.as_str())
                    .or_insert_with(|| crate::text::paths::same_folder(&s.cwd, c))
            })
        })
        .map(|s| {
            let meta = SessionMeta {
                path: s.path.to_string_lossy().into_owned(),
                id: s.id.clone(),
                cwd: s.cwd.clone(),
                title: s.title().to_owned(),
            };
            (s.path.clone(), meta)
        })
        .collect();
    drop(listing);
    let (report, problems) = report_over(&sessions, args.by.into(), since, &|| false);
    let mut err = io::stderr().lock();
    for p in problems {
        let _ = writeln!(err, "grove: skipped {}", sanitize_line(&p.to_string()));
    }
    if args.json {
        out.write_all(to_json(&report_json(&report)).as_bytes())?;
        out.write_all(b"\n")?;
    } else {
        write_table(out, &report)?;
    }
    Ok(())
}

/// The JSON of one set of totals.
pub fn totals_json(t: &Totals) -> Value {
    json!({
        "messages": t.messages,
        "tokens": {
            "input": t.input,
            "output": t.output,
            "cacheRead": t.cache_read,
            "cacheWrite": t.cache_write,
            "total": t.tokens(),
        },
        "cacheHitRate": t.cache_hit_rate(),
        "cost": t.cost,
    })
}

pub fn report_json(r: &Report) -> Value {
    let groups: Vec<Value> = r
        .rows()
        .into_iter()
        .map(|g| {
            let mut v = totals_json(&g.totals);
            if let Value::Object(m) = &mut v {
                m.insert("key".into(), json!(g.key));
                m.insert("sessions".into(), json!(g.sessions));
                if let Some(s) = &g.session {
                    m.insert("id".into(), json!(s.id));
                    m.insert("path".into(), super::output::path_json(Path::new(&s.path)));
                    m.insert("cwd".into(), json!(s.cwd));
                    m.insert("title".into(), json!(s.title));
                }
            }
            v
        })
        .collect();
    let mut total = totals_json(&r.total);
    if let Value::Object(m) = &mut total {
        m.insert("sessions".into(), json!(r.sessions));
    }
    json!({
        "by": r.by.as_str(),
        "since": r.since,
        "groups": groups,
        "total": total,
    })
}

pub fn rate_text(t: &Totals) -> String {
    t.cache_hit_rate()
        .map_or_else(|| "-".to_owned(), |r| format!("{r:.1}%"))
}

fn write_table(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let head = match r.by {
        GroupBy::Day => "day",
        GroupBy::Project => "project",
        GroupBy::Model => "model",
        GroupBy::Session => "session",
    };
    writeln!(
        out,
        "{:<44} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10}",
        head, "messages", "input", "output", "cache rd", "cache wr", "total", "hit", "cost"
    )?;
    let line = |out: &mut dyn Write, key: &str, t: &Totals| {
        writeln!(
            out,
            "{} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10}",
            fit_width(key, 44),
            t.messages,
            short_count(t.input),
            short_count(t.output),
            short_count(t.cache_read),
            short_count(t.cache_write),
            short_count(t.tokens()),
            rate_text(t),
            format!("${:.4}", t.cost),
        )
    };
    for g in r.rows() {
        let key = match &g.session {
            Some(s) => format!("{} {}", s.id.get(..8).unwrap_or(&s.id), s.title),
            None => g.key.clone(),
        };
        line(&mut out, &key, &g.totals)?;
    }
    line(
        &mut out,
        &format!("total ({} sessions)", r.sessions),
        &r.total,
    )?;
    out.flush()
}
