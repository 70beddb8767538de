//! The session list: header, search input, rows, footer. A pure function of the state and
//! "now" (for ages), so it can be snapshot-tested.

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::{Action, KeyContext};
use crate::app::state::{AppState, Mode, NameFilter, Row, Scope, StatusKind};
use crate::text::sanitize::{sanitize_line, truncate_width};
use crate::ui::theme::Theme;

use crate::app::format::{shorten_home, truncate_left};
use crate::app::layout::{list_window_start, picker_layout};

/// Draws the picker into `area`.
pub fn draw_picker(frame: &mut Frame, area: Rect, state: &AppState, now_ms: i64) {
    let layout = picker_layout(area, state.preview_visible());
    frame.render_widget(Paragraph::new(title_line(state, area.width)), layout.title);
    frame.render_widget(
        Paragraph::new(status_line(state, area.width)),
        layout.status,
    );
    draw_input(frame, layout.input, state);
    frame.render_widget(
        Paragraph::new(separator_line(state, layout.separator.width)),
        layout.separator,
    );
    draw_list(frame, layout.list, state, now_ms);
    if let Some(p) = layout.preview {
        super::preview::draw_preview_pane(frame, p, state);
    }
    frame.render_widget(
        Paragraph::new(super::footer::footer_line(
            &state.keymap,
            KeyContext::Picker,
            &Theme::of(state),
            area.width,
            &footer_words(state),
        )),
        layout.footer,
    );
}

/// Footer words that depend on the state: `--print`'s Enter prints; a notice can be dismissed.
fn footer_words(state: &AppState) -> Vec<(Action, &'static str)> {
    let mut words = Vec::new();
    match enter_does(state) {
        EnterDoes::Print => words.push((Action::Open, "print path")),
        EnterDoes::View => words.push((Action::Open, "view")),
        EnterDoes::Resume => {
            words.push((Action::Open, "resume"));
            words.push((Action::View, "view"));
        }
    }
    if state.notices.has_status() {
        words.push((Action::Dismiss, "dismiss"));
    }
    words
}

/// What Enter does on a session: the title and the footer say it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EnterDoes {
    Print,
    View,
    Resume,
}

fn enter_does(state: &AppState) -> EnterDoes {
    if state.options.print_mode {
        EnterDoes::Print
    } else if state.options.enter == crate::app::config::EnterAction::Resume {
        EnterDoes::Resume
    } else {
        EnterDoes::View
    }
}

fn title_line(state: &AppState, width: u16) -> Line<'static> {
    let t = &Theme::of(state);
    let p = &state.picker;
    let wide = width >= 100;
    let mut right: Vec<Span> = super::marks::title_badges(state, t);
    let loading = &p.loading;
    if !loading.done {
        let text = match loading.total {
            Some(total) => format!("Loading {}/{}", loading.loaded, total),
            None => "Loading…".to_owned(),
        };
        right.push(Span::styled(text, t.accent));
        right.push(Span::raw("  "));
    }
    let (cur, all) = if wide {
        ("Current Folder", "All")
    } else {
        ("Current", "All")
    };
    let dot = |s: Scope| if p.scope == s { "◉ " } else { "○ " };
    let scope_style = |active: bool| if active { t.accent } else { t.muted };
    right.push(Span::styled(
        format!("{}{cur}", dot(Scope::Current)),
        scope_style(p.scope == Scope::Current),
    ));
    right.push(Span::styled(" | ", t.muted));
    if p.current_repo.is_some() {
        right.push(Span::styled(
            format!("{}Repo", dot(Scope::Repo)),
            scope_style(p.scope == Scope::Repo),
        ));
        right.push(Span::styled(" | ", t.muted));
    }
    let on_all = dot(Scope::All);
    right.push(Span::styled(
        format!("{on_all}{all}"),
        scope_style(p.scope == Scope::All),
    ));
    let named = p.name_filter == NameFilter::Named;
    if wide {
        right.push(Span::styled("  Name: ", t.muted));
        right.push(Span::raw(if named { "Named" } else { "All" }));
        right.push(Span::styled("  Sort: ", t.muted));
        right.push(Span::raw(p.sort.label()));
    } else {
        if named {
            right.push(Span::styled(" · ", t.muted));
            right.push(Span::raw("Named"));
        }
        right.push(Span::styled(" · ", t.muted));
        right.push(Span::raw(p.sort.label()));
    }
    let right_w: usize = right.iter().map(|s| s.content.width()).sum();
    // pi's "Resume Session" only where Enter resumes.
    let verb = match enter_does(state) {
        EnterDoes::Print => "Pick",
        EnterDoes::View => "View",
        EnterDoes::Resume => "Resume",
    };
    let title = match (p.scope, wide) {
        (Scope::Current, true) => format!("{verb} Session (Current Folder)"),
        (Scope::All, true) => format!("{verb} Session (All)"),
        (Scope::Repo, true) => format!("{verb} Session (Current Repository)"),
        (_, false) => format!("{verb} Session"),
    };
    let left_room = (width as usize).saturating_sub(right_w + 1);
    let title = truncate_width(&title, left_room).into_owned();
    let pad = (width as usize).saturating_sub(title.width() + right_w);
    let mut spans = vec![
        Span::styled(title, t.accent.add_modifier(Modifier::BOLD)),
        Span::raw(" ".repeat(pad)),
    ];
    spans.extend(right);
    Line::from(spans)
}

