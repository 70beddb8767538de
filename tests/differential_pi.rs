//! Differential test: grove against what the real pi 1.6.0 library reports for the same files
//! (`tests/fixtures/pi-agent` + `tests/fixtures/pi-oracle`, see `tests/fixtures/README.md`).
//!
//! Every field the oracle records is compared for every fixture file. A difference fails the
//! test unless it is on the allow-list below ([`ALLOWED`]): one entry per file and field, each a
//! deliberate improvement with its reason, mirrored in `docs/differences.md`. An allow-list entry
//! that no longer matches a difference fails too, so the list stays exact. For the files on the
//! allow-list, grove's own values are asserted separately ([`grove_values_where_it_differs`]).

mod differential;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use differential::{
    Allowed, FIXTURES, ListField, Program, assert_documented, assert_only_allowed, copy_sessions,
    read_json,
};
use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::info::SessionInfo;
use grove::model::parse::IssueKind;
use grove::model::tree::Session;
use grove::storage::read::{ReadError, scan_info};
use serde_json::Value;

const PI: Program = Program {
    name: "pi",
    sessions: "pi-agent/sessions",
    oracle: "pi-oracle",
    dialect: Dialect::Pi,
    list_key: "listAll",
    listed_field: "listed",
    per_dir_key: "withSessionDir",
    extra_list_fields: no_extra_list_fields,
};

fn no_extra_list_fields(_: &Value, _: &SessionInfo) -> Vec<ListField> {
    Vec::new()
}

/// Files named by the allow-list.
const V1: &str = "2024-11-02T10-00-00-000Z_11111111-1111-4111-8111-111111111111.jsonl";
const V1_EXPLICIT: &str = "2024-11-03T08-00-00-000Z_22222222-2222-4222-8222-222222222222.jsonl";
const V2: &str = "2024-12-01T12-00-00-000Z_33333333-3333-4333-8333-333333333333.jsonl";
const TORN: &str = "2025-01-10T09-00-00-000Z_d1000000-0000-4000-8000-000000000001.jsonl";
const EMPTY: &str = "2025-01-12T09-00-00-000Z_d1000000-0000-4000-8000-000000000003.jsonl";
const NO_HEADER: &str = "2025-01-14T09-00-00-000Z_d1000000-0000-4000-8000-000000000005.jsonl";
const CYCLE: &str = "2025-01-17T10-00-00-000Z_d1000000-0000-4000-8000-000000000016.jsonl";
const MID_UTF8: &str = "2025-01-19T09-00-00-000Z_d1000000-0000-4000-8000-000000000010.jsonl";
const NULL_CONTENT: &str = "2025-01-20T09-00-00-000Z_d1000000-0000-4000-8000-000000000011.jsonl";
const BEFORE_HEADER: &str = "2025-01-23T09-00-00-000Z_d1000000-0000-4000-8000-000000000014.jsonl";
const LONE_SURROGATE: &str = "2025-06-02T20-16-25-752Z_01973249-c898-756e-8318-87fad36592e1.jsonl";
/// Files with a raw U+2028 inside a message line.
const U2028_FILES: [&str; 7] = [
    "2025-06-01T12-11-31-206Z_01972b67-7a06-756e-8318-87c4f0a60323.jsonl",
    "2025-06-01T21-16-14-970Z_01972d5a-30fa-756e-8318-87d959387c58.jsonl",
    "2025-06-02T02-10-34-497Z_01972e67-a781-756e-8318-87df4e26de10.jsonl",
    "2025-06-02T05-08-05-152Z_01972f0a-2ba0-756e-8318-87e09d7ff088.jsonl",
    "2025-06-02T06-28-48-858Z_01972f54-145a-756e-8318-87e5d5291a9b.jsonl",
    "2025-06-02T10-41-58-050Z_0197303b-d922-756e-8318-87e91f895a7b.jsonl",
    "2025-06-02T21-43-48-321Z_01973299-c761-756e-8318-87ff969e65f3.jsonl",
];
const BAD_TIMESTAMP: &str = "2025-01-18T09-00-00-000Z_d1000000-0000-4000-8000-000000000009.jsonl";

const U2028_REASON: &str = "pi's listing reads lines with Node's readline, which also breaks lines at U+2028, so it skips the message line holding one; grove splits on \\n only and counts it";

/// A U+2028 listing difference (the same reason for each file and field).
const fn u2028(file: &'static str, field: &'static str) -> Allowed {
    Allowed {
        file,
        field,
        reason: U2028_REASON,
    }
}

