//! The tree selector's queries (rows, prefixes, folds) and moves (selection, filters, folds,
//! search).

use crate::model::tree::Session;

use super::TreeNav;
use crate::model::flatten::text::{contains_all, search_tokens};
use crate::model::flatten::types::{FilterMode, GUTTER_LEVELS_SHOWN, Gutter, NONE, Row, ToolCalls};

impl TreeNav {
    // ----- queries -----

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Selected row index (0 when there are no rows).
    pub fn selected_index(&self) -> usize {
        self.selected
    }

    /// The selected entry, `None` when nothing is visible.
    pub fn selected_entry(&self) -> Option<usize> {
        self.rows.get(self.selected).map(|r| r.entry)
    }

    pub fn filter(&self) -> FilterMode {
        self.filter
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    pub fn leaf(&self) -> Option<usize> {
        self.leaf
    }

    pub fn is_on_active_path(&self, entry: usize) -> bool {
        self.on_active_path.get(entry).copied().unwrap_or(false)
    }

    pub fn is_folded(&self, entry: usize) -> bool {
        self.folded.contains(&entry)
    }

    pub fn has_folds(&self) -> bool {
        !self.folded.is_empty()
    }

    pub fn multiple_roots(&self) -> bool {
        self.multiple_roots
    }

    /// The row index showing `entry`, if visible.
    pub fn row_of(&self, entry: usize) -> Option<usize> {
        match self.row_of.get(entry) {
            Some(&r) if r != NONE => Some(r as usize),
            _ => None,
        }
    }

    pub fn tool_calls(&self) -> &ToolCalls {
        &self.tool_calls
    }

    /// pi's display indent: roots of a multi-root forest hang from a virtual root.
    pub fn display_indent(&self, row: &Row) -> u32 {
        if self.multiple_roots {
            row.indent.saturating_sub(1)
        } else {
            row.indent
        }
    }

    /// The gutters of a row, outermost first.
    pub fn gutters(&self, row: &Row) -> Vec<Gutter> {
        let mut out = Vec::new();
        let mut link = row.gutters as usize;
        while link != 0 {
            let Some(l) = self.gutter_links.get(link) else {
                break;
            };
            out.push(l.gutter);
            link = l.parent as usize;
        }
        out.reverse();
        out
    }

    /// Foldable: has visible children and is a visible root or one of several siblings.
    pub fn is_foldable(&self, entry: usize) -> bool {
        let children = self.visible_children.of(entry);
        if children.is_empty() || self.row_of(entry).is_none() {
            return false;
        }
        match self.visible_parent[entry] {
            NONE => true,
            p => self.visible_children.of(p as usize).len() > 1,
        }
    }

    /// The dim prefix of a row: gutters, the `├─`/`└─` connector with its fold state, spaces.
    pub fn row_prefix(&self, row: &Row) -> String {
        self.prefix_levels(row).concat()
    }

    /// [`Self::row_prefix`] in at most `max_cols` columns and [`GUTTER_LEVELS_SHOWN`] levels:
    /// a deeper row shows its depth as a number (`·30 `) and its innermost levels only, so
    /// its text keeps its room.
    pub fn row_prefix_within(&self, row: &Row, max_cols: usize) -> String {
        let levels = self.prefix_levels(row);
        if levels.len() <= GUTTER_LEVELS_SHOWN && levels.len() * 3 <= max_cols {
            return levels.concat();
        }
        let tag = format!("·{:>2} ", levels.len());
        let room = max_cols.saturating_sub(tag.chars().count()) / 3;
        let kept = room.clamp(1, GUTTER_LEVELS_SHOWN).min(levels.len());
        let shown = tag.chars().count() + kept * 3;
        if shown >= levels.len() * 3 && levels.len() * 3 <= max_cols {
            // The number would take more room than the levels it stands for.
            return levels.concat();
        }
        let mut out = tag;
        out.push_str(&levels[levels.len() - kept..].concat());
        out
    }

    /// The prefix's three-column cells, outermost first.
    fn prefix_levels(&self, row: &Row) -> Vec<&'static str> {
        let display = self.display_indent(row) as usize;
        let connector = row.show_connector && !row.is_virtual_root_child;
        let connector_level = if connector {
            display.checked_sub(1)
        } else {
            None
        };
        // The first gutter at each level wins, as with pi's `find`; one pass, not one per level.
        let mut at_level: Vec<Option<Gutter>> = vec![None; display];
        for g in self.gutters(row) {
            if let Some(slot) = at_level.get_mut(g.position as usize)
                && slot.is_none()
            {
                *slot = Some(g);
            }
        }
        let mut out = Vec::with_capacity(display);
        for (level, gutter) in at_level.iter().enumerate() {
            out.push(if let Some(g) = gutter {
                if g.show { "│  " } else { "   " }
            } else if Some(level) == connector_level {
                match (
                    row.is_last,
                    self.is_folded(row.entry),
                    self.is_foldable(row.entry),
                ) {
                    (true, true, _) => "└⊞ ",
                    (false, true, _) => "├⊞ ",
                    (true, false, true) => "└⊟ ",
                    (false, false, true) => "├⊟ ",
                    (true, false, false) => "└─ ",
                    (false, false, false) => "├─ ",
                }
            } else {
                "   "
            });
        }
        out
    }

