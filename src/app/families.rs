//! Session families in the threaded list: a session with forks or subagent children (their
//! `parentSession`) is a node, folded by default with the number of sessions it hides
//! (`▸ 3`), open with `▾`. Alt+→ unfolds, Alt+← folds (on a session inside a family: the
//! family it is in, the selection moving to its head), Alt+F toggles;
//! `[picker] families = "unfolded"` starts them open, as pi draws them. Alt+C hides child
//! sessions in every sort.
//!
//! The folding happens where the threaded rows are built (`threads::threaded_folded`), on the
//! UI thread for short lists and in the background job for long ones, from a [`FoldSpec`]
//! sent with the request. The selected session is never hidden: a family it is in stays (and
//! is marked) open. A search lists its matches flat, ranked, folded family or not.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::rows::Row;

/// Fold state of the families, kept across row rebuilds (by session path: it survives a
/// refresh and a background build).
#[derive(Clone, Debug)]
pub struct Families {
    /// Nodes start folded (the default; `families = "unfolded"` turns it off).
    pub folded_by_default: bool,
    /// Nodes whose state differs from the default.
    pub toggled: HashSet<PathBuf>,
    /// Hide every session that has a `parentSession`, in every sort.
    pub hide_children: bool,
    /// What the rows shown were built with.
    pub shown: Folds,
}

impl Default for Families {
    fn default() -> Self {
        Families {
            folded_by_default: true,
            toggled: HashSet::new(),
            hide_children: false,
            shown: Folds::default(),
        }
    }
}

/// How to fold, for a build of the threaded rows (on a worker, for long lists).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoldSpec {
    pub folded_by_default: bool,
    pub toggled: HashSet<PathBuf>,
    /// The selected session: the families it is in are opened.
    pub reveal: Option<usize>,
}

impl FoldSpec {
    pub(crate) fn is_folded(&self, path: &Path) -> bool {
        self.folded_by_default != self.toggled.contains(path)
    }
}

/// The families of built rows (records are indices into the picker's records).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folds {
    /// Records with children: the nodes that fold.
    pub parents: HashSet<usize>,
    /// Folded nodes → the number of sessions hidden under them.
    pub hidden_under: HashMap<usize, usize>,
    /// Shown rows inside a family → the session they are under.
    pub parent_of: HashMap<usize, usize>,
    /// Folded nodes opened to show the selected session (made open for good when the rows
    /// are taken, so they do not fold again under the user).
    pub opened: Vec<usize>,
}

/// Threaded rows and their families, as a build returns them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuiltThreads {
    pub rows: Vec<Row>,
    pub folds: Folds,
}

/// The value of `[picker] families`: whether families start folded.
pub fn parse_config(value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("folded") => Ok(true),
        // "expanded" was the name of the opposite before; still read.
        Some("unfolded" | "expanded") => Ok(false),
        Some(other) => Err(format!(
            "[picker] families: `{}` is not \"folded\" or \"unfolded\"",
            crate::text::sanitize::sanitize_line(other)
        )),
    }
}

impl Families {
    /// The spec of a build that keeps `selected` visible.
    pub(crate) fn spec(&self, selected: Option<usize>) -> FoldSpec {
        FoldSpec {
            folded_by_default: self.folded_by_default,
            toggled: self.toggled.clone(),
            reveal: selected,
        }
    }

    fn is_folded(&self, path: &Path) -> bool {
        self.folded_by_default != self.toggled.contains(path)
    }

    fn set(&mut self, path: &Path, folded: bool) {
        if self.is_folded(path) != folded && !self.toggled.remove(path) {
            self.toggled.insert(path.to_path_buf());
        }
    }

    /// Takes the families of rows about to be shown (`paths` names the records).
    pub(crate) fn take(&mut self, folds: Folds, path_of: impl Fn(usize) -> Option<PathBuf>) {
        for &i in &folds.opened {
            if let Some(p) = path_of(i) {
                self.set(&p, false);
            }
        }
        self.shown = folds;
    }

    /// The node an action on the shown row of `record` works on: itself when it has
    /// children; for Fold, else the family it is in.
    pub(crate) fn target(&self, record: usize, fold: Option<bool>) -> Option<usize> {
        if self.shown.parents.contains(&record)
            && (fold != Some(true) || !self.shown.hidden_under.contains_key(&record))
        {
            return Some(record);
        }
        match fold {
            Some(true) => self.shown.parent_of.get(&record).copied(),
            _ => None,
        }
    }

    /// Folds (`Some(true)`), unfolds (`Some(false)`) or toggles (`None`) the node at `path`
    /// (one [`Families::target`] returned).
    pub(crate) fn set_folded(&mut self, path: &Path, fold: Option<bool>) {
        let want = fold.unwrap_or(!self.is_folded(path));
        self.set(path, want);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_values() {
        assert_eq!(parse_config(None), Ok(true), "folded by default");
        assert_eq!(parse_config(Some("folded")), Ok(true));
        assert_eq!(parse_config(Some("unfolded")), Ok(false));
        assert_eq!(parse_config(Some("expanded")), Ok(false));
        let err = parse_config(Some("open\u{1b}[2J")).unwrap_err();
        assert!(err.contains("not \"folded\" or \"unfolded\""), "{err}");
        assert!(!err.contains('\u{1b}'), "sanitized: {err}");
    }

    #[test]
    fn toggling_twice_is_the_default_again() {
        let mut f = Families::default();
        let p = Path::new("/s/1.jsonl");
        f.set_folded(p, None);
        assert!(!f.is_folded(p));
        f.set_folded(p, Some(false));
        assert!(!f.is_folded(p));
        f.set_folded(p, None);
        assert!(f.is_folded(p));
        assert!(f.toggled.is_empty());
    }
}
