//! What the browser starts from: the command-line choices it needs (so the runtime does not
//! depend on the CLI), and the key map and palette made from the config, with every problem
//! found in it.

use std::io;
use std::path::PathBuf;

use crate::model::context::Dialect;
use crate::storage::roots::{ProcessEnv, SessionRoot, custom_roots, default_roots};

use super::config::Config;
use super::keymap::Keymap;
use super::theme::Palette;

/// The browser's command-line options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrowserArgs {
    /// `--session-dir`: scan these folders instead of the default roots.
    pub session_dirs: Vec<PathBuf>,
    /// `--agent`: the agent of the `--session-dir` folders.
    pub agent: Option<Dialect>,
    /// `--demo`: the bundled demo sessions.
    pub demo: bool,
    /// `--no-cache`: do not read or write the index cache.
    pub no_cache: bool,
    /// `--all`: start with every folder's sessions.
    pub all: bool,
    /// `--print`: Enter prints the chosen path.
    pub print: bool,
}

impl BrowserArgs {
    /// The session folders to scan.
    pub fn roots(&self) -> io::Result<Vec<SessionRoot>> {
        resolve_roots(&self.session_dirs, self.agent, self.demo)
    }
}

/// The session folders for the options: the demo's, the given ones, or the agents' defaults.
pub(crate) fn resolve_roots(
    session_dirs: &[PathBuf],
    agent: Option<Dialect>,
    demo: bool,
) -> io::Result<Vec<SessionRoot>> {
    if demo {
        return crate::storage::demo::demo_roots();
    }
    if !session_dirs.is_empty() {
        return Ok(custom_roots(session_dirs, agent));
    }
    Ok(default_roots(&ProcessEnv))
}

/// The key map and palette of a config, and what could not be applied.
#[derive(Clone, Debug)]
pub struct Setup {
    pub keymap: Keymap,
    pub palette: Palette,
    /// One message per problem with `[keys]` or `[theme]` (unknown names, bad keys or
    /// colours, conflicting bindings), for the start-up notice.
    pub problems: Vec<String>,
    /// The row columns of `[picker] columns`.
    pub columns: Vec<super::columns::Column>,
    /// `[picker] families` (`"folded"`, the default, or `"unfolded"`): families start folded.
    pub families_folded: bool,
}

impl Setup {
    pub(crate) fn from_config(config: &Config, no_color: bool) -> Setup {
        let mut keymap = Keymap::default();
        let mut problems = keymap.apply_overrides(&config.keys);
        let (palette, theme_problems) = Palette::resolve(no_color, &config.theme);
        problems.extend(theme_problems);
        let (columns, column_problems) = super::columns::resolve(config.columns.as_deref());
        problems.extend(column_problems);
        let families_folded = super::families::parse_config(config.families.as_deref())
            .unwrap_or_else(|problem| {
                problems.push(problem);
                true
            });
        Setup {
            keymap,
            palette,
            problems,
            columns,
            families_folded,
        }
    }
}

/// The problems of a config's `[keys]` and `[theme]` (what [`Setup::problems`] holds).
pub fn config_problems(config: &Config) -> Vec<String> {
    Setup::from_config(config, false).problems
}
