//! Context building: the messages an agent would be given when resuming a branch
//! (`buildSessionContext`), in pi's dialect or Atomic's.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::entry::{Entry, EntryKind, JsonMap, Role};
pub use super::transcript::VERBATIM_COMPACTION_PREFIX;
use super::tree::Session;

/// Which program's rules apply.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
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

/// Where one message of a context comes from: it is made from its entry when asked, so a
/// branch of 200,000 entries is planned without reading any of them back whole.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A stored `message` entry, its content replaced by a `context_edit` (its entry index).
    Stored {
        edit: Option<usize>,
    },
    /// A `custom_message` entry, by the dialect's rules.
    CustomMessage(Dialect),
    BranchSummary,
    /// pi: a compaction's summary, system message, or `retainedTail[k]`.
    CompactionSummary,
    CompactionSystem,
    RetainedTail(usize),
    /// A message made once while planning (Atomic's compaction boundary).
    Made(Box<Value>),
}

/// One message of a planned context: the entry it comes from and how it is made.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRef {
    pub entry_index: usize,
    pub source: Source,
}

/// A context as [`build_context`] builds it, with its messages left in the file until asked
/// for ([`ContextPlan::message`]): what the session view keeps for the selected branch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextPlan {
    pub leaf: Option<usize>,
    pub model: Option<ModelRef>,
    pub thinking_level: String,
    pub context_window: Option<u64>,
    pub messages: Vec<MessageRef>,
    /// The entries the context is built from, in order (`buildContextEntries`).
    pub entries: Vec<usize>,
}

impl ContextPlan {
    /// The `k`th message, made now from its entry (read back from the file for a slim
    /// session, and not kept); with why the entry could not be read back, if it could not.
    /// `None` for an entry that turned out to hold no message object.
    pub fn message(&self, session: &Session, k: usize) -> (Option<Value>, Option<String>) {
        match self.messages.get(k) {
            Some(r) => make_message(session.entries(), r),
            None => (None, None),
        }
    }

    /// The context with every message made, in order.
    pub fn build(&self, session: &Session) -> SessionContext {
        let messages = (0..self.messages.len())
            .filter_map(|k| {
                let message = self.message(session, k).0?;
                Some(ContextMessage {
                    entry_index: self.messages[k].entry_index,
                    message,
                })
            })
            .collect();
        SessionContext {
            leaf: self.leaf,
            model: self.model.clone(),
            thinking_level: self.thinking_level.clone(),
            context_window: self.context_window,
            messages,
            entries: self.entries.clone(),
        }
    }

    fn push(&mut self, entry_index: usize, source: Source) {
        self.messages.push(MessageRef {
            entry_index,
            source,
        });
    }
}

/// Builds the context of a session for a leaf, in a dialect.
pub fn build_context(session: &Session, leaf: LeafChoice<'_>, dialect: Dialect) -> SessionContext {
    plan_context(session, leaf, dialect).build(session)
}

/// Plans the context of a session for a leaf: everything [`build_context`] gives but the
/// messages themselves, which are made one by one from [`ContextPlan::message`].
pub fn plan_context(session: &Session, leaf: LeafChoice<'_>, dialect: Dialect) -> ContextPlan {
    let entries = session.entries();
    let leaf = match leaf {
        LeafChoice::None => None,
        LeafChoice::Current => session.tree.leaf,
        LeafChoice::Id(id) => session.tree.index_of(id).or(session.tree.leaf),
        LeafChoice::Index(i) => (i < entries.len()).then_some(i).or(session.tree.leaf),
    };
    let mut ctx = ContextPlan {
        leaf,
        thinking_level: "off".into(),
        ..Default::default()
    };
    let Some(leaf) = leaf else { return ctx };
    let path = session.tree.path_to(leaf);
    replay_settings(entries, &path, dialect, &mut ctx);
    match dialect {
        Dialect::Pi => plan_pi(entries, &path, &mut ctx),
        Dialect::Atomic => plan_atomic(entries, &path, &mut ctx),
    }
    ctx
}

