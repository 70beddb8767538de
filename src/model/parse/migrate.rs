//! Old session versions brought to v3 in memory, as pi does on load (never on disk).

use serde_json::Value;

use crate::model::entry::{Entry, EntryKind};

/// v1 → v2: a linear chain in file order with generated ids; `firstKeptEntryIndex` (an index
/// into pi's array that has the header at 0) becomes `firstKeptEntryId`.
///
/// pi generates random ids (and rewrites the file); grove derives them from the session id and
/// position so they are stable across runs and can be named on the command line.
pub(super) fn migrate_v1_to_v2(session_id: &str, entries: &mut [Entry]) {
    let mut used = std::collections::HashSet::new();
    let ids: Vec<String> = (0..entries.len())
        .map(|i| {
            let mut salt = 0u64;
            loop {
                let id = format!("{:08x}", stable_hash(session_id, i as u64, salt) as u32);
                if used.insert(id.clone()) {
                    return id;
                }
                salt += 1;
            }
        })
        .collect();
    let mut prev: Option<String> = None;
    for (i, e) in entries.iter_mut().enumerate() {
        e.id = ids[i].clone();
        e.parent_id = prev.clone();
        let id = Value::String(e.id.clone());
        e.raw_mut().insert("id".into(), id);
        e.raw_mut().insert(
            "parentId".into(),
            prev.clone().map_or(Value::Null, Value::String),
        );
        prev = Some(e.id.clone());
    }
    for e in entries.iter_mut() {
        if e.kind != EntryKind::Compaction {
            continue;
        }
        let raw = e.raw_mut();
        let Some(index) = raw.get("firstKeptEntryIndex").and_then(Value::as_u64) else {
            raw.remove("firstKeptEntryIndex");
            continue;
        };
        raw.remove("firstKeptEntryIndex");
        // Index 0 is the header in pi's array.
        if index >= 1
            && let Some(target) = ids.get(index as usize - 1)
        {
            raw.insert("firstKeptEntryId".into(), Value::String(target.clone()));
        }
    }
}

fn stable_hash(s: &str, i: u64, salt: u64) -> u64 {
    // FNV-1a: tiny, deterministic across platforms and runs.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes().chain(i.to_le_bytes()).chain(salt.to_le_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^ (h >> 32)
}
