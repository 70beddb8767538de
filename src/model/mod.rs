//! The session data model: entries, the tree, labels and names, context building.
pub mod search;
