//! Tone-tagged lines from `app` ([`TextLine`]) turned into styled ratatui lines.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::styled::{TextLine, Tone};
use crate::ui::theme::Theme;

/// Styles tone-tagged lines.
pub(crate) fn styled_lines(lines: Vec<TextLine>, t: &Theme) -> Vec<Line<'static>> {
    lines.into_iter().map(|l| styled_line(l, t)).collect()
}

pub(crate) fn styled_line(line: TextLine, t: &Theme) -> Line<'static> {
    Line::from(
        line.spans
            .into_iter()
            .map(|(tone, text)| Span::styled(text, tone_style(tone, t)))
            .collect::<Vec<_>>(),
    )
}

pub(crate) fn tone_style(tone: Tone, t: &Theme) -> Style {
    let bold = |s: Style| s.add_modifier(Modifier::BOLD);
    match tone {
        Tone::Plain => Style::new(),
        Tone::Bold => bold(Style::new()),
        Tone::Muted => t.muted,
        Tone::MutedBold => bold(t.muted),
        Tone::Accent => t.accent,
        Tone::AccentBold => bold(t.accent),
        Tone::Ok => t.ok,
        Tone::OkBold => bold(t.ok),
        Tone::Named => t.named,
        Tone::NamedBold => bold(t.named),
        Tone::Warning => t.warning,
        Tone::Error => t.error,
        Tone::ErrorBold => bold(t.error),
        Tone::Border => t.border,
        Tone::Matched => t.matched,
    }
}
