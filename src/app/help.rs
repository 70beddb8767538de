//! The help overlays' and the problems list's content, from the key map: built here so
//! `update` knows how far they scroll, and styled by the views.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use unicode_width::UnicodeWidthStr;

use crate::storage::roots::Skipped;
use crate::text::sanitize::sanitize_line;

use super::format::shorten_home;
use super::keymap::{KeyContext, Keymap};
use super::session_view::keys::{SESSION_VIEW_KEYS, Scope};
use super::state::{AppState, Screen};
use super::styled::{TextLine, Tone};

/// What a key does to an open help popup: scroll it, or close it.
pub enum HelpKey {
    Scroll(u16),
    Close,
}

/// Scroll keys move the help (clamped to its `lines`); any other key closes it.
pub fn help_key(key: &KeyEvent, scroll: u16, lines: usize) -> HelpKey {
    let max = lines.saturating_sub(1).min(u16::MAX as usize) as u16;
    match key.code {
        KeyCode::Down | KeyCode::Char('j') => HelpKey::Scroll(scroll.saturating_add(1).min(max)),
        KeyCode::Up | KeyCode::Char('k') => HelpKey::Scroll(scroll.saturating_sub(1)),
        KeyCode::PageDown | KeyCode::Char(' ') => {
            HelpKey::Scroll(scroll.saturating_add(10).min(max))
        }
        KeyCode::PageUp => HelpKey::Scroll(scroll.saturating_sub(10)),
        _ => HelpKey::Close,
    }
}

/// The key context whose help the picker's overlay shows.
pub fn help_context(state: &AppState) -> KeyContext {
    match state.screen {
        Screen::Picker => KeyContext::Picker,
        Screen::Session { .. } | Screen::View { .. } => KeyContext::View,
    }
}

/// The picker's (or the preview screen's) help lines, without the closing hint.
pub fn picker_help_lines(keymap: &Keymap, context: KeyContext) -> Vec<TextLine> {
    let rows = keymap.help_rows(context);
    let key_w = rows.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let mut lines: Vec<TextLine> = rows
        .into_iter()
        .map(|(keys, desc)| {
            TextLine::new(vec![
                (Tone::Accent, format!("{keys:<key_w$}  ")),
                (Tone::Plain, desc.to_owned()),
            ])
        })
        .collect();
    if context == KeyContext::Picker {
        lines.push(TextLine::blank());
        lines.push(TextLine::one(Tone::AccentBold, "Search"));
        for (syntax, desc) in [
            ("words", "fuzzy; every word must match"),
            ("\"a phrase\"", "exact phrase (spaces normalised)"),
            ("re:<regex>", "regular expression, case-insensitive"),
        ] {
            lines.push(TextLine::new(vec![
                (Tone::Accent, format!("{syntax:<key_w$}  ")),
                (Tone::Plain, desc.to_owned()),
            ]));
        }
        lines.push(TextLine::one(
            Tone::Muted,
            "Searches names, ids, folders and all messages. Ctrl+W / Ctrl+U edit the query.",
        ));
    }
    lines
}

/// The session view's help lines (without the closing hint), from its key table.
pub fn view_help_lines() -> Vec<TextLine> {
    let mut lines = Vec::new();
    for (heading, scope) in [
        ("Both panes", Scope::Both),
        ("Tree", Scope::Tree),
        ("Transcript", Scope::Transcript),
    ] {
        lines.push(TextLine::one(Tone::Bold, heading));
        for kb in SESSION_VIEW_KEYS.iter().filter(|k| k.scope == scope) {
            lines.push(TextLine::new(vec![
                (Tone::Accent, format!("  {:<7}", kb.shown)),
                (Tone::Plain, kb.description.to_owned()),
            ]));
        }
    }
    lines
}

/// The files that could not be read as sessions: the reason first, then the path.
pub fn problem_lines(problems: &[Skipped], home: Option<&str>) -> Vec<TextLine> {
    problems
        .iter()
        .map(|p| {
            let path = p.path.to_string_lossy();
            TextLine::new(vec![
                (Tone::Plain, sanitize_line(&p.reason).into_owned()),
                (Tone::Muted, "  ".to_owned()),
                (
                    Tone::Accent,
                    sanitize_line(&shorten_home(&path, home)).into_owned(),
                ),
            ])
        })
        .collect()
}