/// The deliberate differences. Field names: `listed`, `list.<SessionInfo field>`, `open`,
/// `mutatedByOpen`, `leaf`, `name`, `labels`, `tree.roots`, `tree.children`, `branch`,
/// `contextEntries`, `context.model`, `context.thinkingLevel`, `context.messages`.
const ALLOWED: &[Allowed] = &[
    // pi's open() rewrites v1/v2 files to migrate them; grove migrates in memory only.
    Allowed {
        file: V1,
        field: "mutatedByOpen",
        reason: "pi rewrites a v1 file on open to migrate it; grove migrates in memory and never writes",
    },
    Allowed {
        file: V1_EXPLICIT,
        field: "mutatedByOpen",
        reason: "pi rewrites a v1 file on open to migrate it; grove migrates in memory and never writes",
    },
    Allowed {
        file: V2,
        field: "mutatedByOpen",
        reason: "pi rewrites a v2 file on open to migrate it; grove migrates in memory and never writes",
    },
    Allowed {
        file: TORN,
        field: "mutatedByOpen",
        reason: "pi appends a newline after a torn last line on open; grove never writes while reading (its appends refuse a torn tail instead)",
    },
    Allowed {
        file: MID_UTF8,
        field: "mutatedByOpen",
        reason: "pi appends a newline after a torn last line on open; grove never writes while reading",
    },
    Allowed {
        file: EMPTY,
        field: "mutatedByOpen",
        reason: "pi replaces an empty file with a fresh header on open; grove never writes while reading",
    },
    Allowed {
        file: EMPTY,
        field: "open",
        reason: "pi's open() turns an empty file into a session by writing a fresh header; grove reports the file as having no header and leaves it empty",
    },
    // A lone surrogate escape (`\ud83d`) in an assistant message: serde_json refuses it, so grove
    // loads the line with U+FFFD in its place; JSON.stringify keeps the escape, so the sha differs.
    Allowed {
        file: LONE_SURROGATE,
        field: "context.messages[1108fd63]",
        reason: "the message holds an escaped lone surrogate; grove loads it with U+FFFD in its place (pi keeps the unpaired escape), so the message JSON differs in that character",
    },
    // Raw U+2028 inside a message line.
    u2028(U2028_FILES[0], "list.messageCount"),
    u2028(U2028_FILES[0], "list.allMessagesTextLength"),
    u2028(U2028_FILES[0], "list.allMessagesTextSha"),
    u2028(U2028_FILES[1], "list.messageCount"),
    u2028(U2028_FILES[1], "list.allMessagesTextLength"),
    u2028(U2028_FILES[1], "list.allMessagesTextSha"),
    u2028(U2028_FILES[2], "list.messageCount"),
    u2028(U2028_FILES[2], "list.allMessagesTextLength"),
    u2028(U2028_FILES[2], "list.allMessagesTextSha"),
    u2028(U2028_FILES[3], "list.messageCount"),
    u2028(U2028_FILES[3], "list.allMessagesTextLength"),
    u2028(U2028_FILES[3], "list.allMessagesTextSha"),
    u2028(U2028_FILES[4], "list.messageCount"),
    u2028(U2028_FILES[4], "list.allMessagesTextLength"),
    u2028(U2028_FILES[4], "list.allMessagesTextSha"),
    u2028(U2028_FILES[5], "list.messageCount"),
    u2028(U2028_FILES[5], "list.allMessagesTextLength"),
    u2028(U2028_FILES[5], "list.allMessagesTextSha"),
    u2028(U2028_FILES[6], "list.messageCount"),
    u2028(U2028_FILES[6], "list.allMessagesTextLength"),
    u2028(U2028_FILES[6], "list.allMessagesTextSha"),
    // The content:null message: pi's listing throws on it and drops the whole session.
    Allowed {
        file: NULL_CONTENT,
        field: "listed",
        reason: "pi's listing throws on a `content: null` message and hides the whole session; grove lists it",
    },
    // The parentId cycle: pi never returns from getBranch()/buildSessionContext().
    Allowed {
        file: CYCLE,
        field: "tree.roots",
        reason: "pi leaves the cycle members unreachable; grove cuts the cycle at its first member in file order, which becomes a root",
    },
    Allowed {
        file: CYCLE,
        field: "tree.children",
        reason: "pi leaves the cycle members unreachable; grove shows them under the root it made",
    },
    Allowed {
        file: CYCLE,
        field: "branch",
        reason: "pi loops forever on getBranch() (no oracle value); grove returns the path from the cut",
    },
    Allowed {
        file: CYCLE,
        field: "contextEntries",
        reason: "pi loops forever (no oracle value); grove builds the context of the cut path",
    },
    Allowed {
        file: CYCLE,
        field: "context.model",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
    Allowed {
        file: CYCLE,
        field: "context.thinkingLevel",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
    Allowed {
        file: CYCLE,
        field: "context.messages[c0000001]",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
    Allowed {
        file: CYCLE,
        field: "context.messages[c0000002]",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
];

/// Copies the pi sessions with fixed mtimes, so listing fields that fall back to the file mtime
/// are deterministic. pi-agent has no MANIFEST: every file gets a fixed old time except the one
/// whose header time is unparseable, which gets the mtime the oracle saw.
fn sessions_copy() -> (tempfile::TempDir, PathBuf) {
    let list = read_json(&Path::new(FIXTURES).join("pi-oracle/list.json"));
    let oracle_ms = list["listAll"]
        .as_array()
        .expect("listAll")
        .iter()
        .find(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.ends_with(BAD_TIMESTAMP))
        })
        .and_then(|e| e["modifiedMs"].as_u64())
        .expect("the oracle lists the file with the bad timestamp");
    copy_sessions(&PI, |rel| {
        let ms = if rel.ends_with(BAD_TIMESTAMP) {
            oracle_ms
        } else {
            946_684_800_000 // 2000-01-01: any use of it shows up as a difference
        };
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
    })
}

#[test]
fn grove_agrees_with_pi_1_6_0_on_every_fixture() {
    let (_tmp, root) = sessions_copy();
    let run = differential::run(&PI, &root);
    assert_only_allowed(&PI, &run.diffs, ALLOWED);
}

#[test]
fn every_allowed_difference_is_documented() {
    assert_documented(&PI, ALLOWED);
}

fn grove_session(name: &str) -> (PathBuf, Session) {
    differential::grove_session(&PI, name)
}

/// What grove gives where it deliberately differs from pi.
#[test]
fn grove_values_where_it_differs() {
    // The parentId cycle: the cycle is cut at its first member in file order, reported, and the
    // context of the leaf is the two cycle members.
    let (_, s) = grove_session(CYCLE);
    let ids =
        |v: &[usize]| -> Vec<String> { v.iter().map(|&i| s.entries()[i].id.clone()).collect() };
    assert_eq!(ids(&s.tree.roots), ["b0000001", "c0000001"]);
    assert_eq!(s.leaf_id(), Some("c0000002"));
    assert_eq!(
        ids(&s.tree.path_to(s.tree.leaf.unwrap())),
        ["c0000001", "c0000002"]
    );
    assert!(
        s.issues()
            .any(|i| i.kind == IssueKind::Tree && i.message.contains("cycle"))
    );
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    let roles: Vec<&str> = ctx.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(
        ctx.model.as_ref().map(|m| m.model_id.as_str()),
        Some("claude-3-5-sonnet-20241022")
    );

    // content:null: listed, and the message loads (normalised in the context).
    let (path, s) = grove_session(NULL_CONTENT);
    let info = scan_info(&path, Some(Dialect::Pi)).expect("listed");
    assert_eq!(info.message_count, 2);
    assert_eq!(info.first_message, "(no messages)");
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    assert_eq!(ctx.messages.len(), 2);
    assert_ne!(ctx.messages[0].message["content"], Value::Null);

    // No header, and a message before the header: reported, never listed.
    for name in [NO_HEADER, BEFORE_HEADER] {
        let (path, s) = grove_session(name);
        assert!(matches!(
            scan_info(&path, Some(Dialect::Pi)),
            Err(ReadError::NoHeader { .. })
        ));
        assert!(s.parsed.header.is_none());
        assert!(s.issues().any(|i| i.kind == IssueKind::NoHeader));
    }
    // Torn last line: loads without it, and says so.
    let (_, s) = grove_session(TORN);
    assert_eq!(s.entries().len(), 3);
    assert!(s.issues().any(|i| i.kind == IssueKind::TornLastLine));
    // Empty file: not listed, not rewritten.
    let (path, s) = grove_session(EMPTY);
    assert!(scan_info(&path, Some(Dialect::Pi)).is_err());
    assert!(s.entries().is_empty());
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    // v1 ids are stable across loads (pi's are random).
    let (_, a) = grove_session(V1);
    let (_, b) = grove_session(V1);
    let ids_a: Vec<&str> = a.entries().iter().map(|e| e.id.as_str()).collect();
    let ids_b: Vec<&str> = b.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids_a, ids_b);
    assert_eq!(a.parsed.migrated_from, Some(1));

    // U+2028: grove counts every message line, and the text keeps the U+2028.
    let list = read_json(&Path::new(FIXTURES).join("pi-oracle/list.json"));
    for name in U2028_FILES {
        let (path, s) = grove_session(name);
        let info = scan_info(&path, Some(Dialect::Pi)).expect("listed");
        let messages = s
            .entries()
            .iter()
            .filter(|e| e.type_name() == "message")
            .count() as u64;
        assert_eq!(info.message_count, messages, "{name}");
        let pi = list["listAll"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .unwrap();
        assert_eq!(pi["messageCount"].as_u64(), Some(messages - 1), "{name}");
        assert!(info.all_messages_text.contains('\u{2028}'), "{name}");
    }

    // Lone surrogate: the message loads, carrying U+FFFD, and the repair is reported.
    let (_, s) = grove_session(LONE_SURROGATE);
    let e = s.entry_by_id("1108fd63").expect("the message loads");
    assert!(serde_json::to_string(e.raw()).unwrap().contains('\u{fffd}'));
    assert!(s.issues().any(|i| i.kind == IssueKind::Repaired));
}
