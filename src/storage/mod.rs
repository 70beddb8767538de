//! Everything that touches the file system: roots, scanning, reading, appending, forking, trash.

pub mod append;
pub mod cache;
pub mod demo;
pub mod fastscan;
pub mod fork;
pub mod fsutil;
pub mod index;
pub mod read;
pub mod repo;
pub mod restore;
pub mod roots;
pub mod safe_fs;
pub mod scan;
pub mod stats;
pub mod trash;
