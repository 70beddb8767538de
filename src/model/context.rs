//! Context building: the messages an agent would be given when resuming a branch
//! (`buildSessionContext`), in pi's dialect or Atomic's.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::entry::{Entry, EntryKind, JsonMap, Role};
use super::tree::Session;

/// Which program's rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    Pi,
    Atomic,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Pi => "pi",
            Dialect::Atomic => "atomic",
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The model a branch ends on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    pub provider: String,
    pub model_id: String,
}

/// One message of the context, with the entry it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextMessage {
    /// Index of the source entry in the session.
    pub entry_index: usize,
    /// The AgentMessage as the agent would get it (stored messages unchanged).
    pub message: Value,
}

impl ContextMessage {
    pub fn role(&self) -> &str {
        self.message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// The result of context building.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionContext {
    pub leaf: Option<usize>,
    pub model: Option<ModelRef>,
    pub thinking_level: String,
    /// Atomic: the replayed `context_window_change`.
    pub context_window: Option<u64>,
    pub messages: Vec<ContextMessage>,
    /// The entries the context was built from, in order (`buildContextEntries`), for display.
    pub entries: Vec<usize>,
}

/// Which leaf to build from.
#[derive(Clone, Copy, Debug)]
pub enum LeafChoice<'a> {
    /// The session's leaf on load.
    Current,
    /// An explicit entry id; unknown ids fall back to the last entry, as in pi.
    Id(&'a str),
    /// An entry index.
    Index(usize),
    /// Before any entry (`resetLeaf`): an empty context.
    None,
}

/// Builds the context of a session for a leaf, in a dialect.
pub fn build_context(session: &Session, leaf: LeafChoice<'_>, dialect: Dialect) -> SessionContext {
    let entries = session.entries();
    let leaf = match leaf {
        LeafChoice::None => None,
        LeafChoice::Current => session.tree.leaf,
        LeafChoice::Id(id) => session.tree.index_of(id).or(session.tree.leaf),
        LeafChoice::Index(i) => (i < entries.len()).then_some(i).or(session.tree.leaf),
    };
    let mut ctx = SessionContext {
        leaf,
        thinking_level: "off".into(),
        ..Default::default()
    };
    let Some(leaf) = leaf else { return ctx };
    let path = session.tree.path_to(leaf);
    replay_settings(entries, &path, dialect, &mut ctx);
    match dialect {
        Dialect::Pi => build_pi(entries, &path, &mut ctx),
        Dialect::Atomic => build_atomic(entries, &path, &mut ctx),
    }
    ctx
}

fn replay_settings(entries: &[Entry], path: &[usize], dialect: Dialect, ctx: &mut SessionContext) {
    for &i in path {
        let e = &entries[i];
        match e.kind {
            EntryKind::ThinkingLevelChange => {
                if let Some(level) = e.str_field("thinkingLevel") {
                    ctx.thinking_level = level.to_owned();
                }
            }
            EntryKind::ModelChange => {
                ctx.model = Some(ModelRef {
                    provider: e.str_field("provider").unwrap_or_default().to_owned(),
                    model_id: e.str_field("modelId").unwrap_or_default().to_owned(),
                });
            }
            EntryKind::ContextWindowChange if dialect == Dialect::Atomic => {
                if let Some(w) = e.slim().get("contextWindow").and_then(Value::as_u64) {
                    ctx.context_window = Some(w);
                }
            }
            EntryKind::Message => {
                // Every path entry is looked at: read from the digest, which slim entries keep.
                if e.role == Role::Assistant
                    && let Some(m) = e.digest()
                {
                    let s = |f: &Option<Box<str>>| f.as_deref().unwrap_or_default().to_owned();
                    ctx.model = Some(ModelRef {
                        provider: s(&m.provider),
                        model_id: s(&m.model),
                    });
                }
            }
            _ => {}
        }
    }
}

/// The message an entry contributes in pi's rules (compactions handled by the caller).
fn pi_entry_message(e: &Entry, edits: &HashMap<&str, &Entry>) -> Option<Value> {
    match e.kind {
        EntryKind::Message => {
            let msg = e.message()?;
            match edits.get(e.id.as_str()) {
                Some(edit) => match edit.raw().get("replacement") {
                    Some(Value::Object(r)) => {
                        let mut m = msg.clone();
                        m.insert(
                            "content".into(),
                            r.get("content").cloned().unwrap_or(Value::Null),
                        );
                        Some(Value::Object(m))
                    }
                    _ => None,
                },
                None => Some(Value::Object(normalize_null_content(msg))),
            }
        }
        EntryKind::CustomMessage => Some(custom_message_of(e, Dialect::Pi)),
        EntryKind::BranchSummary => branch_summary_of(e),
        _ => None,
    }
}

/// pi 1.6.0 and Atomic normalise a null or missing `content` of a user, assistant, tool-result
/// or custom message to `[]` so it cannot break the agent (`{...message, content: []}`: the key
/// keeps its place when present, else comes last).
fn normalize_null_content(msg: &JsonMap) -> JsonMap {
    let mut m = msg.clone();
    let role = m.get("role").and_then(Value::as_str);
    let normalised = matches!(role, Some("user" | "assistant" | "toolResult" | "custom"));
    if normalised && m.get("content").is_none_or(Value::is_null) {
        m.insert("content".into(), Value::Array(vec![]));
    }
    m
}

fn entry_time_ms(e: &Entry) -> Value {
    e.timestamp_ms.map_or(Value::Null, Value::from)
}

/// A `custom_message` entry as the agent gets it: `{role, customType, content, display, details,
/// timestamp}`, absent fields left out as `JSON.stringify` leaves out `undefined`. Atomic also
/// turns a missing or null `content` into `[]` and keeps `excludeFromContext: true` (last).
fn custom_message_of(e: &Entry, dialect: Dialect) -> Value {
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("custom"));
    let copy = |m: &mut JsonMap, key: &str| {
        if let Some(v) = e.raw().get(key) {
            m.insert(key.into(), v.clone());
        }
    };
    copy(&mut m, "customType");
    match (dialect, e.raw().get("content")) {
        (Dialect::Atomic, None | Some(Value::Null)) => {
            m.insert("content".into(), json!([]));
        }
        _ => copy(&mut m, "content"),
    }
    copy(&mut m, "display");
    copy(&mut m, "details");
    m.insert("timestamp".into(), entry_time_ms(e));
    if dialect == Dialect::Atomic && e.raw().get("excludeFromContext") == Some(&Value::Bool(true)) {
        m.insert("excludeFromContext".into(), json!(true));
    }
    Value::Object(m)
}

