//! The text of a session's preview (listing fields, then the last exchanges of its active
//! branch), as tone-tagged lines: the views style them, and `update` counts them to scroll.

use unicode_width::UnicodeWidthStr;

use crate::model::info::SessionInfo;
use crate::text::count::{counted, counted_s};

use super::format::{format_date, human_count, one_line, shorten_home, wrap_text};
use super::state::PreviewSlot;
use super::styled::{TextLine, Tone};

fn field(label: &str, value: String) -> TextLine {
    TextLine::new(vec![
        (Tone::Muted, format!("{label:<9}")),
        (Tone::Plain, value),
    ])
}

/// The metadata lines of a session.
pub(crate) fn meta_lines(
    info: &SessionInfo,
    slot: Option<&PreviewSlot>,
    width: usize,
    home: Option<&str>,
) -> Vec<TextLine> {
    let value_w = width.saturating_sub(9).max(1);
    let mut lines = Vec::new();
    let title_style = if info.name.as_deref().is_some_and(|n| !n.trim().is_empty()) {
        Tone::NamedBold
    } else {
        Tone::Bold
    };
    let title = crate::text::clip::clip_to_cells(info.title(), width.saturating_mul(3));
    for l in wrap_text(title, width).into_iter().take(3) {
        lines.push(TextLine::one(title_style, l));
    }
    lines.push(field(
        "cwd",
        one_line(&shorten_home(&info.cwd, home), value_w),
    ));
    let mut agent = format!("{} · v{}", info.agent, info.version);
    if let Some(w) = &info.workflow {
        agent.push_str(&format!(" · workflow stage {}", w.stage_name));
    }
    lines.push(field("agent", one_line(&agent, value_w)));
    if let Some(c) = info.created_ms {
        lines.push(field("created", format_date(c)));
    }
    lines.push(field("active", format_date(info.modified_ms)));
    let counts = format!(
        "{} · {} · {} · {}",
        counted_s(info.message_count, "message"),
        counted(info.entry_count, "entry", "entries"),
        counted(info.leaf_count, "branch", "branches"),
        counted_s(info.label_count, "label"),
    );
    lines.push(field("counts", one_line(&counts, value_w)));
    if info.total_tokens > 0 || info.cost > 0.0 {
        lines.push(field(
            "usage",
            format!(
                "{} tokens · ${:.2}",
                human_count(info.total_tokens),
                info.cost
            ),
        ));
    }
    let outcome = crate::model::stats::outcome::Outcome::of(info.last_stop_reason.as_deref());
    let mut file = super::columns::human_bytes(info.bytes);
    if let Some(o) = outcome {
        file = format!("{file} · last turn {}", o.label());
    }
    lines.push(field("file", file));
    if let Some(PreviewSlot::Ready(p)) = slot {
        if let Some(m) = &p.model {
            let mut v = m.clone();
            if !p.thinking_level.is_empty() && p.thinking_level != "off" {
                v.push_str(&format!(" · thinking {}", p.thinking_level));
            }
            lines.push(field("model", one_line(&v, value_w)));
        }
        if !p.labels.is_empty() {
            lines.push(field("labels", one_line(&p.labels.join(", "), value_w)));
        }
    }
    let path = info.path.to_string_lossy();
    lines.push(field(
        "file",
        crate::app::format::truncate_left(
            &one_line(&shorten_home(&path, home), usize::MAX),
            value_w,
        )
        .into_owned(),
    ));
    if info.parse_issues > 0 {
        let why = info.first_issue.clone().unwrap_or_default();
        lines.push(TextLine::one(
            Tone::Warning,
            one_line(
                &format!("⚠ {} damaged line(s): {why}", info.parse_issues),
                width,
            ),
        ));
    }
    if let Some(s) = &info.summary {
        lines.push(TextLine::one(Tone::Muted, "summary"));
        lines.extend(
            wrap_text(s, width)
                .into_iter()
                .take(6)
                .map(|l| TextLine::one(Tone::Plain, l)),
        );
    }
    lines
}

/// The message lines of a loaded preview; `per_message` caps each message's lines.
pub(crate) fn message_lines(
    slot: Option<&PreviewSlot>,
    width: usize,
    per_message: usize,
) -> Vec<TextLine> {
    let mut lines = Vec::new();
    match slot {
        None | Some(PreviewSlot::Loading) => lines.push(TextLine::one(Tone::Muted, "Loading…")),
        Some(PreviewSlot::Failed(e)) => {
            lines.extend(
                wrap_text(e, width)
                    .into_iter()
                    .map(|l| TextLine::one(Tone::Error, l)),
            );
        }
        Some(PreviewSlot::Ready(p)) => {
            if p.messages.is_empty() {
                lines.push(TextLine::one(
                    Tone::Muted,
                    "(no messages on the active branch)",
                ));
            }
            for m in &p.messages {
                let style = match m.role.as_str() {
                    "user" => Tone::AccentBold,
                    "assistant" => Tone::OkBold,
                    _ => Tone::MutedBold,
                };
                lines.push(TextLine::one(style, m.role.clone()));
                let body = wrap_text(&m.text, width.saturating_sub(2));
                let n = body.len();
                for (i, l) in body.into_iter().enumerate() {
                    if i + 1 == per_message && n > per_message {
                        lines.push(TextLine::one(
                            Tone::Muted,
                            format!("  … {} more lines", n - i),
                        ));
                        break;
                    }
                    lines.push(TextLine::one(Tone::Plain, format!("  {l}")));
                }
            }
        }
    }
    lines
}

pub fn rule(label: &str, width: usize) -> TextLine {
    let head = format!("── {label} ");
    let rest = width.saturating_sub(head.width());
    TextLine::one(Tone::Border, format!("{head}{}", "─".repeat(rest)))
}

/// Every line of the full-screen preview, wrapped to `width`.
pub(crate) fn preview_lines(
    info: &SessionInfo,
    slot: Option<&PreviewSlot>,
    width: u16,
    home: Option<&str>,
) -> Vec<TextLine> {
    let width = width as usize;
    let mut lines = meta_lines(info, slot, width, home);
    let label = match slot {
        Some(PreviewSlot::Ready(p)) if p.branch_messages > p.messages.len() => format!(
            "active branch (last {} of {} messages)",
            p.messages.len(),
            p.branch_messages
        ),
        _ => "active branch".to_owned(),
    };
    lines.push(rule(&label, width));
    lines.extend(message_lines(slot, width, usize::MAX));
    lines
}
