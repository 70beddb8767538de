//! Footer key hints, from the key map: as many whole hints as fit (never one cut mid-word),
//! help always last.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::{Action, KeyContext, Keymap};
use crate::ui::theme::Theme;

/// The key hints of a layer, with some hint words replaced (`(Action::Open, "print")`);
/// the replaced ones, being about the state on screen, come first.
pub(crate) fn footer_line(
    keymap: &Keymap,
    context: KeyContext,
    t: &Theme,
    width: u16,
    words: &[(Action, &'static str)],
) -> Line<'static> {
    let (mut first, rest): (Vec<_>, Vec<_>) = keymap
        .hints(context)
        .into_iter()
        .map(
            |(key, action, hint)| match words.iter().find(|(a, _)| *a == action) {
                Some((_, w)) => (true, (key, (*w).to_owned())),
                None => (false, (key, hint.to_owned())),
            },
        )
        .partition(|(replaced, _)| *replaced);
    first.extend(rest);
    hints_line(first.into_iter().map(|(_, h)| h).collect(), t, width)
}

/// `key word` pairs separated by ` · `, as many as fit in `width`, the `help` one last.
pub(crate) fn hints_line(hints: Vec<(String, String)>, t: &Theme, width: u16) -> Line<'static> {
    let (help, rest): (Vec<_>, Vec<_>) = hints.into_iter().partition(|(_, h)| h == "help");
    let w_of = |(k, h): &(String, String)| k.width() + h.width() + 1;
    let sep = 3;
    let mut budget = width as usize;
    let help = help.into_iter().next().filter(|h| w_of(h) <= budget);
    if let Some(h) = &help {
        budget -= w_of(h);
    }
    let mut shown = Vec::new();
    for h in rest {
        let need = w_of(&h) + sep;
        if need > budget {
            break;
        }
        budget -= need;
        shown.push(h);
    }
    shown.extend(help);
    let mut spans = Vec::new();
    for (i, (key, hint)) in shown.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", t.border));
        }
        spans.push(Span::styled(key, t.accent));
        spans.push(Span::styled(format!(" {hint}"), t.muted));
    }
    Line::from(spans)
}
