//! The start-up notice: problems found while reading the config and the agents' settings (a
//! TOML error with its line and column, a conflicting or unknown key, an unusable colour, a
//! settings file that is not a regular file), shown over the screen until dismissed. grove
//! runs with the defaults for whatever could not be used.

/// A notice over the screen; keys go to it first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub title: String,
    /// One problem per entry (unsanitized: drawn through the sanitizer).
    pub problems: Vec<String>,
    /// Lines scrolled down.
    pub scroll: u16,
}

impl Notice {
    /// The notice for the problems found at start, if there are any.
    pub fn config_problems(problems: Vec<String>) -> Option<Notice> {
        (!problems.is_empty()).then(|| Notice {
            title: if problems.len() == 1 {
                "Config problem".to_owned()
            } else {
                format!("{} config problems", problems.len())
            },
            problems,
            scroll: 0,
        })
    }
}

/// The keys that close the notice, as its footer shows them.
pub const DISMISS_HINT: &str = "esc/enter dismiss · ↑↓ scroll";
