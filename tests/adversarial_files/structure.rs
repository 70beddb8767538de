//! Hostile structure: parent cycles, duplicate ids, deep chains and combs.

use super::*;

#[test]
fn parent_cycle_of_two() {
    let c = case(
        "cycle2.jsonl",
        with_header(vec![
            entry("root0000", None),
            entry("aaaaaaaa", Some("bbbbbbbb")),
            entry("bbbbbbbb", Some("aaaaaaaa")),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert!(tree_issue_mentions(&s, "cycle"));
    assert_note(&all_views(&c), "cycle");
    neighbour_still_lists(&c);
}

#[test]
fn parent_cycle_of_a_thousand() {
    let n = 1000;
    let lines: Vec<String> = (0..n)
        .map(|i| entry(&format!("c{i:07}"), Some(&format!("c{:07}", (i + 1) % n))))
        .collect();
    let c = case("cycle1000.jsonl", with_header(lines));
    let s = lib_views(&c.path).unwrap();
    assert!(tree_issue_mentions(&s, "cycle"));
    assert_eq!(s.tree.roots.len(), 1);
    assert_note(&all_views(&c), "cycle");
    neighbour_still_lists(&c);
}

#[test]
fn duplicate_ids() {
    let c = case(
        "dup.jsonl",
        with_header(vec![
            entry("aaaaaaaa", None),
            entry("bbbbbbbb", Some("aaaaaaaa")),
            entry("aaaaaaaa", Some("bbbbbbbb")),
            entry("cccccccc", Some("aaaaaaaa")),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert!(tree_issue_mentions(&s, "duplicate"));
    assert_note(&all_views(&c), "duplicate");
    neighbour_still_lists(&c);
}

#[test]
fn entry_that_is_its_own_parent() {
    let c = case(
        "self.jsonl",
        with_header(vec![
            entry("aaaaaaaa", None),
            entry("ssssssss", Some("ssssssss")),
        ]),
    );
    let s = lib_views(&c.path).unwrap();
    assert_eq!(s.tree.roots.len(), 2);
    for (what, out) in all_views(&c) {
        assert!(out.status.success(), "{what}: {}", stderr(&out));
    }
    let out = cli(&c, &["context", c.path.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), 1);
    neighbour_still_lists(&c);
}

#[test]
fn chain_200k_deep() {
    let n = 200_000;
    let c = case("deep.jsonl", {
        let mut s = header("deep", "/w");
        s.push('\n');
        let mut parent: Option<String> = None;
        for i in 0..n {
            let id = format!("{i:08x}");
            s.push_str(&format!(
                "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{},\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"m{i}\"}}}}\n",
                parent.as_ref().map_or("null".to_string(), |p| format!("\"{p}\""))
            ));
            parent = Some(id);
        }
        s
    });
    let s = lib_views(&c.path).unwrap();
    assert_eq!(s.tree.path_to(n - 1).len(), n);
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    assert_eq!(ctx.messages.len(), n);
    let p = c.path.to_str().unwrap();
    let out = cli(&c, &["context", p, "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), n);
    let out = cli(&c, &["tree", p, "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["nodes"].as_array().unwrap().len(), n);
    let out = cli(&c, &["tree", p]);
    assert_eq!(stdout(&out).lines().count(), n);
}

/// A comb: every entry on the spine has a side branch, so a naive indented tree would print
/// quadratic whitespace.
#[test]
fn deep_forks_keep_tree_output_linear() {
    let n = 20_000;
    let mut lines = Vec::new();
    for i in 0..n {
        let parent = (i > 0).then(|| format!("s{:07}", i - 1));
        lines.push(entry(&format!("s{i:07}"), parent.as_deref()));
        if i > 0 {
            lines.push(entry(&format!("b{i:07}"), parent.as_deref()));
        }
    }
    let c = case("comb.jsonl", with_header(lines));
    let out = cli(&c, &["tree", c.path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        out.stdout.len() < 200 * (2 * n),
        "tree output is {} bytes",
        out.stdout.len()
    );
}
