//! The entry tree of one session: `getTree` semantics, labels, name, leaf and branches.
//!
//! Entries are addressed by their index in file order. Every walk is iterative, so chains of
//! hundreds of thousands of entries are fine, and `parentId` cycles are broken (and reported)
//! once here, so nothing downstream can loop.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;
use serde_json::Value;

use super::entry::{Entry, EntryKind};
use super::parse::{IssueKind, ParseIssue, ParsedSession};

/// A resolved label: the latest `label` entry for a target in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub text: String,
    /// The `timestamp` of the label entry that set it.
    pub timestamp: String,
}

/// The session name state, keeping "cleared" apart from "never named" (Atomic's `hasName`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NameState {
    /// True once any `session_info` entry has been seen.
    pub has_name: bool,
    /// The latest name, trimmed; `None` when never named or cleared.
    pub name: Option<String>,
}

impl NameState {
    /// Applies one `session_info` entry: latest wins, trimmed, empty clears.
    pub fn apply(&mut self, entry: &Entry) {
        self.apply_name(entry.str_field("name"));
    }

    /// Applies a `session_info` entry's `name` field (when it is a string).
    pub fn apply_name(&mut self, name: Option<&str>) {
        self.has_name = true;
        self.name = name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
    }
}

/// Entry index by id: each id once, in one string (ids are a few bytes; a `String` per id,
/// twice over with the map's keys, was a fifth of a large session's structure), and a table of
/// entry indices hashed by id with foldhash (seeded per process: a big session has hundreds of
/// thousands of ids, and SipHash was most of building its tree).
#[derive(Clone, Default)]
pub struct IdIndex {
    /// The ids of entries `0..ends.len()`, one after the other.
    ids: String,
    /// Where each entry's id ends in `ids`.
    ends: Vec<usize>,
    /// Indices of the entries by their id: the *last* entry with each id.
    table: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdIndex")
            .field("entries", &self.ends.len())
            .field("ids", &self.table.len())
            .finish()
    }
}

impl IdIndex {
    fn with_capacity(entries: usize) -> IdIndex {
        IdIndex {
            ids: String::with_capacity(entries * 8),
            ends: Vec::with_capacity(entries),
            table: hashbrown::HashTable::with_capacity(entries),
            hasher: Default::default(),
        }
    }

    /// The id of entry `index` as indexed.
    fn id(&self, index: usize) -> &str {
        IdIndex::ids_view(&self.ids, &self.ends)(index)
    }

    /// Adds the next entry's id (entries are added in file order, from 0); returns the entry
    /// it shadows, an earlier one with the same id.
    fn push(&mut self, id: &str) -> Option<usize> {
        use std::hash::BuildHasher;
        let index = self.ends.len();
        self.ids.push_str(id);
        self.ends.push(self.ids.len());
        let hash = self.hasher.hash_one(id);
        let Self {
            ids,
            ends,
            table,
            hasher,
        } = self;
        let view = IdIndex::ids_view(ids, ends);
        match table.entry(
            hash,
            |&i| view(i as usize) == id,
            |&i| hasher.hash_one(view(i as usize)),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut o) => {
                let prev = *o.get() as usize;
                *o.get_mut() = index as u32;
                Some(prev)
            }
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(index as u32);
                None
            }
        }
    }

    fn ids_view<'a>(ids: &'a str, ends: &'a [usize]) -> impl Fn(usize) -> &'a str + 'a {
        move |i| {
            let start = i.checked_sub(1).and_then(|k| ends.get(k)).copied();
            let end = ends.get(i).copied();
            ids.get(start.unwrap_or(0)..end.unwrap_or(0))
                .unwrap_or_default()
        }
    }

    /// The entry index of the last entry with `id`.
    pub fn get(&self, id: &str) -> Option<usize> {
        use std::hash::BuildHasher;
        let hash = self.hasher.hash_one(id);
        self.table
            .find(hash, |&i| self.id(i as usize) == id)
            .map(|&i| i as usize)
    }

    /// The number of distinct ids.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// The children of every entry in one list (an entry's are `list[start[e]..start[e + 1]]`): a
/// vector per entry was an allocation per entry of a chain of hundreds of thousands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Children {
    start: Vec<usize>,
    list: Vec<usize>,
}

