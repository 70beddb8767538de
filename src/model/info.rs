//! Listing fields of a session (pi's `SessionInfo`, plus what a browser needs), computed in one
//! streaming pass over the entries in file order, without keeping them.

use std::collections::HashMap;
use std::path::PathBuf;

use compact_str::CompactString;
use serde_json::Value;

use super::context::Dialect;
use super::entry::{Entry, EntryKind, Header, Workflow, format_iso_ms, parse_iso_ms};
pub use super::facts::{EntryFacts, Gather, MessageFacts, UsageFacts};
use super::search::tool_call_text;
use super::tree::NameState;

/// Everything a listing knows about one session.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub path: PathBuf,
    pub id: String,
    pub cwd: String,
    pub name: Option<String>,
    pub parent_session_path: Option<String>,
    /// Header time, ms since the epoch (`None` when unparseable).
    pub created_ms: Option<i64>,
    /// pi's `modified`: latest user/assistant message time, else header time, else file mtime.
    pub modified_ms: i64,
    pub message_count: u64,
    pub first_message: String,
    pub agent: Dialect,
    pub version: u32,
    pub bytes: u64,
    pub entry_count: u64,
    /// Number of entries without children: the branches of the session.
    pub leaf_count: u64,
    pub label_count: u64,
    pub has_name: bool,
    pub internal: bool,
    pub workflow: Option<WorkflowInfo>,
    /// Atomic's `session_summary`, when it is current.
    pub summary: Option<String>,
    pub total_tokens: u64,
    pub cost: f64,
    /// grove: the last assistant message's `stopReason` (file order): how the last turn ended.
    #[serde(default)]
    pub last_stop_reason: Option<String>,
    /// grove: the last assistant message's model (`responseModel`, else `model`).
    #[serde(default)]
    pub model: Option<String>,
    pub parse_issues: u64,
    /// The first line that looked torn or broken, if any (for a clear message).
    pub first_issue: Option<String>,
    /// All user and assistant text joined with spaces (pi's `allMessagesText`), for search.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub all_messages_text: String,
    /// grove: the assistant messages' tool calls, one [`tool_call_text`] a line, for search
    /// (filled and emptied with `all_messages_text`).
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub tool_text: String,
}

/// Serializable copy of [`Workflow`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowInfo {
    pub run_id: String,
    pub stage_id: String,
    pub stage_name: String,
}

impl From<Workflow> for WorkflowInfo {
    fn from(w: Workflow) -> Self {
        WorkflowInfo {
            run_id: w.run_id,
            stage_id: w.stage_id,
            stage_name: w.stage_name,
        }
    }
}

impl SessionInfo {
    /// The text shown for a session: its name, else its first message.
    pub fn title(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.first_message)
    }

    pub fn created_iso(&self) -> Option<String> {
        self.created_ms.map(format_iso_ms)
    }

    pub fn modified_iso(&self) -> String {
        format_iso_ms(self.modified_ms)
    }
}

/// The header fields a listing needs (small and serializable, unlike [`Header`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeaderFacts {
    pub id: String,
    pub timestamp: String,
    pub cwd: String,
    pub parent_session: Option<String>,
    pub version: u32,
    pub workflow: Option<WorkflowInfo>,
}

impl From<&Header> for HeaderFacts {
    fn from(h: &Header) -> Self {
        HeaderFacts {
            id: h.id.clone(),
            timestamp: h.timestamp.clone(),
            cwd: h.cwd.clone(),
            parent_session: h.parent_session.clone(),
            version: h.version,
            workflow: h.workflow().map(WorkflowInfo::from),
        }
    }
}

/// Every id the entries name, as their own id ([`IS_ID`]) or as a parent ([`IS_PARENT`]): one
/// map rather than a set of each, so an id followed by a child costs one insert, the child's
/// lookup none. Hashed with foldhash (seeded per process): SipHash and the two sets were an
/// eighth of the cold scan. Keys are `CompactString`s: an id of up to 24 bytes (pi's are 8) is
/// held inline, with no allocation of its own; serialized as a string like `String`.
pub type IdMap = HashMap<CompactString, u8, foldhash::fast::RandomState>;
const IS_ID: u8 = 1;
const IS_PARENT: u8 = 2;

