//! The fast listing scan gives exactly the listing of the full parse: for every fixture file,
//! for generated sessions full of awkward lines, and (with `GROVE_DIFF_DIR=DIR`) for a corpus.

mod common;

use std::path::Path;

use common::AWKWARD;
use grove::model::info::SessionInfo;
use grove::storage::fastscan::{ParseMode, Texts, scan_with};
use grove::storage::read::{scan_info, scan_info_full};
use proptest::prelude::*;

/// The fast scan equals the full parse; and a scan that skips the searchable text (a listing
/// that neither searches nor stores it) equals the fast one but for that text, left empty.
fn assert_same(path: &Path) {
    let fast = scan_info(path, None);
    let full = scan_info_full(path, None);
    let skipping = |mode| {
        scan_with(path, None, mode, None, Texts::Skip, &mut |_, _| {})
            .map(|s| s.info)
            .ok()
    };
    let without_text = |info: &SessionInfo| SessionInfo {
        all_messages_text: String::new(),
        tool_text: String::new(),
        ..info.clone()
    };
    match (fast, full) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{}", path.display());
            for mode in [ParseMode::Fast, ParseMode::Full] {
                match skipping(mode) {
                    Some(Ok(s)) => assert_eq!(s, without_text(&a), "{}", path.display()),
                    other => panic!("{}: {mode:?} without text: {other:?}", path.display()),
                }
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("{}: fast {a:?} vs full {b:?}", path.display()),
    }
}

#[test]
fn a_scan_without_text_gathers_none_and_keeps_the_first_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = [
        HEADER,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:04:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"before any user"},{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}}]}}"#,
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-02T03:04:07.000Z","message":{"role":"user","content":""}}"#,
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"2025-01-02T03:04:08.000Z","message":{"role":"user","content":"first\nquestion"}}"#,
        r#"{"type":"message","id":"d","parentId":"c","timestamp":"2025-01-02T03:04:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"an answer"}]}}"#,
        r#"{"type":"message","id":"e","parentId":"d","timestamp":"2025-01-02T03:04:10.000Z","message":{"role":"user","content":"second"}}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let gathered = scan_info(&path, None).unwrap();
    assert_eq!(
        gathered.all_messages_text,
        "before any user first\nquestion an answer second"
    );
    assert_eq!(gathered.tool_text, "bash ls");
    assert_same(&path);
    let s = scan_with(
        &path,
        None,
        ParseMode::Fast,
        None,
        Texts::Skip,
        &mut |_, _| {},
    )
    .unwrap();
    let info = s.info.unwrap();
    assert_eq!(info.first_message, "first\nquestion");
    assert_eq!(
        (info.all_messages_text.as_str(), info.tool_text.as_str()),
        ("", "")
    );
    assert_eq!(info.message_count, 5);
}

#[test]
fn fixtures_list_identically() {
    let mut files = Vec::new();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::jsonl_files(&manifest.join("tests/fixtures"), &mut files);
    common::jsonl_files(&manifest.join("assets/demo"), &mut files);
    // The shared ground truth, when this checkout sits beside it.
    common::jsonl_files(&manifest.join("../shared/fixtures"), &mut files);
    for f in &files {
        assert_same(f);
    }
}

