//! The slim parser reads a message entry's digest straight off the line (`skim_line`); the
//! whole path takes it from the parsed JSON (`MessageDigest::of`). For messages of every shape
//! the formats allow and many they do not (content of any JSON kind, blocks of any kind with
//! keys in any order, tool calls of every shown tool with arguments of any kind, long and
//! escaped strings at every cut), both must give the same digest, role, and row text of the
//! tool calls, whenever the slim parser takes the line at all.

mod common;

use grove::model::digest::{MessageDigest, ToolCall};
use grove::model::entry::{ELIDE_KEEP, ELIDE_OVER, JsonMap, Role};
use grove::model::flatten::format_tool_call;
use grove::model::scan::skim::skim_line;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::Value;

fn text() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        Just("a"),
        Just(" "),
        Just("é"),
        Just("😀"),
        Just("\\n"),
        Just("\\t"),
        Just("\\\""),
        Just("\\u00e9"),
        Just("\\ud83d\\ude00"),
    ];
    let len = prop_oneof![
        0usize..12,
        190usize..260,
        (ELIDE_KEEP - 6)..(ELIDE_KEEP + 6),
        (ELIDE_OVER - 6)..(ELIDE_OVER + 6),
        3000usize..5000,
    ];
    (unit, len, any::<bool>()).prop_map(|(u, n, blank_head)| {
        let s = format!("\"{}\"", common::json_body(u, n));
        if blank_head {
            // Blank for a long stretch, then text: whether there is text must survive a cut.
            format!("\"{}x{}", " ".repeat(ELIDE_KEEP + 3), &s[1..])
        } else {
            s
        }
    })
}

/// Any JSON value, strings from [`text`].
fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        text(),
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("-12".to_owned()),
        Just("3.5e2".to_owned()),
        Just("18446744073709551616".to_owned()),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((key(), inner), 0..4).prop_map(|kv| object(&kv)),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "path",
        "file_path",
        "command",
        "pattern",
        "offset",
        "limit",
        "content",
        "q",
    ])
    .prop_map(str::to_owned)
}

fn object(fields: &[(String, String)]) -> String {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// Tool-call arguments: mostly objects with the keys rows show, sometimes anything.
fn arguments() -> impl Strategy<Value = String> {
    let named = prop::collection::vec((key(), prop_oneof![3 => text(), 1 => value()]), 0..5)
        .prop_map(|kv| {
            // Keys once each: a repeated key sends the line to the full parse.
            let mut seen = Vec::new();
            let kv: Vec<_> = kv
                .into_iter()
                .filter(|(k, _)| {
                    let new = !seen.contains(k);
                    seen.push(k.clone());
                    new
                })
                .collect();
            object(&kv)
        });
    prop_oneof![4 => named, 1 => value()]
}

/// A content block: its fields in a random order, some left out, odd kinds now and then.
fn block() -> impl Strategy<Value = String> {
    let ty = prop_oneof![
        4 => Just("\"text\""),
        4 => Just("\"toolCall\""),
        1 => Just("\"image\""),
        1 => Just("\"thinking\""),
        1 => Just("\"other\""),
        1 => Just("7"),
    ];
    let name = prop::sample::select(vec![
        "\"read\"",
        "\"write\"",
        "\"edit\"",
        "\"bash\"",
        "\"grep\"",
        "\"find\"",
        "\"ls\"",
        "\"mcp\"",
        "null",
    ]);
    let fields = (
        ty,
        prop_oneof![3 => text(), 1 => value()],
        prop_oneof![4 => Just("\"t1\""), 4 => Just("\"t2\""), 1 => Just("5")],
        name,
        arguments(),
        prop::collection::vec(prop::bool::weighted(0.85), 5),
        any::<prop::sample::Index>(),
    );
    let block = fields.prop_map(|(ty, text, id, name, args, keep, rotate)| {
        let mut kv: Vec<(String, String)> = [
            ("type", ty.to_owned()),
            ("text", text),
            ("id", id.to_owned()),
            ("name", name.to_owned()),
            ("arguments", args),
        ]
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|((k, v), _)| (k.to_owned(), v))
        .collect();
        let n = kv.len().max(1);
        kv.rotate_left(rotate.index(n) % n.max(1));
        object(&kv)
    });
    prop_oneof![8 => block, 1 => value()]
}

fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(block(), 0..5).prop_map(|b| format!("[{}]", b.join(","))),
        2 => text(),
        1 => value(),
    ]
}

/// A `message` entry's line.
fn line() -> impl Strategy<Value = String> {
    let role = prop_oneof![
        3 => Just("\"user\""),
        6 => Just("\"assistant\""),
        2 => Just("\"toolResult\""),
        1 => Just("\"bashExecution\""),
        1 => Just("\"custom\""),
        1 => Just("\"hookMessage\""),
        1 => Just("5"),
    ];
    let short = prop::sample::select(vec!["\"stop\"", "\"toolUse\"", "\"aborted\"", "1", "null"]);
    (
        role,
        content(),
        short,
        text(),
        prop::collection::vec(prop::bool::weighted(0.85), 5),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(role, content, stop, long, keep, rotate)| {
            let mut kv: Vec<(String, String)> = [
                ("role", role.to_owned()),
                ("content", content),
                ("stopReason", stop.to_owned()),
                ("command", long.clone()),
                ("toolCallId", "\"t1\"".to_owned()),
            ]
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|((k, v), _)| (k.to_owned(), v))
            .collect();
            kv.push(("usage".into(), r#"{"input":1}"#.into()));
            let n = kv.len();
            kv.rotate_left(rotate.index(n));
            format!(
                r#"{{"type":"message","id":"a","parentId":null,"message":{}}}"#,
                object(&kv)
            )
        })
}

fn whole(line: &str) -> JsonMap {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) => m,
        other => panic!("the generator wrote invalid JSON: {other:?}\n{line}"),
    }
}

fn shown(call: &ToolCall) -> String {
    format_tool_call(call, Some("/home/u"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]
    #[test]
    fn the_skimmed_digest_is_the_whole_messages(line in line()) {
        let raw = whole(&line);
        let message = raw["message"].as_object().expect("an object");
        let Some(skimmed) = skim_line(line.as_bytes()) else {
            // Not taken: the line is parsed whole, nothing to compare.
            return Ok(());
        };
        let (role, digest) = skimmed.message.expect("a message entry's digest");
        let expected = MessageDigest::of(message);
        prop_assert_eq!(role, Role::of(&raw));
        let shown_skim: Vec<String> = digest.tool_calls.iter().map(|(_, c)| shown(c)).collect();
        let shown_whole: Vec<String> = expected.tool_calls.iter().map(|(_, c)| shown(c)).collect();
        prop_assert_eq!(shown_skim, shown_whole);
        prop_assert_eq!(digest, expected);
    }
}

#[test]
fn the_generator_reaches_the_interesting_shapes() {
    // The strategies above are only worth as much as the lines they make: a sample of them
    // must include tool calls of shown tools, text blocks and lines the slim parser takes.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut taken, mut calls, mut texts) = (0, 0, 0);
    for _ in 0..1000 {
        let line = line().new_tree(&mut runner).expect("a line").current();
        if let Some(s) = skim_line(line.as_bytes()) {
            taken += 1;
            if let Some((_, d)) = s.message {
                calls += d.tool_calls.len();
                texts += usize::from(d.has_text);
            }
        }
    }
    assert!(
        taken > 500 && calls >= 15 && texts > 150,
        "{taken} {calls} {texts}"
    );
}
