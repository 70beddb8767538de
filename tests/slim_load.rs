//! Large sessions load slim (an entry keeps what the tree reads, long strings a prefix; the
//! whole entry is read back from the file when asked for). A slim load must be the whole load
//! in every way a user can see: the same entries when read back, the same tree, rows, search
//! text and context, and slim objects that differ from the whole ones only in what the rule
//! leaves out. Checked for every fixture and for generated sessions full of long strings.

mod common;

use std::path::{Path, PathBuf};

use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::entry::{ELIDE_KEEP, ELIDE_OVER, EntryKind, JsonMap};
use grove::model::flatten::{FilterMode, TreeNav, row_text, searchable_text};
use grove::model::scan::skim::skim_line;
use grove::model::tree::Session;
use grove::storage::read::{SlimMode, load_session_with};
use proptest::prelude::*;
use serde_json::Value;

/// ELIDE_KEEP bytes cut back to a character boundary, then on through the first character
/// that is not whitespace.
fn kept_len(s: &str) -> usize {
    let mut k = ELIDE_KEEP.min(s.len());
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    if !s[..k].trim().is_empty() {
        return k;
    }
    match s[k..].char_indices().find(|(_, c)| !c.is_whitespace()) {
        Some((i, c)) => k + i + c.len_utf8(),
        None => s.len(),
    }
}

/// The rule, written plainly: strings longer than ELIDE_OVER bytes nested below a top-level
/// field's direct children keep `kept_len` bytes (`level`: top-level fields are 1); a message
/// entry's `message` object is read into its digest instead.
fn shorten(v: &Value, level: u32) -> Value {
    match v {
        Value::String(s) if s.len() > ELIDE_OVER && level >= 3 => {
            Value::String(s[..kept_len(s)].to_owned())
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, child)| (k.clone(), shorten(child, level + 1)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|child| shorten(child, level + 1))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The slim object of an entry's whole one: its message goes into the digest.
fn slim_of(raw: &JsonMap) -> JsonMap {
    let message_entry = raw.get("type").and_then(Value::as_str) == Some("message");
    raw.iter()
        .filter(|(k, v)| !(message_entry && *k == "message" && v.is_object()))
        .map(|(k, v)| (k.clone(), shorten(v, 1)))
        .collect()
}

/// Loads `path` whole and slim and checks that nothing a user can see differs. Returns how
/// many entries were slim.
fn assert_slim_is_whole(path: &Path) -> usize {
    let whole = load_session_with(path, SlimMode::Never);
    let slim = load_session_with(path, SlimMode::Always);
    let (whole, slim) = match (whole, slim) {
        (Ok(w), Ok(s)) => (w, s),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string());
            return 0;
        }
        (a, b) => panic!("{}: whole {a:?} vs slim {b:?}", path.display()),
    };
    let name = path.display().to_string();
    assert_eq!(whole.parsed.header, slim.parsed.header, "{name}");
    assert_eq!(whole.parsed.issues, slim.parsed.issues, "{name}");
    assert_eq!(whole.parsed.bytes, slim.parsed.bytes, "{name}");
    assert_eq!(
        whole.parsed.ends_with_newline, slim.parsed.ends_with_newline,
        "{name}"
    );
    assert_eq!(whole.entries().len(), slim.entries().len(), "{name}");
    let mut slim_count = 0;
    let bytes = std::fs::read(path).expect("read");
    for (w, s) in whole.entries().iter().zip(slim.entries()) {
        assert!(!w.is_slim());
        if s.is_slim() {
            slim_count += 1;
            // The slim parser keeps exactly what the rule says; the entry keeps that minus the
            // message, whose digest is the whole one's.
            let line = bytes
                .split(|&b| b == b'\n')
                .nth(w.line - 1)
                .unwrap_or_default();
            let skimmed = skim_line(line).expect("a slim entry's line parses slim");
            assert!(skimmed.elided, "{name} line {}", w.line);
            let rule = slim_of(w.raw());
            assert_eq!(skimmed.object, rule, "{name} line {}", w.line);
            match &skimmed.message {
                Some((role, digest)) => assert_eq!(
                    (*role, Some(digest)),
                    (w.role, w.digest()),
                    "{name} line {}",
                    w.line
                ),
                // Only a message entry whose message is an object has a digest read off the line.
                None => assert!(
                    w.kind != EntryKind::Message
                        || !w.raw().get("message").is_some_and(Value::is_object),
                    "{name} line {}",
                    w.line
                ),
            }
            let mut top = rule;
            // String ids, parent, time and a known type are held by the entry itself.
            for key in ["id", "parentId", "timestamp", "type"] {
                if top.get(key).is_some_and(Value::is_string)
                    && (key != "type" || s.kind != EntryKind::Other)
                {
                    top.shift_remove(key);
                }
            }
            assert_eq!(s.slim(), &top, "{name} line {}", w.line);
        } else {
            assert_eq!(s.slim(), w.raw(), "{name} line {}", w.line);
        }
        assert_eq!(s.digest(), w.digest(), "{name} line {}", w.line);
        for key in [
            "id",
            "parentId",
            "timestamp",
            "type",
            "name",
            "label",
            "message",
        ] {
            assert_eq!(s.str_field(key), w.str_field(key), "{name} line {}", w.line);
        }
        // Read back whole, exactly.
        assert_eq!(s.raw(), w.raw(), "{name} line {}", w.line);
        assert_eq!(s.unavailable(), None);
        assert_eq!(s, w);
    }
    assert_eq!(whole.tree.leaf, slim.tree.leaf, "{name}");
    assert_eq!(whole.tree.children, slim.tree.children, "{name}");
    assert_same_views(&whole, &slim, &name);
    slim_count
}

