//! Atomic's reference tests (section 9 of `pi-atomic-behaviour.md`) that concern the core,
//! ported to grove's Atomic dialect: verbatim-compaction resume, the build-context suites with
//! legacy compactions inert, session-summary listing, session-name state, internal-session
//! classification and branching of internal sessions. Sessions are built as JSONL lines in
//! temp dirs, the way Atomic's `SessionManager` would have written them.

mod session_builder;

use grove::model::context::{
    Dialect, LeafChoice, SessionContext, VERBATIM_COMPACTION_PREFIX, build_context,
};
use grove::model::tree::Session;
use grove::storage::fork::fork_session;
use grove::storage::read::{load_session, scan_info};
use serde_json::{Value, json};
use session_builder::Builder;

/// 2026-07-01T08:00:00Z, the default header's time.
const T0: i64 = 1_782_892_800_000;

fn new_session() -> Builder {
    with_header(
        json!({"type":"session","version":3,"id":"a-1","timestamp":"2026-07-01T08:00:00.000Z","cwd":"/proj"}),
    )
}

fn with_header(header: Value) -> Builder {
    Builder::create("2026-07-01T08-00-00-000Z_a-1.jsonl", T0, header)
}

fn atomic(s: &Session) -> SessionContext {
    build_context(s, LeafChoice::Current, Dialect::Atomic)
}

fn roles(ctx: &SessionContext) -> Vec<String> {
    ctx.messages.iter().map(|m| m.role().to_owned()).collect()
}

