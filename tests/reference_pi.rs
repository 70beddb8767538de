//! pi's own reference tests (section 9 of `pi-atomic-behaviour.md`) that concern the core,
//! ported to grove: migration, build-context, tree traversal, labels, file operations,
//! save-entry, the `modified` timestamp, `createBranchedSession` (grove's `fork_session`) and
//! symlinked project folders. Sessions are built as JSONL lines in temp dirs, the way pi's
//! `SessionManager` would have written them.

mod session_builder;

use std::fs;
use std::path::PathBuf;

use grove::model::context::{Dialect, LeafChoice, SessionContext, build_context};
use grove::model::tree::Session;
use grove::storage::append::{NewEntry, append_entry};
use grove::storage::fork::fork_session;
use grove::storage::read::{load_session, scan_info};
use grove::storage::roots::{SessionRoot, find_session_files};
use serde_json::{Value, json};
use session_builder::Builder;

/// 2025-01-01T00:00:00Z, the default header's time.
const T0: i64 = 1_735_689_600_000;

fn new_session() -> Builder {
    with_header(
        json!({"type":"session","version":3,"id":"s-1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/proj"}),
    )
}

fn with_header(header: Value) -> Builder {
    Builder::create("2025-01-01T00-00-00-000Z_s-1.jsonl", T0, header)
}

fn roles(ctx: &SessionContext) -> Vec<String> {
    ctx.messages.iter().map(|m| m.role().to_owned()).collect()
}

