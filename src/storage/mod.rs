//! Everything that touches the file system: roots, scanning, reading, appending, forking, trash.

pub mod append;
pub(crate) mod append_scan;
pub mod cache;
pub mod changed;
pub mod demo;
pub mod fastscan;
pub mod fork;
pub mod fsutil;
pub mod index;
pub mod leaf;
pub mod listing;
pub(crate) mod no_op_scan;
pub mod open;
pub mod read;
pub mod repo;
pub mod restore;
pub mod roots;
pub mod safe_fs;
pub mod scan;
pub mod state;
pub mod stats;
pub mod trash;
pub mod trash_error;
pub(crate) mod walk;
