//! The session tree laid out as rows, the way pi's `/tree` selector shows it.
//!
//! pi's rules (`tree-selector.ts`, see `pi-atomic-behaviour.md` §5): a pre-order walk with the
//! branch holding the current leaf first; a linear chain stays at one indent and only a fork
//! (a parent with several visible children) indents its children, with `├─`/`└─` connectors and
//! `│` gutters; filters hide settings entries, tool results, non-user messages or unlabelled
//! entries; a search keeps the entries whose searchable text holds every query token; folding a
//! node hides its descendants. After every change the visual structure is recomputed over the
//! visible entries (a hidden entry's children hang from its nearest visible ancestor) and the
//! selection moves to the nearest visible ancestor of what was selected.
//!
//! Everything here is O(entries) per change and iterative (no recursion over depth), so a
//! 100 000-entry chain is fine; only the rows on screen are ever turned into text. Rows and
//! search read entries as loaded: top-level fields ([`Entry::slim`]) and a message's
//! [`super::digest::MessageDigest`] (a few direct fields, the first 200 characters of its text,
//! whether it holds any text, tool-call names and arguments cut for display), which are exact
//! for a large session loaded slim too.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::Value;

use super::digest::extract_content;
use super::entry::{Entry, EntryKind, Role};
use super::tree::Session;
use crate::text::sanitize::sanitize_line;

/// Marks "no row" / "no entry" in the dense per-entry tables.
const NONE: u32 = u32::MAX;

/// pi's filter modes, in `Ctrl+O` cycle order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FilterMode {
    /// Everything but settings entries (labels, custom, model / thinking changes, names, edits).
    #[default]
    Default,
    /// Default minus tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labelled entries only.
    LabeledOnly,
    /// Everything (tool-call-only assistant turns are still hidden, as in pi).
    All,
}

impl FilterMode {
    pub const CYCLE: [FilterMode; 5] = [
        FilterMode::Default,
        FilterMode::NoTools,
        FilterMode::UserOnly,
        FilterMode::LabeledOnly,
        FilterMode::All,
    ];

    /// The next mode in `Ctrl+O` order (or the previous one when `forward` is false).
    pub fn cycle(self, forward: bool) -> Self {
        let i = Self::CYCLE.iter().position(|&m| m == self).unwrap_or(0);
        let n = Self::CYCLE.len();
        Self::CYCLE[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    /// The footer tag pi shows (` [no-tools]`, …); empty for the default.
    pub fn tag(self) -> &'static str {
        match self {
            FilterMode::Default => "",
            FilterMode::NoTools => " [no-tools]",
            FilterMode::UserOnly => " [user]",
            FilterMode::LabeledOnly => " [labeled]",
            FilterMode::All => " [all]",
        }
    }
}

/// Levels of branch gutters a row shows at most; a deeper row shows its depth as a number.
pub const GUTTER_LEVELS_SHOWN: usize = 6;

/// One level of vertical line drawn to the left of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gutter {
    /// The indent level (in display indent units) the line sits at.
    pub position: u32,
    /// `│` when true, blank when the branch above was the last one.
    pub show: bool,
}

/// A gutter and the set it extends.
#[derive(Clone, Copy, Debug)]
struct GutterLink {
    parent: u32,
    gutter: Gutter,
}

/// One visible row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Index of the entry in the session.
    pub entry: usize,
    /// pi's `indent` (before the multiple-roots adjustment, see [`TreeNav::display_indent`]).
    pub indent: u32,
    pub show_connector: bool,
    pub is_last: bool,
    pub is_virtual_root_child: bool,
    /// Index into the gutter sets (rows of one run share a set).
    gutters: u32,
}

pub use super::digest::ToolCall;

/// Tool calls by id, to label their results. Hashed with foldhash: a big session has a
/// hundred thousand of them.
pub type ToolCalls = HashMap<Arc<str>, Arc<ToolCall>, foldhash::fast::RandomState>;

/// How a piece of row text is styled; the UI maps these to colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStyle {
    Plain,
    /// `user: `
    UserLabel,
    /// `assistant: `
    AssistantLabel,
    Muted,
    Dim,
    Error,
    /// `[branch summary]: `, labels.
    Warning,
    /// `[<customType>]: `
    CustomLabel,
    /// `[compaction: …]`
    Compaction,
    /// Italic `empty` in `[title: empty]`.
    DimItalic,
}