#[test]
fn corpus_lists_identically() {
    // Opt-in: GROVE_DIFF_DIR=/path/to/corpus cargo test --release --test fastscan_differential
    let Some(dir) = std::env::var_os("GROVE_DIFF_DIR") else {
        return;
    };
    let mut files = Vec::new();
    common::jsonl_files(Path::new(&dir), &mut files);
    assert!(!files.is_empty());
    for f in &files {
        assert_same(f);
    }
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196-aaaa","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/w"}"#;

/// Lines that exercise every rule of the listing, valid and not.
fn line_strategy() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        Just("\"a1\"".to_string()),
        Just("\"b2\"".to_string()),
        Just("\"c3\"".to_string()),
        Just("null".to_string()),
        Just("7".to_string()),
    ];
    let text = prop_oneof![
        Just("\"hello\"".to_string()),
        Just("\"line\\nbreak \\\"q\\\" \\u00e9\"".to_string()),
        Just("\"\"".to_string()),
        Just("\"\\ud83d\\ude00 ok\"".to_string()),
        Just("\"lone \\ud83d\"".to_string()),
        Just("\"  spaced  \"".to_string()),
        Just("3".to_string()),
        Just("null".to_string()),
    ];
    let num = prop_oneof![
        Just("12".to_string()),
        Just("-4".to_string()),
        Just("0.25".to_string()),
        Just("1e400".to_string()),
        Just("\"9\"".to_string()),
        Just("18446744073709551616".to_string()),
    ];
    let role = prop_oneof![
        Just("\"user\""),
        Just("\"assistant\""),
        Just("\"toolResult\""),
        Just("\"custom\""),
        Just("5"),
    ];
    let usage = (num.clone(), num.clone()).prop_map(|(t, c)| {
        format!(r#"{{"input":1,"totalTokens":{t},"cost":{{"input":0.1,"total":{c}}}}}"#)
    });
    let content = prop_oneof![
        text.clone(),
        (text.clone(), text.clone()).prop_map(|(a, b)| format!(
            r#"[{{"type":"text","text":{a}}},{{"type":"image","data":"QUJD","mimeType":"image/png"}},{{"text":{b},"type":"text"}},{{"type":"thinking","thinking":"t"}}]"#
        )),
        Just("[]".to_string()),
        Just("{\"text\":\"x\"}".to_string()),
    ];
    let message = (role, content, num.clone(), usage.clone(), any::<u8>()).prop_map(
        |(role, content, ts, usage, flags)| {
            let mut fields = vec![format!("\"role\":{role}")];
            if flags & 1 == 0 {
                fields.push(format!("\"content\":{content}"));
            }
            if flags & 2 == 0 {
                fields.push(format!("\"timestamp\":{ts}"));
            }
            if flags & 4 == 0 {
                fields.push(format!("\"usage\":{usage}"));
            }
            if flags & 8 == 0 {
                // Key order is not guaranteed: role last.
                fields.rotate_left(1);
            }
            format!("{{{}}}", fields.join(","))
        },
    );
    let ts = prop_oneof![
        Just("\"2025-01-02T03:04:06.000Z\"".to_string()),
        Just("\"2025-01-03\"".to_string()),
        Just("\"nope\"".to_string()),
        Just("1".to_string()),
    ];
    let entry = (
        prop_oneof![
            Just("message"),
            Just("label"),
            Just("session_info"),
            Just("compaction"),
            Just("branch_summary"),
            Just("session_summary"),
            Just("context_compaction"),
            Just("session"),
            Just("custom"),
        ],
        id.clone(),
        id.clone(),
        ts,
        message,
        text.clone(),
        usage,
        any::<u16>(),
    )
        .prop_map(|(ty, id, parent, ts, message, text, usage, flags)| {
            let mut f = vec![
                format!("\"type\":\"{ty}\""),
                format!("\"id\":{id}"),
                format!("\"parentId\":{parent}"),
                format!("\"timestamp\":{ts}"),
            ];
            match ty {
                "message" => f.push(format!("\"message\":{message}")),
                "label" => {
                    f.push(format!("\"targetId\":{id}"));
                    f.push(format!("\"label\":{text}"));
                }
                "session_info" => f.push(format!("\"name\":{text}")),
                "compaction" | "branch_summary" => {
                    f.push(format!("\"summary\":{text}"));
                    f.push(format!("\"usage\":{usage}"));
                    let strategy = if flags & 16 == 0 {
                        "\"verbatim-lines\""
                    } else {
                        "\"llm\""
                    };
                    f.push(format!("\"details\":{{\"strategy\":{strategy}}}"));
                }
                "session_summary" => {
                    f.push(format!("\"summary\":{text}"));
                    f.push(format!("\"summarizedThroughId\":{parent}"));
                }
                _ => f.push(format!("\"message\":{message}")),
            }
            if flags & 32 != 0 {
                f.reverse();
            }
            if flags & 64 != 0 && flags & 128 != 0 {
                // A duplicate key: the full parse keeps the last value.
                f.push(format!("\"id\":{parent}"));
            }
            format!("{{{}}}", f.join(","))
        });
    prop_oneof![
        8 => entry,
        1 => Just(String::new()),
        1 => Just("not json".to_string()),
        1 => Just("[1]".to_string()),
        1 => Just(HEADER.to_string()),
        1 => Just("{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"bad \u{fffd}\"}}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn generated_sessions_list_identically(
        header in prop_oneof![4 => Just(HEADER.to_string()), 1 => Just("{\"type\":\"message\"}".to_string())],
        lines in prop::collection::vec(line_strategy(), 0..30),
        torn in any::<bool>(),
        invalid_utf8 in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut bytes = header.into_bytes();
        bytes.push(b'\n');
        for l in &lines {
            bytes.extend_from_slice(l.as_bytes());
            bytes.push(b'\n');
        }
        if invalid_utf8 {
            bytes.extend_from_slice(b"{\"type\":\"message\",\"id\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"x\xff\"}}\n");
        }
        if torn {
            bytes.extend_from_slice(br#"{"type":"message","id":"z","message":{"role":"user","con"#);
        }
        std::fs::write(&path, &bytes).unwrap();
        assert_same(&path);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Valid lines with a few bytes inserted, replaced or removed: whatever the fast path takes
    /// must be what the full parse makes of it.
    #[test]
    fn mutated_lines_list_identically(
        lines in prop::collection::vec(line_strategy(), 1..8),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0u8..3, any::<prop::sample::Index>()), 1..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let bytes = common::mutated_session(HEADER, &lines, &edits);
        std::fs::write(&path, &bytes).unwrap();
        assert_same(&path);
    }
}

/// Every one- and two-byte sequence of awkward bytes, at each kind of place in a line: inside a
/// skipped string, inside a listed string, in a number, between tokens.
#[test]
fn awkward_bytes_anywhere_list_identically() {
    let templates = [
        r#"{"type":"message","id":"a","message":{"role":"toolResult","content":[{"type":"text","text":"x@y"}]}}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":"x@y"}}"#,
        r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"text","text":"x@y"}],"usage":{"totalTokens":1@2,"cost":{"total":0.5}}}}"#,
        r#"{"type":"session_info","id":"a","name":"n"@,"x":[1,@{"k":null}]}"#,
        r#"{"type":"label","id":"a","targetId":"b","label":"l@"}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    for (t, template) in templates.iter().enumerate() {
        let mut bytes = HEADER.as_bytes().to_vec();
        bytes.push(b'\n');
        let (before, after) = template.split_once('@').unwrap();
        let mut snippets: Vec<Vec<u8>> = AWKWARD.iter().map(|&a| vec![a]).collect();
        for &a in AWKWARD {
            for &b in AWKWARD {
                snippets.push(vec![a, b]);
                snippets.push(vec![b'\\', a, b]);
            }
        }
        for s in snippets {
            bytes.extend_from_slice(before.as_bytes());
            bytes.extend_from_slice(&s);
            bytes.extend_from_slice(after.as_bytes());
            bytes.push(b'\n');
        }
        let path = dir.path().join(format!("t{t}.jsonl"));
        std::fs::write(&path, &bytes).unwrap();
        assert_same(&path);
    }
}