/// Rows, search text and context of every entry.
fn assert_same_views(whole: &Session, slim: &Session, name: &str) {
    for filter in [FilterMode::Default, FilterMode::All, FilterMode::NoTools] {
        let a = TreeNav::new(whole, whole.tree.leaf, None, filter);
        let b = TreeNav::new(slim, slim.tree.leaf, None, filter);
        let rows = |nav: &TreeNav, s: &Session| -> Vec<String> {
            nav.rows()
                .iter()
                .map(|r| row_text(&s.entries()[r.entry], nav.tool_calls(), Some("/home/u")).plain())
                .collect()
        };
        assert_eq!(rows(&a, whole), rows(&b, slim), "{name} {filter:?}");
    }
    for (w, s) in whole.entries().iter().zip(slim.entries()) {
        assert_eq!(
            searchable_text(whole, w),
            searchable_text(slim, s),
            "{name}"
        );
    }
    for dialect in [Dialect::Pi, Dialect::Atomic] {
        for i in 0..whole.entries().len() {
            let a = build_context(whole, LeafChoice::Index(i), dialect);
            let b = build_context(slim, LeafChoice::Index(i), dialect);
            assert_eq!(a.messages, b.messages, "{name} leaf {i}");
            assert_eq!(a.entries, b.entries, "{name} leaf {i}");
        }
    }
}

#[test]
fn every_fixture_loads_slim_as_whole() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    common::jsonl_files(&manifest.join("tests/fixtures"), &mut files);
    common::jsonl_files(&manifest.join("assets/demo"), &mut files);
    assert!(!files.is_empty());
    for f in &files {
        assert_slim_is_whole(f);
    }
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196-aaaa","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/w"}"#;

fn long_string() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        Just("a"),
        Just("é"),
        Just("😀"),
        Just("\\n"),
        Just("\\\""),
        Just("\\u00e9"),
        Just("\\ud83d\\ude00"),
        Just("x\\t"),
        Just("\\u001b[31m"),
    ];
    let len = prop_oneof![
        0usize..40,
        (ELIDE_KEEP - 8)..(ELIDE_KEEP + 8),
        (ELIDE_OVER - 8)..(ELIDE_OVER + 8),
        3000usize..9000,
    ];
    (unit, len, "[a-z]{0,3}").prop_map(|(u, n, tail)| format!("{}{tail}", common::json_body(u, n)))
}