/// The text of one row, in styled pieces, sanitised and on one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowText {
    pub spans: Vec<(RowStyle, String)>,
}

impl RowText {
    fn push(&mut self, style: RowStyle, text: impl Into<String>) {
        self.spans.push((style, text.into()));
    }

    /// The row as plain text.
    pub fn plain(&self) -> String {
        self.spans.iter().map(|(_, s)| s.as_str()).collect()
    }
}

/// The tree selector's model: layout, filter, search query, folds and selection.
#[derive(Clone, Debug)]
pub struct TreeNav {
    /// Every entry in display order (pre-order, active branch first).
    order: Vec<usize>,
    /// Tool calls by id, to label their results.
    tool_calls: ToolCalls,
    leaf: Option<usize>,
    on_active_path: Vec<bool>,
    /// Labelled entries (by index), refreshed by [`TreeNav::set_labels`].
    labeled: Vec<bool>,
    filter: FilterMode,
    query: String,
    folded: HashSet<usize>,
    /// Lower-cased searchable text per entry, built on the first search.
    search_text: Option<Vec<String>>,

    /// Per entry: an assistant turn that only calls tools (hidden unless it is the leaf).
    tool_only: Vec<bool>,
    rows: Vec<Row>,
    /// Gutters as links to the enclosing set (index 0 = none): a fork nested thousands deep in
    /// a huge session adds one link, where copying the whole set per fork would be quadratic.
    gutter_links: Vec<GutterLink>,
    multiple_roots: bool,
    /// Entry → row index, `NONE` when hidden.
    row_of: Vec<u32>,
    /// Visible entry → its nearest visible ancestor, `NONE` for visible roots.
    visible_parent: Vec<u32>,
    /// Visible entry → its visible children in list order.
    visible_children: Vec<Vec<u32>>,
    visible_roots: Vec<u32>,

    selected: usize,
    last_selected: Option<usize>,
}

impl TreeNav {
    /// Lays out `session` with `leaf` as the current leaf, selecting `initial` (or the leaf) or
    /// its nearest visible ancestor.
    pub fn new(
        session: &Session,
        leaf: Option<usize>,
        initial: Option<usize>,
        filter: FilterMode,
    ) -> Self {
        let n = session.entries().len();
        let tree = &session.tree;
        let mut on_active_path = vec![false; n];
        if let Some(l) = leaf.filter(|&l| l < n) {
            for i in tree.path_to(l) {
                on_active_path[i] = true;
            }
        }
        let mut nav = TreeNav {
            order: Vec::with_capacity(n),
            tool_calls: ToolCalls::default(),
            leaf: leaf.filter(|&l| l < n),
            on_active_path,
            labeled: vec![false; n],
            filter,
            query: String::new(),
            folded: HashSet::new(),
            search_text: None,
            tool_only: session
                .entries()
                .par_iter()
                .map(Self::is_tool_only_turn)
                .collect(),
            rows: Vec::new(),
            gutter_links: Vec::new(),
            multiple_roots: false,
            row_of: vec![NONE; n],
            visible_parent: vec![NONE; n],
            visible_children: Vec::new(),
            visible_roots: Vec::new(),
            selected: 0,
            last_selected: None,
        };
        nav.set_labels(session);
        nav.flatten(session);
        nav.recompute(session);
        let target = initial.or(nav.leaf);
        nav.selected = nav.nearest_visible_index(session, target);
        nav.last_selected = nav.rows.get(nav.selected).map(|r| r.entry);
        nav
    }

    /// Refreshes which entries carry a label (after a label was written).
    pub fn set_labels(&mut self, session: &Session) {
        let entries = session.entries();
        self.labeled = entries
            .iter()
            .map(|e| session.tree.labels.contains_key(&e.id))
            .collect();
        // Labels are part of the searchable text.
        self.search_text = None;
    }

