//! The tree pane: pi's `/tree` rows, drawn with tui-tree-widget.
//!
//! pi's layout (indent only at forks, `├─`/`└─` connectors, `│` gutters, a branch's first
//! generation indented once more) cannot be expressed by tui-tree-widget's one-indent-per-depth
//! nesting, and building an item per entry each frame would cost O(entries). So the layout
//! and the folds live in [`crate::model::flatten::TreeNav`], and the widget gets only the rows
//! on screen, as top-level items carrying their own prefix; it draws them, the selection
//! highlight and the `› ` cursor.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use tui_tree_widget::{Tree, TreeItem, TreeState};

use crate::app::session_view::{Focus, Mode, SessionViewState};
use crate::model::flatten::{RowStyle, contains_all, row_text, search_tokens, searchable_text};
use crate::text::sanitize::sanitize_line;
use crate::ui::styled::fit_spans;
use crate::ui::theme::Theme;

/// The style of a tree row's part, from the theme.
pub(crate) fn row_style(s: RowStyle, theme: &Theme) -> Style {
    match s {
        RowStyle::Plain => Style::default(),
        RowStyle::UserLabel => theme.user,
        RowStyle::AssistantLabel => theme.assistant,
        RowStyle::Muted | RowStyle::Dim => theme.muted,
        RowStyle::DimItalic => theme.muted.add_modifier(Modifier::ITALIC),
        RowStyle::Error => theme.error,
        RowStyle::Warning => theme.warning.remove_modifier(Modifier::BOLD),
        RowStyle::CustomLabel => theme.custom,
        RowStyle::Compaction => theme.compaction,
    }
}

pub(crate) fn pane_block(title: Line<'static>, focused: bool, theme: &Theme) -> Block<'static> {
    let border = if focused { theme.accent } else { theme.border };
    Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(title)
}

pub(crate) fn draw_tree_pane(
    frame: &mut Frame,
    area: Rect,
    state: &SessionViewState,
    theme: &Theme,
) {
    let nav = &state.nav;
    let focused = state.focus == Focus::Tree;
    let counter = if nav.is_empty() {
        format!(" (0/0){} ", nav.filter().tag())
    } else {
        format!(
            " ({}/{}){} ",
            nav.selected_index() + 1,
            nav.len(),
            nav.filter().tag()
        )
    };
    let title = Line::from(vec![
        Span::styled(" Tree", Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(counter),
    ]);
    let block = pane_block(title, focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }

    let search_line = match &state.mode {
        Mode::TreeSearch(input) => Some(Line::from(vec![
            Span::styled("/", theme.accent),
            Span::raw(sanitize_line(input.text()).into_owned()),
            Span::styled("▏", theme.accent),
        ])),
        _ => state.tree_search.as_ref().map(|q| {
            Line::from(vec![
                Span::styled("/", theme.accent),
                Span::styled(sanitize_line(q).into_owned(), theme.named),
                Span::styled("  n/N next/previous", theme.muted),
            ])
        }),
    };
    let list_height = if search_line.is_some() {
        inner.height.saturating_sub(1)
    } else {
        inner.height
    };
    let list_area = Rect {
        height: list_height,
        ..inner
    };
    if let Some(l) = search_line {
        let y = inner.y + list_height;
        frame.render_widget(
            Paragraph::new(l),
            Rect {
                y,
                height: 1,
                ..inner
            },
        );
    }

    if nav.is_empty() {
        let msg = if state.session.entries().is_empty() {
            "  No entries in session"
        } else {
            "  No entries found"
        };
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.muted)), list_area);
        return;
    }

    let window = nav.window(list_height as usize);
    // The row after the `› ` cursor column; gutters take at most 40% of it.
    let row_width = (inner.width as usize).saturating_sub(2);
    let max_prefix = row_width * 2 / 5;
    let hits = state
        .tree_search
        .as_deref()
        .map(search_tokens)
        .unwrap_or_default();
    let entries = state.session.entries();
    let marked_leaf = state.marked_leaf();
    let mut items = Vec::with_capacity(window.len());
    for ri in window.clone() {
        let row = &nav.rows()[ri];
        let e = &entries[row.entry];
        let mut spans = vec![Span::styled(
            nav.row_prefix_within(row, max_prefix),
            theme.muted,
        )];
        if nav.shows_fold_marker(row) {
            spans.push(Span::styled("⊞ ", theme.accent));
        }
        if Some(row.entry) == marked_leaf {
            spans.push(Span::styled("◉ ", theme.accent));
        } else if nav.is_on_active_path(row.entry) {
            spans.push(Span::styled("• ", theme.accent));
        }
        if let Some(l) = state.session.tree.labels.get(&e.id) {
            spans.push(Span::styled(
                format!("[{}] ", sanitize_line(&l.text)),
                theme.named,
            ));
        }
        let text = row_text(e, nav.tool_calls(), state.home.as_deref());
        let is_hit = !hits.is_empty()
            && contains_all(&searchable_text(&state.session, e).to_lowercase(), &hits);
        for (s, t) in text.spans {
            let mut st = row_style(s, theme);
            if ri == nav.selected_index() {
                st = st.add_modifier(Modifier::BOLD);
            }
            if is_hit {
                // Without colours only bold, italic and reverse are used.
                st = st.add_modifier(if theme.color {
                    Modifier::UNDERLINED
                } else {
                    Modifier::ITALIC
                });
            }
            spans.push(Span::styled(t, st));
        }
        items.push(TreeItem::new_leaf(
            ri,
            Line::from(fit_spans(spans, row_width)),
        ));
    }
    let Ok(tree) = Tree::new(&items) else {
        return;
    };
    let tree = tree
        .highlight_symbol("› ")
        .highlight_style(theme.selected)
        .node_no_children_symbol("")
        .node_open_symbol("")
        .node_closed_symbol("");
    let mut tree_state = TreeState::default();
    tree_state.select(vec![nav.selected_index()]);
    frame.render_stateful_widget(tree, list_area, &mut tree_state);
}
