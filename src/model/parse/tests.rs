//! Reading sessions: pieces, blocks, long lines, repairs, migration and slim loads.

use super::*;
use blocks::BLOCK_BYTES;

/// A reader that hands out a few bytes at a time.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.1 = self.1 % 7 + 1;
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn reading_in_any_pieces_gives_the_same_session() {
    let data = "\n{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/\"}\n\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\nnot json\n{\"type\":\"label\",\"id\":\"b\",\"parentId\":\"a\",\"targetId\":\"a\",\"label\":\"x\"}\n{\"type\":\"mess";
    let whole = ParsedSession::from_bytes(data.as_bytes());
    let pieces = ParsedSession::read(Trickle(data.as_bytes(), 0)).unwrap();
    assert_eq!(whole.entries, pieces.entries);
    assert_eq!(whole.issues, pieces.issues);
    assert_eq!(whole.header, pieces.header);
    assert_eq!(
        (whole.bytes, whole.ends_with_newline),
        (pieces.bytes, pieces.ends_with_newline)
    );
    assert_eq!(whole.entries.len(), 2);
    assert_eq!(whole.entries[1].line, 6);
    assert!(!whole.ends_with_newline);
    assert_eq!(whole.issues.len(), 2, "{:?}", whole.issues);
    let empty = ParsedSession::from_bytes(b"");
    assert!(empty.ends_with_newline && empty.issues.is_empty());
}

#[test]
fn lines_keep_their_numbers_across_blocks() {
    // Several blocks, parsed in parallel, with blank, bad, repaired and torn lines among
    // the entries: every entry and issue keeps its own line number.
    let mut data = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n",
    );
    let mut expected = Vec::new();
    let mut line = 1;
    let pad = "z".repeat(300);
    for i in 0..60_000 {
        line += 1;
        match i % 1000 {
            7 => data.push('\n'),
            8 => data.push_str("not json\n"),
            9 => data.push_str("{\"type\":\"custom\",\"id\":\"r\",\"data\":\"\\udc00\"}\n"),
            _ => {
                data.push_str(&format!(
                    "{{\"type\":\"message\",\"id\":\"m{i}\",\"message\":{{\"role\":\"user\",\"content\":\"{pad}\"}}}}\n"
                ));
                expected.push((format!("m{i}"), line));
            }
        }
    }
    data.push_str("{\"type\":\"mess");
    let s = ParsedSession::from_bytes(data.as_bytes());
    assert!(data.len() > 2 * BLOCK_BYTES);
    let got: Vec<(String, usize)> = s
        .entries
        .iter()
        .filter(|e| e.id.starts_with('m'))
        .map(|e| (e.id.clone(), e.line))
        .collect();
    assert_eq!(got, expected);
    let repaired: Vec<usize> = s
        .entries
        .iter()
        .filter(|e| e.id == "r")
        .map(|e| e.line)
        .collect();
    assert_eq!(repaired, (0..60).map(|k| k * 1000 + 11).collect::<Vec<_>>());
    let issue_lines = |kind: IssueKind| -> Vec<usize> {
        s.issues
            .iter()
            .filter(|i| i.kind == kind)
            .map(|i| i.line)
            .collect()
    };
    assert_eq!(
        issue_lines(IssueKind::InvalidJson),
        (0..60).map(|k| k * 1000 + 10).collect::<Vec<_>>()
    );
    assert_eq!(issue_lines(IssueKind::Repaired), repaired);
    assert_eq!(issue_lines(IssueKind::TornLastLine), vec![60_002]);
}

