//! The tree selector's model: laying the visible entries out as rows after every change.

mod queries;

use std::collections::HashSet;

use rayon::prelude::*;

use crate::model::entry::{Entry, EntryKind};
use crate::model::tree::Session;

use super::text::{contains_all, search_tokens, searchable_text};
use super::types::{FilterMode, Gutter, GutterLink, NONE, Row, ToolCalls};

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
    visible_children: Children,
    visible_roots: Vec<u32>,

    selected: usize,
    last_selected: Option<usize>,
}

/// Each entry's children in one list (an entry's are `list[start[e]..start[e + 1]]`): a
/// vector per entry would be an allocation per entry of a chain of hundreds of thousands.
#[derive(Clone, Debug, Default)]
pub(super) struct Children {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Children {
    /// The children of `entry` (none for an entry out of range).
    pub(super) fn of(&self, entry: usize) -> &[u32] {
        match (self.start.get(entry), self.start.get(entry + 1)) {
            (Some(&a), Some(&b)) => &self.list[a as usize..b as usize],
            _ => &[],
        }
    }

    fn builder(n: usize) -> ChildrenBuilder {
        ChildrenBuilder {
            count: vec![0; n + 1],
        }
    }
}

/// Counts children per parent, then places them in order.
struct ChildrenBuilder {
    count: Vec<u32>,
}

impl ChildrenBuilder {
    fn count(&mut self, parent: u32) {
        self.count[parent as usize + 1] += 1;
    }

    fn place(mut self) -> ChildrenPlacer {
        for k in 1..self.count.len() {
            self.count[k] += self.count[k - 1];
        }
        let total = self.count.last().copied().unwrap_or(0) as usize;
        ChildrenPlacer {
            next: self.count.clone(),
            children: Children {
                start: self.count,
                list: vec![0; total],
            },
        }
    }
}

struct ChildrenPlacer {
    next: Vec<u32>,
    children: Children,
}

impl ChildrenPlacer {
    fn put(&mut self, parent: u32, child: u32) {
        let at = &mut self.next[parent as usize];
        self.children.list[*at as usize] = child;
        *at += 1;
    }

    fn finish(self) -> Children {
        self.children
    }
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
            visible_children: Children::default(),
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
        self.visible_roots.clear();
        let mut children = Children::builder(n);
        for &i in &self.order {
            if !visible[i] {
                continue;
            }
            let p = nearest[i];
            self.visible_parent[i] = p;
            if p == NONE {
                self.visible_roots.push(i as u32);
            } else {
                children.count(p);
            }
        }
        let mut children = children.place();
        for &i in &self.order {
            if visible[i] && nearest[i] != NONE {
                children.put(nearest[i], i as u32);
            }
        }
        self.visible_children = children.finish();
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
            let children = self.visible_children.of(i);
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
}
