//! The session data model: entries, the tree, labels and names, context building.
<<<<<<< HEAD

pub mod context;
pub mod export;
pub mod entry;
pub mod info;
pub mod parse;
pub mod transcript;
pub mod tree;
=======
pub mod search;
>>>>>>> search
