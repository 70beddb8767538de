//! Colours. Defaults suit dark and light terminals (named ANSI colours, so the terminal's own
//! palette decides); the config file can override each; `NO_COLOR` turns colour off and keeps
//! only bold / reverse / underline so every state stays distinguishable.

use std::collections::BTreeMap;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

/// Styles used by every view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Titles, the selection cursor, the active scope.
    pub accent: Style,
    /// Secondary text: hints, counts, ages, tree lines.
    pub muted: Style,
    /// Named sessions.
    pub named: Style,
    /// Errors and a row being deleted.
    pub error: Style,
    /// Warnings (e.g. a session that looks live).
    pub warning: Style,
    /// Success messages ("moved to trash").
    pub ok: Style,
    /// The selected row (patched over the row's own style).
    pub selected: Style,
    /// Characters that matched the query.
    pub matched: Style,
    /// Borders and separators.
    pub border: Style,
    /// Whether colours are in use (false under `NO_COLOR`).
    pub color: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            accent: Style::new().fg(Color::Cyan),
            muted: Style::new().fg(Color::DarkGray),
            named: Style::new().fg(Color::Yellow),
            error: Style::new().fg(Color::Red),
            warning: Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ok: Style::new().fg(Color::Green),
            selected: Style::new()
                .bg(Color::Indexed(236))
                .add_modifier(Modifier::BOLD),
            matched: Style::new()
                .fg(Color::LightMagenta)
                .add_modifier(Modifier::BOLD),
            border: Style::new().fg(Color::DarkGray),
            color: true,
        }
    }
}

impl Theme {
    /// No colours at all: for `NO_COLOR` and for dumb terminals.
    pub fn monochrome() -> Self {
        Theme {
            accent: Style::new().add_modifier(Modifier::BOLD),
            muted: Style::new(),
            named: Style::new().add_modifier(Modifier::ITALIC),
            error: Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            warning: Style::new().add_modifier(Modifier::BOLD),
            ok: Style::new().add_modifier(Modifier::BOLD),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            matched: Style::new().add_modifier(Modifier::UNDERLINED),
            border: Style::new(),
            color: false,
        }
    }

    /// The theme for this process: monochrome when `NO_COLOR` is set (to anything non-empty),
    /// else the defaults with the config's colour overrides.
    pub fn resolve(no_color: bool, overrides: &BTreeMap<String, String>) -> (Theme, Vec<String>) {
        if no_color {
            return (Theme::monochrome(), Vec::new());
        }
        let mut theme = Theme::default();
        let problems = theme.apply_overrides(overrides);
        (theme, problems)
    }

    /// Sets colours from `name → colour` pairs (`accent = "#89b4fa"`, `selected_bg = "236"`).
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, String>) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value) in overrides {
            let Ok(color) = Color::from_str(value.trim()) else {
                problems.push(format!("[theme] {name}: unknown colour `{value}`"));
                continue;
            };
            match name.as_str() {
                "accent" => self.accent = self.accent.fg(color),
                "muted" => self.muted = self.muted.fg(color),
                "named" => self.named = self.named.fg(color),
                "error" => self.error = self.error.fg(color),
                "warning" => self.warning = self.warning.fg(color),
                "ok" => self.ok = self.ok.fg(color),
                "selected_bg" => self.selected = self.selected.bg(color),
                "selected_fg" => self.selected = self.selected.fg(color),
                "matched" => self.matched = self.matched.fg(color),
                "border" => self.border = self.border.fg(color),
                _ => problems.push(format!("[theme] unknown colour name `{name}`")),
            }
        }
        problems
    }
}

impl Theme {
    /// A colour a view picks for its content (roles, tool rows): kept as is with colours on,
    /// reduced to its modifiers when they are off.
    pub fn paint(&self, style: Style) -> Style {
        if self.color {
            style
        } else {
            Style {
                fg: None,
                bg: None,
                ..style
            }
        }
    }
}

/// `NO_COLOR` as specified at no-color.org: set and not empty.
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_no_color() {
        let (t, p) = Theme::resolve(
            false,
            &BTreeMap::from([
                ("accent".to_owned(), "#112233".to_owned()),
                ("nope".to_owned(), "red".to_owned()),
                ("muted".to_owned(), "not-a-colour".to_owned()),
            ]),
        );
        assert_eq!(t.accent.fg, Some(Color::Rgb(0x11, 0x22, 0x33)));
        assert_eq!(p.len(), 2);
        let (mono, _) = Theme::resolve(true, &BTreeMap::new());
        assert!(!mono.color);
        assert_eq!(mono.accent.fg, None);
    }
}