/// Accumulates [`SessionInfo`] fields entry by entry.
///
/// Serializable so an index can store it and resume a file that only grew.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InfoBuilder {
    header: Option<HeaderFacts>,
    name: NameState,
    message_count: u64,
    first_message: Option<String>,
    texts: String,
    last_activity: Option<i64>,
    entry_count: u64,
    /// Leaves are the ids that are no entry's parent.
    nodes: IdMap,
    labels: HashMap<String, bool>,
    total_tokens: u64,
    /// Stored as its bits: a JSON round trip of an `f64` is not always exact.
    #[serde(with = "f64_bits")]
    cost: f64,
    summary: Option<(String, String)>,
    summary_retired: bool,
    last_conversation_id: Option<String>,
    atomic_markers: bool,
    /// grove: the tool calls gathered so far (what [`SessionInfo::tool_text`] will be).
    #[serde(default)]
    tools: String,
    /// grove: the last assistant message's stop reason and model.
    #[serde(default)]
    last_stop_reason: Option<String>,
    #[serde(default)]
    last_model: Option<String>,
    /// grove: the message text and tool-call text are not gathered (a listing that shows
    /// neither: only the first user message is kept). Never stored: a stored state gathers.
    #[serde(skip)]
    skip_text: bool,
}

impl InfoBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn header(&mut self, header: &Header) {
        self.header_facts(HeaderFacts::from(header));
    }

    pub fn header_facts(&mut self, header: HeaderFacts) {
        if header.workflow.is_some() {
            self.atomic_markers = true;
        }
        self.header = Some(header);
    }

    pub fn has_header(&self) -> bool {
        self.header.is_some()
    }

    /// True when the file holds records only Atomic writes.
    pub fn has_atomic_markers(&self) -> bool {
        self.atomic_markers
    }

    /// Stops gathering the message text and tool-call text (a listing that shows neither):
    /// the other fields, the first user message among them, are as before.
    pub fn skip_text(&mut self) {
        self.skip_text = true;
    }

    /// What the next message's parse must gather (see [`Gather`]).
    pub fn gather(&self) -> Gather {
        match (self.skip_text, self.first_message.is_some()) {
            (false, _) => Gather::All,
            (true, false) => Gather::FirstUserText,
            (true, true) => Gather::Nothing,
        }
    }

    /// The text gathered so far (what [`SessionInfo::all_messages_text`] will be).
    pub fn text(&self) -> &str {
        &self.texts
    }

    /// Takes the gathered text out (an index stores it once, beside the resumable state).
    pub fn take_text(&mut self) -> String {
        std::mem::take(&mut self.texts)
    }

    /// Puts back text taken with [`InfoBuilder::take_text`].
    pub fn restore_text(&mut self, text: String) {
        self.texts = text;
    }

    /// Takes the entry ids out (an index stores them apart from the rest of the state).
    pub fn take_nodes(&mut self) -> IdMap {
        std::mem::take(&mut self.nodes)
    }

    /// Makes room for about `ids` more entry ids (a scan's guess from the file's size), so the
    /// map is not rebuilt each time it doubles.
    pub fn reserve_nodes(&mut self, ids: usize) {
        self.nodes.reserve(ids);
    }

    /// Puts back ids taken with [`InfoBuilder::take_nodes`] (or a stored part of them).
    pub fn restore_nodes(&mut self, nodes: IdMap) {
        self.nodes = nodes;
    }

    /// The ids whose label is set: the last label entry naming each, in file order, set one
    /// (a whole load's rule).
    pub fn labelled(&self) -> std::collections::HashSet<String> {
        self.labels
            .iter()
            .filter(|(_, set)| **set)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Takes the tool-call text out (an index stores it apart from the rest of the state).
    pub fn take_tools(&mut self) -> String {
        std::mem::take(&mut self.tools)
    }

    /// Puts back tool-call text taken with [`InfoBuilder::take_tools`].
    pub fn restore_tools(&mut self, tools: String) {
        self.tools = tools;
    }

    pub fn entry(&mut self, e: &Entry) {
        let tools = entry_tool_text(e);
        let mut text_buf = None;
        let mut facts = EntryFacts::of_entry(e, &mut text_buf);
        if let Some(m) = &mut facts.message {
            m.tools = tools.as_deref();
        }
        self.facts(&facts);
    }

    pub fn facts(&mut self, e: &EntryFacts<'_>) {
        self.entry_count += 1;
        if !e.id.is_empty() {
            self.mark(e.id, IS_ID);
        }
        if let Some(p) = e.parent_id
            && p != e.id
        {
            self.mark(p, IS_PARENT);
        }
        match e.kind {
            EntryKind::Message => self.message(e),
            EntryKind::SessionInfo => self.name.apply_name(e.name),
            EntryKind::Label => {
                if let Some(target) = e.target_id {
                    let set = e.label.is_some_and(|l| !l.is_empty());
                    self.labels.insert(target.to_owned(), set);
                }
            }
            EntryKind::Compaction => {
                self.add_usage(e.usage);
                if e.strategy == Some("verbatim-lines") {
                    self.atomic_markers = true;
                }
            }
            EntryKind::BranchSummary => {
                self.add_usage(e.usage);
                if self.summary.is_some() {
                    self.summary_retired = true;
                }
            }
            EntryKind::SessionSummary => {
                self.atomic_markers = true;
                let summary = e.summary.unwrap_or_default().to_owned();
                let through = e.summarized_through_id.unwrap_or_default().to_owned();
                self.summary = Some((summary, through));
                self.summary_retired = false;
            }
            // pi 1.6.0's side work: in pi's session totals since 0.81.
            EntryKind::Usage => self.add_usage(e.usage),
            EntryKind::ContextCompaction | EntryKind::ContextWindowChange => {
                self.atomic_markers = true;
            }
            _ => {}
        }
    }

    fn mark(&mut self, id: &str, flag: u8) {
        match self.nodes.get_mut(id) {
            Some(flags) => *flags |= flag,
            None => {
                self.nodes.insert(CompactString::from(id), flag);
            }
        }
    }

    fn message(&mut self, e: &EntryFacts<'_>) {
        self.message_count += 1;
        let Some(m) = &e.message else { return };
        let role = m.role;
        if matches!(role, Some("assistant" | "toolResult")) {
            self.add_usage(m.usage);
        }
        if role == Some("assistant") {
            set_reusing(&mut self.last_stop_reason, m.stop_reason);
            set_reusing(&mut self.last_model, m.model);
        }
        if !matches!(role, Some("user" | "assistant")) {
            return;
        }
        set_reusing(&mut self.last_conversation_id, Some(e.id));
        if !m.has_content {
            return;
        }
        if let Some(tools) = m.tools.filter(|t| !t.is_empty() && !self.skip_text) {
            if !self.tools.is_empty() {
                self.tools.push('\n');
            }
            self.tools.push_str(tools);
        }
        let t = m
            .timestamp
            .map(|f| f as i64)
            .or_else(|| e.timestamp.and_then(parse_iso_ms));
        if let Some(t) = t {
            self.last_activity = Some(self.last_activity.map_or(t, |l| l.max(t)));
        }
        let Some(text) = m.text else {
            return;
        };
        if text.is_empty() {
            return;
        }
        if role == Some("user") && self.first_message.is_none() {
            self.first_message = Some(text.to_owned());
        }
        if self.skip_text {
            return;
        }
        if !self.texts.is_empty() {
            self.texts.push(' ');
        }
        self.texts.push_str(text);
    }

    fn add_usage(&mut self, usage: Option<UsageFacts>) {
        let Some(u) = usage else { return };
        if let Some(t) = u.total_tokens {
            self.total_tokens = self.total_tokens.saturating_add(t.max(0.0) as u64);
        }
        if let Some(c) = u.cost_total {
            self.cost += c;
        }
    }

    /// Finishes the listing fields. `None` when the file had no header.
    pub fn finish(
        mut self,
        path: PathBuf,
        agent: Dialect,
        bytes: u64,
        mtime_ms: i64,
        parse_issues: u64,
        first_issue: Option<String>,
    ) -> Option<SessionInfo> {
        let texts = std::mem::take(&mut self.texts);
        self.build(
            texts,
            path,
            agent,
            bytes,
            mtime_ms,
            parse_issues,
            first_issue,
        )
    }

    /// [`InfoBuilder::finish`] without consuming the builder (copies the text).
    pub fn snapshot(
        &self,
        path: PathBuf,
        agent: Dialect,
        bytes: u64,
        mtime_ms: i64,
        parse_issues: u64,
        first_issue: Option<String>,
    ) -> Option<SessionInfo> {
        let texts = self.texts.clone();
        self.build(
            texts,
            path,
            agent,
            bytes,
            mtime_ms,
            parse_issues,
            first_issue,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn build(
        &self,
        texts: String,
        path: PathBuf,
        agent: Dialect,
        bytes: u64,
        mtime_ms: i64,
        parse_issues: u64,
        first_issue: Option<String>,
    ) -> Option<SessionInfo> {
        let header = self.header.as_ref()?;
        let created_ms = parse_iso_ms(&header.timestamp);
        let modified_ms = match self.last_activity {
            Some(t) if t > 0 => t,
            _ => created_ms.unwrap_or(mtime_ms),
        };
        // A v1 file has no ids: pi reads it as one chain of its entries, so one branch.
        let leaf_count = if header.version < 2 && self.nodes.is_empty() && self.entry_count > 0 {
            1
        } else {
            self.nodes.values().filter(|f| **f == IS_ID).count() as u64
        };
        let summary = match (&self.summary, self.summary_retired) {
            (Some((s, through)), false)
                if Some(through.as_str()) == self.last_conversation_id.as_deref() =>
            {
                Some(s.clone())
            }
            _ => None,
        };
        let workflow = header.workflow.clone();
        Some(SessionInfo {
            path,
            id: header.id.clone(),
            cwd: header.cwd.clone(),
            name: self.name.name.clone(),
            parent_session_path: header.parent_session.clone(),
            created_ms,
            modified_ms,
            message_count: self.message_count,
            first_message: self
                .first_message
                .clone()
                .unwrap_or_else(|| "(no messages)".to_owned()),
            agent,
            version: header.version,
            bytes,
            entry_count: self.entry_count,
            leaf_count,
            label_count: self.labels.values().filter(|v| **v).count() as u64,
            has_name: self.name.has_name,
            internal: workflow.is_some(),
            workflow,
            summary,
            total_tokens: self.total_tokens,
            cost: self.cost,
            last_stop_reason: self.last_stop_reason.clone(),
            model: self.last_model.clone(),
            parse_issues,
            first_issue,
            all_messages_text: texts,
            tool_text: self.tools.clone(),
        })
    }
}

/// Sets `slot` to `value`, reusing the string it holds (every assistant message sets the last
/// stop reason and model, mostly to what they were: two allocations a message otherwise).
fn set_reusing(slot: &mut Option<String>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(s), Some(v)) => {
            if s != v {
                s.clear();
                s.push_str(v);
            }
        }
        (None, Some(v)) => *slot = Some(v.to_owned()),
        (_, None) => *slot = None,
    }
}

/// grove: the [`tool_call_text`] of each `toolCall` block of a user or assistant message, one a
/// line (`None` when it has none).
pub(crate) fn entry_tool_text(e: &Entry) -> Option<String> {
    if e.is_slim() || !e.is_conversation_message() {
        return None;
    }
    let content = e.message()?.get("content")?.as_array()?;
    let mut out = String::new();
    for block in content {
        if block.get("type").and_then(Value::as_str) != Some("toolCall") {
            continue;
        }
        let name = block.get("name").and_then(Value::as_str).unwrap_or("");
        let args = block.get("arguments").unwrap_or(&Value::Null);
        let line = tool_call_text(name, args);
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&line);
    }
    (!out.is_empty()).then_some(out)
}

/// Serializes an `f64` as its bit pattern, so a stored builder resumes with the exact sum.
mod f64_bits {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(v.to_bits())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        u64::deserialize(d).map(f64::from_bits)
    }
}
