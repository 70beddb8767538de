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
    hints_line(footer_hints(keymap, context, words), t, width)
}

/// The hints [`footer_line`] shows, before fitting; an action without a hint word of its own
/// (dismiss) is shown when `words` names it.
pub(crate) fn footer_hints(
    keymap: &Keymap,
    context: KeyContext,
    words: &[(Action, &'static str)],
) -> Vec<(String, String)> {
    let mut hints = keymap.hints(context);
    for (action, word) in words {
        if !hints.iter().any(|(_, a, _)| a == action) {
            let key = keymap.key_label(context, *action);
            if !key.is_empty() {
                hints.insert(0, (key, *action, word));
            }
        }
    }
    let (mut first, rest): (Vec<_>, Vec<_>) = hints
        .into_iter()
        .map(
            |(key, action, hint)| match words.iter().find(|(a, _)| *a == action) {
                Some((_, w)) => (true, (key, (*w).to_owned())),
                None => (false, (key, hint.to_owned())),
            },
        )
        .partition(|(replaced, _)| *replaced);
    first.extend(rest);
    first.into_iter().map(|(_, h)| h).collect()
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