    /// Pre-order walk, active-containing child first (pi `flattenTree`), collecting tool calls.
    fn flatten(&mut self, session: &Session) {
        let entries = session.entries();
        let tree = &session.tree;
        let active = &self.on_active_path;
        let mut roots: Vec<usize> = tree.roots.clone();
        // Stable: the root holding the leaf first, the rest in file order.
        roots.sort_by_key(|&r| !active[r]);
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        // Only assistant messages' digests hold tool calls.
        let calls: usize = entries
            .par_iter()
            .filter_map(|e| Some(e.digest()?.tool_calls.len()))
            .sum();
        self.tool_calls.reserve(calls);
        while let Some(i) = stack.pop() {
            self.order.push(i);
            // In walk order: a repeated id, the later one wins. Shared, not copied.
            if let Some(d) = entries[i].digest() {
                let calls = d.tool_calls.iter();
                self.tool_calls
                    .extend(calls.map(|(id, call)| (id.clone(), call.clone())));
            }
            let children = &tree.children[i];
            // Push in reverse so the active child, then the others in timestamp order, pop first.
            for &c in children.iter().rev().filter(|&&c| !active[c]) {
                stack.push(c);
            }
            for &c in children.iter().rev().filter(|&&c| active[c]) {
                stack.push(c);
            }
        }
    }

    /// pi hides assistant turns that only call tools (no text, ended normally): decided once
    /// per entry, since every filter change and search keystroke asks again.
    fn is_tool_only_turn(e: &Entry) -> bool {
        if e.role() != Some("assistant") {
            return false;
        }
        let digest = e.digest();
        let has_text = digest.is_some_and(|d| d.has_text);
        let stop = digest.and_then(|d| d.stop_reason.as_deref()).unwrap_or("");
        let error_or_aborted = !stop.is_empty() && stop != "stop" && stop != "toolUse";
        !has_text && !error_or_aborted
    }

    fn is_settings(e: &Entry) -> bool {
        matches!(
            e.kind,
            EntryKind::Label
                | EntryKind::Custom
                | EntryKind::ModelChange
                | EntryKind::ThinkingLevelChange
                | EntryKind::SessionInfo
                | EntryKind::ContextEdit
        )
    }

    /// Whether an entry passes the hidden-turn rule and the filter mode (not search or folds).
    fn passes_filter(&self, e: &Entry, index: usize) -> bool {
        if e.kind == EntryKind::Usage {
            return false; // pi 1.6.0 never lists usage entries
        }
        if Some(index) != self.leaf && self.tool_only.get(index).copied().unwrap_or(false) {
            return false;
        }
        match self.filter {
            FilterMode::Default => !Self::is_settings(e),
            FilterMode::NoTools => !Self::is_settings(e) && e.role() != Some("toolResult"),
            FilterMode::UserOnly => e.role() == Some("user"),
            FilterMode::LabeledOnly => self.labeled.get(index).copied().unwrap_or(false),
            FilterMode::All => true,
        }
    }

    fn ensure_search_text(&mut self, session: &Session) {
        if self.search_text.is_none() {
            let entries = session.entries();
            self.search_text = Some(
                entries
                    .iter()
                    .map(|e| searchable_text(session, e).to_lowercase())
                    .collect(),
            );
        }
    }

    /// Re-applies filter, search and folds and lays out the visible rows (pi `applyFilter` +
    /// `recalculateVisualStructure`), restoring the selection.
    fn apply(&mut self, session: &Session) {
        if let Some(r) = self.rows.get(self.selected) {
            self.last_selected = Some(r.entry);
        }
        self.recompute(session);
        if let Some(last) = self.last_selected {
            self.selected = self.nearest_visible_index(session, Some(last));
        } else if self.selected >= self.rows.len() {
            self.selected = self.rows.len().saturating_sub(1);
        }
        if let Some(r) = self.rows.get(self.selected) {
            self.last_selected = Some(r.entry);
        }
    }

