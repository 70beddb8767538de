//! The threaded picker: forks under the session they were forked from, as pi's `/resume`
//! shows them. Built in O(n log n) for n listed sessions whatever their shape (8,000 sessions
//! each forked from the previous one used to take a minute: the cycle check grew with the cube
//! of the chain), and drawn with at most [`MAX_DRAWN_DEPTH`] levels of indentation.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::families::{BuiltThreads, FoldSpec, Folds};
use super::record::SessionRecord;
use super::rows::Row;

/// Deeper forks are drawn at this depth, behind a `…` that stands for the hidden levels: a
/// row's indentation costs its width in every frame, and a screen is only so wide.
pub const MAX_DRAWN_DEPTH: usize = 12;

/// The parent of each listed record among the listed records: `parentSession` matched by exact
/// path, else canonical path, else file name (copies of a session folder keep file names but
/// not absolute paths). A cycle (a session naming its own descendant) is broken at the child
/// whose parent is already on the walk, so every session is shown.
fn parents(records: &[Arc<SessionRecord>], listed: &[usize]) -> Vec<Option<usize>> {
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
    // Indexed by record: a listing of 100k sessions costs three flat vectors, no hashing.
    let mut out: Vec<Option<usize>> = vec![None; records.len()];
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
            out[i] = Some(p);
        }
    }
    break_cycles(listed, &mut out);
    out
}

/// Removes one link of every cycle, visiting each session once: walk up from each session not
/// yet seen; reaching a session of the current walk closes a cycle, broken at the child.
fn break_cycles(listed: &[usize], parent_of: &mut [Option<usize>]) {
    const NEW: u8 = 0;
    const ON_WALK: u8 = 1;
    const DONE: u8 = 2;
    let mut seen = vec![NEW; parent_of.len()];
    let mut walk = Vec::new();
    for &start in listed {
        if seen[start] != NEW {
            continue;
        }
        let mut cur = start;
        loop {
            seen[cur] = ON_WALK;
            walk.push(cur);
            let Some(p) = parent_of[cur] else { break };
            match seen[p] {
                ON_WALK => {
                    parent_of[cur] = None;
                    break;
                }
                DONE => break,
                _ => cur = p,
            }
        }
        for i in walk.drain(..) {
            seen[i] = DONE;
        }
    }
}

/// The listed sessions as a forest: roots and each session's children, both in pi's order
/// (most recent activity in the subtree first, then by path), and each one's parent.
struct Forest {
    roots: Vec<usize>,
    children: Vec<Vec<usize>>,
    parent_of: Vec<Option<usize>>,
    /// Each listed session's subtree, itself included (indexed by record).
    size: Vec<usize>,
}