/// Quotes, backslashes, escapes and control characters at every position of the blocks the
/// string scanner reads (a 16-byte probe, then 64-byte blocks), in a skipped string, a listed
/// string and a key, with the string ending right after them, later, or at the line's end.
#[test]
fn string_specials_at_every_block_offset_list_identically() {
    let templates = [
        r#"{"type":"message","id":"a","message":{"role":"toolResult","content":[{"type":"text","text":"@"}]}}"#,
        r#"{"type":"message","id":"a","message":{"role":"user","content":"@"}}"#,
        r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"text","text":"@"}]},"@":1}"#,
        r#"{"type":"session_info","id":"a","name":"@"}"#,
    ];
    let snippets: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\\\"",
        b"\\\\",
        b"\\\\\"",
        b"\\\\\\",
        b"\\n",
        b"\\t",
        b"\\/\\b\\f\\r",
        b"\\u00e9",
        b"\\ud83d\\ude00",
        b"\\udbff",
        b"\\u12",
        b"\\x",
        b"\\\x01",
        b"\x01",
        b"\x1f",
        b"\t",
        b"\x7f",
        b"\xc3\xa9",
        b"\xff",
    ];
    let dir = tempfile::tempdir().unwrap();
    for (t, template) in templates.iter().enumerate() {
        let mut bytes = HEADER.as_bytes().to_vec();
        bytes.push(b'\n');
        let (before, after) = template.split_once('@').unwrap();
        for snippet in snippets {
            for at in 0..140 {
                for pad_after in [0, 1, 40] {
                    bytes.extend_from_slice(before.as_bytes());
                    bytes.extend(std::iter::repeat_n(b'a', at));
                    bytes.extend_from_slice(snippet);
                    bytes.extend(std::iter::repeat_n(b'b', pad_after));
                    bytes.extend_from_slice(after.as_bytes());
                    bytes.push(b'\n');
                }
                // The line ends inside the string.
                bytes.extend_from_slice(before.as_bytes());
                bytes.extend(std::iter::repeat_n(b'a', at));
                bytes.extend_from_slice(snippet);
                bytes.push(b'\n');
            }
        }
        let path = dir.path().join(format!("s{t}.jsonl"));
        std::fs::write(&path, &bytes).unwrap();
        assert_same(&path);
    }
}

/// A scan reads the bytes the file had when it was opened: a line appended while it reads
/// (an agent writing) is the next listing's, so the listing and the row's size (its
/// freshness key) describe the same bytes.
#[test]
fn a_scan_stops_at_the_size_it_opened() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let line = |id: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2025-01-02T03:04:06.000Z","message":{{"role":"user","content":"hi {id}"}}}}"#
        )
    };
    std::fs::write(&path, format!("{HEADER}\n{}\n", line("a1"))).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let mut appended = false;
    let scanned = scan_with(
        &path,
        None,
        ParseMode::Fast,
        None,
        Texts::Gather,
        &mut |_, _| {
            if !appended {
                appended = true;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                writeln!(f, "{}", line("b2")).unwrap();
            }
        },
    )
    .unwrap();
    assert!(appended);
    assert_eq!((scanned.bytes_read, scanned.meta.len()), (size, size));
    let info = scanned.info.unwrap();
    assert_eq!((info.message_count, info.bytes), (1, size));
    // The next scan reads the appended line.
    assert_eq!(scan_info(&path, None).unwrap().message_count, 2);
}
