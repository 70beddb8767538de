//! The preview of one session: its listing fields, then the last exchanges of its active
//! branch. Shown as a pane beside the list, or full-screen after Enter (until the session view
//! replaces that).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::KeyContext;
use crate::app::state::{AppState, PreviewSlot, Screen};
use crate::model::info::SessionInfo;
use crate::ui::theme::Theme;

use super::format::{format_date, human_count, one_line, shorten_home, wrap_text};
use crate::app::layout::view_body;

/// Lines per message in the side pane (the full view shows everything).
const PANE_LINES_PER_MESSAGE: usize = 4;

fn field(label: &str, value: String, t: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<9}"), t.muted),
        Span::raw(value),
    ])
}

/// The metadata lines of a session.
fn meta_lines(
    info: &SessionInfo,
    slot: Option<&PreviewSlot>,
    t: &Theme,
    width: usize,
    home: Option<&str>,
) -> Vec<Line<'static>> {
    let value_w = width.saturating_sub(9).max(1);
    let mut lines = Vec::new();
    let title_style = if info.name.as_deref().is_some_and(|n| !n.trim().is_empty()) {
        t.named.add_modifier(Modifier::BOLD)
    } else {
        Modifier::BOLD.into()
    };
    let title = crate::text::clip::clip_to_cells(info.title(), width.saturating_mul(3));
    for l in wrap_text(title, width).into_iter().take(3) {
        lines.push(Line::styled(l, title_style));
    }
    lines.push(field(
        "cwd",
        one_line(&shorten_home(&info.cwd, home), value_w),
        t,
    ));
    let mut agent = format!("{} · v{}", info.agent, info.version);
    if let Some(w) = &info.workflow {
        agent.push_str(&format!(" · workflow stage {}", w.stage_name));
    }
    lines.push(field("agent", one_line(&agent, value_w), t));
    if let Some(c) = info.created_ms {
        lines.push(field("created", format_date(c), t));
    }
    lines.push(field("active", format_date(info.modified_ms), t));
    let counts = format!(
        "{} messages · {} entries · {} branch{} · {} label{}",
        info.message_count,
        info.entry_count,
        info.leaf_count,
        if info.leaf_count == 1 { "" } else { "es" },
        info.label_count,
        if info.label_count == 1 { "" } else { "s" },
    );
    lines.push(field("counts", one_line(&counts, value_w), t));
    if info.total_tokens > 0 || info.cost > 0.0 {
        lines.push(field(
            "usage",
            format!(
                "{} tokens · ${:.2}",
                human_count(info.total_tokens),
                info.cost
            ),
            t,
        ));
    }
    if let Some(PreviewSlot::Ready(p)) = slot {
        if let Some(m) = &p.model {
            let mut v = m.clone();
            if !p.thinking_level.is_empty() && p.thinking_level != "off" {
                v.push_str(&format!(" · thinking {}", p.thinking_level));
            }
            lines.push(field("model", one_line(&v, value_w), t));
        }
        if !p.labels.is_empty() {
            lines.push(field("labels", one_line(&p.labels.join(", "), value_w), t));
        }
    }
    let path = info.path.to_string_lossy();
    lines.push(field(
        "file",
        super::format::truncate_left(&one_line(&shorten_home(&path, home), usize::MAX), value_w)
            .into_owned(),
        t,
    ));
    if info.parse_issues > 0 {
        let why = info.first_issue.clone().unwrap_or_default();
        lines.push(Line::styled(
            one_line(
                &format!("⚠ {} damaged line(s): {why}", info.parse_issues),
                width,
            ),
            t.warning,
        ));
    }
    if let Some(s) = &info.summary {
        lines.push(Line::styled("summary", t.muted));
        let s = crate::text::clip::clip_to_cells(s, width.saturating_mul(6));
        lines.extend(wrap_text(s, width).into_iter().take(6).map(Line::raw));
    }
    lines
}

