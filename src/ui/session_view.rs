//! The session view: header, tree pane, transcript pane, footer, dialogs and help. Pure: it
//! draws `&SessionViewState` and changes nothing.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::app::format::truncate_left;
use crate::app::keymap::{Action, KeyContext, Keymap};
use crate::app::session_view::{Mode, SessionViewState, layout_with, view_context};
use crate::app::text_input::TextInput;
use crate::text::sanitize::{sanitize_line, truncate_width};
use crate::ui::footer::{footer_line, hints_line};
use crate::ui::theme::Theme;
use crate::ui::transcript_pane::draw_transcript_pane;
use crate::ui::tree_pane::draw_tree_pane;

/// Draws the whole session view into `area`.
pub fn draw_session_view(
    frame: &mut Frame,
    area: Rect,
    state: &SessionViewState,
    theme: &Theme,
    keymap: &Keymap,
) {
    let input_hint = |ok: &str| {
        format!(
            "{} {ok} · {} cancel",
            keymap.key_label(KeyContext::Input, Action::Confirm),
            keymap.key_label(KeyContext::Input, Action::Cancel)
        )
    };
    let confirm_hint = |yes: &str, no: &str| {
        format!(
            "{} {yes} · {} {no}",
            keymap.keys_label(KeyContext::Confirm, Action::Yes),
            keymap.keys_label(KeyContext::Confirm, Action::No)
        )
    };
    let l = layout_with(area, state.panes, state.focus);
    draw_header(frame, l.header, state, theme);
    // A pane hidden by the zoom has no area.
    if !l.tree.is_empty() {
        draw_tree_pane(frame, l.tree, state, theme);
    }
    if !l.transcript.is_empty() {
        draw_transcript_pane(frame, l.transcript, state, theme);
    }
    draw_footer(frame, l.footer, state, theme, keymap);
    match &state.mode {
        Mode::Label { target, input } => {
            let entry = state.entry_line(*target);
            draw_input_dialog(
                frame,
                area,
                " Label ",
                &[
                    Line::styled(
                        truncate_width(&entry, input_inner_width(area)).into_owned(),
                        theme.muted,
                    ),
                    Line::raw("Label (empty to remove):"),
                ],
                input,
                &input_hint("save"),
                theme,
            );
        }
        Mode::ExportName(input) => draw_input_dialog(
            frame,
            area,
            " Export branch ",
            &[Line::raw(
                "Folder and file name (Markdown; .html for a web page):",
            )],
            input,
            &input_hint("export"),
            theme,
        ),
        Mode::ConfirmOverwrite { file } => {
            let name = sanitize_line(&file.to_string_lossy()).into_owned();
            draw_confirm(
                frame,
                area,
                " File exists ",
                vec![
                    Line::raw(format!("{name} already exists.")),
                    Line::raw("Replace it?"),
                ],
                &confirm_hint("replace", "choose another name"),
                theme,
            );
        }
        Mode::ConfirmCheckout {
            target,
            resumes_after,
        } => {
            let w = confirm_inner_width(area);
            let mut lines = vec![
                Line::raw("Make this the session's leaf on disk?"),
                Line::styled(
                    truncate_width(&state.entry_line(*target), w).into_owned(),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Line::raw(""),
            ];
            match resumes_after {
                Some(after) if after != target => {
                    lines.push(Line::raw(
                        "A user message goes back to the editor, so resuming continues after:",
                    ));
                    lines.push(Line::styled(
                        truncate_width(&state.entry_line(*after), w).into_owned(),
                        theme.muted,
                    ));
                }
                Some(_) => lines.push(Line::raw(
                    "Resuming the session in its agent continues from this entry.",
                )),
                None => lines.push(Line::raw(
                    "This is the first message: resuming starts an empty conversation.",
                )),
            }
            let depth = resumes_after
                .map(|a| state.session.tree.path_to(a).len())
                .unwrap_or(0);
            lines.push(Line::styled(
                format!(
                    "The resumed branch holds {}. One line is appended; nothing is removed.",
                    crate::text::count::counted(depth as u64, "entry", "entries")
                ),
                theme.muted,
            ));
            draw_confirm(
                frame,
                area,
                " Check out ",
                lines,
                &confirm_hint("check out", "cancel"),
                theme,
            );
        }
        Mode::ConfirmResume(offer) => {
            let w = confirm_inner_width(area);
            let (lines, hint) =
                super::resume_offer::resume_offer_lines(state, offer, w, theme, keymap);
            let title = super::resume_offer::resume_offer_title(state);
            draw_confirm(frame, area, title, lines, &hint, theme);
        }
        Mode::Help { scroll } => draw_help(frame, area, theme, keymap, *scroll),
        Mode::Normal | Mode::TreeSearch(_) | Mode::TranscriptSearch(_) => {}
    }
}

fn draw_header(frame: &mut Frame, area: Rect, state: &SessionViewState, theme: &Theme) {
    let name = state
        .session
        .tree
        .name
        .name
        .clone()
        .or_else(|| {
            state
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let entries = state.session.entries().len();
    let mut spans = vec![
        Span::styled(
            sanitize_line(crate::text::clip::clip_to_cells(&name, area.width as usize))
                .into_owned(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(
                "  {} · {}",
                state.dialect,
                crate::text::count::counted(entries as u64, "entry", "entries")
            ),
            theme.muted,
        ),
    ];
    let issues = state.session.issues().count();
    if issues > 0 {
        spans.push(Span::styled(
            format!(" · {issues} issue{}", if issues == 1 { "" } else { "s" }),
            theme.warning,
        ));
    }
    if let Some(h) = &state.session.parsed.header
        && !h.cwd.is_empty()
    {
        // The folder's end is what tells it apart: cut from the left, or left out when fewer
        // than a few columns are free (never cut mid-word at the right edge).
        let used = Line::from(spans.clone()).width();
        let room = (area.width as usize).saturating_sub(used + 3);
        if room >= 8 {
            spans.push(Span::styled(
                format!(" · {}", truncate_left(&sanitize_line(&h.cwd), room)),
                theme.muted,
            ));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Key hints for the focused pane (or the open input) from the key map, or the status.
fn draw_footer(
    frame: &mut Frame,
    area: Rect,
    state: &SessionViewState,
    theme: &Theme,
    keymap: &Keymap,
) {
    if let Some(s) = &state.status {
        let style = if s.is_error { theme.error } else { theme.ok };
        let text = truncate_width(&sanitize_line(&s.text), area.width as usize).into_owned();
        frame.render_widget(Paragraph::new(Line::styled(text, style)), area);
        return;
    }
    let key = |c: KeyContext, a: Action| keymap.key_label(c, a);
    let line = match &state.mode {
        Mode::TreeSearch(_) => hints_line(
            vec![
                ("type".into(), "filter".into()),
                (
                    format!(
                        "{}/{}",
                        key(KeyContext::Input, Action::Up),
                        key(KeyContext::Input, Action::Down)
                    ),
                    "move".into(),
                ),
                (key(KeyContext::Input, Action::Confirm), "keep".into()),
                (key(KeyContext::Input, Action::Cancel), "clear".into()),
            ],
            theme,
            area.width,
        ),
        Mode::TranscriptSearch(_) => hints_line(
            vec![
                ("type".into(), "search".into()),
                (key(KeyContext::Input, Action::Confirm), "keep".into()),
                (key(KeyContext::Input, Action::Cancel), "clear".into()),
            ],
            theme,
            area.width,
        ),
        _ => footer_line(keymap, view_context(state), theme, area.width, &[]),
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn input_width(area: Rect) -> u16 {
    area.width.saturating_sub(4).clamp(20, 72)
}

fn input_inner_width(area: Rect) -> usize {
    input_width(area).min(area.width).saturating_sub(2) as usize
}

fn confirm_width(area: Rect) -> u16 {
    area.width.saturating_sub(4).clamp(20, 80)
}

fn confirm_inner_width(area: Rect) -> usize {
    confirm_width(area).min(area.width).saturating_sub(2) as usize
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn dialog_block<'a>(title: &'a str, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(
            title,
            Style::new().add_modifier(Modifier::BOLD),
        ))
}

fn draw_input_dialog(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    lines: &[Line<'_>],
    input: &TextInput,
    hint: &str,
    theme: &Theme,
) {
    let r = centered(area, input_width(area), lines.len() as u16 + 4);
    frame.render_widget(Clear, r);
    let block = dialog_block(title, theme);
    let inner = block.inner(r);
    frame.render_widget(block, r);
    let mut all: Vec<Line> = lines.to_vec();
    // The visible tail of the input, cursor marked.
    let (before, after) = input.split_at_cursor();
    let (before, after) = (sanitize_line(before), sanitize_line(after).into_owned());
    let room = inner.width.saturating_sub(2) as usize;
    let before = truncate_left(&before, room.saturating_sub(1)).into_owned();
    all.push(Line::from(vec![
        Span::raw("> "),
        Span::raw(before),
        Span::styled("▏", theme.accent),
        Span::raw(after),
    ]));
    all.push(Line::styled(hint.to_owned(), theme.muted));
    frame.render_widget(Paragraph::new(all), inner);
}

fn draw_confirm(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    mut lines: Vec<Line<'_>>,
    hint: &str,
    theme: &Theme,
) {
    lines.push(Line::raw(""));
    lines.push(Line::styled(hint.to_owned(), theme.accent));
    let r = centered(area, confirm_width(area), lines.len() as u16 + 2);
    frame.render_widget(Clear, r);
    let block = dialog_block(title, theme);
    let inner = block.inner(r);
    frame.render_widget(block, r);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

fn draw_help(frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap, scroll: u16) {
    crate::ui::help::draw_help_popup(
        frame,
        area,
        " Session view keys ",
        crate::ui::styled::styled_lines(crate::app::help::view_help_lines(keymap), theme),
        scroll,
        theme,
    );
}