fn text_of(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => b.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// verbatim-compaction-resume.test.ts

#[test]
fn boundary_is_prefix_summary_and_kept_tail_identical_after_reopen() {
    let mut b = new_session();
    b.user("1", "old user");
    b.assistant("2", "old answer");
    b.user("3", "kept user");
    b.assistant("4", "kept answer");
    b.verbatim("c", "[User]: old user\n(filtered 1 lines)", Some("3"));
    b.user("5", "after");
    let s = b.load();
    let ctx = atomic(&s);
    assert_eq!(roles(&ctx), ["custom", "user"]);
    let boundary = &ctx.messages[0].message;
    assert_eq!(boundary["customType"], "compaction");
    assert_eq!(boundary["display"], true);
    assert_eq!(
        text_of(boundary),
        format!(
            "{VERBATIM_COMPACTION_PREFIX}[User]: old user\n(filtered 1 lines)\n\n[User]: kept user\n\n[Assistant]: kept answer"
        )
    );
    // The summary is persisted exactly; reopening gives the same boundary.
    assert_eq!(
        s.entry_by_id("c").unwrap().str_field("summary"),
        Some("[User]: old user\n(filtered 1 lines)")
    );
    let again = atomic(&load_session(&b.path).unwrap());
    assert_eq!(again.messages[0].message, *boundary);
    // buildContextEntries still lists the kept entries for display.
    let entry_ids: Vec<&str> = ctx
        .entries
        .iter()
        .map(|&i| s.entries()[i].id.as_str())
        .collect();
    assert_eq!(entry_ids, ["c", "3", "4", "5"]);
}

#[test]
fn mid_turn_tail_is_flattened_and_payloads_kept() {
    let mut b = new_session();
    b.user("1", "start");
    let big = "x".repeat(16_050);
    b.message(
        "2",
        json!({"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"old.ts"}}],"stopReason":"toolUse","timestamp":T0}),
    );
    b.message(
        "3",
        json!({"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":big}],"isError":false,"timestamp":T0}),
    );
    let image = json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"});
    b.message(
        "4",
        json!({"role":"user","content":[{"type":"text","text":"look"},image,{"type":"text","text":"here"}],"timestamp":T0}),
    );
    b.verbatim("c", "sum", Some("2"));
    let ctx = atomic(&b.load());
    let content = ctx.messages[0].message["content"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(content.len(), 3, "text, image in place, text");
    assert_eq!(content[1], image);
    let text = text_of(&ctx.messages[0].message);
    assert!(text.contains("[Assistant tool calls]: read(path=\"old.ts\")"));
    assert!(
        text.contains(&format!("[Tool result]: {big}")),
        "16 050-char output kept whole"
    );
    assert!(text.ends_with("[User]: look\nhere"));
}

#[test]
fn null_or_missing_first_kept_hides_old_messages() {
    for first_kept in [None, Some("not-on-path")] {
        let mut b = new_session();
        b.user("1", "old");
        b.assistant("2", "old answer");
        b.verbatim("c", "sum", first_kept);
        b.user("3", "new");
        let ctx = atomic(&b.load());
        assert_eq!(roles(&ctx), ["custom", "user"]);
        assert_eq!(
            text_of(&ctx.messages[0].message),
            format!("{VERBATIM_COMPACTION_PREFIX}sum")
        );
    }
}

#[test]
fn legacy_records_are_inert_and_only_the_latest_boundary_counts() {
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push("cc", json!({"type":"context_compaction","promptVersion":1,"deletedTargets":[{"kind":"entry","entryId":"1"}]}));
    b.push(
        "pc",
        json!({"type":"compaction","summary":"pi summary","firstKeptEntryId":"2","tokensBefore":5}),
    );
    b.user("3", "c");
    let ctx = atomic(&b.load());
    assert_eq!(roles(&ctx), ["user", "assistant", "user"]);

    let mut b = new_session();
    b.user("1", "a");
    b.verbatim("c1", "first", Some("1"));
    b.user("2", "b");
    b.verbatim("c2", "second", Some("2"));
    b.user("3", "c");
    let ctx = atomic(&b.load());
    assert_eq!(roles(&ctx), ["custom", "user"]);
    assert_eq!(
        text_of(&ctx.messages[0].message),
        format!("{VERBATIM_COMPACTION_PREFIX}second\n\n[User]: b")
    );
}

// ---------------------------------------------------------------------------------------------
// build-context-01/02.suite.ts: pi's cases, legacy compactions inert

#[test]
fn build_context_suites_with_legacy_compactions_inert() {
    // pi: summary + kept(3,4) + after(6,7) = 5; Atomic: the whole path, 6 messages.
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.user("3", "c");
    b.assistant("4", "d");
    b.push(
        "5",
        json!({"type":"compaction","summary":"s","firstKeptEntryId":"3","tokensBefore":10}),
    );
    b.user("6", "e");
    b.assistant("7", "f");
    let s = b.load();
    assert_eq!(atomic(&s).messages.len(), 6);
    assert_eq!(
        build_context(&s, LeafChoice::Current, Dialect::Pi)
            .messages
            .len(),
        5
    );

    // Multiple legacy compactions: still the whole path (5 messages).
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    b.push(
        "3",
        json!({"type":"compaction","summary":"one","firstKeptEntryId":"1","tokensBefore":1}),
    );
    b.user("4", "c");
    b.assistant("5", "d");
    b.push(
        "6",
        json!({"type":"compaction","summary":"two","firstKeptEntryId":"4","tokensBefore":1}),
    );
    b.user("7", "e");
    let ctx = atomic(&b.load());
    assert_eq!(
        roles(&ctx),
        ["user", "assistant", "user", "assistant", "user"]
    );
    // A stored compactionSummary message is inert in Atomic's dialect too.
    let mut b = new_session();
    b.message(
        "1",
        json!({"role":"compactionSummary","summary":"old","tokensBefore":1,"timestamp":T0}),
    );
    b.user("2", "a");
    assert_eq!(roles(&atomic(&b.load())), ["user"]);
    // context_window_change is replayed.
    let mut b = new_session();
    b.user("1", "a");
    b.push(
        "w",
        json!({"type":"context_window_change","contextWindow":200000}),
    );
    assert_eq!(atomic(&b.load()).context_window, Some(200_000));
}

// ---------------------------------------------------------------------------------------------
// session-summary-listing.test.ts

fn summary_of(b: &Builder) -> Option<String> {
    scan_info(b.write(), Some(Dialect::Atomic)).unwrap().summary
}

#[test]
fn session_summary_shown_only_while_current() {
    let summary = |through: &str| json!({"type":"session_summary","summary":"Did things","summarizedThroughId":through});
    // Absent when never generated.
    let mut b = new_session();
    b.user("1", "a");
    b.assistant("2", "b");
    assert_eq!(summary_of(&b), None);
    // Anchored to the newest user/assistant message: shown, even after a tool result.
    b.push("s", summary("2"));
    assert_eq!(summary_of(&b).as_deref(), Some("Did things"));
    b.message("t", json!({"role":"toolResult","toolCallId":"x","toolName":"bash","content":[],"isError":false,"timestamp":T0}));
    assert_eq!(summary_of(&b).as_deref(), Some("Did things"));
    // A later branch summary retires it.
    let mut r = new_session();
    r.user("1", "a");
    r.assistant("2", "b");
    r.push("s", summary("2"));
    r.push_at(
        "bs",
        Some("1"),
        json!({"type":"branch_summary","fromId":"2","summary":"left"}),
    );
    assert_eq!(summary_of(&r), None);
    // A summary written after the branch summary is kept.
    r.push("s2", summary("2"));
    assert_eq!(summary_of(&r).as_deref(), Some("Did things"));
    // Stale after a new message.
    b.user("3", "more");
    assert_eq!(summary_of(&b), None);
}

// ---------------------------------------------------------------------------------------------
// pi-0.84.2-session-name-state.test.ts

#[test]
fn name_state_keeps_cleared_apart_from_never_named() {
    let mut b = new_session();
    b.user("1", "a");
    let s = b.load();
    assert!(!s.tree.name.has_name && s.tree.name.name.is_none());
    let info = scan_info(&b.path, Some(Dialect::Atomic)).unwrap();
    assert!(!info.has_name);

    b.push("n1", json!({"type":"session_info","name":"First"}));
    b.push("n2", json!({"type":"session_info","name":"  Second  "}));
    let s = b.load();
    assert_eq!(s.tree.name.name.as_deref(), Some("Second"));

    b.push("n3", json!({"type":"session_info","name":"   "}));
    let s = b.load();
    assert!(s.tree.name.has_name && s.tree.name.name.is_none());
    let info = scan_info(&b.path, Some(Dialect::Atomic)).unwrap();
    assert!(info.has_name);
    assert_eq!(info.name, None);
}

// ---------------------------------------------------------------------------------------------
// internal-sessions.test.ts

fn header_with(extra: Value) -> Value {
    let mut h = json!({"type":"session","version":3,"id":"a-1","timestamp":"2026-07-01T08:00:00.000Z","cwd":"/proj"});
    h.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    h
}

#[test]
fn internal_classification_is_exact() {
    let wf = json!({"runId":"r","stageId":"s","stageName":"plan"});
    let cases = [
        (json!({"internal":true,"workflow":wf}), true),
        (json!({"internal":"yes","workflow":wf}), false),
        (
            json!({"internal":true,"workflow":{"runId":"r","stageId":"s","stageName":"  "}}),
            false,
        ),
        (json!({"internal":true}), false),
        (json!({"workflow":wf}), false),
        (json!({"internal":true,"workflow":[1]}), false),
    ];
    for (extra, internal) in cases {
        let mut b = with_header(header_with(extra.clone()));
        b.user("1", "a");
        let info = scan_info(b.write(), Some(Dialect::Atomic)).unwrap();
        assert_eq!(info.internal, internal, "{extra}");
        assert_eq!(info.workflow.is_some(), internal, "{extra}");
    }
    // A long header (> 64 KiB) is read whole.
    let mut b = with_header(header_with(
        json!({"internal":true,"workflow":wf,"pad":"é".repeat(40_000)}),
    ));
    b.user("1", "a");
    let info = scan_info(b.write(), Some(Dialect::Atomic)).unwrap();
    assert!(info.internal);
    assert_eq!(info.workflow.unwrap().stage_name, "plan");
}

#[test]
fn a_branch_of_an_internal_session_inherits_its_classification() {
    let wf = json!({"runId":"r","stageId":"s","stageName":"plan"});
    let mut b = with_header(header_with(json!({"internal":true,"workflow":wf})));
    b.user("1", "a");
    b.assistant("2", "b");
    let forked = fork_session(b.write(), None).unwrap();
    let info = scan_info(&forked.path, Some(Dialect::Atomic)).unwrap();
    assert!(info.internal);
    // A malformed marker is not inherited.
    let mut b = with_header(header_with(json!({"internal":"yes","workflow":wf})));
    b.user("1", "a");
    let forked = fork_session(b.write(), None).unwrap();
    let h = load_session(&forked.path).unwrap().parsed.header.unwrap();
    assert!(!h.raw.contains_key("internal"));
}