fn status_line(state: &AppState, width: u16) -> Line<'static> {
    let t = &Theme::of(state);
    let km = &state.keymap;
    if let Some(line) = super::marks::trashing_status(state, t) {
        return line;
    }
    if let Mode::Deleting { .. } = &state.mode {
        return Line::styled("Moving to trash…", t.error);
    }
    if let Some(s) = &state.status {
        let style = match s.kind {
            StatusKind::Info => t.accent,
            StatusKind::Ok => t.ok,
            StatusKind::Warning => t.warning,
            StatusKind::Error => t.error,
        };
        return Line::styled(sanitize_line(&s.text).into_owned(), style);
    }
    if let Some(line) = super::notice::status_line(&state.notices, t) {
        return line;
    }
    // A search without the preview pane: the selected session's first hit.
    if !state.preview_visible()
        && let Some(hit) = crate::app::hits_ops::first_hit_line(state, width as usize)
    {
        return super::styled::styled_line(hit, t);
    }
    let scope = km.key_label(KeyContext::Picker, Action::ToggleScope);
    // Whole hints only: the ones that do not fit are dropped, never cut.
    let pieces = [
        (scope, "scope"),
        ("re:<pattern>".to_owned(), "regex"),
        ("\"phrase\"".to_owned(), "exact"),
        // pi 1.6.0: a word matches literally anywhere, fuzzily only in the name or folder.
        ("words".to_owned(), "literal, fuzzy in name/folder"),
    ];
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, word) in pieces {
        let sep = if spans.is_empty() { 0 } else { 3 };
        let w = sep + key.width() + 1 + word.width();
        if used + w > width as usize {
            break;
        }
        used += w;
        if sep > 0 {
            spans.push(Span::styled(" · ", t.muted));
        }
        spans.push(Span::styled(key, t.muted.add_modifier(Modifier::BOLD)));
        spans.push(Span::styled(format!(" {word}"), t.muted));
    }
    Line::from(spans)
}

fn draw_input(frame: &mut Frame, area: Rect, state: &AppState) {
    let t = &Theme::of(state);
    let p = &state.picker;
    let text = sanitize_line(p.query.text()).into_owned();
    let mut right = String::new();
    if p.search.pending {
        right.push_str("searching…");
    } else if p.has_query() && p.search.error.is_none() {
        let n = p.rows.len();
        right = format!("{n} match{}", if n == 1 { "" } else { "es" });
    }
    let width = area.width as usize;
    let right_w = right.width();
    let room = width.saturating_sub(2 + right_w + 1);
    // Keep the end of a long query (where the cursor is) visible.
    let shown = truncate_left(&text, room).into_owned();
    let mut spans = vec![Span::styled("> ", t.accent)];
    if text.is_empty() {
        spans.push(Span::styled("type to search", t.muted));
    } else {
        spans.push(Span::raw(shown.clone()));
    }
    let used = 2 + if text.is_empty() { 14 } else { shown.width() };
    spans.push(Span::raw(" ".repeat(width.saturating_sub(used + right_w))));
    spans.push(Span::styled(right, t.muted));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    if state.mode == Mode::Normal && area.width > 2 {
        let before = sanitize_line(p.query.split_at_cursor().0).width();
        let cut = text.width().saturating_sub(shown.width());
        let x = area.x + 2 + before.saturating_sub(cut).min(room) as u16;
        frame.set_cursor_position(Position::new(x.min(area.right() - 1), area.y));
    }
}