    fn recompute(&mut self, session: &Session) {
        let entries = session.entries();
        let tree = &session.tree;
        let n = entries.len();
        let tokens = search_tokens(&self.query);
        if !tokens.is_empty() {
            self.ensure_search_text(session);
        }
        // Visibility in list order; `order` is pre-order, so a parent is decided before its
        // children and the fold skip set and nearest visible ancestor are one pass each.
        let mut visible = vec![false; n];
        let mut skipped = vec![false; n];
        let mut nearest = vec![NONE; n]; // nearest visible ancestor (strict) of each entry
        for &i in &self.order {
            let parent = tree.parent[i];
            if let Some(p) = parent {
                skipped[i] = self.folded.contains(&p) || skipped[p];
                nearest[i] = if visible[p] { p as u32 } else { nearest[p] };
            }
            let e = &entries[i];
            let mut show = !skipped[i] && self.passes_filter(e, i);
            if show && !tokens.is_empty() {
                let text = self
                    .search_text
                    .as_ref()
                    .and_then(|t| t.get(i))
                    .map_or("", String::as_str);
                show = contains_all(text, &tokens);
            }
            visible[i] = show;
        }

        for r in &self.rows {
            self.row_of[r.entry] = NONE;
            self.visible_parent[r.entry] = NONE;
        }
        if self.visible_children.len() != n {
            self.visible_children = vec![Vec::new(); n];
        } else {
            for r in &self.rows {
                self.visible_children[r.entry].clear();
            }
        }
        self.visible_roots.clear();
        for &i in &self.order {
            if !visible[i] {
                continue;
            }
            let p = nearest[i];
            self.visible_parent[i] = p;
            if p == NONE {
                self.visible_roots.push(i as u32);
            } else {
                self.visible_children[p as usize].push(i as u32);
            }
        }
        self.multiple_roots = self.visible_roots.len() > 1;

        // Layout walk over the visible forest (pi `recalculateVisualStructure`).
        self.rows.clear();
        self.gutter_links.clear();
        self.gutter_links.push(GutterLink {
            parent: 0,
            gutter: Gutter {
                position: 0,
                show: false,
            },
        });
        struct Item {
            entry: u32,
            indent: u32,
            just_branched: bool,
            show_connector: bool,
            is_last: bool,
            gutters: u32,
            virtual_root_child: bool,
        }
        let mr = self.multiple_roots;
        let mut stack: Vec<Item> = Vec::new();
        let nroots = self.visible_roots.len();
        for (k, &r) in self.visible_roots.iter().enumerate().rev() {
            stack.push(Item {
                entry: r,
                indent: u32::from(mr),
                just_branched: mr,
                show_connector: mr,
                is_last: k + 1 == nroots,
                gutters: 0,
                virtual_root_child: mr,
            });
        }
        while let Some(it) = stack.pop() {
            let i = it.entry as usize;
            self.row_of[i] = self.rows.len() as u32;
            self.rows.push(Row {
                entry: i,
                indent: it.indent,
                show_connector: it.show_connector,
                is_last: it.is_last,
                is_virtual_root_child: it.virtual_root_child,
                gutters: it.gutters,
            });
            let children = &self.visible_children[i];
            let multiple = children.len() > 1;
            let child_indent = if multiple || (it.just_branched && it.indent > 0) {
                it.indent + 1
            } else {
                it.indent
            };
            let connector_displayed = it.show_connector && !it.virtual_root_child;
            let child_gutters = if connector_displayed {
                let display = if mr {
                    it.indent.saturating_sub(1)
                } else {
                    it.indent
                };
                self.gutter_links.push(GutterLink {
                    parent: it.gutters,
                    gutter: Gutter {
                        position: display.saturating_sub(1),
                        show: !it.is_last,
                    },
                });
                (self.gutter_links.len() - 1) as u32
            } else {
                it.gutters
            };
            let nc = children.len();
            for (k, &c) in children.iter().enumerate().rev() {
                stack.push(Item {
                    entry: c,
                    indent: child_indent,
                    just_branched: multiple,
                    show_connector: multiple,
                    is_last: k + 1 == nc,
                    gutters: child_gutters,
                    virtual_root_child: false,
                });
            }
        }
    }