/// Entries with long strings in every kind of place.
fn line_strategy() -> impl Strategy<Value = String> {
    let ids = prop_oneof![Just("a1"), Just("b2"), Just("c3"), Just("d4")];
    let parents = prop_oneof![Just("null"), Just("\"a1\""), Just("\"b2\""), Just("\"c3\"")];
    (ids, parents, long_string(), long_string(), long_string(), 0u8..9).prop_map(
        |(id, parent, s1, s2, s3, kind)| {
            let head = format!(
                r#""id":"{id}","parentId":{parent},"timestamp":"2025-01-02T03:04:05.000Z""#
            );
            match kind {
                0 => format!(
                    r#"{{"type":"message",{head},"message":{{"role":"user","content":"{s1}","timestamp":1,"api":"x"}}}}"#
                ),
                1 => format!(
                    r#"{{"type":"message",{head},"message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"{s1}"}},{{"type":"text","text":"{s2}"}},{{"type":"toolCall","id":"t1","name":"bash","arguments":{{"command":"{s3}"}}}}],"provider":"p","model":"m","stopReason":"toolUse","errorMessage":"{s3}","usage":{{"input":1,"cost":{{"total":0.5}}}},"timestamp":7}}}}"#
                ),
                2 => format!(
                    r#"{{"type":"message",{head},"message":{{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{{"type":"text","text":"{s1}"}},{{"type":"image","data":"{s2}","mimeType":"image/png"}},{{"type":"text","text":"{s3}","extra":"{s3}"}}],"details":{{"diff":"{s3}"}},"isError":false}}}}"#
                ),
                3 => format!(
                    r#"{{"type":"message",{head},"message":{{"role":"bashExecution","command":"{s1}","output":"{s2}","exitCode":0}}}}"#
                ),
                4 => format!(
                    r#"{{"type":"compaction",{head},"summary":"{s1}","firstKeptEntryId":"b2","tokensBefore":5,"details":{{"readFiles":["{s2}"],"strategy":"{s3}"}}}}"#
                ),
                5 => format!(
                    r#"{{"type":"custom_message",{head},"customType":"x","content":[{{"type":"text","text":"{s1}"}}],"display":true,"details":{{"k":"{s2}"}}}}"#
                ),
                6 => format!(
                    r#"{{"type":"branch_summary",{head},"fromId":"a1","summary":"{s1}","details":{{"files":["{s2}"]}}}}"#
                ),
                7 => format!(
                    r#"{{"type":"custom",{head},"customType":"{s1}","data":{{"deep":{{"x":"{s2}"}},"list":["{s3}"]}}}}"#
                ),
                _ => format!(
                    r#"{{"type":"message",{head},"message":{{"role":"user","content":"{s1}","content":[{{"type":"text","text":"{s2}"}}]}},"message":{{"role":"assistant","content":"{s3}"}}}}"#
                ),
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn generated_sessions_load_slim_as_whole(
        lines in prop::collection::vec(line_strategy(), 1..12),
        torn in any::<bool>(),
        blank_first in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = String::new();
        if blank_first {
            text.push('\n');
        }
        text.push_str(HEADER);
        text.push('\n');
        for l in &lines {
            text.push_str(l);
            text.push('\n');
        }
        let mut bytes = text.into_bytes();
        if torn {
            bytes.extend_from_slice(&lines[0].as_bytes()[..lines[0].len() / 2]);
        }
        std::fs::write(&path, &bytes).unwrap();
        assert_slim_is_whole(&path);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn mutated_long_lines_load_slim_as_whole(
        lines in prop::collection::vec(line_strategy(), 1..4),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0u8..3, any::<prop::sample::Index>()), 1..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let bytes = common::mutated_session(HEADER, &lines, &edits);
        std::fs::write(&path, &bytes).unwrap();
        assert_slim_is_whole(&path);
    }
}

#[test]
fn a_message_field_that_is_not_a_messages_stays() {
    // Only a message entry's message object becomes a digest; any other `message` is a field.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let deep = "y".repeat(3000);
    let lines = [
        format!(
            r#"{{"type":"custom","id":"a","message":"hello","data":{{"x":{{"y":"{deep}"}}}}}}"#
        ),
        format!(
            r#"{{"type":"message","id":"b","message":"text","data":{{"x":{{"y":"{deep}"}}}}}}"#
        ),
        format!(
            r#"{{"type":"custom","id":"c","message":{{"role":"user"}},"d":{{"x":{{"y":"{deep}"}}}}}}"#
        ),
    ];
    std::fs::write(&path, format!("{HEADER}\n{}\n", lines.join("\n"))).unwrap();
    let slim = assert_slim_is_whole(&path);
    assert_eq!(slim, 2, "the two lines with a string message load slim");
    let s = load_session_with(&path, SlimMode::Always).unwrap();
    assert_eq!(s.entries()[0].str_field("message"), Some("hello"));
    assert_eq!(s.entries()[1].str_field("message"), Some("text"));
}

fn long_session(dir: &Path) -> PathBuf {
    let path = dir.join("long.jsonl");
    let big = "x".repeat(10_000);
    let mut text = format!("{HEADER}\n");
    text.push_str(&format!(
        r#"{{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-02T03:04:05.000Z","message":{{"role":"user","content":"{big}"}}}}"#
    ));
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    path
}

/// Loads `path` slim, then rewrites the file in place as pi does when it migrates one: the same
/// place now holds another entry.
fn load_slim_then_rewrite(path: &Path) -> Session {
    let s = load_session_with(path, SlimMode::Always).unwrap();
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("\"u1\"", "\"zz\"");
    std::fs::write(path, text).unwrap();
    s
}

#[test]
fn whole_entries_are_read_from_the_open_file_even_after_a_rename() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    let s = load_session_with(&path, SlimMode::Always).unwrap();
    assert!(s.entries()[0].is_slim());
    std::fs::rename(&path, dir.path().join("moved.jsonl")).unwrap();
    let content = s.entries()[0].message().unwrap()["content"]
        .as_str()
        .unwrap();
    assert_eq!(content.len(), 10_000);
}

#[test]
fn a_file_changed_under_a_slim_session_shows_the_slim_text_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    let s = load_slim_then_rewrite(&path);
    let e = &s.entries()[0];
    // What the digest kept stands in: the text's first 200 characters.
    let content = e.message().unwrap()["content"].as_str().unwrap();
    assert_eq!(content, "x".repeat(grove::model::digest::TEXT_CHARS));
    assert!(
        e.unavailable().unwrap().contains("changed"),
        "{:?}",
        e.unavailable()
    );
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    assert_eq!(ctx.messages.len(), 1);
}

#[test]
fn big_files_load_slim_and_small_ones_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    let auto = grove::storage::read::load_session(&path).unwrap();
    assert!(!auto.entries()[0].is_slim());
    // A line longer than a read block (8 MiB) and many short ones around it.
    let path = dir.path().join("huge.jsonl");
    let mut text = format!("{HEADER}\n");
    let mut parent = "null".to_owned();
    for i in 0..40_000 {
        text.push_str(&format!(
            r#"{{"type":"message","id":"m{i}","parentId":{parent},"timestamp":"2025-01-02T03:04:05.000Z","message":{{"role":"user","content":"{}"}}}}"#,
            if i == 20_000 { "y".repeat(9 << 20) } else { format!("entry {i} {}", "z".repeat(700)) }
        ));
        text.push('\n');
        parent = format!("\"m{i}\"");
    }
    std::fs::write(&path, &text).unwrap();
    assert!(text.len() as u64 >= grove::storage::read::SLIM_LOAD_MIN_BYTES);
    let auto = grove::storage::read::load_session(&path).unwrap();
    assert_eq!(auto.entries().len(), 40_000);
    assert!(auto.entries()[20_000].is_slim());
    assert_eq!(auto.parsed.issues, vec![]);
    assert_eq!(auto.tree.leaf, Some(39_999));
    let whole = load_session_with(&path, SlimMode::Never).unwrap();
    assert_eq!(auto.entries(), whole.entries());
}

#[test]
fn the_session_view_says_when_the_file_changed_under_it() {
    use grove::app::session_view::SessionViewState;
    let dir = tempfile::tempdir().unwrap();
    let path = long_session(dir.path());
    let s = load_slim_then_rewrite(&path);
    let view = SessionViewState::new(
        path,
        s,
        Dialect::Pi,
        ratatui::layout::Rect::new(0, 0, 100, 30),
    );
    let status = view.status.expect("a status");
    assert!(status.is_error);
    assert!(
        status.text.contains("changed since it was opened"),
        "{}",
        status.text
    );
}
