//! Git-style id prefixes: each session id shortened to the fewest characters (8 at least)
//! that still name it alone, so what `grove list` prints works as SESSION everywhere.

use std::collections::HashMap;

/// Ids are shown from this many characters on, as git abbreviates commits.
const MIN_PREFIX: usize = 8;
/// For each id, the byte length of its shortest prefix of at least [`MIN_PREFIX`] characters
/// that no other id starts with (git's rule; pi's time-ordered ids share their first 8 hex
/// digits when made close together). An id that is a prefix of another is shown whole.
pub(crate) fn unique_prefix_lens<'a>(
    ids: impl Iterator<Item = &'a str>,
) -> HashMap<&'a str, usize> {
    let mut sorted: Vec<&str> = ids.collect();
    sorted.sort_unstable();
    sorted.dedup();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut lens = HashMap::with_capacity(sorted.len());
    for (i, id) in sorted.iter().enumerate() {
        let before = i.checked_sub(1).map_or(0, |p| common(sorted[p], id));
        let after = sorted.get(i + 1).map_or(0, |n| common(id, n));
        let min = id
            .char_indices()
            .nth(MIN_PREFIX)
            .map_or(id.len(), |(b, _)| b);
        let mut len = (before.max(after) + 1).max(min).min(id.len());
        while !id.is_char_boundary(len) {
            len += 1;
        }
        lens.insert(*id, len);
    }
    lens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_grow_until_unique_from_eight_characters_on() {
        let ids = [
            "d1000000-0000-4000-8000-000000000001",
            "d1000000-0000-4000-8000-000000000002",
            "d1000000-0000-4000-8000-000000000013",
            "a2345678ffff",
            "short",
            "abc",
            "abcdefghij",
            "abcdefghijk",
            "ééééééééééé1",
            "ééééééééééé2",
        ];
        let lens = unique_prefix_lens(ids.iter().copied());
        let shown = |id: &'static str| &id[..lens[id]];
        assert_eq!(shown(ids[0]), "d1000000-0000-4000-8000-000000000001");
        assert_eq!(shown(ids[2]), "d1000000-0000-4000-8000-00000000001");
        assert_eq!(shown(ids[3]), "a2345678");
        assert_eq!(shown("short"), "short");
        assert_eq!(shown("abc"), "abc");
        // A prefix of another id is shown whole (an exact id resolves first).
        assert_eq!(shown("abcdefghij"), "abcdefghij");
        assert_eq!(shown("abcdefghijk"), "abcdefghijk");
        assert_eq!(shown("ééééééééééé1"), "ééééééééééé1");
        for id in ids {
            let p = shown(id);
            let starts: Vec<_> = ids.iter().filter(|o| o.starts_with(p)).collect();
            assert!(starts.len() == 1 || starts.iter().any(|o| **o == p), "{p}");
        }
    }
}
