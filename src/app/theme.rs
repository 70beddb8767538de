//! The theme's data: which colour each role gets, the config's `[theme]` overrides, and
//! `NO_COLOR`. The views turn it into styles (`ui::theme`); nothing here draws.

use std::collections::BTreeMap;
use std::str::FromStr;

use ratatui::style::Color;

/// Every colour a view draws with, by the name the config file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThemeKey {
    Accent,
    Muted,
    Named,
    Error,
    Warning,
    Ok,
    SelectedBg,
    SelectedFg,
    Matched,
    Border,
    User,
    Assistant,
    Tool,
    Custom,
    Compaction,
    Thinking,
    ToolCall,
    Output,
    HitBg,
    HitFg,
}

impl ThemeKey {
    pub const ALL: [ThemeKey; 20] = [
        ThemeKey::Accent,
        ThemeKey::Muted,
        ThemeKey::Named,
        ThemeKey::Error,
        ThemeKey::Warning,
        ThemeKey::Ok,
        ThemeKey::SelectedBg,
        ThemeKey::SelectedFg,
        ThemeKey::Matched,
        ThemeKey::Border,
        ThemeKey::User,
        ThemeKey::Assistant,
        ThemeKey::Tool,
        ThemeKey::Custom,
        ThemeKey::Compaction,
        ThemeKey::Thinking,
        ThemeKey::ToolCall,
        ThemeKey::Output,
        ThemeKey::HitBg,
        ThemeKey::HitFg,
    ];

    /// `(config name, default, what it colours)`.
    pub fn info(self) -> (&'static str, Color, &'static str) {
        use Color as C;
        match self {
            ThemeKey::Accent => (
                "accent",
                C::Cyan,
                "titles, key names, the cursor, the active scope, focused pane borders",
            ),
            ThemeKey::Muted => (
                "muted",
                C::DarkGray,
                "secondary text: hints, counts, ages, tree lines",
            ),
            ThemeKey::Named => ("named", C::Yellow, "named sessions and labels"),
            ThemeKey::Error => (
                "error",
                C::Red,
                "errors, failed tool results, a row being deleted",
            ),
            ThemeKey::Warning => ("warning", C::Yellow, "warnings (a session that looks live)"),
            ThemeKey::Ok => ("ok", C::Green, "success messages"),
            ThemeKey::SelectedBg => (
                "selected_bg",
                C::Indexed(236),
                "the selected row's background",
            ),
            ThemeKey::SelectedFg => (
                "selected_fg",
                C::Reset,
                "the selected row's text (default: unchanged)",
            ),
            ThemeKey::Matched => (
                "matched",
                C::LightMagenta,
                "characters that matched the search",
            ),
            ThemeKey::Border => ("border", C::DarkGray, "borders and rules"),
            ThemeKey::User => ("user", C::Cyan, "user messages in the tree and transcript"),
            ThemeKey::Assistant => (
                "assistant",
                C::Green,
                "assistant messages in the tree and transcript",
            ),
            ThemeKey::Tool => ("tool", C::Blue, "tool results in the transcript"),
            ThemeKey::Custom => (
                "custom",
                C::Magenta,
                "custom, summary and other entries in the tree and transcript",
            ),
            ThemeKey::Compaction => ("compaction", C::Blue, "compactions in the tree"),
            ThemeKey::Thinking => ("thinking", C::DarkGray, "thinking blocks in the transcript"),
            ThemeKey::ToolCall => ("tool_call", C::Yellow, "tool calls in the transcript"),
            ThemeKey::Output => ("output", C::Gray, "tool output in the transcript"),
            ThemeKey::HitBg => ("hit_bg", C::Yellow, "a transcript search hit's background"),
            ThemeKey::HitFg => ("hit_fg", C::Black, "a transcript search hit's text"),
        }
    }

    pub fn name(self) -> &'static str {
        self.info().0
    }

    pub fn from_name(name: &str) -> Option<ThemeKey> {
        ThemeKey::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// The colour of every [`ThemeKey`], and whether colours are used at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    colors: [Color; ThemeKey::ALL.len()],
    /// False under `NO_COLOR`: the views keep only bold / reverse / underline.
    pub color: bool,
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            colors: ThemeKey::ALL.map(|k| k.info().1),
            color: true,
        }
    }
}

impl Palette {
    /// No colours at all: for `NO_COLOR`.
    pub fn monochrome() -> Self {
        Palette {
            color: false,
            ..Palette::default()
        }
    }

    pub fn get(&self, key: ThemeKey) -> Color {
        self.colors[key as usize]
    }

    pub fn set(&mut self, key: ThemeKey, color: Color) {
        self.colors[key as usize] = color;
    }

    /// The palette for this process: monochrome when `no_color`, else the defaults with the
    /// config's overrides; returns the problems with the overrides.
    pub fn resolve(no_color: bool, overrides: &BTreeMap<String, String>) -> (Palette, Vec<String>) {
        if no_color {
            return (Palette::monochrome(), Vec::new());
        }
        let mut p = Palette::default();
        let problems = p.apply_overrides(overrides);
        (p, problems)
    }

    /// Sets colours from `name → colour` pairs (`accent = "#89b4fa"`, `selected_bg = "236"`).
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, String>) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value) in overrides {
            let Some(key) = ThemeKey::from_name(name) else {
                problems.push(format!("[theme] unknown colour name `{name}`"));
                continue;
            };
            match Color::from_str(value.trim()) {
                Ok(c) => self.set(key, c),
                Err(_) => problems.push(format!("[theme] {name}: unknown colour `{value}`")),
            }
        }
        problems
    }
}

/// The `[theme]` keys as a Markdown table (the README's is this text).
pub fn markdown() -> String {
    let mut out = String::from("| `[theme]` key | default | colours |\n|---|---|---|\n");
    for k in ThemeKey::ALL {
        let (name, default, what) = k.info();
        let default = match default {
            Color::Reset => "(terminal's)".to_owned(),
            Color::Indexed(n) => format!("`{n}`"),
            c => format!("`{}`", format!("{c:?}").to_lowercase()),
        };
        out.push_str(&format!("| `{name}` | {default} | {what} |\n"));
    }
    out
}

/// `NO_COLOR` as specified at no-color.org: set and not empty.
pub(crate) fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_no_color() {
        let (p, problems) = Palette::resolve(
            false,
            &BTreeMap::from([
                ("accent".to_owned(), "#112233".to_owned()),
                ("nope".to_owned(), "red".to_owned()),
                ("muted".to_owned(), "not-a-colour".to_owned()),
                ("tool_call".to_owned(), "blue".to_owned()),
            ]),
        );
        assert_eq!(p.get(ThemeKey::Accent), Color::Rgb(0x11, 0x22, 0x33));
        assert_eq!(p.get(ThemeKey::ToolCall), Color::Blue);
        assert_eq!(problems.len(), 2);
        assert!(!Palette::resolve(true, &BTreeMap::new()).0.color);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ThemeKey::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ThemeKey::ALL.len());
    }
}