impl Children {
    /// The children of `entry`, ordered by timestamp (none for an entry out of range).
    pub fn of(&self, entry: usize) -> &[usize] {
        match (self.start.get(entry), self.start.get(entry + 1)) {
            (Some(&a), Some(&b)) => &self.list[a..b],
            _ => &[],
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The children of each entry in turn.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[usize]> + '_ {
        (0..self.len()).map(|e| self.of(e))
    }

    /// Each entry's children in file order, from each entry's parent.
    fn from_parents(parent: &[Option<usize>]) -> Children {
        let n = parent.len();
        let mut start = vec![0usize; n + 1];
        for p in parent.iter().flatten() {
            start[p + 1] += 1;
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let mut list = vec![0usize; start[n]];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                list[next[p]] = i;
                next[p] += 1;
            }
        }
        Children { start, list }
    }
}

impl std::ops::Index<usize> for Children {
    type Output = [usize];
    fn index(&self, entry: usize) -> &[usize] {
        self.of(entry)
    }
}

/// The tree over a session's entries.
#[derive(Clone, Debug, Default)]
pub struct SessionTree {
    /// id → index of the *last* entry with that id (later duplicates shadow earlier ones, as in pi).
    pub by_id: IdIndex,
    /// Resolved parent of each entry; `None` for roots (null, missing, self or unknown parent,
    /// or a cycle broken here).
    pub parent: Vec<Option<usize>>,
    /// Children of each entry, ordered by timestamp (stable).
    pub children: Children,
    /// Roots in file order.
    pub roots: Vec<usize>,
    /// The leaf on load: the last entry in file order, whatever its type.
    pub leaf: Option<usize>,
    /// Labels by target id (targets may not exist: dangling labels are kept, as pi does).
    pub labels: HashMap<String, Label>,
    pub name: NameState,
    /// Problems found while building: cycles, duplicate ids, orphans.
    pub issues: Vec<ParseIssue>,
}

impl SessionTree {
    pub fn build(entries: &[Entry]) -> Self {
        let n = entries.len();
        let mut t = SessionTree {
            parent: vec![None; n],
            leaf: n.checked_sub(1),
            by_id: IdIndex::with_capacity(n),
            ..Default::default()
        };
        for e in entries {
            if let Some(prev) = t.by_id.push(&e.id) {
                t.issues.push(tree_issue(
                    e.line,
                    format!(
                        "duplicate id {} (also on line {}); the later entry wins",
                        e.id, entries[prev].line
                    ),
                ));
            }
            match e.kind {
                EntryKind::Label => {
                    if let Some((target, label)) = e.label_change() {
                        match label {
                            Some(text) => {
                                t.labels.insert(
                                    target.to_owned(),
                                    Label {
                                        text: text.to_owned(),
                                        timestamp: e.timestamp().to_owned(),
                                    },
                                );
                            }
                            None => {
                                t.labels.remove(target);
                            }
                        }
                    }
                }
                EntryKind::SessionInfo => t.name.apply(e),
                _ => {}
            }
        }
        // Looked up on all cores (a lookup is mostly a cache miss); reported in file order.
        let by_id = &t.by_id;
        let found: Vec<Option<Option<usize>>> = entries
            .par_iter()
            .map(|e| match &e.parent_id {
                None => Some(None),
                Some(p) if *p == e.id => Some(None),
                Some(p) => by_id.get(p).map(Some),
            })
            .collect();
        for (i, (e, found)) in entries.iter().zip(found).enumerate() {
            let parent = found.unwrap_or_else(|| {
                let p = e.parent_id.as_deref().unwrap_or_default();
                t.issues.push(tree_issue(
                    e.line,
                    format!("parent {p} of {} does not exist; shown as a root", e.id),
                ));
                None
            });
            t.parent[i] = parent;
        }
        t.break_cycles(entries);
        t.roots = (0..n).filter(|&i| t.parent[i].is_none()).collect();
        t.children = Children::from_parents(&t.parent);
        // Children by timestamp, stable; an unparseable timestamp keeps its neighbour's place
        // (JS compares NaN as equal) without breaking the total order Rust's sort needs.
        let Children { start, list } = &mut t.children;
        let mut keyed: Vec<(i64, usize)> = Vec::new();
        for w in start.windows(2) {
            let list = &mut list[w[0]..w[1]];
            if list.len() > 1 {
                let mut last = i64::MIN;
                keyed.clear();
                keyed.extend(list.iter().map(|&c| {
                    if let Some(ms) = entries[c].timestamp_ms {
                        last = ms;
                    }
                    (last, c)
                }));
                keyed.sort_by_key(|&(k, _)| k);
                for (slot, &(_, c)) in list.iter_mut().zip(&keyed) {
                    *slot = c;
                }
            }
        }
        t
    }

