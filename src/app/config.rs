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
//! [picker]
//! enter = "view"     # what Enter does on a session: "view" (the session view) or "resume"
//!
//! [keys]             # action = key or [keys]; see the help overlay (F1) for action names
//! rename = "alt+r"
//! resume = ["ctrl+o", "alt+enter"]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::context::Dialect;
use crate::storage::fsutil::{SMALL_FILE_CAP, SmallFileError, read_regular_file_capped};

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
    #[serde(default)]
    picker: RawPicker,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct RawPicker {
    enter: Option<EnterAction>,
    columns: Option<Vec<String>>,
    families: Option<String>,
}

/// What Enter does on a session in the picker (`[picker] enter`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EnterAction {
    /// Open the session view (the default).
    #[default]
    View,
    /// Resume the session in its agent, as pi's `/resume` does.
    Resume,
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
    /// `[picker] enter`.
    pub enter: EnterAction,
    /// `[picker] columns`: the row columns by name (`None`: the defaults), checked by
    /// [`super::columns::resolve`].
    pub columns: Option<Vec<String>>,
    /// `[picker] families`: `"folded"` (the default) or `"unfolded"`, checked in `launch`.
    pub families: Option<String>,
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
            enter: EnterAction::View,
            columns: None,
            families: None,
        }
    }
}

/// Why the config could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not a regular file, too large, or unreadable.
    #[error(transparent)]
    Read(#[from] SmallFileError),
    #[error("not UTF-8 text, so not read: {}", .path.display())]
    NotText { path: PathBuf },
    /// A TOML syntax error or an unknown section or key; `line` and `column` count from 1.
    #[error("{}", parse_message(.message, *.location, .path))]
    Parse {
        path: PathBuf,
        location: Option<(usize, usize)>,
        message: String,
    },
}

fn parse_message(message: &str, location: Option<(usize, usize)>, path: &Path) -> String {
    let message = message.trim_end_matches('\n').trim();
    match location {
        Some((line, column)) => format!(
            "line {line}, column {column}: {message} (in {})",
            path.display()
        ),
        None => format!("{message} (in {})", path.display()),
    }
}

/// A TOML error's position as line and column (both from 1, the column in characters).
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
    (line, column)
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

    /// Loads the config, falling back to the defaults when it cannot be used: grove still
    /// starts, and the problems (with line and column for a TOML error) are returned for the
    /// browser to show.
    pub fn load_reporting() -> (Config, Vec<String>) {
        match Self::load() {
            Ok(c) => (c, Vec::new()),
            Err(e) => (
                Config::default(),
                vec![format!("the config is not used: {e}; using the defaults")],
            ),
        }
    }

    /// Reads the config at `path`: a regular file of at most [`SMALL_FILE_CAP`] bytes (a FIFO
    /// or a device is refused, never waited on); a missing file is the defaults.
    pub fn load_from(path: &Path) -> Result<Config, ConfigError> {
        let Some(bytes) = read_regular_file_capped(path, SMALL_FILE_CAP)? else {
            return Ok(Config::default());
        };
        let text = String::from_utf8(bytes).map_err(|_| ConfigError::NotText {
            path: path.to_path_buf(),
        })?;
        toml::from_str::<RawConfig>(&text)
            .map(Config::from_raw)
            .map_err(|e| ConfigError::Parse {
                path: path.to_path_buf(),
                location: e.span().map(|span| line_column(&text, span.start)),
                message: e.message().to_owned(),
            })
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| e.message().to_owned())?;
        Ok(Config::from_raw(raw))
    }

    fn from_raw(raw: RawConfig) -> Config {
        let defaults = Config::default();
        Config {
            theme: raw.theme,
            pi_command: raw.agents.pi.unwrap_or(defaults.pi_command),
            atomic_command: raw.agents.atomic.unwrap_or(defaults.atomic_command),
            keys: raw
                .keys
                .into_iter()
                .map(|(k, v)| (k, v.into_vec()))
                .collect(),
            mouse: raw.mouse.unwrap_or(true),
            enter: raw.picker.enter.unwrap_or_default(),
            columns: raw.picker.columns,
            families: raw.picker.families,
        }
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
        let c = Config::parse("[picker]\ncolumns = [\"cost\", \"outcome\"]").unwrap();
        assert_eq!(
            c.columns,
            Some(vec!["cost".to_owned(), "outcome".to_owned()])
        );
        assert!(Config::parse("[picker]\nrows = 3").is_err());
        assert!(Config::parse("[nope]\nx = 1").is_err());
    }

    #[test]
    fn a_syntax_error_names_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "[theme]\naccent = \"blue\"\n\n[keys]\nrename = = 1\n",
        )
        .unwrap();
        let e = Config::load_from(&path).unwrap_err();
        assert!(
            matches!(
                e,
                ConfigError::Parse {
                    location: Some((5, 10)),
                    ..
                }
            ),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(text.starts_with("line 5, column 10: "), "{text}");
        assert!(
            text.ends_with(&format!("(in {})", path.display())),
            "{text}"
        );
        std::fs::write(&path, "[nope]\nx = 1\n").unwrap();
        let e = Config::load_from(&path).unwrap_err().to_string();
        assert!(
            e.starts_with("line 1, column 2: unknown field `nope`"),
            "{e}"
        );
    }

    #[test]
    fn only_small_regular_files_are_read() {
        let e = Config::load_from(Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(e, ConfigError::Read(SmallFileError::NotRegular { .. })),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.toml");
        std::fs::write(&big, "#".repeat(SMALL_FILE_CAP as usize + 1)).unwrap();
        let e = Config::load_from(&big).unwrap_err();
        assert!(
            matches!(e, ConfigError::Read(SmallFileError::TooLarge { .. })),
            "{e}"
        );
        assert!(Config::load_from(dir.path()).is_err());
    }

    #[test]
    fn picker_enter_is_view_or_resume_and_anything_else_is_reported() {
        assert_eq!(Config::default().enter, EnterAction::View);
        let c = Config::parse("[picker]\nenter = \"resume\"").unwrap();
        assert_eq!(c.enter, EnterAction::Resume);
        assert_eq!(
            Config::parse("[picker]\nenter = \"view\"").unwrap().enter,
            EnterAction::View
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[picker]\nenter = \"open\"\n").unwrap();
        let e = Config::load_from(&path).unwrap_err().to_string();
        assert!(e.starts_with("line 2, column 9: "), "{e}");
        assert!(e.contains("view") && e.contains("resume"), "{e}");
        std::fs::write(&path, "[picker]\nenterr = \"view\"\n").unwrap();
        let e = Config::load_from(&path).unwrap_err().to_string();
        assert!(e.contains("unknown field `enterr`"), "{e}");
    }

    #[test]
    fn missing_file_is_default() {
        let c = Config::load_from(Path::new("/nonexistent/grove/config.toml")).unwrap();
        assert_eq!(c, Config::default());
    }
}
