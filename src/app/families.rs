//! Session families in the threaded list: a session with forks or subagent children (their
//! `parentSession`) is a node that folds (Alt+← or Alt+F) and unfolds (Alt+→ or Alt+F), shown
//! with its number of hidden descendants. Unfolded by default, as pi draws them;
//! `[picker] families = "folded"` starts every family folded. Alt+C hides child sessions in
//! every sort.
//!
//! Works on the rows the threaded builder made (depth first, each row's depth in its prefix),
//! so the builder stays as it is: a node's descendants are the rows after it that are deeper.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use unicode_width::UnicodeWidthStr;

use super::record::SessionRecord;
use super::rows::Row;

/// Fold state of the families, kept across row rebuilds (by session path: record indices
/// are stable, but a path also survives a refresh).
#[derive(Clone, Debug, Default)]
pub struct Families {
    /// Nodes start folded.
    pub folded_by_default: bool,
    /// Nodes whose state differs from the default.
    pub toggled: HashSet<PathBuf>,
    /// Hide every session that has a `parentSession`, in every sort.
    pub hide_children: bool,
    /// For the rows built last: record → descendants hidden under it (folded nodes only).
    pub hidden_under: HashMap<usize, usize>,
    /// For the rows built last: records that have children (foldable nodes).
    pub parents: HashSet<usize>,
}

/// A row's depth, from its drawn prefix (three columns a level).
fn depth(row: &Row) -> usize {
    row.prefix.width() / 3
}

impl Families {
    fn is_folded(&self, r: &SessionRecord) -> bool {
        self.folded_by_default != self.toggled.contains(&r.info.path)
    }

    /// Drops the descendants of folded nodes from threaded `rows`, noting how many each hides.
    pub fn fold_rows(&mut self, records: &[Arc<SessionRecord>], rows: Vec<Row>) -> Vec<Row> {
        self.hidden_under.clear();
        self.parents.clear();
        let depths: Vec<usize> = rows.iter().map(depth).collect();
        let mut out = Vec::with_capacity(rows.len());
        let mut i = 0;
        while i < rows.len() {
            let d = depths[i];
            let mut end = i + 1;
            while end < rows.len() && depths[end] > d {
                end += 1;
            }
            let record = rows[i].record;
            let has_children = end > i + 1;
            if has_children {
                self.parents.insert(record);
            }
            let folded = has_children && records.get(record).is_some_and(|r| self.is_folded(r));
            out.push(rows[i].clone());
            if folded {
                self.hidden_under.insert(record, end - i - 1);
                i = end;
            } else {
                i += 1;
            }
        }
        out
    }

    /// Folds (`Some(true)`), unfolds (`Some(false)`) or toggles (`None`) the node of `record`;
    /// false when it has no children.
    pub fn set_folded(&mut self, record: &SessionRecord, index: usize, fold: Option<bool>) -> bool {
        if !self.parents.contains(&index) {
            return false;
        }
        let now = self.is_folded(record);
        let want = fold.unwrap_or(!now);
        if want != now {
            let path = record.info.path.clone();
            if !self.toggled.remove(&path) {
                self.toggled.insert(path);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::info::SessionInfo;

    fn rec(i: usize) -> Arc<SessionRecord> {
        Arc::new(SessionRecord::without_fs(
            SessionInfo {
                path: PathBuf::from(format!("/s/{i}.jsonl")),
                ..SessionInfo::default()
            },
            true,
        ))
    }

    fn row(record: usize, prefix: &str) -> Row {
        Row {
            record,
            prefix: prefix.to_owned(),
        }
    }

    #[test]
    fn folded_nodes_hide_their_descendants_and_count_them() {
        let records: Vec<_> = (0..5).map(rec).collect();
        let rows = vec![
            row(0, ""),
            row(1, "├─ "),
            row(2, "│  └─ "),
            row(3, "└─ "),
            row(4, ""),
        ];
        let mut f = Families {
            folded_by_default: true,
            ..Families::default()
        };
        let shown = f.fold_rows(&records, rows.clone());
        assert_eq!(shown.iter().map(|r| r.record).collect::<Vec<_>>(), [0, 4]);
        assert_eq!(f.hidden_under.get(&0), Some(&3));
        assert!(f.set_folded(&records[0], 0, Some(false)));
        let shown = f.fold_rows(&records, rows.clone());
        // 1 is a folded node of its own.
        assert_eq!(
            shown.iter().map(|r| r.record).collect::<Vec<_>>(),
            [0, 1, 3, 4]
        );
        assert_eq!(f.hidden_under.get(&1), Some(&1));
        assert!(!f.set_folded(&records[4], 4, None), "no children");
        assert!(f.set_folded(&records[1], 1, None));
        let shown = f.fold_rows(&records, rows);
        assert_eq!(shown.len(), 5);
        assert!(f.hidden_under.is_empty());
    }
}