    /// Makes one member of every `parentId` cycle a root, so every entry is reachable from a
    /// root and every upward walk ends.
    fn break_cycles(&mut self, entries: &[Entry]) {
        let n = self.parent.len();
        // 0 = unknown, 1 = on the current walk, 2 = known to reach a root.
        let mut state = vec![0u8; n];
        let mut walk = Vec::new();
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            walk.clear();
            let mut cur = start;
            loop {
                if state[cur] == 2 {
                    break;
                }
                if state[cur] == 1 {
                    // `cur` closes a cycle: cut it at its earliest member in file order.
                    let pos = walk.iter().position(|&w| w == cur).unwrap_or(0);
                    let cycle = &walk[pos..];
                    let cut = cycle.iter().copied().min().unwrap_or(cur);
                    self.parent[cut] = None;
                    let ids: Vec<&str> = cycle.iter().map(|&c| entries[c].id.as_str()).collect();
                    self.issues.push(tree_issue(
                        entries[cut].line,
                        format!(
                            "parentId cycle {} → {}; {} is shown as a root",
                            ids.join(" → "),
                            ids.first().copied().unwrap_or(""),
                            entries[cut].id
                        ),
                    ));
                    break;
                }
                state[cur] = 1;
                walk.push(cur);
                match self.parent[cur] {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            for &w in &walk {
                state[w] = 2;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The entry index for an id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.by_id.get(id)
    }

    /// The path from the root to `index`, inclusive (pi's `getBranch`).
    pub fn path_to(&self, index: usize) -> Vec<usize> {
        let mut path = Vec::new();
        let mut cur = Some(index);
        while let Some(i) = cur {
            if path.len() > self.parent.len() {
                break; // unreachable after break_cycles; a guard all the same
            }
            path.push(i);
            cur = self.parent[i];
        }
        path.reverse();
        path
    }

    /// The label of an entry, if any.
    pub fn label_of(&self, entries: &[Entry], index: usize) -> Option<&Label> {
        self.labels.get(&entries.get(index)?.id)
    }

    /// Number of leaves (entries without children): the branches a session has.
    pub fn leaf_count(&self) -> usize {
        self.children.iter().filter(|c| c.is_empty()).count()
    }

    /// Whether `ancestor` is on the path from the root to `index`.
    pub fn is_ancestor(&self, ancestor: usize, index: usize) -> bool {
        let mut cur = Some(index);
        let mut steps = 0;
        while let Some(i) = cur {
            if i == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.parent.len() {
                return false;
            }
            cur = self.parent[i];
        }
        false
    }

    /// Entries on the path from the root to the leaf, as a set (for "active path" marks).
    pub fn active_path(&self) -> HashSet<usize> {
        self.leaf
            .map(|l| self.path_to(l).into_iter().collect())
            .unwrap_or_default()
    }
}

fn tree_issue(line: usize, message: String) -> ParseIssue {
    ParseIssue {
        line,
        kind: IssueKind::Tree,
        message,
    }
}

/// A loaded session: what was read, plus its tree.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub parsed: ParsedSession,
    pub tree: SessionTree,
}

impl Session {
    pub fn new(parsed: ParsedSession) -> Self {
        let tree = SessionTree::build(&parsed.entries);
        Session { parsed, tree }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.parsed.entries
    }

    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.parsed.entries.get(index)
    }

    pub fn entry_by_id(&self, id: &str) -> Option<&Entry> {
        self.entry(self.tree.index_of(id)?)
    }

    /// The id of the leaf on load.
    pub fn leaf_id(&self) -> Option<&str> {
        Some(self.entry(self.tree.leaf?)?.id.as_str())
    }

    /// All issues: parse and tree.
    pub fn issues(&self) -> impl Iterator<Item = &ParseIssue> {
        self.parsed.issues.iter().chain(self.tree.issues.iter())
    }

    /// The latest valid `pi.loadout` custom entry in file order (session-wide, not per branch).
    pub fn loadout(&self) -> Option<&Value> {
        self.entries().iter().rev().find_map(|e| {
            if e.kind != EntryKind::Custom || e.str_field("customType") != Some("pi.loadout") {
                return None;
            }
            let data = e.raw().get("data")?;
            let valid = data.get("version").and_then(Value::as_u64).is_some()
                && data.get("overrides").is_some_and(Value::is_array);
            valid.then_some(data)
        })
    }
}

#[cfg(test)]
pub(crate) mod tests;
