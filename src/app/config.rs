//! The optional config file: `<config dir>/grove/config.toml` (`$XDG_CONFIG_HOME/grove` on
//! Linux), or the file named by `$GROVE_CONFIG`.
//!
//! ```toml
//! [theme]            # colours: names ("cyan"), "#rrggbb" or 0-255
//! accent = "cyan"
//! selected_bg = "236"
//!
//! [agents]           # {path} is replaced by the session file; run in the session's cwd
//! pi = "pi --session {path}"
//! atomic = "atomic --session {path}"
//!
//! [keys]             # action = key or [keys]; see the help overlay (F1) for action names
//! rename = "alt+r"
//! resume = ["ctrl+o", "alt+enter"]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::context::Dialect;

/// A key override: one key or several.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum KeyList {
    One(String),
    Many(Vec<String>),
}

impl KeyList {
    fn into_vec(self) -> Vec<String> {
        match self {
            KeyList::One(k) => vec![k],
            KeyList::Many(v) => v,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    theme: BTreeMap<String, String>,
    #[serde(default)]
    agents: RawAgents,
    #[serde(default)]
    keys: BTreeMap<String, KeyList>,
    mouse: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct RawAgents {
    pi: Option<String>,
    atomic: Option<String>,
}

/// The parsed config, with defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub theme: BTreeMap<String, String>,
    pub pi_command: String,
    pub atomic_command: String,
    pub keys: BTreeMap<String, Vec<String>>,
    /// `mouse = false`: do not capture the mouse (the terminal keeps its own selection).
    pub mouse: bool,
}

pub const DEFAULT_PI_COMMAND: &str = "pi --session {path}";
pub const DEFAULT_ATOMIC_COMMAND: &str = "atomic --session {path}";

impl Default for Config {
    fn default() -> Self {
        Config {
            theme: BTreeMap::new(),
            pi_command: DEFAULT_PI_COMMAND.to_owned(),
            atomic_command: DEFAULT_ATOMIC_COMMAND.to_owned(),
            keys: BTreeMap::new(),
            mouse: true,
        }
    }
}

/// Why the config could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
}

impl Config {
    /// Where the config file is looked for.
    pub fn path() -> Option<PathBuf> {
        if let Some(p) = std::env::var_os("GROVE_CONFIG").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(p));
        }
        directories::ProjectDirs::from("", "", "grove").map(|d| d.config_dir().join("config.toml"))
    }

    /// Loads the config; a missing file is the defaults.
    pub fn load() -> Result<Config, ConfigError> {
        match Self::path() {
            Some(p) => Self::load_from(&p),
            None => Ok(Config::default()),
        }
    }

    pub fn load_from(path: &Path) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(source) => {
                return Err(ConfigError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        Self::parse(&text).map_err(|message| ConfigError::Parse {
            path: path.to_path_buf(),
            message,
        })
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| e.message().to_owned())?;
        let defaults = Config::default();
        Ok(Config {
            theme: raw.theme,
            pi_command: raw.agents.pi.unwrap_or(defaults.pi_command),
            atomic_command: raw.agents.atomic.unwrap_or(defaults.atomic_command),
            keys: raw
                .keys
                .into_iter()
                .map(|(k, v)| (k, v.into_vec()))
                .collect(),
            mouse: raw.mouse.unwrap_or(true),
        })
    }

    /// The command line that resumes a session of `agent`, split into program and arguments.
    /// `{path}` is replaced after splitting, so paths with spaces stay one argument.
    pub fn agent_command(&self, agent: Dialect, path: &Path) -> Vec<String> {
        let template = match agent {
            Dialect::Pi => &self.pi_command,
            Dialect::Atomic => &self.atomic_command,
        };
        let path = path.to_string_lossy();
        split_command(template)
            .into_iter()
            .map(|w| w.replace("{path}", &path))
            .collect()
    }
}

/// Splits a command template on whitespace, honouring single and double quotes.
pub fn split_command(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has_word = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                has_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if has_word || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                has_word = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if has_word || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_sections() {
        let c = Config::parse(
            r#"
            [theme]
            accent = "blue"
            [agents]
            pi = "my-pi --resume '{path}' --flag"
            [keys]
            rename = "ctrl+e"
            resume = ["ctrl+o", "alt+enter"]
            "#,
        )
        .unwrap();
        assert_eq!(c.theme["accent"], "blue");
        assert_eq!(c.atomic_command, DEFAULT_ATOMIC_COMMAND);
        assert_eq!(c.keys["resume"], vec!["ctrl+o", "alt+enter"]);
        assert_eq!(
            c.agent_command(Dialect::Pi, Path::new("/a b/s.jsonl")),
            vec!["my-pi", "--resume", "/a b/s.jsonl", "--flag"]
        );
        assert!(c.mouse);
        assert!(!Config::parse("mouse = false").unwrap().mouse);
        assert!(Config::parse("[nope]\nx = 1").is_err());
    }

    #[test]
    fn missing_file_is_default() {
        let c = Config::load_from(Path::new("/nonexistent/grove/config.toml")).unwrap();
        assert_eq!(c, Config::default());
    }
}
