//! The parser under fuzzing, on stable: proptest over whole session files and single lines
//! (random bytes, mutated real sessions from the fuzz corpus, random JSON trees, deep nesting,
//! surrogate escapes, long strings). No input may panic, hang, or break the tree's invariants.
//!
//! Scale with `PROPTEST_CASES=100000 cargo test --release --test hardening_fuzz`. The same
//! pipeline is the cargo-fuzz target in `fuzz/` (see fuzz/README.md).

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use grove::cli::to_json;
use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::export::to_markdown;
use grove::model::info::InfoBuilder;
use grove::model::parse::{LineValue, ParsedSession, RawLine, parse_line, repair_lone_surrogates};
use grove::model::tree::Session;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Everything grove does with a file's content, with the invariants that must hold.
fn exercise(data: &[u8]) {
    let session = Session::new(ParsedSession::from_bytes(data));
    let n = session.entries().len();
    let t = &session.tree;
    assert_eq!(t.parent.len(), n);
    assert!(t.leaf.is_none_or(|l| l < n));
    // Every entry is reachable from exactly one root and every upward walk ends.
    let reachable: usize = t.children.iter().map(<[usize]>::len).sum::<usize>() + t.roots.len();
    assert_eq!(reachable, n, "children + roots must cover every entry once");
    for i in 0..n {
        let path = t.path_to(i);
        assert!(path.len() <= n);
        assert_eq!(path.last(), Some(&i));
        assert!(t.roots.contains(&path[0]));
    }
    for dialect in [Dialect::Pi, Dialect::Atomic] {
        for choice in [
            LeafChoice::Current,
            LeafChoice::None,
            LeafChoice::Index(n / 2),
            LeafChoice::Id("nope"),
        ] {
            let ctx = build_context(&session, choice, dialect);
            assert!(ctx.leaf.is_none_or(|l| l < n));
            for m in &ctx.messages {
                assert!(m.entry_index < n);
            }
            let md = to_markdown(&session, &ctx);
            assert!(
                common::first_hostile_char(&md).is_none(),
                "markdown not inert"
            );
        }
    }
    let mut info = InfoBuilder::new();
    if let Some(h) = &session.parsed.header {
        info.header(h);
    }
    for e in session.entries() {
        info.entry(e);
    }
}

/// The committed fuzz corpus: real sessions and hand-made edge cases.
fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse_session");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("fuzz corpus")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        files
            .into_iter()
            .filter_map(|p| std::fs::read(p).ok())
            .collect()
    })
}

/// All lines of the corpus.
fn corpus_lines() -> &'static [Vec<u8>] {
    static LINES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    LINES.get_or_init(|| {
        corpus()
            .iter()
            .flat_map(|f| f.split(|&b| b == b'\n').map(<[u8]>::to_vec))
            .filter(|l| !l.is_empty())
            .collect()
    })
}

#[test]
fn corpus_files_are_handled() {
    assert!(corpus().len() >= 20, "fuzz corpus missing");
    for f in corpus() {
        exercise(f);
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    Duplicate(usize, usize),
    SpliceLine(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop::sample::select(vec![
        b"\"".to_vec(),
        b"\\".to_vec(),
        b"\\ud83d".to_vec(),
        b"\\udc00".to_vec(),
        b"\n".to_vec(),
        b"{".to_vec(),
        b"}".to_vec(),
        b"[".to_vec(),
        b"null".to_vec(),
        b"\xff".to_vec(),
        b"\xc3".to_vec(),
        b"\"parentId\":\"".to_vec(),
        b"\"type\":\"session\"".to_vec(),
        b"\x1b[2J".to_vec(),
        b"\xef\xbb\xbf".to_vec(),
        b"\r\n".to_vec(),
        b"1e999999".to_vec(),
        b"-0".to_vec(),
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (
            any::<usize>(),
            prop_oneof![interesting, prop::collection::vec(any::<u8>(), 0..8)]
        )
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 0usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0usize..256).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, l)| Mutation::SpliceLine(i, l)),
    ]
}