/// The message lines of a loaded preview; `per_message` caps each message's lines.
fn message_lines(
    slot: Option<&PreviewSlot>,
    t: &Theme,
    width: usize,
    per_message: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    match slot {
        None | Some(PreviewSlot::Loading) => lines.push(Line::styled("Loading…", t.muted)),
        Some(PreviewSlot::Failed(e)) => {
            lines.extend(
                wrap_text(e, width)
                    .into_iter()
                    .map(|l| Line::styled(l, t.error)),
            );
        }
        Some(PreviewSlot::Ready(p)) => {
            if p.messages.is_empty() {
                lines.push(Line::styled("(no messages on the active branch)", t.muted));
            }
            for m in &p.messages {
                let style = match m.role.as_str() {
                    "user" => t.accent.add_modifier(Modifier::BOLD),
                    "assistant" => t.ok.add_modifier(Modifier::BOLD),
                    _ => t.muted.add_modifier(Modifier::BOLD),
                };
                lines.push(Line::styled(m.role.clone(), style));
                let body = wrap_text(&m.text, width.saturating_sub(2));
                let n = body.len();
                for (i, l) in body.into_iter().enumerate() {
                    if i + 1 == per_message && n > per_message {
                        lines.push(Line::styled(format!("  … {} more lines", n - i), t.muted));
                        break;
                    }
                    lines.push(Line::raw(format!("  {l}")));
                }
            }
        }
    }
    lines
}

fn rule(label: &str, width: usize, t: &Theme) -> Line<'static> {
    let head = format!("── {label} ");
    let rest = width.saturating_sub(head.width());
    Line::styled(format!("{head}{}", "─".repeat(rest)), t.border)
}

/// Every line of the full-screen preview, wrapped to `width`.
pub fn preview_lines(
    info: &SessionInfo,
    slot: Option<&PreviewSlot>,
    t: &Theme,
    width: u16,
    home: Option<&str>,
) -> Vec<Line<'static>> {
    let width = width as usize;
    let mut lines = meta_lines(info, slot, t, width, home);
    let label = match slot {
        Some(PreviewSlot::Ready(p)) if p.branch_messages > p.messages.len() => format!(
            "active branch (last {} of {} messages)",
            p.messages.len(),
            p.branch_messages
        ),
        _ => "active branch".to_owned(),
    };
    lines.push(rule(&label, width, t));
    lines.extend(message_lines(slot, t, width, usize::MAX));
    lines
}

/// The side pane: metadata, then as many of the last messages as fit.
pub fn draw_preview_pane(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &state.theme;
    let block = Block::new().borders(Borders::LEFT).border_style(t.border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(1),
        inner.height,
    );
    let Some(rec) = state.selected() else {
        return;
    };
    let width = inner.width as usize;
    let slot = state.previews.get(&rec.info.path);
    let mut lines = meta_lines(&rec.info, slot, t, width, state.options.home.as_deref());
    lines.push(rule("last messages", width, t));
    let room = (inner.height as usize).saturating_sub(lines.len());
    let messages = message_lines(slot, t, width, PANE_LINES_PER_MESSAGE);
    // The newest exchanges are what the pane is for: keep the tail.
    let skip = messages.len().saturating_sub(room);
    lines.extend(messages.into_iter().skip(skip));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Enter on a session: the preview, full-screen and scrollable.
pub fn draw_session_screen(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &state.theme;
    let Screen::Session { record, scroll } = state.screen else {
        return;
    };
    let Some(rec) = state.record(record) else {
        return;
    };
    let title = one_line(rec.info.title(), (area.width as usize).saturating_sub(10));
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Session ", t.muted),
            Span::styled(title, t.accent.add_modifier(Modifier::BOLD)),
        ])),
        Rect::new(area.x, area.y, area.width, 1),
    );
    let body = view_body(area);
    let lines = preview_lines(
        &rec.info,
        state.previews.get(&rec.info.path),
        t,
        body.width,
        state.options.home.as_deref(),
    );
    let max = lines.len().saturating_sub(body.height as usize);
    let scroll = (scroll as usize).min(max);
    let shown: Vec<Line> = lines
        .into_iter()
        .skip(scroll)
        .take(body.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(shown), body);
    let footer = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
    let mut hints = super::picker::footer_line(
        &state.keymap,
        KeyContext::View,
        t,
        area.width.saturating_sub(14),
    );
    hints.spans.insert(0, Span::styled("esc back · ", t.muted));
    frame.render_widget(Paragraph::new(hints), footer);
}