fn forest(records: &[Arc<SessionRecord>], listed: &[usize]) -> Forest {
    let parent_of = parents(records, listed);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); records.len()];
    let mut roots = Vec::new();
    for &i in listed {
        match parent_of[i] {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    // Most recent activity anywhere in the subtree: children before parents, found by a walk
    // from the roots (every listed session is under one, the cycles being broken).
    let mut latest: Vec<i64> = records.iter().map(|r| r.info.modified_ms).collect();
    let mut size = vec![1usize; records.len()];
    let mut preorder = Vec::with_capacity(listed.len());
    let mut stack: Vec<usize> = roots.clone();
    while let Some(i) = stack.pop() {
        preorder.push(i);
        stack.extend(children[i].iter().copied());
    }
    for &i in preorder.iter().rev() {
        if let Some(p) = parent_of[i] {
            latest[p] = latest[p].max(latest[i]);
            size[p] += size[i];
        }
    }
    let order = |list: &mut Vec<usize>| {
        list.sort_by(|&a, &b| {
            latest[b]
                .cmp(&latest[a])
                .then_with(|| records[a].info.path.cmp(&records[b].info.path))
        });
    };
    order(&mut roots);
    for &i in &preorder {
        order(&mut children[i]);
    }
    Forest {
        roots,
        children,
        parent_of,
        size,
    }
}

/// pi's threaded view: forks under their parent, siblings and roots by most recent activity
/// in their subtree (then by path), flattened depth first with `├─`/`└─` prefixes.
pub fn threaded_rows(records: &[Arc<SessionRecord>], listed: &[usize]) -> Vec<Row> {
    walk(&forest(records, listed), |_| false, &mut Folds::default())
}

/// The threaded rows with the families folded as `spec` says (see [`super::families`]).
/// Pinned sessions (`pinned`, listed ones) come first, flat, in their threaded order; the
/// others are threaded without them, so a pin is never hidden in a folded family.
pub fn threaded_folded(
    records: &[Arc<SessionRecord>],
    listed: &[usize],
    pinned: &[usize],
    spec: &FoldSpec,
) -> BuiltThreads {
    let mut rows = Vec::new();
    let rest: Vec<usize>;
    let listed = if pinned.is_empty() {
        listed
    } else {
        let mut is_pinned = vec![false; records.len()];
        for &i in pinned {
            if let Some(p) = is_pinned.get_mut(i) {
                *p = true;
            }
        }
        rows.extend(
            threaded_rows(records, listed)
                .into_iter()
                .filter(|r| is_pinned[r.record])
                .map(|r| Row {
                    record: r.record,
                    prefix: String::new(),
                }),
        );
        rest = listed.iter().copied().filter(|&i| !is_pinned[i]).collect();
        &rest
    };
    let forest = forest(records, listed);
    // The selected session is never hidden: the families it is in stay open.
    let mut reveal = vec![];
    let mut revealed = vec![false; records.len()];
    if let Some(mut cur) = spec.reveal.filter(|&r| r < records.len()) {
        while let Some(p) = forest.parent_of[cur] {
            reveal.push(p);
            revealed[p] = true;
            cur = p;
        }
    }
    let mut folds = Folds::default();
    let fold =
        |i: usize| !revealed[i] && records.get(i).is_some_and(|r| spec.is_folded(&r.info.path));
    rows.extend(walk(&forest, fold, &mut folds));
    folds.opened = reveal
        .into_iter()
        .filter(|&i| records.get(i).is_some_and(|r| spec.is_folded(&r.info.path)))
        .collect();
    BuiltThreads { rows, folds }
}

/// Flattens `forest` depth first, not entering the nodes `fold` says are folded; notes the
/// nodes, the folded ones' hidden counts and the shown rows' parents in `folds`.
fn walk(forest: &Forest, fold: impl Fn(usize) -> bool, folds: &mut Folds) -> Vec<Row> {
    let Forest {
        roots,
        children,
        parent_of,
        size,
    } = forest;
    let mut rows = Vec::with_capacity(roots.len());
    // Iterative DFS: (record, depth, is_last, ancestors-continue flags of the drawn levels).
    let mut stack: Vec<(usize, usize, bool, Vec<bool>)> = roots
        .iter()
        .rev()
        .map(|&r| (r, 0, true, Vec::new()))
        .collect();
    while let Some((i, depth, is_last, ancestors)) = stack.pop() {
        rows.push(Row {
            record: i,
            prefix: prefix(depth, is_last, &ancestors),
        });
        if let Some(p) = parent_of[i] {
            folds.parent_of.insert(i, p);
        }
        let kids = &children[i];
        if kids.is_empty() {
            continue;
        }
        folds.parents.insert(i);
        if fold(i) {
            folds.hidden_under.insert(i, size[i] - 1);
            continue;
        }
        let mut next = ancestors;
        // The root level never draws a line (as pi). Levels past the drawn depth are not
        // drawn, so their flags are not kept.
        if next.len() < MAX_DRAWN_DEPTH {
            next.push(depth > 0 && !is_last);
        }
        for (n, &k) in kids.iter().enumerate().rev() {
            stack.push((k, depth + 1, n + 1 == kids.len(), next.clone()));
        }
    }
    rows
}

/// The drawing in front of a row at `depth`: one column of three per ancestor level (`│  `
/// where that level goes on below), then `├─ ` or `└─ `. Past [`MAX_DRAWN_DEPTH`] the deepest
/// drawn level is replaced by `…  `.
fn prefix(depth: usize, is_last: bool, ancestors: &[bool]) -> String {
    if depth == 0 {
        return String::new();
    }
    let drawn = if depth > MAX_DRAWN_DEPTH {
        MAX_DRAWN_DEPTH - 1
    } else {
        depth
    };
    let mut prefix = String::with_capacity((drawn + 2) * 9);
    for continues in ancestors.iter().take(drawn) {
        prefix.push_str(if *continues { "│  " } else { "   " });
    }
    if depth > MAX_DRAWN_DEPTH {
        prefix.push_str("…  ");
    }
    prefix.push_str(if is_last { "└─ " } else { "├─ " });
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::info::SessionInfo;
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn record(i: usize, parent: Option<usize>, modified_ms: i64) -> Arc<SessionRecord> {
        let path = |i: usize| PathBuf::from(format!("/s/--w--/{i:05}.jsonl"));
        let info = SessionInfo {
            path: path(i),
            id: format!("{i}"),
            cwd: "/w".into(),
            parent_session_path: parent.map(|p| path(p).to_string_lossy().into_owned()),
            modified_ms,
            message_count: 1,
            first_message: format!("session {i}"),
            version: 3,
            entry_count: 1,
            leaf_count: 1,
            ..SessionInfo::default()
        };
        Arc::new(SessionRecord::without_fs(info, true))
    }

    /// The algorithm this replaced (quadratic memoised recursion, cubic cycle check), kept as
    /// the reference for shapes where the two must agree.
    mod reference {
        use super::super::*;

        fn parents(records: &[Arc<SessionRecord>], listed: &[usize]) -> HashMap<usize, usize> {
            let mut by_path: HashMap<&Path, usize> = HashMap::new();
            for &i in listed {
                by_path.insert(records[i].info.path.as_path(), i);
            }
            let mut out = HashMap::new();
            for &i in listed {
                let Some(parent) = records[i].info.parent_session_path.as_deref() else {
                    continue;
                };
                if let Some(&p) = by_path.get(Path::new(parent))
                    && p != i
                {
                    out.insert(i, p);
                }
            }
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

        pub fn threaded_rows(records: &[Arc<SessionRecord>], listed: &[usize]) -> Vec<Row> {
            let parent_of = parents(records, listed);
            let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
            let mut roots = Vec::new();
            for &i in listed {
                match parent_of.get(&i) {
                    Some(&p) => children.entry(p).or_default().push(i),
                    None => roots.push(i),
                }
            }
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
                    next.push(depth > 0 && !is_last);
                    for (n, &k) in kids.iter().enumerate().rev() {
                        stack.push((k, depth + 1, n + 1 == kids.len(), next.clone()));
                    }
                }
            }
            rows
        }
    }

    /// A forest: each session's parent (if any) comes before it; mtimes with ties.
    fn forest() -> impl Strategy<Value = (Vec<Arc<SessionRecord>>, Vec<usize>)> {
        (1usize..40)
            .prop_flat_map(|n| {
                (
                    proptest::collection::vec((any::<u16>(), 0u8..4, 0i64..6), n),
                    proptest::collection::vec(any::<bool>(), n),
                )
            })
            .prop_map(|(specs, keep)| {
                let records: Vec<_> = specs
                    .iter()
                    .enumerate()
                    .map(|(i, &(p, kind, mtime))| {
                        // Mostly forks of a recent session: deep chains and bushes both.
                        let parent = (i > 0 && kind != 0).then(|| {
                            let back = (p as usize % 3).min(i - 1);
                            if kind == 1 {
                                p as usize % i
                            } else {
                                i - 1 - back
                            }
                        });
                        record(i, parent, mtime)
                    })
                    .collect();
                let listed = (0..records.len())
                    .filter(|&i| keep[i] || i % 3 == 0)
                    .collect();
                (records, listed)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Where nothing is deeper than the drawn depth, the rows are the old algorithm's;
        /// deeper, the order is the same and only the indentation is capped.
        #[test]
        fn same_rows_as_the_old_algorithm((records, listed) in forest()) {
            let new = threaded_rows(&records, &listed);
            let old = reference::threaded_rows(&records, &listed);
            let order = |rows: &[Row]| rows.iter().map(|r| r.record).collect::<Vec<_>>();
            prop_assert_eq!(order(&new), order(&old));
            for (n, o) in new.iter().zip(&old) {
                let depth = o.prefix.chars().count() / 3;
                if depth <= MAX_DRAWN_DEPTH + 1 {
                    prop_assert_eq!(&n.prefix, &o.prefix);
                } else {
                    prop_assert_eq!(n.prefix.chars().count(), (MAX_DRAWN_DEPTH + 1) * 3);
                    prop_assert!(n.prefix.contains('…'));
                }
            }
        }
    }

    #[test]
    fn cycles_are_broken_and_every_session_shown() {
        // 0 ← 1 ← 2 ← 0 (a cycle), 3 names itself, 4 hangs off the cycle.
        let mut records: Vec<_> = (0..5).map(|i| record(i, None, i as i64)).collect();
        let link = |records: &mut Vec<Arc<SessionRecord>>, i: usize, p: usize| {
            let mut r = (*records[i]).clone();
            r.info.parent_session_path = Some(records[p].info.path.to_string_lossy().into());
            records[i] = Arc::new(r);
        };
        link(&mut records, 1, 0);
        link(&mut records, 2, 1);
        link(&mut records, 0, 2);
        link(&mut records, 3, 3);
        link(&mut records, 4, 1);
        let listed: Vec<usize> = (0..5).collect();
        let rows = threaded_rows(&records, &listed);
        let mut shown: Vec<usize> = rows.iter().map(|r| r.record).collect();
        shown.sort_unstable();
        assert_eq!(shown, listed);
        // Broken at the child whose parent was already on the walk from 0: 2 → 0 stays, 0 → 2
        // goes; 0 is a root with the chain under it.
        assert_eq!(rows.iter().filter(|r| r.prefix.is_empty()).count(), 2);
    }

    /// 8,000 sessions each forked from the previous one: built at once, in chain order, the
    /// indentation capped. (Took about a minute; the deadline is a hang guard.)
    #[test]
    fn an_eight_thousand_deep_fork_chain() {
        const N: usize = 8_000;
        let records: Vec<_> = (0..N)
            .map(|i| record(i, i.checked_sub(1), i as i64))
            .collect();
        let listed: Vec<usize> = (0..N).collect();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(threaded_rows(&records, &listed));
        });
        let rows = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("threading 8,000 forks did not finish (hang)");
        assert_eq!(rows.len(), N);
        assert!(rows.iter().enumerate().all(|(i, r)| r.record == i));
        let widest = rows.iter().map(|r| r.prefix.chars().count()).max();
        assert_eq!(widest, Some((MAX_DRAWN_DEPTH + 1) * 3));
        assert_eq!(
            rows[N - 1].prefix,
            format!("{}…  └─ ", "   ".repeat(MAX_DRAWN_DEPTH - 1))
        );
    }

    /// Folding counts by the tree, not by the drawn indentation: in a 40-deep chain (deeper
    /// than the list draws) a folded session hides every one under it.
    #[test]
    fn folds_past_the_drawn_depth_and_pins_first() {
        const N: usize = 40;
        let records: Vec<_> = (0..N)
            .map(|i| record(i, i.checked_sub(1), i as i64))
            .collect();
        let listed: Vec<usize> = (0..N).collect();
        let mut spec = FoldSpec {
            folded_by_default: false,
            ..FoldSpec::default()
        };
        spec.toggled.insert(records[20].info.path.clone());
        let built = threaded_folded(&records, &listed, &[], &spec);
        assert_eq!(built.rows.len(), 21);
        assert_eq!(built.folds.hidden_under.get(&20), Some(&19));
        assert_eq!(built.folds.parent_of.get(&20), Some(&19));
        // Selecting 30 opens 20 again (and says so); pinned 35 comes first, flat, and the
        // chain breaks there.
        spec.reveal = Some(30);
        let built = threaded_folded(&records, &listed, &[35], &spec);
        assert_eq!(built.folds.opened, [20]);
        assert_eq!(built.rows[0].record, 35);
        assert!(built.rows[0].prefix.is_empty());
        assert_eq!(built.rows.len(), N);
        // 36 to 39 (the newer) first, as a root without its pinned parent.
        assert_eq!(built.rows[1].record, 36);
        assert!(built.rows[1].prefix.is_empty());
        assert_eq!(built.rows[5].record, 0);
        // Folded by default, a family's every node folds: only the roots show.
        spec.folded_by_default = true;
        spec.toggled.clear();
        spec.reveal = None;
        let built = threaded_folded(&records, &listed, &[35], &spec);
        let shown: Vec<usize> = built.rows.iter().map(|r| r.record).collect();
        assert_eq!(shown, [35, 36, 0]);
        assert_eq!(built.folds.hidden_under.get(&0), Some(&34));
        assert_eq!(built.folds.hidden_under.get(&36), Some(&3));
    }
}
