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

/// Spans cut to `width` columns, ending with `…` when something was cut (the `…` takes the
/// last column).
pub(crate) fn fit_spans(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    use unicode_width::UnicodeWidthStr;
    let total: usize = spans.iter().map(|s| s.content.width()).sum();
    if total <= width {
        return spans;
    }
    let mut room = width.saturating_sub(1);
    let mut out = Vec::with_capacity(spans.len());
    let mut last_style = Style::new();
    for s in spans {
        if room == 0 {
            break;
        }
        last_style = s.style;
        let w = s.content.width();
        if w <= room {
            room -= w;
            out.push(s);
            continue;
        }
        let mut kept = String::new();
        for c in s.content.chars() {
            let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if cw > room {
                break;
            }
            room -= cw;
            kept.push(c);
        }
        out.push(Span::styled(kept, s.style));
        room = 0;
    }
    if width > 0 {
        out.push(Span::styled("…", last_style));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn cut_rows_end_with_an_ellipsis() {
        let spans = || vec![Span::raw("ab"), Span::raw("漢字cd")];
        assert_eq!(text(&fit_spans(spans(), 8)), "ab漢字cd");
        assert_eq!(text(&fit_spans(spans(), 7)), "ab漢字…");
        assert_eq!(text(&fit_spans(spans(), 4)), "ab…");
        assert_eq!(text(&fit_spans(spans(), 1)), "…");
        assert_eq!(text(&fit_spans(spans(), 0)), "");
    }
}