fn apply(mut data: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = data.len().max(1);
        match m {
            Mutation::Flip(i, b) => {
                if !data.is_empty() {
                    let i = i % data.len();
                    data[i] ^= b;
                }
            }
            Mutation::Insert(i, v) => {
                let i = i % (data.len() + 1);
                data.splice(i..i, v.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let i = i % len;
                let end = (i + n).min(data.len());
                if i < end {
                    data.drain(i..end);
                }
            }
            Mutation::Truncate(i) => data.truncate(i % len),
            Mutation::Duplicate(i, n) => {
                let i = i % len;
                let end = (i + n).min(data.len());
                if i < end {
                    let chunk = data[i..end].to_vec();
                    data.splice(end..end, chunk);
                }
            }
            Mutation::SpliceLine(i, l) => {
                let lines = corpus_lines();
                let line = &lines[l % lines.len()];
                let i = i % (data.len() + 1);
                let mut ins = line.clone();
                ins.push(b'\n');
                data.splice(i..i, ins);
            }
        }
    }
    data
}

/// A random JSON value shaped like session entries: known keys, known type names, ids drawn
/// from a small pool so parents, labels and compactions point at each other.
fn json_value() -> impl Strategy<Value = Value> {
    let ids = prop::sample::select(vec!["a", "b", "c", "d", "e", "", "a\u{202E}", "\u{1b}[2J"]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        ids.clone().prop_map(|s| json!(s)),
        ".{0,40}".prop_map(Value::String),
        prop::sample::select(vec![
            "session",
            "message",
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "custom",
            "compaction",
            "branch_summary",
            "label",
            "session_info",
            "model_change",
            "thinking_level_change",
            "custom_message",
            "text",
            "thinking",
            "toolCall",
            "image",
            "branchSummary",
            "compactionSummary",
            "hookMessage",
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(5, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "type",
                        "id",
                        "parentId",
                        "message",
                        "role",
                        "content",
                        "text",
                        "targetId",
                        "label",
                        "name",
                        "summary",
                        "firstKeptEntryId",
                        "fromId",
                        "customType",
                        "data",
                        "timestamp",
                        "version",
                        "cwd",
                        "provider",
                        "modelId",
                        "model",
                        "thinkingLevel",
                        "arguments",
                        "display",
                        "tokensBefore",
                        "usage",
                        "internal",
                        "workflow",
                        "parentSession",
                    ]),
                    inner,
                ),
                0..8
            )
            .prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// An entry-shaped object: type, id and parentId from the pools, plus random fields.
fn entry_value() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "message",
            "compaction",
            "branch_summary",
            "label",
            "session_info",
            "custom",
            "custom_message",
            "model_change",
            "thinking_level_change",
            "session",
            "weird",
        ]),
        prop::sample::select(vec!["a", "b", "c", "d", "e", "f"]),
        prop::option::of(prop::sample::select(vec![
            "a", "b", "c", "d", "e", "f", "zz",
        ])),
        json_value(),
    )
        .prop_map(|(t, id, parent, extra)| {
            let mut m = match extra {
                Value::Object(m) => m,
                other => {
                    let mut m = serde_json::Map::new();
                    m.insert("message".into(), other);
                    m
                }
            };
            m.insert("type".into(), json!(t));
            m.insert("id".into(), json!(id));
            m.insert("parentId".into(), json!(parent));
            Value::Object(m)
        })
}

fn header_value() -> impl Strategy<Value = Value> {
    (prop::option::of(0u32..5), json_value()).prop_map(|(v, extra)| {
        let mut m = match extra {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        m.insert("type".into(), json!("session"));
        m.insert("id".into(), json!("s"));
        if let Some(v) = v {
            m.insert("version".into(), json!(v));
        }
        Value::Object(m)
    })
}

fn cases(default: u32) -> ProptestConfig {
    // PROPTEST_CASES scales every property up for long runs.
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(3000))]

    #[test]
    fn random_bytes(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&data);
    }

    #[test]
    fn random_lines_of_bytes(lines in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..20)) {
        exercise(&lines.join(&b'\n'));
    }
}

proptest! {
    #![proptest_config(cases(1500))]

    #[test]
    fn mutated_real_sessions(
        file in any::<prop::sample::Index>(),
        muts in prop::collection::vec(mutation(), 1..12),
    ) {
        let base = file.get(corpus()).clone();
        exercise(&apply(base, &muts));
    }

}

