//! What Ctrl+Z can undo: a trash move of a listed session.

use crate::storage::trash::Trashed;

/// A delete that Ctrl+Z can undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoItem {
    pub record: usize,
    pub trashed: Trashed,
}
