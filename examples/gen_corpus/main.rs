//! Deterministic benchmark corpus generator: realistic pi and Atomic session files.
//!
//! ```text
//! cargo run --release --example gen_corpus -- --sessions 10000 --seed 1 --out /tmp/corpus
//! cargo run --release --example gen_corpus -- --sessions 0 --big-session 1024 --out /tmp/big
//! cargo run --release --example gen_corpus -- --sessions 0 --linear-session 1000 --out /tmp/long
//! ```
//!
//! Layout (both roots are "agent dirs", like `~/.pi/agent/sessions` and `~/.atomic/agent/sessions`):
//!
//! ```text
//! DIR/pi-agent/sessions/--<cwd with / as ->--/<ISO timestamp>_<uuid v7>.jsonl      (~85 %)
//! DIR/atomic-agent/sessions/--<cwd with / as ->--/<ISO timestamp>_<uuid v7>.jsonl  (~15 %)
//! ```
//!
//! Shape, modelled on the real files in `/work/shared/fixtures`: median ~100 entries and ~200 KB
//! per session, a heavy tail (a few percent of sessions at 2-8 MB), tool outputs up to 50 KB, some
//! base64 images (a few KB to ~100 KB), thinking blocks, branches (with and without
//! `branch_summary`), compactions (pi summaries, Atomic `verbatim-lines`), renames
//! (`session_info`), labels set and cleared, model / thinking changes, `bashExecution`, `custom`
//! and `custom_message` entries, forks (`parentSession` = absolute path of another generated file),
//! Atomic `session_summary` and internal workflow sessions.
//!
//! Output is a pure function of `--seed`, `--sessions`, `--big-session`, `--linear-session` and the absolute path of
//! `--out` (which appears in `parentSession`): a small splitmix64 PRNG, a fixed base time of
//! 2026-01-01T00:00:00Z plus seeded offsets, and one independent PRNG stream per session, so the
//! files can be written in parallel and still come out byte-identical.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::error::Error;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use rayon::prelude::*;
use serde_json::{Map, Value, json};

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// 2026-01-01T00:00:00Z in Unix milliseconds.
const BASE_MS: i64 = 1_767_225_600_000;
const DAY_MS: i64 = 86_400_000;
/// Sessions start within this many days after `BASE_MS` (Jan to end of Nov 2026).
const SPAN_DAYS: i64 = 333;
const MAX_TOOL_OUTPUT: usize = 50_000;

#[derive(Parser, Debug)]
#[command(about = "Write a deterministic corpus of pi / Atomic session files")]
struct Args {
    /// Number of sessions to write (pi and Atomic together)
    #[arg(long, default_value_t = 1000)]
    sessions: usize,
    /// PRNG seed; the same seed gives the same files
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (gets `pi-agent/sessions` and `atomic-agent/sessions`)
    #[arg(long)]
    out: PathBuf,
    /// Also write one extra pi session of roughly this many MiB
    #[arg(long, value_name = "MB")]
    big_session: Option<u64>,
    /// Also write one pi session of roughly this many MiB shaped as pi writes a long-running
    /// one: a single linear branch (no branches, no compactions), thinking with long
    /// signatures, text, bash/read/edit/write calls and results of at most 120 lines
    #[arg(long, value_name = "MB")]
    linear_session: Option<u64>,
    /// Number of project folders (cwds)
    #[arg(long, default_value_t = 40)]
    projects: usize,
}

mod plan;
mod rng;
mod session;
mod words;

use plan::*;
use rng::*;
use session::*;
use words::*;

fn header(plan: &Plan, project: &Project, parent_path: Option<String>) -> Value {
    let mut h = json!({"type": "session", "version": 3, "id": plan.uuid, "timestamp": iso(plan.start_ms), "cwd": project.cwd});
    if let Some(p) = parent_path {
        h["parentSession"] = Value::from(p);
    }
    if let Some((run, stage_id, stage)) = &plan.workflow {
        h["internal"] = Value::from(true);
        h["workflow"] = json!({"runId": run, "stageId": stage_id, "stageName": stage});
    }
    h
}