proptest! {
    #![proptest_config(cases(400))]

    #[test]
    fn random_entry_graphs(
        header in prop::option::of(header_value()),
        entries in prop::collection::vec(entry_value(), 0..40),
    ) {
        let mut data = String::new();
        for v in header.iter().chain(entries.iter()) {
            data.push_str(&v.to_string());
            data.push('\n');
        }
        exercise(data.as_bytes());
    }
}

proptest! {
    #![proptest_config(cases(1500))]

    #[test]
    fn single_lines(line in prop_oneof![
        prop::collection::vec(any::<u8>(), 0..512),
        json_value().prop_map(|v| v.to_string().into_bytes()),
        (any::<prop::sample::Index>(), prop::collection::vec(mutation(), 1..6))
            .prop_map(|(i, m)| apply(i.get(corpus_lines()).clone(), &m)),
    ], terminated in any::<bool>(), offset in 0u64..3) {
        match parse_line(&RawLine { offset, number: 1, bytes: &line, terminated }) {
            LineValue::Object(..) | LineValue::Blank => {}
            LineValue::Bad(issue) => prop_assert_eq!(issue.line, 1),
        }
    }

    /// Strings full of escapes, with lone and paired surrogates anywhere.
    #[test]
    fn surrogate_escapes(parts in prop::collection::vec(prop_oneof![
        (0xD800u32..0xE000).prop_map(|u| format!("\\u{u:04x}")),
        (0u32..0x10000).prop_map(|u| format!("\\u{u:04X}")),
        Just("\\\\".to_string()),
        Just("\\\"".to_string()),
        Just("\"".to_string()),
        "[a-z ]{0,3}",
    ], 0..40)) {
        let body = parts.concat();
        let line = format!("{{\"type\":\"message\",\"id\":\"a\",\"message\":{{\"role\":\"user\",\"content\":\"{body}\"}}}}");
        if let Some(fixed) = repair_lone_surrogates(&line) {
            // Repairing twice changes nothing more.
            prop_assert!(repair_lone_surrogates(&fixed).is_none());
        }
        let mut data = common::header("s", "/").into_bytes();
        data.push(b'\n');
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        exercise(&data);
    }

    /// The CLI's JSON is inert and still the same JSON, whatever the strings hold.
    #[test]
    fn cli_json_is_inert_and_lossless(s in any::<String>(), t in "[\\x00-\\x7f\\u{80}-\\u{9f}\\u{200b}-\\u{206f}\\u{feff}\\u{e0000}-\\u{e007f}]{0,30}") {
        let v = json!({"a": s, "b": [t], s.clone(): 1});
        let out = to_json(&v);
        prop_assert!(common::first_hostile_char(&out).is_none());
        let back: Value = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(back, v);
    }
}

#[test]
fn deep_nesting_never_overflows_the_stack() {
    for depth in [64, 127, 128, 129, 1_000, 100_000] {
        let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        let in_entry = format!(
            "{{\"type\":\"message\",\"id\":\"x\",\"message\":{{\"role\":\"user\",\"content\":{arrays}}}}}"
        );
        for line in [arrays.as_str(), objects.as_str(), in_entry.as_str()] {
            let mut data = common::header("s", "/");
            data.push('\n');
            data.push_str(line);
            data.push('\n');
            exercise(data.as_bytes());
            // Unterminated, too.
            exercise(&data.as_bytes()[..data.len() / 2]);
        }
    }
}

#[test]
fn huge_strings_and_many_lines() {
    let mut data = common::header("s", "/");
    data.push('\n');
    let big = "é\u{1b}".repeat(2 << 20);
    data.push_str(
        &json!({"type":"message","id":"a","parentId":null,
                "message":{"role":"user","content":big}})
        .to_string(),
    );
    data.push('\n');
    for i in 0..50_000 {
        data.push_str(&format!("{{\"type\":\"label\",\"id\":\"l{i}\",\"parentId\":\"a\",\"targetId\":\"a\",\"label\":\"{i}\"}}\n"));
    }
    data.push_str(&"\n".repeat(100_000));
    exercise(data.as_bytes());
}
