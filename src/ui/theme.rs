//! Styles: the app's colour choices ([`Palette`]) turned into ratatui styles. Defaults suit
//! dark and light terminals (named ANSI colours, so the terminal's own palette decides);
//! `NO_COLOR` keeps only bold / italic / reverse so every state stays distinguishable.

use ratatui::style::{Color, Modifier, Style};

use crate::app::state::AppState;
use crate::app::theme::{Palette, ThemeKey as K};

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
    /// Tree and transcript roles.
    pub user: Style,
    pub assistant: Style,
    pub tool: Style,
    pub custom: Style,
    pub compaction: Style,
    pub thinking: Style,
    pub tool_call: Style,
    pub output: Style,
    /// A transcript search hit.
    pub hit: Style,
    /// Whether colours are in use (false under `NO_COLOR`).
    pub color: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Theme::from_palette(&Palette::default())
    }
}

impl Theme {
    /// The styles of a palette; without colours, the modifiers alone tell states apart.
    pub fn from_palette(p: &Palette) -> Theme {
        if !p.color {
            return Theme::monochrome();
        }
        let fg = |k: K| Style::new().fg(p.get(k));
        let mut selected = Style::new()
            .bg(p.get(K::SelectedBg))
            .add_modifier(Modifier::BOLD);
        if p.get(K::SelectedFg) != Color::Reset {
            selected = selected.fg(p.get(K::SelectedFg));
        }
        Theme {
            accent: fg(K::Accent),
            muted: fg(K::Muted),
            named: fg(K::Named),
            error: fg(K::Error),
            warning: fg(K::Warning).add_modifier(Modifier::BOLD),
            ok: fg(K::Ok),
            selected,
            matched: fg(K::Matched).add_modifier(Modifier::BOLD),
            border: fg(K::Border),
            user: fg(K::User),
            assistant: fg(K::Assistant),
            tool: fg(K::Tool),
            custom: fg(K::Custom),
            compaction: fg(K::Compaction),
            thinking: fg(K::Thinking).add_modifier(Modifier::ITALIC),
            tool_call: fg(K::ToolCall),
            output: fg(K::Output),
            hit: Style::new().bg(p.get(K::HitBg)).fg(p.get(K::HitFg)),
            color: true,
        }
    }

    /// The styles of the app's palette.
    pub fn of(state: &AppState) -> Theme {
        Theme::from_palette(&state.palette)
    }

    /// No colours at all, only bold, italic and reverse: for `NO_COLOR` and dumb terminals.
    pub fn monochrome() -> Self {
        let plain = Style::new();
        Theme {
            accent: Style::new().add_modifier(Modifier::BOLD),
            muted: plain,
            named: Style::new().add_modifier(Modifier::ITALIC),
            error: Style::new().add_modifier(Modifier::BOLD),
            warning: Style::new().add_modifier(Modifier::BOLD),
            ok: Style::new().add_modifier(Modifier::BOLD),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            matched: Style::new().add_modifier(Modifier::BOLD),
            border: plain,
            user: plain,
            assistant: plain,
            tool: plain,
            custom: plain,
            compaction: plain,
            thinking: Style::new().add_modifier(Modifier::ITALIC),
            tool_call: plain,
            output: plain,
            hit: Style::new().add_modifier(Modifier::REVERSED),
            color: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_becomes_styles() {
        let mut p = Palette::default();
        p.set(K::ToolCall, Color::Rgb(1, 2, 3));
        let t = Theme::from_palette(&p);
        assert_eq!(t.tool_call.fg, Some(Color::Rgb(1, 2, 3)));
        assert_eq!(t.selected.fg, None);
        let mono = Theme::from_palette(&Palette::monochrome());
        assert!(!mono.color);
        assert_eq!(mono.accent.fg, None);
    }
}