    /// The row of `entry` or of its nearest visible ancestor; the last row when none is
    /// visible (pi `findNearestVisibleIndex`).
    fn nearest_visible_index(&self, session: &Session, entry: Option<usize>) -> usize {
        if self.rows.is_empty() {
            return 0;
        }
        let mut cur = entry.filter(|&e| e < self.row_of.len());
        let mut steps = 0;
        while let Some(e) = cur {
            if self.row_of[e] != NONE {
                return self.row_of[e] as usize;
            }
            steps += 1;
            if steps > self.row_of.len() {
                break;
            }
            cur = session.tree.parent[e];
        }
        self.rows.len() - 1
    }

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
        let Some(children) = self.visible_children.get(entry) else {
            return false;
        };
        if children.is_empty() || self.row_of(entry).is_none() {
            return false;
        }
        match self.visible_parent[entry] {
            NONE => true,
            p => self.visible_children[p as usize].len() > 1,
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
                let children = &self.visible_children[cur];
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
                let siblings = &self.visible_children[parent as usize];
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

fn opt(f: &Option<Box<str>>) -> Option<&str> {
    f.as_deref()
}

/// pi `normalize`: newlines and tabs to spaces, trimmed.
fn normalize(s: &str) -> String {
    s.replace(['\n', '\t'], " ").trim().to_owned()
}

/// A query as pi's tree search reads it: lower-cased, split at white space; a text matches
/// when it holds every token.
pub fn search_tokens(query: &str) -> Vec<String> {
    query
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Whether lower-cased `text` holds every token of [`search_tokens`].
pub fn contains_all(text: &str, tokens: &[String]) -> bool {
    tokens.iter().all(|t| text.contains(t.as_str()))
}

/// The text pi's tree search matches against (`getSearchableText`).
pub fn searchable_text(session: &Session, e: &Entry) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(l) = session.tree.labels.get(&e.id) {
        parts.push(l.text.clone());
    }
    let s = |k: &str| e.str_field(k).unwrap_or("").to_owned();
    match e.kind {
        EntryKind::Message => {
            if let Some(d) = e.digest() {
                parts.push(e.role().unwrap_or("").to_owned());
                if d.has_content && !d.content_is_null {
                    parts.push(d.text.to_string());
                }
                if e.role == Role::BashExecution
                    && let Some(cmd) = &d.command
                {
                    parts.push(cmd.to_string());
                }
            }
        }
        EntryKind::CustomMessage => {
            parts.push(s("customType"));
            parts.push(match e.slim().get("content") {
                Some(Value::String(t)) => t.clone(),
                other => extract_content(other),
            });
        }
        EntryKind::Compaction => parts.push("compaction".into()),
        EntryKind::BranchSummary => {
            parts.push("branch summary".into());
            parts.push(s("summary"));
        }
        EntryKind::SessionInfo => {
            parts.push("title".into());
            parts.push(s("name"));
        }
        EntryKind::SessionSummary => {
            parts.push("session summary".into());
            parts.push(s("summary"));
        }
        EntryKind::ModelChange => {
            parts.push("model".into());
            parts.push(s("modelId"));
        }
        EntryKind::ThinkingLevelChange => {
            parts.push("thinking".into());
            parts.push(s("thinkingLevel"));
        }
        EntryKind::Custom => {
            parts.push("custom".into());
            parts.push(s("customType"));
        }
        EntryKind::Label => {
            parts.push("label".into());
            parts.push(s("label"));
        }
        EntryKind::ContextEdit => {
            parts.push("context".into());
            parts.push(s("targetId"));
        }
        _ => parts.push(e.type_name().to_owned()),
    }
    parts.join(" ")
}

/// pi `formatToolCall`: `[read: ~/p:1-20]`, `[bash: cmd…]`, `[name: {json}…]`.
pub fn format_tool_call(call: &ToolCall, home: Option<&str>) -> String {
    // Unlike pi, only a whole folder is replaced: home `/home/al` leaves `/home/alice` alone.
    let shorten = |p: &str| -> String { crate::text::paths::shorten_home(p, home).into_owned() };
    let path_or = |default: &str| {
        let p = call.path.as_deref().or(call.file_path.as_deref());
        shorten(p.unwrap_or(default))
    };
    let path_or_here = || shorten(call.path.as_deref().unwrap_or("."));
    match &*call.name {
        "read" => {
            let mut display = path_or("");
            if call.offset.is_some() || call.limit.is_some() {
                let start = call.offset.unwrap_or(1);
                display.push_str(&format!(":{start}"));
                if let Some(l) = call.limit {
                    // Any numbers a file holds: never an overflow.
                    let end = start.saturating_add(l).saturating_sub(1);
                    display.push_str(&format!("-{end}"));
                }
            }
            format!("[read: {display}]")
        }
        "write" => format!("[write: {}]", path_or("")),
        "edit" => format!("[edit: {}]", path_or("")),
        "bash" => {
            let raw = opt(&call.command).unwrap_or("");
            let cmd: String = normalize(raw).chars().take(50).collect();
            let more = if raw.chars().count() > 50 { "..." } else { "" };
            format!("[bash: {cmd}{more}]")
        }
        "grep" => format!(
            "[grep: /{}/ in {}]",
            opt(&call.pattern).unwrap_or(""),
            path_or_here()
        ),
        "find" => format!(
            "[find: {} in {}]",
            opt(&call.pattern).unwrap_or(""),
            path_or_here()
        ),
        "ls" => format!("[ls: {}]", path_or_here()),
        name => {
            let json = &call.json_head;
            let cut: String = json.chars().take(40).collect();
            let more = if json.chars().count() > 40 { "..." } else { "" };
            format!("[{name}: {cut}{more}]")
        }
    }
}

/// The one-line text of an entry's row (pi `getEntryDisplayText`, plus Atomic and pi 1.6.0
/// types, and a visible tag for types pi leaves blank). Sanitised.
pub fn row_text(e: &Entry, tool_calls: &ToolCalls, home: Option<&str>) -> RowText {
    let mut t = RowText::default();
    let clean = |s: &str| sanitize_line(&normalize(s)).into_owned();
    let field = |k: &str| e.str_field(k).unwrap_or("");
    match e.kind {
        EntryKind::Message => {
            let Some(m) = e.digest() else {
                t.push(RowStyle::Dim, "[message]");
                return t;
            };
            match e.role {
                Role::User => {
                    t.push(RowStyle::UserLabel, "user: ");
                    t.push(RowStyle::Plain, clean(&m.text));
                }
                Role::Assistant => {
                    t.push(RowStyle::AssistantLabel, "assistant: ");
                    let text = clean(&m.text);
                    if !text.is_empty() {
                        t.push(RowStyle::Plain, text);
                    } else if opt(&m.stop_reason) == Some("aborted") {
                        t.push(RowStyle::Muted, "(aborted)");
                    } else if let Some(err) = opt(&m.error_message).filter(|s| !s.is_empty()) {
                        let err: String = normalize(err).chars().take(80).collect();
                        t.push(RowStyle::Error, sanitize_line(&err).into_owned());
                    } else {
                        t.push(RowStyle::Muted, "(no content)");
                    }
                }
                Role::ToolResult => {
                    let call = opt(&m.tool_call_id).and_then(|id| tool_calls.get(id));
                    let text = match call {
                        Some(c) => format_tool_call(c, home),
                        None => format!("[{}]", opt(&m.tool_name).unwrap_or("tool")),
                    };
                    t.push(RowStyle::Muted, sanitize_line(&text).into_owned());
                }
                Role::BashExecution => {
                    t.push(
                        RowStyle::Dim,
                        format!("[bash]: {}", clean(opt(&m.command).unwrap_or(""))),
                    );
                }
                _ => {
                    let role = e.role().unwrap_or("");
                    t.push(RowStyle::Dim, format!("[{}]", sanitize_line(role)));
                }
            }
        }
        EntryKind::CustomMessage => {
            // Cut like a message's text: a row never shows more, and a slim entry keeps more.
            let content = extract_content(e.slim().get("content"));
            t.push(
                RowStyle::CustomLabel,
                format!("[{}]: ", sanitize_line(field("customType"))),
            );
            t.push(RowStyle::Plain, clean(&content));
        }
        EntryKind::Compaction => {
            let tokens = e
                .slim()
                .get("tokensBefore")
                .and_then(Value::as_f64)
                .map_or("?".to_owned(), |n| {
                    format!("{}", (n / 1000.0).round() as i64)
                });
            t.push(
                RowStyle::Compaction,
                format!("[compaction: {tokens}k tokens]"),
            );
        }
        EntryKind::BranchSummary => {
            t.push(RowStyle::Warning, "[branch summary]: ");
            t.push(RowStyle::Plain, clean(field("summary")));
        }
        EntryKind::SessionSummary => {
            t.push(RowStyle::Warning, "[session summary]: ");
            t.push(RowStyle::Plain, clean(field("summary")));
        }
        EntryKind::ModelChange => {
            t.push(
                RowStyle::Dim,
                format!("[model: {}]", clean(field("modelId"))),
            );
        }
        EntryKind::ThinkingLevelChange => t.push(
            RowStyle::Dim,
            format!("[thinking: {}]", clean(field("thinkingLevel"))),
        ),
        EntryKind::Custom => {
            t.push(
                RowStyle::Dim,
                format!("[custom: {}]", clean(field("customType"))),
            );
        }
        EntryKind::Label => {
            let label = e.str_field("label").filter(|l| !l.is_empty());
            t.push(
                RowStyle::Dim,
                format!("[label: {}]", label.map_or("(cleared)".into(), clean)),
            );
        }
        EntryKind::SessionInfo => match e.str_field("name").map(str::trim) {
            Some(name) if !name.is_empty() => {
                t.push(RowStyle::Dim, format!("[title: {}]", clean(name)));
            }
            _ => {
                t.push(RowStyle::Dim, "[title: ");
                t.push(RowStyle::DimItalic, "empty");
                t.push(RowStyle::Dim, "]");
            }
        },
        EntryKind::ContextEdit => {
            let kind = match e.slim().get("replacement") {
                Some(Value::Object(_)) => "replace",
                _ => "omit",
            };
            t.push(
                RowStyle::Dim,
                format!("[context {kind}: {}]", clean(field("targetId"))),
            );
        }
        EntryKind::ContextWindowChange => {
            let w = e
                .slim()
                .get("contextWindow")
                .map_or(String::new(), Value::to_string);
            t.push(RowStyle::Dim, format!("[context window: {}]", clean(&w)));
        }
        EntryKind::Usage => t.push(RowStyle::Dim, "[usage]"),
        EntryKind::ContextCompaction | EntryKind::Other => {
            // pi shows a blank row; a visible tag tells what is there.
            t.push(RowStyle::Dim, format!("[{}]", clean(e.type_name())));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tree::tests::{msg as user, session};

    fn ids(s: &Session, nav: &TreeNav) -> Vec<String> {
        nav.rows()
            .iter()
            .map(|r| s.entries()[r.entry].id.clone())
            .collect()
    }

    #[test]
    fn active_branch_first_and_chain_stays_flat() {
        let s = session(&[
            user("a", None, 1),
            user("b", Some("a"), 2),
            user("c", Some("a"), 3),
            user("d", Some("c"), 4),
            user("e", Some("b"), 5),
            // leaf is the last line: on the `c` branch
            user("f", Some("d"), 6),
        ]);
        let nav = TreeNav::new(&s, s.tree.leaf, None, FilterMode::Default);
        assert_eq!(ids(&s, &nav), ["a", "c", "d", "f", "b", "e"]);
        let prefixes: Vec<String> = nav.rows().iter().map(|r| nav.row_prefix(r)).collect();
        assert_eq!(prefixes, ["", "├⊟ ", "│     ", "│     ", "└⊟ ", "      "]);
        assert_eq!(nav.selected_entry(), Some(5));
    }

    #[test]
    fn flattening_a_long_chain_is_iterative() {
        let lines: Vec<String> = (0..100_000u32)
            .map(|i| {
                let parent = (i > 0).then(|| format!("{:08x}", i - 1));
                user(&format!("{i:08x}"), parent.as_deref(), 1)
            })
            .collect();
        let s = session(&lines);
        let nav = TreeNav::new(&s, s.tree.leaf, None, FilterMode::Default);
        assert_eq!(nav.len(), 100_000);
        assert!(nav.rows().iter().all(|r| r.indent == 0));
        assert_eq!(nav.selected_index(), 99_999);
        assert_eq!(nav.window(10), 99_990..100_000);
    }

    #[test]
    fn tool_results_are_labelled_by_their_call() {
        let s = session(&[
            user("a", None, 1),
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"/home/me/x.rs","offset":5,"limit":10}}],"stopReason":"toolUse"}}"#.to_string(),
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2025-01-01T00:00:03Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[]}}"#.to_string(),
            r#"{"type":"compaction","id":"d","parentId":"c","timestamp":"2025-01-01T00:00:04Z","summary":"s","tokensBefore":50400}"#.to_string(),
        ]);
        let nav = TreeNav::new(&s, s.tree.leaf, None, FilterMode::Default);
        // the tool-call-only assistant turn is hidden
        assert_eq!(ids(&s, &nav), ["a", "c", "d"]);
        let text = |i: usize| row_text(&s.entries()[i], nav.tool_calls(), Some("/home/me")).plain();
        assert_eq!(text(2), "[read: ~/x.rs:5-14]");
        assert_eq!(text(3), "[compaction: 50k tokens]");
        assert_eq!(
            format_tool_call(
                &ToolCall::of("bash", &serde_json::json!({"command": "x".repeat(60)})),
                None
            ),
            format!("[bash: {}...]", "x".repeat(50))
        );
        let huge = serde_json::json!({"path": "a", "offset": i64::MAX, "limit": 2});
        assert_eq!(
            format_tool_call(&ToolCall::of("read", &huge), None),
            format!("[read: a:{}-{}]", i64::MAX, i64::MAX - 1)
        );
    }
}