fn branch_summary_of(e: &Entry) -> Option<Value> {
    let summary = e.str_field("summary").filter(|s| !s.is_empty())?;
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("branchSummary"));
    m.insert("summary".into(), json!(summary));
    m.insert(
        "fromId".into(),
        e.raw().get("fromId").cloned().unwrap_or(Value::Null),
    );
    m.insert("timestamp".into(), entry_time_ms(e));
    Some(Value::Object(m))
}

fn compaction_summary_of(e: &Entry) -> Value {
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("compactionSummary"));
    m.insert(
        "summary".into(),
        e.raw().get("summary").cloned().unwrap_or(Value::Null),
    );
    m.insert(
        "tokensBefore".into(),
        e.raw().get("tokensBefore").cloned().unwrap_or(Value::Null),
    );
    m.insert("timestamp".into(), entry_time_ms(e));
    Value::Object(m)
}

fn is_system_message(e: &Entry) -> bool {
    e.role() == Some("system")
}

/// pi (1.6.0): the latest compaction on the path is the boundary: its saved system message and
/// summary, then either its `retainedTail` or the kept entries from `firstKeptEntryId`
/// (minus system messages), then everything after it. `context_edit`s on the path replace or
/// omit their target's contribution.
fn build_pi(entries: &[Entry], path: &[usize], ctx: &mut SessionContext) {
    let mut edits: HashMap<&str, &Entry> = HashMap::new();
    for &i in path {
        let e = &entries[i];
        if e.kind == EntryKind::ContextEdit
            && let Some(t) = e.str_field("targetId")
        {
            edits.insert(t, e);
        }
    }
    let compaction = path
        .iter()
        .rposition(|&i| entries[i].kind == EntryKind::Compaction);
    let push = |ctx: &mut SessionContext, i: usize, v: Option<Value>| {
        if let Some(message) = v {
            ctx.messages.push(ContextMessage {
                entry_index: i,
                message,
            });
        }
    };
    let Some(ci) = compaction else {
        for &i in path {
            ctx.entries.push(i);
            push(ctx, i, pi_entry_message(&entries[i], &edits));
        }
        return;
    };
    let c = &entries[path[ci]];
    ctx.entries.push(path[ci]);
    if let Some(sys) = c.raw().get("systemMessage").filter(|v| v.is_object()) {
        push(ctx, path[ci], Some(sys.clone()));
    }
    push(ctx, path[ci], Some(compaction_summary_of(c)));
    if let Some(Value::Array(tail)) = c.raw().get("retainedTail") {
        for m in tail {
            push(ctx, path[ci], Some(m.clone()));
        }
    } else if let Some(first_kept) = c.str_field("firstKeptEntryId") {
        let mut found = false;
        for &i in &path[..ci] {
            let e = &entries[i];
            if e.id == first_kept {
                found = true;
            }
            if found {
                ctx.entries.push(i);
                if !is_system_message(e) {
                    push(ctx, i, pi_entry_message(e, &edits));
                }
            }
        }
    }
    for &i in &path[ci + 1..] {
        ctx.entries.push(i);
        push(ctx, i, pi_entry_message(&entries[i], &edits));
    }
}