fn separator_line(state: &AppState, width: u16) -> Line<'static> {
    let t = &Theme::of(state);
    let p = &state.picker;
    let counter = if p.rows.is_empty() {
        String::new()
    } else {
        format!(" {}/{} ", p.selected + 1, p.rows.len())
    };
    let rule = (width as usize).saturating_sub(counter.width() + 1);
    Line::from(vec![
        Span::styled("─".repeat(rule), t.border),
        Span::styled(counter, t.muted),
        Span::styled("─".repeat(usize::from(rule > 0)), t.border),
    ])
}

fn empty_message(state: &AppState) -> Line<'static> {
    let t = &Theme::of(state);
    let p = &state.picker;
    let km = &state.keymap;
    if let Some(e) = &p.search.error {
        return Line::styled(format!("  {}", sanitize_line(e)), t.error);
    }
    if p.has_query() {
        if p.search.pending || !p.loading.done {
            return Line::styled("  Searching…", t.muted);
        }
        return Line::styled("  No sessions match the search", t.muted);
    }
    if !p.loading.done {
        return Line::styled("  Loading sessions…", t.muted);
    }
    let named = km.key_label(KeyContext::Picker, Action::ToggleNamed);
    let scope = km.key_label(KeyContext::Picker, Action::ToggleScope);
    let text = match (p.name_filter, p.scope) {
        (NameFilter::Named, Scope::Current) => format!(
            "  No named sessions in current folder. Press {named} to show all, or {scope} to view all."
        ),
        (NameFilter::Named, Scope::Repo) => {
            format!("  No named sessions in this repository. Press {named} to show all.")
        }
        (NameFilter::All, Scope::Repo) => {
            format!("  No sessions in this repository. Press {scope} to view all.")
        }
        (NameFilter::Named, Scope::All) => {
            format!("  No named sessions found. Press {named} to show all.")
        }
        (NameFilter::All, Scope::All) => "  No sessions found".to_owned(),
        (NameFilter::All, Scope::Current) => {
            format!("  No sessions in current folder. Press {scope} to view all.")
        }
    };
    Line::styled(text, t.muted)
}

