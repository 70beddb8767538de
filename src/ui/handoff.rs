//! The hand-off popup ([`crate::app::handoff`]): what each key copies or opens, with the value
//! it copies shown, so a key acts only on what the user can see.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::app::format::{one_line, shorten_home, truncate_left};
use crate::app::handoff::{HandoffMenu, offers};
use crate::app::keymap::{Action, KeyContext};
use crate::app::state::AppState;
use crate::ui::theme::Theme;

/// One choice: its action, what it does, and the value it copies (or why it cannot).
struct Choice {
    action: Action,
    what: &'static str,
    value: Option<Result<String, String>>,
    /// Paths read best from the end.
    keep_end: bool,
}

fn choices(m: &HandoffMenu, home: Option<&str>) -> (Vec<Choice>, Vec<Choice>) {
    let shown = |r: &Result<String, String>, short: bool| match r {
        Ok(v) if short => Ok(shorten_home(v, home).into_owned()),
        Ok(v) => Ok(v.clone()),
        Err(e) => Err(e.clone()),
    };
    let text = if m.in_view() {
        "the entry text"
    } else {
        "the first message"
    };
    let copy = vec![
        Choice {
            action: Action::CopyText,
            what: text,
            value: None,
            keep_end: false,
        },
        Choice {
            action: Action::CopyId,
            what: "the session id",
            value: Some(shown(&m.session_id, false)),
            keep_end: false,
        },
        Choice {
            action: Action::CopyPath,
            what: "the file path",
            value: Some(shown(&m.path, true)),
            keep_end: true,
        },
        Choice {
            action: Action::CopyResume,
            what: "the resume command",
            value: Some(shown(&m.resume, false)),
            keep_end: false,
        },
    ];
    let open = [
        (Action::PagerEntry, "the entry in $PAGER"),
        (Action::PagerBranch, "the branch's transcript in $PAGER"),
        (Action::EditorEntry, "a copy of the entry in $EDITOR"),
        (Action::EditorBranch, "a copy of the branch in $EDITOR"),
    ]
    .into_iter()
    .filter(|(a, _)| offers(m, *a))
    .map(|(action, what)| Choice {
        action,
        what,
        value: None,
        keep_end: false,
    })
    .collect();
    (copy, open)
}

/// Draws the popup, centred.
pub(crate) fn draw_handoff(frame: &mut Frame, area: Rect, state: &AppState, m: &HandoffMenu) {
    let t = Theme::of(state);
    let km = &state.keymap;
    let home = state.options.home.as_deref();
    let width = area.width.saturating_sub(4).clamp(20, 96);
    let inner_w = width.saturating_sub(4) as usize;
    let (copy, open) = choices(m, home);
    let key_of = |a: Action| km.key_label(KeyContext::Handoff, a);
    let key_w = copy
        .iter()
        .chain(&open)
        .map(|c| key_of(c.action).width())
        .max()
        .unwrap_or(1);
    let what_w = copy.iter().map(|c| c.what.width()).max().unwrap_or(0);
    let row = |c: &Choice| -> Line<'static> {
        let key = format!("{:<key_w$}  ", key_of(c.action));
        let mut spans = vec![Span::styled(key, t.accent.add_modifier(Modifier::BOLD))];
        match &c.value {
            None => spans.push(Span::raw(c.what)),
            Some(v) => {
                spans.push(Span::raw(format!("{:<what_w$}  ", c.what)));
                let room = inner_w.saturating_sub(key_w + 2 + what_w + 2);
                match v {
                    Ok(v) if c.keep_end => spans.push(Span::styled(
                        truncate_left(&one_line(v, usize::MAX), room).into_owned(),
                        t.muted,
                    )),
                    Ok(v) => spans.push(Span::styled(one_line(v, room), t.muted)),
                    Err(e) => spans.push(Span::styled(
                        one_line(&format!("unavailable: {e}"), room),
                        t.warning,
                    )),
                }
            }
        }
        Line::from(spans)
    };
    let mut lines = vec![
        Line::styled(
            one_line(&m.subject, inner_w),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::raw(""),
        Line::styled("Copy", t.accent),
    ];
    lines.extend(copy.iter().map(row));
    if !open.is_empty() {
        lines.push(Line::styled("Open", t.accent));
        lines.extend(open.iter().map(row));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled(km.keys_label(KeyContext::Handoff, Action::Cancel), t.accent),
        Span::styled(" cancel", t.muted),
    ]));
    let height = (lines.len() as u16 + 2).min(area.height);
    let w = width.min(area.width);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - height) / 2,
        w,
        height,
    );
    frame.render_widget(Clear, rect);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(t.accent)
        .title(Span::styled(
            " Copy or open ",
            t.accent.add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    );
    frame.render_widget(Paragraph::new(lines), inner);
}
