//! The session data model: entries, the tree, labels and names, context building, search.

pub mod context;
pub mod digest;
pub mod entry;
pub mod export;
pub mod facts;
pub mod flatten;
pub mod info;
pub mod lines;
pub mod parse;
pub mod render;
pub mod scan;
pub mod search;
pub mod stats;
pub mod transcript;
pub mod tree;