    /// `⊞ ` for a folded node whose connector cannot show it (roots).
    pub fn shows_fold_marker(&self, row: &Row) -> bool {
        self.is_folded(row.entry) && (!row.show_connector || row.is_virtual_root_child)
    }

    /// pi's window: the selection centred, clamped to the list.
    pub fn window(&self, height: usize) -> std::ops::Range<usize> {
        let n = self.rows.len();
        let half = height / 2;
        let start = self
            .selected
            .saturating_sub(half)
            .min(n.saturating_sub(height));
        start..(start + height).min(n)
    }

    // ----- changes -----

    /// Up with wrap-around.
    pub fn move_up(&mut self) {
        let n = self.rows.len();
        if n > 0 {
            self.selected = if self.selected == 0 {
                n - 1
            } else {
                self.selected - 1
            };
        }
    }

    /// Down with wrap-around.
    pub fn move_down(&mut self) {
        let n = self.rows.len();
        if n > 0 {
            self.selected = if self.selected + 1 >= n {
                0
            } else {
                self.selected + 1
            };
        }
    }

    pub fn page_up(&mut self, page: usize) {
        self.selected = self.selected.saturating_sub(page.max(1));
    }

    pub fn page_down(&mut self, page: usize) {
        self.selected = (self.selected + page.max(1)).min(self.rows.len().saturating_sub(1));
    }

    pub fn select_first(&mut self) {
        self.selected = 0;
    }

    pub fn select_last(&mut self) {
        self.selected = self.rows.len().saturating_sub(1);
    }

    /// Selects a row index (clamped).
    pub fn select_index(&mut self, index: usize) {
        self.selected = index.min(self.rows.len().saturating_sub(1));
    }

    /// Selects `entry` or its nearest visible ancestor.
    pub fn select_entry(&mut self, session: &Session, entry: usize) {
        self.selected = self.nearest_visible_index(session, Some(entry));
        if let Some(r) = self.rows.get(self.selected) {
            self.last_selected = Some(r.entry);
        }
    }

    /// Sets the filter (and clears folds, as every filter change does in pi).
    pub fn set_filter(&mut self, session: &Session, mode: FilterMode) {
        self.filter = mode;
        self.folded.clear();
        self.apply(session);
    }

    /// pi's `Ctrl+T/U/L/A`: toggle between `mode` and the default.
    pub fn toggle_filter(&mut self, session: &Session, mode: FilterMode) {
        let next = if self.filter == mode {
            FilterMode::Default
        } else {
            mode
        };
        self.set_filter(session, next);
    }

    pub fn cycle_filter(&mut self, session: &Session, forward: bool) {
        self.set_filter(session, self.filter.cycle(forward));
    }

    /// Sets the search query (and clears folds, as every query change does in pi).
    pub fn set_query(&mut self, session: &Session, query: &str) {
        if self.query == query {
            return;
        }
        self.query = query.to_owned();
        self.folded.clear();
        self.apply(session);
    }

    /// pi's Esc with a query: clears the query and every fold.
    pub fn clear_query_and_folds(&mut self, session: &Session) {
        self.query.clear();
        self.folded.clear();
        self.apply(session);
    }

    /// `Ctrl+←`: fold the selected node if it is foldable and open, else jump up to the start
    /// of the branch segment.
    pub fn fold_or_up(&mut self, session: &Session) {
        let Some(cur) = self.selected_entry() else {
            return;
        };
        if self.is_foldable(cur) && !self.folded.contains(&cur) {
            self.folded.insert(cur);
            self.apply(session);
        } else {
            self.selected = self.segment_start(false);
        }
    }

    /// `Ctrl+→`: unfold the selected node if folded, else jump down to the next segment start
    /// (the first child of the next branch point) or the branch end.
    pub fn unfold_or_down(&mut self, session: &Session) {
        let Some(cur) = self.selected_entry() else {
            return;
        };
        if self.folded.remove(&cur) {
            self.apply(session);
        } else {
            self.selected = self.segment_start(true);
        }
    }

    /// pi `findBranchSegmentStart`.
    fn segment_start(&self, down: bool) -> usize {
        let Some(mut cur) = self.selected_entry() else {
            return self.selected;
        };
        let row = |e: usize| self.row_of(e).unwrap_or(self.selected);
        // Bounded by the number of rows: every step moves to a different visible entry.
        for _ in 0..=self.rows.len() {
            if down {
                let children = self.visible_children.of(cur);
                match children.len() {
                    0 => return row(cur),
                    1 => cur = children[0] as usize,
                    _ => return row(children[0] as usize),
                }
            } else {
                let parent = self.visible_parent[cur];
                if parent == NONE {
                    return row(cur);
                }
                let siblings = self.visible_children.of(parent as usize);
                if siblings.len() > 1 && row(cur) < self.selected {
                    return row(cur);
                }
                cur = parent as usize;
            }
        }
        self.selected
    }

    /// Rows (indices) whose entry matches every token of `query`, for n/N navigation.
    pub fn matches(&mut self, session: &Session, query: &str) -> Vec<usize> {
        let tokens = search_tokens(query);
        if tokens.is_empty() {
            return Vec::new();
        }
        self.ensure_search_text(session);
        let Some(texts) = &self.search_text else {
            return Vec::new();
        };
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                let t = texts.get(r.entry).map_or("", String::as_str);
                contains_all(t, &tokens)
            })
            .map(|(i, _)| i)
            .collect()
    }
}