fn write_session(
    seed: u64,
    plan: &Plan,
    out: &Path,
    projects: &[Project],
    plans: &[Plan],
) -> Result<u64> {
    let project = &projects[plan.project];
    let path = plan.path(out, projects);
    let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let parent_path = plan
        .fork_of
        .map(|p| plans[p].path(out, projects).display().to_string());
    let rng = Rng::derive(seed, plan.stream + 1);
    let mut g = SessionGen::new(
        rng,
        BufWriter::with_capacity(256 * 1024, file),
        plan.agent,
        project,
        plan.start_ms,
        plan.output_median,
    );
    g.start(header(plan, project, parent_path))?;
    while g.count < plan.entries {
        g.turn(plan.branchy)?;
    }
    if plan.agent == Agent::Atomic && g.rng.chance(0.4) {
        g.session_summary()?;
    }
    Ok(g.finish()?)
}

/// One big pi session: bushy (`linear == false`, `--big-session`) or one long linear branch
/// (`--linear-session`).
fn write_big_session(seed: u64, mb: u64, out: &Path, linear: bool) -> Result<(PathBuf, u64)> {
    let project = Project {
        cwd: "/home/dev/code/monorepo".into(),
        folder: "--home-dev-code-monorepo--".into(),
        lang: Lang::Ts,
    };
    let mut rng = Rng::derive(seed, if linear { u64::MAX - 2 } else { u64::MAX });
    let start_ms = BASE_MS + if linear { 331 } else { 330 } * DAY_MS;
    let plan = Plan {
        agent: Agent::Pi,
        project: 0,
        start_ms,
        uuid: rng.uuid_v7(start_ms),
        entries: 0,
        output_median: 4000.0,
        fork_of: None,
        workflow: None,
        branchy: !linear,
        stream: u64::MAX - 1,
    };
    let projects = [project];
    let path = plan.path(out, &projects);
    fs::create_dir_all(path.parent().ok_or("no parent dir")?)?;
    let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // A long-running session's outputs mostly reach the 120-line cut: about 200k entries
    // per GB, as in the sessions pi users report.
    let output_median = if linear { 12_000.0 } else { 4000.0 };
    let mut g = SessionGen::new(
        rng,
        BufWriter::with_capacity(1 << 20, file),
        Agent::Pi,
        &projects[0],
        start_ms,
        output_median,
    );
    g.linear = linear;
    g.start(header(&plan, &projects[0], None))?;
    let target = mb * 1024 * 1024;
    while g.out.bytes < target {
        g.turn(!linear)?;
    }
    Ok((path, g.finish()?))
}

fn human(bytes: u64) -> String {
    const UNITS: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

fn main() -> std::result::Result<(), Box<dyn Error + Send + Sync>> {
    let args = Args::parse();
    let started = Instant::now();
    fs::create_dir_all(&args.out)?;
    let out = fs::canonicalize(&args.out)?;

    let mut rng = Rng::new(args.seed);
    let projects = make_projects(&mut rng, args.projects.max(1));
    let plans = make_plans(&mut rng, args.sessions, &projects);

    let mut dirs: Vec<PathBuf> = plans
        .iter()
        .map(|p| {
            out.join(p.agent.dir())
                .join("sessions")
                .join(&projects[p.project].folder)
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    for d in &dirs {
        fs::create_dir_all(d)?;
    }

    let mut sizes = plans
        .par_iter()
        .map(|p| write_session(args.seed, p, &out, &projects, &plans))
        .collect::<Result<Vec<u64>>>()?;

    let mut files = sizes.len();
    let mut total: u64 = sizes.iter().sum();
    if let Some(mb) = args.big_session {
        let (path, bytes) = write_big_session(args.seed, mb, &out, false)?;
        println!("big session: {} ({})", path.display(), human(bytes));
        files += 1;
        total += bytes;
    }
    if let Some(mb) = args.linear_session {
        let (path, bytes) = write_big_session(args.seed, mb, &out, true)?;
        println!("linear session: {} ({})", path.display(), human(bytes));
        files += 1;
        total += bytes;
    }

    sizes.sort_unstable();
    let pct = |q: f64| {
        sizes
            .get(((sizes.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    let atomic = plans.iter().filter(|p| p.agent == Agent::Atomic).count();
    println!(
        "wrote {files} files ({} pi, {atomic} atomic, {} session folders across both roots) to {}",
        plans.len() - atomic,
        dirs.len(),
        out.display()
    );
    println!(
        "total {} | per session: median {} p90 {} p99 {} max {} | elapsed {:.2?}",
        human(total),
        human(pct(0.5)),
        human(pct(0.9)),
        human(pct(0.99)),
        human(sizes.last().copied().unwrap_or(0)),
        started.elapsed()
    );
    Ok(())
}
