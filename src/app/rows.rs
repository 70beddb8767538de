//! The list's rows from the listed records: newest first, or pi's threaded view (forks under
//! their parent).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::record::SessionRecord;

/// One visible row of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Index into `PickerState::records`.
    pub record: usize,
    /// Threaded sort: `│  `, `├─ `, `└─ ` drawing; empty otherwise.
    pub prefix: String,
}

pub(crate) fn plain_rows(indices: Vec<usize>) -> Vec<Row> {
    indices
        .into_iter()
        .map(|record| Row {
            record,
            prefix: String::new(),
        })
        .collect()
}

/// Newest first; ties by path so the order is stable.
pub(crate) fn sort_recent(records: &[Arc<SessionRecord>], indices: &mut [usize]) {
    indices.sort_by(|&a, &b| {
        let (a, b) = (&records[a].info, &records[b].info);
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// The parent of each listed record among the listed records: `parentSession` matched by exact
/// path, else canonical path, else file name (copies of a session folder keep file names but
/// not absolute paths).
fn parents(records: &[Arc<SessionRecord>], listed: &[usize]) -> HashMap<usize, usize> {
    let mut by_path: HashMap<&Path, usize> = HashMap::new();
    let mut by_canonical: HashMap<&Path, usize> = HashMap::new();
    let mut by_name: HashMap<&std::ffi::OsStr, Option<usize>> = HashMap::new();
    for &i in listed {
        let r = &records[i];
        by_path.insert(r.info.path.as_path(), i);
        if let Some(c) = &r.canonical_path {
            by_canonical.insert(c.as_path(), i);
        }
        if let Some(n) = r.info.path.file_name() {
            // An ambiguous name matches nothing.
            by_name
                .entry(n)
                .and_modify(|v| *v = None)
                .or_insert(Some(i));
        }
    }
    let mut out = HashMap::new();
    for &i in listed {
        let r = &records[i];
        let Some(parent) = r.info.parent_session_path.as_deref() else {
            continue;
        };
        let parent = Path::new(parent);
        let found = by_path
            .get(parent)
            .or_else(|| {
                r.canonical_parent
                    .as_deref()
                    .and_then(|c| by_canonical.get(c))
            })
            .copied()
            .or_else(|| {
                parent
                    .file_name()
                    .and_then(|n| by_name.get(n).copied().flatten())
            });
        if let Some(p) = found
            && p != i
        {
            out.insert(i, p);
        }
    }
    // A cycle (a session naming its own descendant) would hide both; break it at the child.
    let keys: Vec<usize> = out.keys().copied().collect();
    for start in keys {
        let mut seen = vec![start];
        let mut cur = start;
        while let Some(&p) = out.get(&cur) {
            if seen.contains(&p) {
                out.remove(&cur);
                break;
            }
            seen.push(p);
            cur = p;
        }
    }
    out
}

/// pi's threaded view: forks under their parent, siblings and roots by most recent activity
/// in their subtree, flattened depth first with `├─`/`└─` prefixes.
pub(crate) fn threaded_rows(records: &[Arc<SessionRecord>], listed: &[usize]) -> Vec<Row> {
    let parent_of = parents(records, listed);
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for &i in listed {
        match parent_of.get(&i) {
            Some(&p) => children.entry(p).or_default().push(i),
            None => roots.push(i),
        }
    }
    // Most recent activity anywhere in the subtree.
    fn latest(
        i: usize,
        records: &[Arc<SessionRecord>],
        children: &HashMap<usize, Vec<usize>>,
        memo: &mut HashMap<usize, i64>,
    ) -> i64 {
        if let Some(&m) = memo.get(&i) {
            return m;
        }
        let own = records[i].info.modified_ms;
        let m = children.get(&i).map_or(own, |c| {
            c.iter()
                .map(|&k| latest(k, records, children, memo))
                .fold(own, i64::max)
        });
        memo.insert(i, m);
        m
    }
    let mut memo = HashMap::new();
    for &i in listed {
        latest(i, records, &children, &mut memo);
    }
    let order = |list: &mut Vec<usize>| {
        list.sort_by(|a, b| {
            memo[b]
                .cmp(&memo[a])
                .then_with(|| records[*a].info.path.cmp(&records[*b].info.path))
        });
    };
    order(&mut roots);
    for list in children.values_mut() {
        order(list);
    }
    let mut rows = Vec::with_capacity(listed.len());
    // Iterative DFS: (record, depth, is_last, ancestors-continue flags).
    let mut stack: Vec<(usize, usize, bool, Vec<bool>)> = roots
        .iter()
        .rev()
        .map(|&r| (r, 0, true, Vec::new()))
        .collect();
    while let Some((i, depth, is_last, ancestors)) = stack.pop() {
        let mut prefix = String::new();
        if depth > 0 {
            for continues in &ancestors {
                prefix.push_str(if *continues { "│  " } else { "   " });
            }
            prefix.push_str(if is_last { "└─ " } else { "├─ " });
        }
        rows.push(Row { record: i, prefix });
        if let Some(kids) = children.get(&i) {
            let mut next = ancestors.clone();
            // The root level never draws a line (as pi).
            next.push(depth > 0 && !is_last);
            for (n, &k) in kids.iter().enumerate().rev() {
                stack.push((k, depth + 1, n + 1 == kids.len(), next.clone()));
            }
        }
    }
    rows
}
