//! The help overlays' and the problems list's content, from the key map: built here so
//! `update` knows how far they scroll, and styled by the views.

use unicode_width::UnicodeWidthStr;

use crate::storage::roots::Skipped;
use crate::text::sanitize::sanitize_line;

use super::format::shorten_home;
use super::keymap::{KeyContext, Keymap};
use super::state::{AppState, Screen};
use super::styled::{TextLine, Tone};

/// The key context whose help the picker's overlay shows.
pub(crate) fn help_context(state: &AppState) -> KeyContext {
    match state.screen {
        Screen::Picker => KeyContext::Picker,
        Screen::Session { .. } => KeyContext::Preview,
        Screen::View { .. } => KeyContext::Tree,
    }
}

/// Help rows of one layer, keys padded to `key_w`.
fn rows_lines(rows: Vec<(String, &'static str)>, key_w: usize, indent: &str) -> Vec<TextLine> {
    rows.into_iter()
        .map(|(keys, desc)| {
            TextLine::new(vec![
                (Tone::Accent, format!("{indent}{keys:<key_w$}  ")),
                (Tone::Plain, desc.to_owned()),
            ])
        })
        .collect()
}

/// The keys of popups and inputs, shown under every screen's own.
fn common_lines(keymap: &Keymap, key_w: usize) -> Vec<TextLine> {
    let mut lines = Vec::new();
    for c in [
        KeyContext::Global,
        KeyContext::Input,
        KeyContext::Confirm,
        KeyContext::Handoff,
        KeyContext::Notice,
    ] {
        lines.push(TextLine::blank());
        lines.push(TextLine::one(Tone::AccentBold, c.info().1));
        lines.extend(rows_lines(keymap.help_rows(c), key_w, ""));
    }
    lines.push(TextLine::one(
        Tone::Muted,
        "Inputs edit readline-style: ctrl+w / ctrl+u / ctrl+k, ctrl+a / ctrl+e, ctrl+h erases.",
    ));
    lines
}

/// The picker's (or the preview screen's) help lines, without the closing hint.
pub(crate) fn picker_help_lines(keymap: &Keymap, context: KeyContext) -> Vec<TextLine> {
    if matches!(context, KeyContext::Tree | KeyContext::Transcript) {
        return view_help_lines(keymap);
    }
    let rows = keymap.help_rows(context);
    let key_w = rows.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let mut lines = rows_lines(rows, key_w, "");
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
            "Searches names, ids, folders and all messages.",
        ));
    }
    lines.extend(common_lines(keymap, key_w));
    lines
}

/// The session view's help lines (without the closing hint): the keys both panes share,
/// then each pane's own.
pub(crate) fn view_help_lines(keymap: &Keymap) -> Vec<TextLine> {
    let tree = keymap.help_rows(KeyContext::Tree);
    let transcript = keymap.help_rows(KeyContext::Transcript);
    let both: Vec<(String, &'static str)> = tree
        .iter()
        .filter(|r| transcript.contains(r))
        .cloned()
        .collect();
    let only = |rows: &[(String, &'static str)]| -> Vec<(String, &'static str)> {
        rows.iter().filter(|r| !both.contains(r)).cloned().collect()
    };
    let key_w = tree
        .iter()
        .chain(&transcript)
        .map(|(k, _)| k.width())
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for (heading, rows) in [
        ("Both panes", both.clone()),
        ("Tree", only(&tree)),
        ("Transcript", only(&transcript)),
    ] {
        lines.push(TextLine::one(Tone::Bold, heading));
        lines.extend(rows_lines(rows, key_w, "  "));
    }
    lines.extend(common_lines(keymap, key_w + 2));
    lines
}

/// The files that could not be read as sessions: the reason first, then the path.
pub(crate) fn problem_lines(problems: &[Skipped], home: Option<&str>) -> Vec<TextLine> {
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
