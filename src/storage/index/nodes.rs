//! A scan state's entry ids (id -> flags, as [`crate::model::info`] keeps them), stored apart
//! from the rest of the state: split off and put back without a `serde_json::Value` of the
//! whole state, and, for a file that only grew, not loaded at all.
//!
//! # A resume that costs the new bytes
//! A file that grew is read from where its last scan stopped. Its stored ids (270k for a 1 GB
//! session) are only needed for the ids the new lines mark (their own ids, their parents') and
//! for the leaf count. So a resume starts with no ids ([`Delta`]): the new lines mark the ids
//! they name with the flags they give; then one pass over the stored chunks (no allocation per
//! stored id) finds those ids' stored flags, which gives the merged flags, the chunk to store
//! (the ids whose flags changed) and the leaf count (the stored one, corrected for those ids).
//! Anything this cannot settle exactly (a torn last line, whose marks the listing counts but
//! the state does not keep; a version 1 file, whose leaf count does not come from the ids)
//! resumes with all ids loaded ([`all_ids`]), as before.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::model::info::IdMap;
use crate::storage::fastscan::ScanState;

/// The flag of an id seen as an entry's own (see [`crate::model::info`]); an id with only this
/// flag is a leaf.
const IS_ID: u8 = 1;

/// The state without its ids and its tool-call text (taken out of `state`), as JSON; with the
/// ids and the tool-call text.
pub(super) fn split(state: &mut ScanState) -> Option<(Vec<u8>, IdMap, String)> {
    let nodes = state.builder_mut().take_nodes();
    let tools = state.builder_mut().take_tools();
    let rest = serde_json::to_vec(state).ok()?;
    Some((rest, nodes, tools))
}

/// The state stored by [`split`] without ids; its tool-call text stood for by
/// [`super::fresh::TEXT_MARK`] when the stored one is not empty (the scanner only needs to know
/// that some came before). `None` unless the stored JSON has no ids and no tool text.
pub(super) fn rest_state(rest: &[u8], had_tools: bool) -> Option<ScanState> {
    let mut state: ScanState = serde_json::from_slice(rest).ok()?;
    let b = state.builder_mut();
    if !b.take_nodes().is_empty() || !b.take_tools().is_empty() {
        return None;
    }
    if had_tools {
        b.restore_tools(super::fresh::TEXT_MARK.to_owned());
    }
    Some(state)
}

/// All ids of the stored chunks, applied in order.
pub(super) fn all_ids(chunks: &[Vec<u8>]) -> Option<IdMap> {
    let mut all = IdMap::default();
    for c in chunks {
        each_id(c, |id, flags| match all.get_mut(id) {
            Some(f) => *f |= flags,
            None => {
                all.insert(id.into(), flags);
            }
        })?;
    }
    Some(all)
}

/// The ids of `new` that `old` lacks or holds with other flags; `None` when `old` has one that
/// `new` lost (then all must be stored again).
pub(super) fn changed(old: &IdMap, new: &IdMap) -> Option<IdMap> {
    if old.keys().any(|k| !new.contains_key(k)) {
        return None;
    }
    Some(
        new.iter()
            .filter(|(k, f)| old.get(k.as_str()) != Some(f))
            .map(|(k, f)| (k.clone(), *f))
            .collect(),
    )
}

/// How many ids are leaves (an entry's id that no entry names as parent).
#[cfg(test)]
fn leaves(ids: &IdMap) -> u64 {
    ids.values().filter(|f| **f == IS_ID).count() as u64
}

/// The stored ids of a file resumed without loading them (see the module docs).
#[derive(Debug)]
pub(super) struct Delta {
    /// The stored chunks, as read (not yet checked).
    pub(super) chunks: Vec<Vec<u8>>,
    /// The leaf count of the stored ids.
    pub(super) leaves: u64,
}

/// What a resume without the stored ids settles to.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Settled {
    /// The ids whose flags changed, with their flags now (the chunk to store).
    pub(super) changed: IdMap,
    /// The leaf count of all ids now.
    pub(super) leaves: u64,
}