fn texts(ctx: &SessionContext) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match &m.message["content"] {
            Value::String(s) => s.clone(),
            Value::Array(b) => b
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            _ => m.message["summary"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

fn pi(s: &Session) -> SessionContext {
    build_context(s, LeafChoice::Current, Dialect::Pi)
}

fn ids(s: &Session, v: &[usize]) -> Vec<String> {
    v.iter().map(|&i| s.entries()[i].id.clone()).collect()
}

// ---------------------------------------------------------------------------------------------
// migration.test.ts

#[test]
fn migration_v1_gets_chained_8_char_ids_and_v2_ids_are_untouched() {
    let b = with_header(
        json!({"type":"session","id":"old","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/p"}),
    );
    let mut b = b;
    b.lines.push(json!({"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}));
    b.lines.push(json!({"type":"message","timestamp":"2024-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"timestamp":2}}));
    let before = fs::read(b.write()).unwrap();
    let s = load_session(&b.path).unwrap();
    assert_eq!(s.entries().len(), 2);
    assert!(s.entries().iter().all(|e| e.id.len() == 8));
    assert_eq!(s.entries()[0].parent_id, None);
    assert_eq!(
        s.entries()[1].parent_id.as_deref(),
        Some(s.entries()[0].id.as_str())
    );
    assert_eq!(s.parsed.migrated_from, Some(1));
    // In memory only: the file is untouched.
    assert_eq!(fs::read(&b.path).unwrap(), before);

    let mut b = with_header(
        json!({"type":"session","version":2,"id":"v2","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/p"}),
    );
    b.user("u1", "hi");
    b.push(
        "h1",
        json!({"type":"message","message":{"role":"hookMessage","content":"hook","timestamp":1}}),
    );
    let s = b.load();
    assert_eq!(ids(&s, &[0, 1]), ["u1", "h1"]);
    assert_eq!(s.entries()[1].role(), Some("custom"));
}

// ---------------------------------------------------------------------------------------------
// build-context.test.ts

#[test]
fn build_context_empty_session() {
    let b = new_session();
    let ctx = pi(&b.load());
    assert!(ctx.messages.is_empty());
    assert_eq!(ctx.thinking_level, "off");
    assert_eq!(ctx.model, None);
}

#[test]
fn build_context_simple_conversation_thinking_and_model() {
    let mut b = new_session();
    b.user("1", "hello");
    b.push(
        "t",
        json!({"type":"thinking_level_change","thinkingLevel":"high"}),
    );
    b.push(
        "m",
        json!({"type":"model_change","provider":"openai","modelId":"gpt-4"}),
    );
    b.assistant_with("2", "hi", "anthropic", "claude-sonnet");
    let ctx = pi(&b.load());
    assert_eq!(roles(&ctx), ["user", "assistant"]);
    assert_eq!(ctx.thinking_level, "high");
    // The assistant message overrides the earlier model_change.
    let m = ctx.model.unwrap();
    assert_eq!(
        (m.provider.as_str(), m.model_id.as_str()),
        ("anthropic", "claude-sonnet")
    );

    let mut b = new_session();
    b.user("1", "hello");
    b.push(
        "m",
        json!({"type":"model_change","provider":"openai","modelId":"gpt-4"}),
    );
    let m = pi(&b.load()).model.unwrap();
    assert_eq!(
        (m.provider.as_str(), m.model_id.as_str()),
        ("openai", "gpt-4")
    );
}

fn compaction(first_kept: &str, summary: &str) -> Value {
    json!({"type":"compaction","summary":summary,"firstKeptEntryId":first_kept,"tokensBefore":1000})
}

#[test]
fn build_context_compaction_keeps_from_first_kept_then_after() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.user("3", "c");
    b.assistant("4", "d");
    b.push("5", compaction("3", "summary"));
    b.user("6", "e");
    b.assistant("7", "f");
    let ctx = pi(&b.load());
    assert_eq!(
        roles(&ctx),
        [
            "compactionSummary",
            "user",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(texts(&ctx), ["summary", "c", "d", "e", "f"]);

    // Keep from the very first entry: 4 messages + summary... pi's test: summary + 1,2 + after.
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push("3", compaction("1", "s"));
    b.user("4", "c");
    let ctx = pi(&b.load());
    assert_eq!(texts(&ctx), ["s", "a", "b", "c"]);
}

#[test]
fn build_context_multiple_compactions_use_the_latest() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push("3", compaction("1", "first"));
    b.user("4", "c");
    b.assistant("5", "d");
    b.push("6", compaction("4", "second"));
    b.user("7", "e");
    let ctx = pi(&b.load());
    assert_eq!(texts(&ctx), ["second", "c", "d", "e"]);
}

#[test]
fn build_context_follows_explicit_leaf_and_branch_summary() {
    let mut b = new_session();
    b.user("1", "root");
    b.assistant("2", "answer");
    b.user("3", "main");
    b.assistant("4", "main answer");
    b.push_at(
        "5",
        Some("2"),
        json!({"type":"message","message":{"role":"user","content":"side","timestamp":5}}),
    );
    b.assistant("6", "side answer");
    let s = b.load();
    let main = build_context(&s, LeafChoice::Id("4"), Dialect::Pi);
    assert_eq!(texts(&main), ["root", "answer", "main", "main answer"]);
    let side = build_context(&s, LeafChoice::Current, Dialect::Pi);
    assert_eq!(texts(&side), ["root", "answer", "side", "side answer"]);
    // Unknown leaf: the last entry.
    let unknown = build_context(&s, LeafChoice::Id("nope"), Dialect::Pi);
    assert_eq!(texts(&unknown), texts(&side));
    // Explicit null leaf (resetLeaf): empty.
    assert!(
        build_context(&s, LeafChoice::None, Dialect::Pi)
            .messages
            .is_empty()
    );

    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push_at(
        "3",
        Some("1"),
        json!({"type":"branch_summary","fromId":"2","summary":"tried b"}),
    );
    b.user("4", "c");
    let ctx = pi(&b.load());
    assert_eq!(roles(&ctx), ["user", "branchSummary", "user"]);
    assert_eq!(texts(&ctx), ["a", "tried b", "c"]);
}

#[test]
fn build_context_orphan_is_only_itself() {
    let mut b = new_session();
    b.user("1", "a");
    b.push_at(
        "2",
        Some("missing"),
        json!({"type":"message","message":{"role":"user","content":"orphan","timestamp":2}}),
    );
    let ctx = pi(&b.load());
    assert_eq!(texts(&ctx), ["orphan"]);
}

// ---------------------------------------------------------------------------------------------
// tree-traversal.test.ts

#[test]
fn tree_traversal_branches_roots_and_paths() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push(
        "t",
        json!({"type":"thinking_level_change","thinkingLevel":"low"}),
    );
    b.push(
        "c",
        json!({"type":"custom","customType":"ext","data":{"n":1}}),
    );
    b.user("3", "c");
    // Three-way branch at 2.
    b.push_at(
        "4",
        Some("2"),
        json!({"type":"message","message":{"role":"user","content":"d","timestamp":4}}),
    );
    b.push_at(
        "5",
        Some("2"),
        json!({"type":"message","message":{"role":"user","content":"e","timestamp":5}}),
    );
    let s = b.load();
    assert_eq!(ids(&s, &s.tree.roots), ["1"]);
    let two = s.tree.index_of("2").unwrap();
    // Children in timestamp order.
    assert_eq!(ids(&s, &s.tree.children[two]), ["t", "4", "5"]);
    // Settings and custom entries are tree nodes.
    assert_eq!(
        ids(&s, &s.tree.path_to(s.tree.index_of("3").unwrap())),
        ["1", "2", "t", "c", "3"]
    );
    // Leaf = last entry in file order; the context follows that branch only.
    assert_eq!(s.leaf_id(), Some("5"));
    assert_eq!(texts(&pi(&s)), ["a", "b", "e"]);
    assert_eq!(s.tree.leaf_count(), 3);
}

// ---------------------------------------------------------------------------------------------
// labels.test.ts

#[test]
fn labels_set_clear_last_wins_and_not_in_context() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push("l1", json!({"type":"label","targetId":"1","label":"first"}));
    b.push(
        "l2",
        json!({"type":"label","targetId":"1","label":"second"}),
    );
    b.push("l3", json!({"type":"label","targetId":"2","label":"gone"}));
    b.push("l4", json!({"type":"label","targetId":"2"}));
    let s = b.load();
    assert_eq!(s.tree.labels["1"].text, "second");
    assert!(!s.tree.labels.contains_key("2"));
    assert_eq!(roles(&pi(&s)), ["user", "assistant"]);
}

#[test]
fn labels_survive_a_fork_and_off_path_labels_are_dropped() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push_at(
        "x",
        Some("2"),
        json!({"type":"message","message":{"role":"user","content":"off","timestamp":9}}),
    );
    b.push_at(
        "3",
        Some("2"),
        json!({"type":"message","message":{"role":"user","content":"c","timestamp":9}}),
    );
    b.push("l1", json!({"type":"label","targetId":"1","label":"start"}));
    b.push(
        "l2",
        json!({"type":"label","targetId":"x","label":"off path"}),
    );
    b.push("l3", json!({"type":"label","targetId":"3","label":"here"}));
    b.assistant("4", "d");
    let path = b.write().to_path_buf();
    let forked = fork_session(&path, Some("4")).expect("fork");
    let f = load_session(&forked.path).expect("load fork");
    // Path entries minus labels, re-chained, then one label entry per label on the path.
    let types: Vec<&str> = f.entries().iter().map(|e| e.type_name()).collect();
    assert_eq!(
        types,
        ["message", "message", "message", "message", "label", "label"]
    );
    assert_eq!(ids(&f, &f.tree.path_to(3)), ["1", "2", "3", "4"]);
    assert_eq!(f.tree.labels["1"].text, "start");
    assert_eq!(f.tree.labels["3"].text, "here");
    assert!(!f.tree.labels.contains_key("x"));
    assert_eq!(f.tree.roots.len(), 1, "nothing orphaned");
    assert_eq!(
        f.parsed.header.as_ref().unwrap().parent_session.as_deref(),
        Some(fs::canonicalize(&path).unwrap().to_str().unwrap())
    );
    assert_eq!(texts(&pi(&f)), ["a", "b", "c", "d"]);
}

// ---------------------------------------------------------------------------------------------
// createBranchedSession (tree-traversal.test.ts)

#[test]
fn fork_extracts_the_path_with_unique_ids_and_one_header() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.user("3", "c");
    b.push_at(
        "4",
        Some("2"),
        json!({"type":"message","message":{"role":"user","content":"d","timestamp":4}}),
    );
    b.assistant("5", "e");
    let path = b.write().to_path_buf();
    let f = load_session(&fork_session(&path, Some("2")).unwrap().path).unwrap();
    assert_eq!(
        ids(&f, &(0..f.entries().len()).collect::<Vec<_>>()),
        ["1", "2"]
    );
    let f = load_session(&fork_session(&path, Some("5")).unwrap().path).unwrap();
    assert_eq!(
        ids(&f, &(0..f.entries().len()).collect::<Vec<_>>()),
        ["1", "2", "4", "5"]
    );
    let text = fs::read_to_string(fork_session(&path, None).unwrap().path).unwrap();
    assert_eq!(text.matches("\"type\":\"session\"").count(), 1);
    assert!(fork_session(&path, Some("nope")).is_err());
    // The source is untouched.
    assert_eq!(load_session(&path).unwrap().entries().len(), 5);
}

// ---------------------------------------------------------------------------------------------
// file-operations.test.ts (loadEntriesFromFile)

#[test]
fn file_operations_bad_files_load_nothing_and_malformed_lines_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    let s = load_session(&empty).unwrap();
    assert!(s.parsed.header.is_none() && s.entries().is_empty());
    assert_eq!(fs::metadata(&empty).unwrap().len(), 0, "never rewritten");

    let no_header = dir.path().join("no-header.jsonl");
    fs::write(&no_header, "{\"type\":\"message\",\"id\":\"1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n").unwrap();
    let before = fs::read(&no_header).unwrap();
    assert!(load_session(&no_header).unwrap().parsed.header.is_none());
    assert!(scan_info(&no_header, None).is_err());
    assert_eq!(fs::read(&no_header).unwrap(), before, "never truncated");

    assert!(load_session(&dir.path().join("missing.jsonl")).is_err());

    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    let path = b.write().to_path_buf();
    let mut text = fs::read_to_string(&path).unwrap();
    let second = text.find('\n').unwrap() + 1;
    text.insert_str(second, "{not json\n");
    fs::write(&path, text).unwrap();
    let s = load_session(&path).unwrap();
    assert_eq!(s.entries().len(), 2);
    assert_eq!(s.parsed.issues.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// save-entry.test.ts

#[test]
fn custom_entry_is_a_tree_node_outside_the_context() {
    let mut b = new_session();
    b.user("1", "a");
    b.push(
        "c",
        json!({"type":"custom","customType":"my-ext","data":{"k":1}}),
    );
    b.assistant("2", "b");
    let s = b.load();
    assert_eq!(ids(&s, &s.tree.path_to(2)), ["1", "c", "2"]);
    assert_eq!(roles(&pi(&s)), ["user", "assistant"]);
}

// ---------------------------------------------------------------------------------------------
// session-info-modified-timestamp.test.ts

#[test]
fn modified_is_the_last_user_or_assistant_message_time_not_the_mtime() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    let (_, last_ms) = (String::new(), 1_735_689_600_000 + 2 * 1000);
    b.push("l", json!({"type":"label","targetId":"1","label":"x"}));
    b.push("n", json!({"type":"session_info","name":"renamed"}));
    let path = b.write().to_path_buf();
    let info = scan_info(&path, Some(Dialect::Pi)).unwrap();
    assert_eq!(info.modified_ms, last_ms);
    // A rename written by grove does not bump it either.
    append_entry(
        &path,
        NewEntry::Rename {
            name: "again".into(),
        },
    )
    .unwrap();
    assert_eq!(
        scan_info(&path, Some(Dialect::Pi)).unwrap().modified_ms,
        last_ms
    );
    // No messages: the header time.
    let b = new_session();
    let info = scan_info(b.write(), Some(Dialect::Pi)).unwrap();
    assert_eq!(info.modified_ms, 1_735_689_600_000);
}

// ---------------------------------------------------------------------------------------------
// Symlinked project folders (Atomic's session-manager-symlink-discovery.test.ts; grove scans
// both agents' roots the same way).

#[cfg(unix)]
#[test]
fn symlinked_project_folders_are_followed_and_broken_links_skipped() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let project = elsewhere.path().join("--real--");
    fs::create_dir(&project).unwrap();
    let b = new_session();
    fs::copy(b.write(), project.join("a.jsonl")).unwrap();
    std::os::unix::fs::symlink(&project, root.path().join("--alias--")).unwrap();
    std::os::unix::fs::symlink(root.path().join("gone"), root.path().join("--broken--")).unwrap();
    std::os::unix::fs::symlink(project.join("a.jsonl"), root.path().join("--file-link--")).unwrap();
    let (files, _) = find_session_files(&[SessionRoot {
        path: root.path().to_path_buf(),
        agent: Some(Dialect::Atomic),
    }]);
    let found: Vec<PathBuf> = files.into_iter().map(|f| f.path).collect();
    // Found through the alias, with the alias path kept.
    assert_eq!(found, [root.path().join("--alias--").join("a.jsonl")]);
}