#[test]
fn room_for_entries_is_estimated_from_entries_and_bounded() {
    #[derive(Debug)]
    struct NoLines;
    impl crate::model::entry::LineSource for NoLines {
        fn read_line(&self, _: u64, _: usize) -> io::Result<Vec<u8>> {
            Err(io::ErrorKind::NotFound.into())
        }
    }
    let source: std::sync::Arc<dyn crate::model::entry::LineSource> = std::sync::Arc::new(NoLines);
    let load = SlimLoad {
        source: &source,
        expected_bytes: 1 << 30,
    };
    let block = Block {
        data: vec![b'\n'; 8 << 20],
        offset: 0,
        too_long: None,
    };
    // 2,000 entries in 8 MiB: 256,000 in 1 GiB, plus 5%.
    assert_eq!(expected_entries(&block, 2_000, load), 268_800);
    // A first block of blank lines asks for nothing; one of tiny entries, at most one per
    // 128 bytes of the file.
    assert_eq!(expected_entries(&block, 0, load), 0);
    assert_eq!(expected_entries(&block, 1 << 22, load), (1 << 30) / 128);
}

#[test]
fn lone_surrogates_are_repaired() {
    let line = br#"{"type":"message","id":"a","message":{"role":"user","content":"x\ud83d y \udc00 ok \ud83d\ude00 \\ud83d"}}"#;
    let s = ParsedSession::from_bytes(
        &[
            br#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#.as_slice(),
            b"\n",
            line,
            b"\n",
        ]
        .concat(),
    );
    assert_eq!(s.entries.len(), 1);
    let msg = s.entries[0].message().unwrap();
    let content = msg["content"].as_str().unwrap();
    assert_eq!(content, "x\u{fffd} y \u{fffd} ok 😀 \\ud83d");
    assert!(s.issues.iter().any(|i| i.kind == IssueKind::Repaired));
}

#[test]
fn lines_split_on_newline_only() {
    let data = "a\u{2028}b\nc\r\n\nd";
    let mut lines = vec![];
    let (n, nl) = for_each_line(data.as_bytes(), 0, 0, |l| {
        let Line::Whole(l) = l else {
            panic!("no line is too long here")
        };
        lines.push((
            l.number,
            l.offset,
            String::from_utf8_lossy(l.bytes).into_owned(),
            l.terminated,
        ))
    })
    .unwrap();
    assert_eq!(n, data.len() as u64);
    assert!(!nl);
    assert_eq!(
        lines,
        vec![
            (1, 0, "a\u{2028}b".to_string(), true),
            (2, 6, "c\r".to_string(), true),
            (3, 9, String::new(), true),
            (4, 10, "d".to_string(), false)
        ]
    );
}

#[test]
fn torn_last_line_is_an_issue_not_an_error() {
    let s = ParsedSession::from_bytes(
        b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n{\"type\":\"mess",
    );
    assert!(s.header.is_some());
    assert!(!s.ends_with_newline);
    assert_eq!(s.issues[0].kind, IssueKind::TornLastLine);
    assert_eq!(s.issues[0].line, 2);
}

#[test]
fn v1_gets_a_stable_linear_chain() {
    let data = b"{\"type\":\"session\",\"id\":\"s1\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"cwd\":\"/\"}\n\
{\"type\":\"message\",\"timestamp\":\"2024-01-01T00:00:01Z\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n\
{\"type\":\"message\",\"timestamp\":\"2024-01-01T00:00:02Z\",\"message\":{\"role\":\"hookMessage\",\"content\":\"b\"}}\n\
{\"type\":\"compaction\",\"timestamp\":\"2024-01-01T00:00:03Z\",\"summary\":\"s\",\"firstKeptEntryIndex\":2}\n";
    let a = ParsedSession::from_bytes(data);
    let b = ParsedSession::from_bytes(data);
    assert_eq!(a.migrated_from, Some(1));
    assert_eq!(a.entries[0].parent_id, None);
    assert_eq!(
        a.entries[1].parent_id.as_deref(),
        Some(a.entries[0].id.as_str())
    );
    assert_eq!(a.entries[0].id.len(), 8);
    assert_eq!(a.entries[0].id, b.entries[0].id);
    assert_eq!(a.entries[1].role(), Some("custom"));
    assert_eq!(
        a.entries[2].str_field("firstKeptEntryId"),
        Some(a.entries[1].id.as_str())
    );
    assert!(!a.entries[2].raw().contains_key("firstKeptEntryIndex"));
}