/// The prefix Atomic puts before a verbatim compaction's transcript.
pub const VERBATIM_COMPACTION_PREFIX: &str = "The earlier conversation was compacted. Below is the verbatim transcript of the retained lines; elided spans are marked \"(filtered N lines)\".\n\n";

fn is_verbatim_boundary(e: &Entry) -> bool {
    e.kind == EntryKind::Compaction
        && e.slim()
            .get("details")
            .and_then(|d| d.get("strategy"))
            .and_then(Value::as_str)
            == Some("verbatim-lines")
}

/// The message an entry contributes in Atomic's rules: stored messages (a historical
/// `compactionSummary` message is inert), custom messages, branch summaries.
fn atomic_entry_message(e: &Entry) -> Option<Value> {
    match e.kind {
        EntryKind::Message => {
            let msg = e.message()?;
            if msg.get("role").and_then(Value::as_str) == Some("compactionSummary") {
                return None;
            }
            Some(Value::Object(normalize_null_content(msg)))
        }
        EntryKind::CustomMessage => Some(custom_message_of(e, Dialect::Atomic)),
        EntryKind::BranchSummary => branch_summary_of(e),
        _ => None,
    }
}

/// Atomic: only the latest `verbatim-lines` compaction on the path is a boundary; it becomes one
/// `custom`/`compaction` message holding the summary and the kept tail as a transcript, then
/// everything after it follows as real messages. Other compactions are inert.
fn build_atomic(entries: &[Entry], path: &[usize], ctx: &mut SessionContext) {
    let boundary = path
        .iter()
        .rposition(|&i| is_verbatim_boundary(&entries[i]));
    let Some(bi) = boundary else {
        for &i in path {
            ctx.entries.push(i);
            if let Some(message) = atomic_entry_message(&entries[i]) {
                ctx.messages.push(ContextMessage {
                    entry_index: i,
                    message,
                });
            }
        }
        return;
    };
    let b = &entries[path[bi]];
    ctx.entries.push(path[bi]);
    let mut kept: Vec<usize> = Vec::new();
    if let Some(first_kept) = b.str_field("firstKeptEntryId")
        && let Some(start) = path[..bi].iter().position(|&i| entries[i].id == first_kept)
    {
        kept.extend_from_slice(&path[start..bi]);
    }
    ctx.entries.extend_from_slice(&kept);
    let kept_messages: Vec<Value> = kept
        .iter()
        .filter_map(|&i| atomic_entry_message(&entries[i]))
        .collect();
    let summary = b.str_field("summary").unwrap_or_default();
    let content = super::transcript::boundary_content(summary, &kept_messages);
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("custom"));
    m.insert("customType".into(), json!("compaction"));
    m.insert("content".into(), Value::Array(content));
    m.insert("display".into(), json!(true));
    // The boundary's details as stored (Atomic 6031a92 does not add `tokensBefore` to them).
    if let Some(d) = b.raw().get("details") {
        m.insert("details".into(), d.clone());
    }
    m.insert("timestamp".into(), entry_time_ms(b));
    ctx.messages.push(ContextMessage {
        entry_index: path[bi],
        message: Value::Object(m),
    });
    for &i in &path[bi + 1..] {
        ctx.entries.push(i);
        if let Some(message) = atomic_entry_message(&entries[i]) {
            ctx.messages.push(ContextMessage {
                entry_index: i,
                message,
            });
        }
    }
}
