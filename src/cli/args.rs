//! The options every run shares (the browser's and the subcommands'), and the value types of
//! the subcommands' arguments.

use std::io;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::model::context::Dialect;
use crate::storage::roots::SessionRoot;

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

#[derive(Debug, Clone, Subcommand)]
pub enum CacheAction {
    /// Remove the cache.
    Clear,
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