fn draw_list(frame: &mut Frame, area: Rect, state: &AppState, now_ms: i64) {
    let p = &state.picker;
    if p.rows.is_empty() {
        if let Some(lines) = super::first_run::first_run_lines(state, area.width) {
            frame.render_widget(Paragraph::new(lines), area);
            return;
        }
        frame.render_widget(Paragraph::new(empty_message(state)), area);
        return;
    }
    let height = area.height as usize;
    let start = list_window_start(p.selected, p.rows.len(), height);
    let lines: Vec<Line> = p.rows[start..]
        .iter()
        .take(height)
        .enumerate()
        .map(|(i, row)| row_line(state, row, start + i == p.selected, area.width, now_ms))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// One session row: cursor, tree prefix, title (highlighted), then path, cwd, count and age.
pub(crate) fn row_line(
    state: &AppState,
    row: &Row,
    selected: bool,
    width: u16,
    now_ms: i64,
) -> Line<'static> {
    let t = &Theme::of(state);
    let p = &state.picker;
    let Some(rec) = p.records.get(row.record) else {
        return Line::default();
    };
    let info = &rec.info;
    let width = width as usize;
    let home = state.options.home.as_deref();
    let deleting = state.deleting_record() == Some(row.record);

    let mut right_parts: Vec<String> = Vec::new();
    let limit = (width / 3).max(12);
    if p.show_path {
        let path = info.path.to_string_lossy();
        right_parts
            .push(truncate_left(&sanitize_line(&shorten_home(&path, home)), limit).into_owned());
    }
    // The repository scope: which worktree's branch the session ran on.
    if p.scope == Scope::Repo
        && let Some(b) = &rec.branch
    {
        right_parts.push(format!("[{}]", truncate_left(&sanitize_line(b), limit)));
    }
    let mut cwd_shown = None;
    if matches!(p.scope, Scope::All | Scope::Repo) && !info.cwd.is_empty() {
        let cwd = truncate_left(&sanitize_line(&shorten_home(&info.cwd, home)), limit).into_owned();
        cwd_shown = Some(cwd.clone());
        right_parts.push(cwd);
    }
    // A session only grove's tool-call search found: say so (pi would not list it).
    if p.search
        .matches
        .get(&row.record)
        .is_some_and(|s| s.tool_only)
    {
        right_parts.push("tool hit".to_owned());
    }
    let cells: Vec<String> = state
        .options
        .columns
        .iter()
        .map(|c| c.cell(info, now_ms))
        .collect();
    right_parts.push(cells.join(" "));
    let mut markers: Vec<Span> = family_marker(state, row.record, t).into_iter().collect();
    markers.extend(super::marks::row_markers(state, row.record, t));
    let prefix_w = row.prefix.width() + markers.iter().map(|s| s.content.width()).sum::<usize>();
    // Drop the optional columns before squeezing the title under 10 columns.
    while right_parts.len() > 1 {
        let right_w: usize = right_parts.iter().map(|s| s.width() + 1).sum();
        if width.saturating_sub(2 + prefix_w + right_w + 1) >= 10 {
            break;
        }
        right_parts.remove(0);
    }
    // The folder's matched characters, at its place in the joined columns.
    let right_ranges = match (&p.search.query, &cwd_shown) {
        (Some(q), Some(cwd)) if !deleting => right_parts
            .iter()
            .position(|part| part == cwd)
            .map(|k| {
                let offset: usize = right_parts[..k].iter().map(|s| s.len() + 1).sum();
                q.highlight_for(cwd, p.search.matches.get(&row.record))
                    .into_iter()
                    .map(|r| r.start + offset..r.end + offset)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let right = right_parts.join(" ");
    let right_w = right.width();
    let title_room = width
        .saturating_sub(2 + prefix_w + right_w + 2)
        .max(10.min(width.saturating_sub(2 + prefix_w)));
    let shown = crate::text::clip::clip_to_cells(info.title().trim_start(), title_room + 1);
    let full_title = sanitize_line(shown).trim().to_owned();
    let title = truncate_width(&full_title, title_room).into_owned();

    let base = if deleting {
        t.error
    } else if rec.is_named() {
        t.named
    } else {
        Style::new()
    };
    let muted = if deleting { t.error } else { t.muted };
    let mut spans = Vec::new();
    spans.push(if selected {
        Span::styled("› ", t.accent)
    } else {
        Span::raw("  ")
    });
    if !row.prefix.is_empty() {
        spans.push(Span::styled(row.prefix.clone(), muted));
    }
    spans.extend(markers);
    let ranges = match &p.search.query {
        Some(q) if !deleting => q.highlight_for(&full_title, p.search.matches.get(&row.record)),
        _ => Vec::new(),
    };
    spans.extend(highlighted(&title, &ranges, base, base.patch(t.matched)));
    let used = 2 + prefix_w + title.width();
    let pad = width.saturating_sub(used + right_w).max(1);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.extend(highlighted(
        &right,
        &right_ranges,
        muted,
        muted.patch(t.matched),
    ));
    let line = Line::from(spans);
    if selected {
        line.style(t.selected)
    } else {
        line
    }
}

/// A family's head: `▸ 3 ` folded (the sessions it hides), `▾ ` open; nothing on other rows.
fn family_marker(state: &AppState, record: usize, t: &Theme) -> Option<Span<'static>> {
    let shown = &state.picker.families.shown;
    if let Some(n) = shown.hidden_under.get(&record) {
        return Some(Span::styled(format!("▸ {n} "), t.accent));
    }
    shown
        .parents
        .contains(&record)
        .then(|| Span::styled("▾ ", t.muted))
}

/// Splits `text` into spans, styling the byte `ranges` (clipped to the text) as matched.
fn highlighted(text: &str, ranges: &[Range<usize>], base: Style, hit: Style) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut pos = 0;
    for r in ranges {
        let start = r.start.min(text.len());
        let end = r.end.min(text.len());
        if start >= end
            || start < pos
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        if start > pos {
            out.push(Span::styled(text[pos..start].to_owned(), base));
        }
        out.push(Span::styled(text[start..end].to_owned(), hit));
        pos = end;
    }
    if pos < text.len() {
        out.push(Span::styled(text[pos..].to_owned(), base));
    }
    out
}
