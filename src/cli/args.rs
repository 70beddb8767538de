//! The options every run shares (the browser's and the subcommands'), and the value types of
//! the subcommands' arguments.

use std::io;
use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use clap::{Args, Subcommand, ValueEnum};

use crate::model::context::Dialect;
use crate::storage::roots::SessionRoot;

/// Options shared by the browser and every subcommand.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Read sessions from this folder instead of pi's and Atomic's (repeatable): a folder of
    /// per-cwd folders, as the agents keep, or a flat folder of .jsonl files. It must exist.
    #[arg(
        long = "session-dir",
        value_name = "DIR",
        global = true,
        value_parser = clap::builder::PathBufValueParser::new().try_map(existing_folder)
    )]
    pub session_dirs: Vec<PathBuf>,
    /// The agent that wrote the --session-dir folders (default: from the path, `.atomic`
    /// means Atomic, or from each file).
    #[arg(long, value_enum, global = true)]
    pub agent: Option<AgentArg>,
    /// Use the bundled demo sessions instead of yours (a temporary copy: the demo can be
    /// labelled, renamed and deleted freely; nothing of yours is read or written).
    #[arg(long, global = true)]
    pub demo: bool,
    /// Do not read or write the index cache (every file is read again).
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Browser: start with the sessions of every folder, not just the current one.
    #[arg(long)]
    pub all: bool,
    /// Browser: act as a picker for scripts: Enter prints the chosen session's path and
    /// exits 0, Esc exits 1.
    #[arg(long)]
    pub print: bool,
}

/// `--session-dir`'s check: a folder that exists (a mistyped one is a usage error, exit 2,
/// not an empty list).
fn existing_folder(path: PathBuf) -> Result<PathBuf, String> {
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => Ok(path),
        Ok(_) => Err("not a folder".to_owned()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err("no such folder".to_owned()),
        Err(e) => Err(format!("cannot read it: {e}")),
    }
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AgentArg {
    /// pi (the coding agent).
    Pi,
    /// Atomic (pi's fork with workflows).
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

#[derive(Debug, Clone, Subcommand)]
pub enum CacheAction {
    /// Remove the index cache (it is rebuilt on the next run; sessions are not touched).
    Clear {
        /// Print JSON (`{"removed": PATH or null}`) instead of a sentence.
        #[arg(long)]
        json: bool,
    },
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

    /// Whether to bypass the index cache: asked for, or the demo (a fresh temp copy each run:
    /// caching it would only leave stale rows).
    pub fn skip_cache(&self) -> bool {
        self.no_cache || self.demo
    }
}
