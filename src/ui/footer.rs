//! Footer key hints, from the key map: as many whole hints as fit, help always last.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::{KeyContext, Keymap};
use crate::ui::theme::Theme;

/// The key hints of a context, as many as fit, with help always last.
pub fn footer_line(keymap: &Keymap, context: KeyContext, t: &Theme, width: u16) -> Line<'static> {
    let hints = keymap.hints(context);
    let (help, rest): (Vec<_>, Vec<_>) = hints.into_iter().partition(|(_, h)| *h == "help");
    let mut spans = Vec::new();
    let mut used = 0;
    let help_w = help.first().map_or(0, |(k, h)| k.width() + h.width() + 4);
    for (key, hint) in rest {
        let w = key.width() + hint.width() + 4;
        if used + w + help_w > width as usize {
            break;
        }
        spans.push(Span::styled(key, t.accent));
        spans.push(Span::styled(format!(" {hint}"), t.muted));
        spans.push(Span::styled(" · ", t.border));
        used += w;
    }
    if let Some((key, hint)) = help.into_iter().next() {
        spans.push(Span::styled(key, t.accent));
        spans.push(Span::styled(format!(" {hint}"), t.muted));
    } else {
        spans.pop();
    }
    Line::from(spans)
}