impl Delta {
    /// The ids `marked` by the new lines (with the flags those gave) merged with the stored
    /// ones: one pass over the stored chunks; `None` when a chunk is not a map of ids to flags.
    pub(super) fn settle(&self, marked: &IdMap) -> Option<Settled> {
        let mut stored: HashMap<&str, u8, foldhash::fast::RandomState> =
            marked.keys().map(|k| (k.as_str(), 0)).collect();
        for c in &self.chunks {
            each_id(c, |id, flags| {
                if let Some(f) = stored.get_mut(id) {
                    *f |= flags;
                }
            })?;
        }
        let mut leaves = self.leaves as i64;
        let mut changed = IdMap::default();
        for (id, &new) in marked {
            let old = stored.get(id.as_str()).copied().unwrap_or(0);
            let now = old | new;
            leaves += i64::from(now == IS_ID) - i64::from(old == IS_ID);
            if now != old {
                changed.insert(id.clone(), now);
            }
        }
        Some(Settled {
            changed,
            leaves: u64::try_from(leaves).ok()?,
        })
    }
}

/// Calls `f` with each id and its flags in a stored chunk (a JSON object of ids to flags, as
/// serde_json writes an [`IdMap`]), borrowing the ids where they have no escapes; `None`
/// when the chunk is not such an object.
fn each_id(chunk: &[u8], f: impl FnMut(&str, u8)) -> Option<()> {
    let mut de = serde_json::Deserializer::from_slice(chunk);
    de.deserialize_map(EachId(f)).ok()?;
    de.end().ok()
}

struct EachId<F>(F);

impl<'de, F: FnMut(&str, u8)> Visitor<'de> for EachId<F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of ids to flags")
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut m: A) -> Result<(), A::Error> {
        while let Some(Key(id)) = m.next_key::<Key<'de>>()? {
            let flags: u8 = m.next_value()?;
            (self.0)(&id, flags);
        }
        Ok(())
    }
}

/// A map key, borrowed from the input when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an id")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, u8)]) -> IdMap {
        pairs.iter().map(|(k, f)| ((*k).into(), *f)).collect()
    }

    #[test]
    fn stored_chunks_apply_in_order_and_bad_ones_are_refused() {
        let chunks = vec![
            br#"{"a":1,"b":2,"x\"y":1}"#.to_vec(),
            br#"{"b":3,"c":1}"#.to_vec(),
        ];
        assert_eq!(
            all_ids(&chunks),
            Some(map(&[("a", 1), ("b", 3), ("x\"y", 1), ("c", 1)]))
        );
        for bad in [
            "",
            "[]",
            r#"{"a":1"#,
            r#"{"a":"x"}"#,
            r#"{"a":300}"#,
            r#"{"a":1} {}"#,
        ] {
            assert_eq!(all_ids(&[bad.as_bytes().to_vec()]), None, "{bad}");
        }
    }

    /// Settling the ids a resume marked gives what loading all ids and resuming with them
    /// gives: the changed ids and the leaf count.
    #[test]
    fn settling_without_the_stored_ids_equals_resuming_with_them() {
        let stored = map(&[("a", 3), ("b", 1), ("c", 1), ("p", 2), ("e\\s", 1)]);
        let chunks = vec![
            serde_json::to_vec(&map(&[("a", 1), ("b", 1), ("p", 2)])).unwrap(),
            serde_json::to_vec(&map(&[("a", 3), ("c", 1), ("e\\s", 1)])).unwrap(),
        ];
        assert_eq!(all_ids(&chunks).as_ref(), Some(&stored));
        let delta = Delta {
            chunks,
            leaves: leaves(&stored),
        };
        // New lines: d (child of b), f (child of the escaped one), p seen as an entry at last,
        // a label's marks repeating a.
        let marked = map(&[
            ("d", 1),
            ("b", 2),
            ("f", 1),
            ("e\\s", 2),
            ("p", 1),
            ("a", 1),
        ]);
        let mut full = stored.clone();
        for (k, f) in &marked {
            *full.entry(k.clone()).or_default() |= f;
        }
        let got = delta.settle(&marked).unwrap();
        assert_eq!(got.changed, changed(&stored, &full).unwrap());
        assert_eq!(got.leaves, leaves(&full));
        assert_eq!(got.leaves, 3, "c, d, f");
        let bad = Delta {
            chunks: vec![b"{".to_vec()],
            leaves: 0,
        };
        assert_eq!(bad.settle(&marked), None);
    }
}