fn replay_settings(entries: &[Entry], path: &[usize], dialect: Dialect, ctx: &mut ContextPlan) {
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
                    let s = |f: &Option<std::sync::Arc<str>>| {
                        f.as_deref().unwrap_or_default().to_owned()
                    };
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

/// Makes one planned message from its entry.
fn make_message(entries: &[Entry], r: &MessageRef) -> (Option<Value>, Option<String>) {
    let e = &entries[r.entry_index];
    if let Source::Made(m) = &r.source {
        return (Some((**m).clone()), None);
    }
    let (raw, why) = e.raw_transient();
    let message = match &r.source {
        Source::Stored { edit } => {
            let msg = match raw.get("message").and_then(Value::as_object) {
                Some(m) => m,
                None => return (None, why),
            };
            match edit {
                Some(j) => {
                    let (edit_raw, _) = entries[*j].raw_transient();
                    let mut m = msg.clone();
                    let content = edit_raw
                        .get("replacement")
                        .and_then(|r| r.get("content"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    m.insert("content".into(), content);
                    Some(Value::Object(m))
                }
                None => Some(Value::Object(normalize_null_content(msg))),
            }
        }
        Source::CustomMessage(dialect) => Some(custom_message_of(e, &raw, *dialect)),
        Source::BranchSummary => branch_summary_of(e, &raw),
        Source::CompactionSummary => Some(compaction_summary_of(e, &raw)),
        Source::CompactionSystem => raw.get("systemMessage").cloned(),
        Source::RetainedTail(k) => raw
            .get("retainedTail")
            .and_then(Value::as_array)
            .and_then(|t| t.get(*k))
            .cloned(),
        Source::Made(_) => None,
    };
    (message, why)
}

/// How an entry takes part in pi's rules (compactions handled by the caller): `None` when
/// it adds no message. Read from what a slim entry keeps (a context edit, rare, is read
/// back whole).
fn pi_entry_source(e: &Entry, edits: &HashMap<&str, usize>, entries: &[Entry]) -> Option<Source> {
    match e.kind {
        // A message entry has a digest exactly when its `message` is an object.
        EntryKind::Message => {
            e.digest()?;
            match edits.get(e.id.as_str()) {
                Some(&j) => {
                    let (edit, _) = entries[j].raw_transient();
                    matches!(edit.get("replacement"), Some(Value::Object(_)))
                        .then_some(Source::Stored { edit: Some(j) })
                }
                None => Some(Source::Stored { edit: None }),
            }
        }
        EntryKind::CustomMessage => Some(Source::CustomMessage(Dialect::Pi)),
        EntryKind::BranchSummary => e
            .str_field("summary")
            .is_some_and(|s| !s.is_empty())
            .then_some(Source::BranchSummary),
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
fn custom_message_of(e: &Entry, raw: &JsonMap, dialect: Dialect) -> Value {
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("custom"));
    let copy = |m: &mut JsonMap, key: &str| {
        if let Some(v) = raw.get(key) {
            m.insert(key.into(), v.clone());
        }
    };
    copy(&mut m, "customType");
    match (dialect, raw.get("content")) {
        (Dialect::Atomic, None | Some(Value::Null)) => {
            m.insert("content".into(), json!([]));
        }
        _ => copy(&mut m, "content"),
    }
    copy(&mut m, "display");
    copy(&mut m, "details");
    m.insert("timestamp".into(), entry_time_ms(e));
    if dialect == Dialect::Atomic && raw.get("excludeFromContext") == Some(&Value::Bool(true)) {
        m.insert("excludeFromContext".into(), json!(true));
    }
    Value::Object(m)
}

fn branch_summary_of(e: &Entry, raw: &JsonMap) -> Option<Value> {
    let summary = e.str_field("summary").filter(|s| !s.is_empty())?;
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("branchSummary"));
    m.insert("summary".into(), json!(summary));
    m.insert(
        "fromId".into(),
        raw.get("fromId").cloned().unwrap_or(Value::Null),
    );
    m.insert("timestamp".into(), entry_time_ms(e));
    Some(Value::Object(m))
}

fn compaction_summary_of(e: &Entry, raw: &JsonMap) -> Value {
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("compactionSummary"));
    m.insert(
        "summary".into(),
        raw.get("summary").cloned().unwrap_or(Value::Null),
    );
    m.insert(
        "tokensBefore".into(),
        raw.get("tokensBefore").cloned().unwrap_or(Value::Null),
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
fn plan_pi(entries: &[Entry], path: &[usize], ctx: &mut ContextPlan) {
    let mut edits: HashMap<&str, usize> = HashMap::new();
    for &i in path {
        let e = &entries[i];
        if e.kind == EntryKind::ContextEdit
            && let Some(t) = e.str_field("targetId")
        {
            edits.insert(t, i);
        }
    }
    let compaction = path
        .iter()
        .rposition(|&i| entries[i].kind == EntryKind::Compaction);
    let push_entry = |ctx: &mut ContextPlan, i: usize| {
        if let Some(source) = pi_entry_source(&entries[i], &edits, entries) {
            ctx.push(i, source);
        }
    };
    let Some(ci) = compaction else {
        for &i in path {
            ctx.entries.push(i);
            push_entry(ctx, i);
        }
        return;
    };
    let c = &entries[path[ci]];
    ctx.entries.push(path[ci]);
    // One entry, read back whole to see its saved messages.
    let (raw, _) = c.raw_transient();
    if raw.get("systemMessage").is_some_and(Value::is_object) {
        ctx.push(path[ci], Source::CompactionSystem);
    }
    ctx.push(path[ci], Source::CompactionSummary);
    if let Some(Value::Array(tail)) = raw.get("retainedTail") {
        for k in 0..tail.len() {
            ctx.push(path[ci], Source::RetainedTail(k));
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
                    push_entry(ctx, i);
                }
            }
        }
    }
    for &i in &path[ci + 1..] {
        ctx.entries.push(i);
        push_entry(ctx, i);
    }
}

fn is_verbatim_boundary(e: &Entry) -> bool {
    e.kind == EntryKind::Compaction
        && e.slim()
            .get("details")
            .and_then(|d| d.get("strategy"))
            .and_then(Value::as_str)
            == Some("verbatim-lines")
}

/// How an entry takes part in Atomic's rules: stored messages (a historical
/// `compactionSummary` message is inert), custom messages, branch summaries.
fn atomic_entry_source(e: &Entry) -> Option<Source> {
    match e.kind {
        EntryKind::Message => {
            e.digest()?;
            (e.role != Role::CompactionSummary).then_some(Source::Stored { edit: None })
        }
        EntryKind::CustomMessage => Some(Source::CustomMessage(Dialect::Atomic)),
        EntryKind::BranchSummary => e
            .str_field("summary")
            .is_some_and(|s| !s.is_empty())
            .then_some(Source::BranchSummary),
        _ => None,
    }
}

/// Atomic: only the latest `verbatim-lines` compaction on the path is a boundary; it becomes one
/// `custom`/`compaction` message holding the summary and the kept tail as a transcript, then
/// everything after it follows as real messages. Other compactions are inert.
fn plan_atomic(entries: &[Entry], path: &[usize], ctx: &mut ContextPlan) {
    let boundary = path
        .iter()
        .rposition(|&i| is_verbatim_boundary(&entries[i]));
    let push_entry = |ctx: &mut ContextPlan, i: usize| {
        if let Some(source) = atomic_entry_source(&entries[i]) {
            ctx.push(i, source);
        }
    };
    let Some(bi) = boundary else {
        for &i in path {
            ctx.entries.push(i);
            push_entry(ctx, i);
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
        .filter_map(|&i| {
            let source = atomic_entry_source(&entries[i])?;
            make_message(
                entries,
                &MessageRef {
                    entry_index: i,
                    source,
                },
            )
            .0
        })
        .collect();
    let (raw, _) = b.raw_transient();
    let summary = b.str_field("summary").unwrap_or_default();
    let content = super::transcript::boundary_content(summary, &kept_messages);
    let mut m = JsonMap::new();
    m.insert("role".into(), json!("custom"));
    m.insert("customType".into(), json!("compaction"));
    m.insert("content".into(), Value::Array(content));
    m.insert("display".into(), json!(true));
    // The boundary's details as stored (Atomic 6031a92 does not add `tokensBefore` to them).
    if let Some(d) = raw.get("details") {
        m.insert("details".into(), d.clone());
    }
    m.insert("timestamp".into(), entry_time_ms(b));
    ctx.push(path[bi], Source::Made(Box::new(Value::Object(m))));
    for &i in &path[bi + 1..] {
        ctx.entries.push(i);
        push_entry(ctx, i);
    }
}
