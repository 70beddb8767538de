//! What the index knows of a session whose row is current: what a write needs (see
//! [`super::write`]).

use std::collections::HashSet;

use super::db::FileKey;

/// What the index knows of a session whose row is current.
#[derive(Clone, Debug)]
pub(crate) struct IndexedIds {
    pub row_id: i64,
    pub key: FileKey,
    pub version: u32,
    pub header_id: String,
    /// Where the last scan stopped: the end of the last complete line.
    pub end: u64,
    pub head_hash: u64,
    pub tail_hash: u64,
    pub ids: std::sync::Arc<HashSet<String>>,
}
