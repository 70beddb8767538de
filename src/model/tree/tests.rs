//! Tests of the tree, and a session builder the other model tests use.

use super::*;

/// A session of a v3 header and `lines` (also used by the other model tests).
pub(crate) fn session<S: AsRef<str>>(lines: &[S]) -> Session {
    let mut data = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/\"}\n",
    );
    for l in lines {
        data.push_str(l.as_ref());
        data.push('\n');
    }
    Session::new(ParsedSession::from_bytes(data.as_bytes()))
}

/// A user message line whose text is its id, `ts` seconds after the header.
pub(crate) fn msg(id: &str, parent: Option<&str>, ts: u32) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{p},\"timestamp\":\"2025-01-01T00:00:{ts:02}Z\",\"message\":{{\"role\":\"user\",\"content\":\"{id}\"}}}}"
    )
}

#[test]
fn cycles_are_broken_and_reported() {
    let s = session(&[
        &msg("a", None, 1),
        &msg("x", Some("y"), 2),
        &msg("y", Some("x"), 3),
    ]);
    assert_eq!(s.tree.roots, vec![0, 1]);
    assert_eq!(s.tree.path_to(2), vec![1, 2]);
    assert!(s.tree.issues.iter().any(|i| i.message.contains("cycle")));
}

#[test]
fn deep_chain_does_not_recurse() {
    let lines: Vec<String> = (0..200_000)
        .map(|i| {
            let parent = (i > 0).then(|| format!("{:08x}", i - 1));
            msg(&format!("{i:08x}"), parent.as_deref(), 1)
        })
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let s = session(&refs);
    assert_eq!(s.tree.path_to(199_999).len(), 200_000);
    assert_eq!(s.tree.roots, vec![0]);
}

#[test]
fn children_sorted_by_timestamp_and_self_parent_is_root() {
    let s = session(&[
        &msg("a", None, 1),
        &msg("c", Some("a"), 5),
        &msg("b", Some("a"), 3),
        &msg("d", Some("d"), 6),
    ]);
    assert_eq!(s.tree.children[0], [2, 1]);
    assert_eq!(s.tree.roots, vec![0, 3]);
    assert_eq!(s.leaf_id(), Some("d"));
}

#[test]
fn labels_latest_wins_and_empty_clears() {
    let s = session(&[
        &msg("a", None, 1),
        r#"{"type":"label","id":"l1","parentId":"a","timestamp":"2025-01-01T00:00:02Z","targetId":"a","label":"one"}"#,
        r#"{"type":"label","id":"l2","parentId":"l1","timestamp":"2025-01-01T00:00:03Z","targetId":"a","label":"two"}"#,
        r#"{"type":"session_info","id":"n1","parentId":"l2","timestamp":"2025-01-01T00:00:04Z","name":"  hi  "}"#,
    ]);
    assert_eq!(s.tree.labels["a"].text, "two");
    assert_eq!(s.tree.name.name.as_deref(), Some("hi"));
    let s = session(&[
        &msg("a", None, 1),
        r#"{"type":"label","id":"l1","parentId":"a","timestamp":"2025-01-01T00:00:02Z","targetId":"a","label":"one"}"#,
        r#"{"type":"label","id":"l2","parentId":"l1","timestamp":"2025-01-01T00:00:03Z","targetId":"a","label":""}"#,
        r#"{"type":"session_info","id":"n1","parentId":"l2","timestamp":"2025-01-01T00:00:04Z","name":"  "}"#,
    ]);
    assert!(s.tree.labels.is_empty());
    assert_eq!(
        s.tree.name,
        NameState {
            has_name: true,
            name: None
        }
    );
}

#[test]
fn ids_index_the_last_entry_with_each_id_and_children_are_one_list() {
    let s = session(&[
        &msg("a", None, 1),
        &msg("b", Some("a"), 4),
        &msg("a", None, 2),
        &msg("c", Some("a"), 3),
        &msg("d", Some("b"), 1),
        &msg("", Some("zz"), 5),
        &msg("e", Some("b"), 0),
    ]);
    let t = &s.tree;
    // The later "a" (index 2) shadows the first, and is reported.
    assert_eq!(t.index_of("a"), Some(2));
    assert_eq!(t.index_of("b"), Some(1));
    assert_eq!(t.index_of(""), Some(5));
    assert_eq!((t.index_of("zz"), t.index_of("ab")), (None, None));
    assert_eq!(t.by_id.len(), 6);
    assert!(
        t.issues
            .iter()
            .any(|i| i.message.contains("duplicate id a"))
    );
    // "b" and "c" hang from the later "a", "d" and "e" from "b".
    let parents = vec![None, Some(2), None, Some(2), Some(1), None, Some(1)];
    assert_eq!(t.parent, parents);
    let naive: Vec<Vec<usize>> = (0..7)
        .map(|p| (0..7).filter(|&c| t.parent[c] == Some(p)).collect())
        .collect();
    assert_eq!(t.children.len(), 7);
    assert_eq!(&t.children[1], [6, 4]); // "e" (00:00) before "d" (00:01)
    assert_eq!(&t.children[2], [3, 1]); // "c" (00:03) before "b" (00:04)
    for (p, kids) in t.children.iter().enumerate() {
        let mut sorted = naive[p].clone();
        sorted.sort_by_key(|&c| s.entries()[c].timestamp_ms);
        assert_eq!(kids, sorted.as_slice());
    }
    assert!(t.children[99].is_empty());
    assert_eq!(t.roots, vec![0, 2, 5]);
    assert_eq!(t.leaf_count(), 5);
}
