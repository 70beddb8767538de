//! What the index knows of a session whose row is current: what a write needs (see
//! [`super::write`]), and the entry ids, answered from the stored node chunks in place.
//!
//! A write asks a handful of questions of a session's ids (is the last line's id known, does
//! the target exist, which id does a prefix name, is a fresh id new), so the ids are never
//! built into a set: the chunks (JSON maps of id → flags, as [`super::nodes::split`] wrote
//! them with serde_json) are validated once and each question is one `memmem` search over
//! them. For the 270k ids of a 1 GB session (~4 MB of chunks) that replaced ~270k string
//! allocations and a hash set per write with a few millisecond-long scans.

use std::collections::HashSet;
use std::sync::Arc;

use serde::de::IgnoredAny;

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
    pub ids: Arc<EntryIds>,
    /// The ids whose label is set, from the stored scan state (which covers the whole file:
    /// a write's check wants no bytes after its end).
    pub labelled: Arc<HashSet<String>>,
    /// The file's entry offsets, when a write asked for them (a checkout's target line).
    pub offsets: Option<Arc<super::offsets::EntryOffsets>>,
}

/// The entry ids of a session: its stored node chunks, each a compact JSON object mapping a
/// node's id to its flags (bit 1: an entry with this id was seen; bit 2: some entry names it
/// as parent). A node's id bit, once set, stays set in later chunks.
#[derive(Debug, Default)]
pub struct EntryIds {
    chunks: Vec<Vec<u8>>,
}

impl EntryIds {
    /// The ids of these chunks; `None` unless every chunk is a JSON object of numbers in the
    /// compact form serde_json writes (what the searches rely on).
    pub fn from_chunks(chunks: Vec<Vec<u8>>) -> Option<EntryIds> {
        for c in &chunks {
            if c.first() != Some(&b'{') || c.iter().any(|b| b.is_ascii_whitespace()) {
                return None;
            }
            let mut de = serde_json::Deserializer::from_slice(c);
            serde::Deserializer::deserialize_map(&mut de, Flags).ok()?;
            de.end().ok()?;
        }
        Some(EntryIds { chunks })
    }

    /// Whether an entry has this id.
    pub fn contains(&self, id: &str) -> bool {
        let needle = key_prefix(id, true);
        self.keys_at(&needle)
            .any(|(chunk, at)| flags_after(chunk, at + needle.len()) & 1 == 1)
    }

    /// The ids starting with `prefix`, each once, sorted.
    pub fn with_prefix(&self, prefix: &str) -> Vec<String> {
        let needle = key_prefix(prefix, false);
        let mut out: Vec<String> = Vec::new();
        for (chunk, at) in self.keys_at(&needle) {
            // The whole key: a JSON string from the quote (valid, as checked at load).
            let mut de = serde_json::Deserializer::from_slice(&chunk[at..]).into_iter::<String>();
            let Some(Ok(key)) = de.next() else { continue };
            let end = at + de.byte_offset();
            if chunk.get(end) == Some(&b':') && flags_after(chunk, end + 1) & 1 == 1 {
                out.push(key);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Every place a key starts with `needle` (which begins with the key's quote): only where
    /// a key can start, after `{` or `,` (inside a key a quote is always escaped).
    fn keys_at<'a>(&'a self, needle: &'a [u8]) -> impl Iterator<Item = (&'a [u8], usize)> + 'a {
        let finder = memchr::memmem::Finder::new(needle).into_owned();
        self.chunks.iter().flat_map(move |c| {
            let c = c.as_slice();
            finder
                .find_iter(c)
                .filter(move |&at| at > 0 && matches!(c[at - 1], b'{' | b','))
                .map(move |at| (c, at))
                .collect::<Vec<_>>()
        })
    }
}

/// Validates a map of keys to unsigned numbers without keeping anything.
struct Flags;

impl<'de> serde::de::Visitor<'de> for Flags {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map of ids to flags")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while m.next_entry::<IgnoredAny, u64>()?.is_some() {}
        Ok(())
    }
}

/// `"ID":` (or `"PREFIX` when not `whole`) as serde_json writes a key.
fn key_prefix(id: &str, whole: bool) -> Vec<u8> {
    let mut s = serde_json::to_string(id).unwrap_or_default().into_bytes();
    if whole {
        s.push(b':');
    } else {
        s.pop();
    }
    s
}

/// The flags (an unsigned number) starting at `at`; 0 when there is none.
fn flags_after(chunk: &[u8], at: usize) -> u64 {
    chunk
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0u64, |n, b| {
            n.wrapping_mul(10).wrapping_add(u64::from(b - b'0'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(chunks: &[&str]) -> EntryIds {
        EntryIds::from_chunks(chunks.iter().map(|c| c.as_bytes().to_vec()).collect()).unwrap()
    }

    #[test]
    fn ids_are_found_by_their_id_bit_across_chunks() {
        let i = ids(&[
            r#"{"ab12":1,"ab34":2,"x\"y":1}"#,
            r#"{"ab34":3,"cd56":1}"#,
            "{}",
        ]);
        assert!(i.contains("ab12"));
        assert!(i.contains("ab34"), "set in a later chunk");
        assert!(i.contains("cd56"));
        assert!(i.contains("x\"y"), "escaped key");
        assert!(!i.contains("ab"));
        assert!(!i.contains("y"), "not inside another key");
        assert!(!i.contains("zz"));
        let only_parent = ids(&[r#"{"p":2}"#]);
        assert!(!only_parent.contains("p"));
        assert_eq!(i.with_prefix("ab"), ["ab12", "ab34"]);
        assert_eq!(i.with_prefix("cd"), ["cd56"]);
        assert_eq!(i.with_prefix("").len(), 4);
        assert!(i.with_prefix("q").is_empty());
    }

    #[test]
    fn chunks_not_written_by_serde_json_are_refused() {
        for bad in [
            "",
            "[]",
            r#"{"a":1"#,
            r#"{"a":"x"}"#,
            r#"{ "a":1}"#,
            r#"{"a":1} {}"#,
            r#"{"a":-1}"#,
        ] {
            assert!(
                EntryIds::from_chunks(vec![bad.as_bytes().to_vec()]).is_none(),
                "{bad}"
            );
        }
    }
}
