//! Listing fields of a session (pi's `SessionInfo`, plus what a browser needs), computed in one
//! streaming pass over the entries in file order, without keeping them.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_json::Value;

use super::context::Dialect;
use super::entry::{Entry, EntryKind, Header, Workflow, content_text, format_iso_ms, parse_iso_ms};
use super::tree::NameState;

/// Everything a listing knows about one session.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    pub parse_issues: u64,
    /// The first line that looked torn or broken, if any (for a clear message).
    pub first_issue: Option<String>,
    /// All user and assistant text joined with spaces (pi's `allMessagesText`), for search.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub all_messages_text: String,
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

/// Accumulates [`SessionInfo`] fields entry by entry.
#[derive(Debug, Default, Clone)]
pub struct InfoBuilder {
    header: Option<Header>,
    name: NameState,
    message_count: u64,
    first_message: Option<String>,
    texts: String,
    last_activity: Option<i64>,
    entry_count: u64,
    ids: HashSet<String>,
    parents: HashSet<String>,
    labels: HashMap<String, bool>,
    total_tokens: u64,
    cost: f64,
    summary: Option<(String, String)>,
    summary_retired: bool,
    last_conversation_id: Option<String>,
    atomic_markers: bool,
}

impl InfoBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn header(&mut self, header: &Header) {
        if header.is_internal() {
            self.atomic_markers = true;
        }
        self.header = Some(header.clone());
    }

    pub fn has_header(&self) -> bool {
        self.header.is_some()
    }

    /// True when the file holds records only Atomic writes.
    pub fn has_atomic_markers(&self) -> bool {
        self.atomic_markers
    }

    pub fn entry(&mut self, e: &Entry) {
        self.entry_count += 1;
        if !e.id.is_empty() {
            self.ids.insert(e.id.clone());
        }
        if let Some(p) = &e.parent_id
            && *p != e.id
        {
            self.parents.insert(p.clone());
        }
        match e.kind {
            EntryKind::Message => self.message(e),
            EntryKind::SessionInfo => self.name.apply(e),
            EntryKind::Label => {
                if let Some((target, label)) = e.label_change() {
                    self.labels.insert(target.to_owned(), label.is_some());
                }
            }
            EntryKind::Compaction => {
                self.add_usage(e.raw.get("usage"));
                if e.raw
                    .get("details")
                    .and_then(|d| d.get("strategy"))
                    .and_then(Value::as_str)
                    == Some("verbatim-lines")
                {
                    self.atomic_markers = true;
                }
            }
            EntryKind::BranchSummary => {
                self.add_usage(e.raw.get("usage"));
                if self.summary.is_some() {
                    self.summary_retired = true;
                }
            }
            EntryKind::SessionSummary => {
                self.atomic_markers = true;
                let summary = e.str_field("summary").unwrap_or_default().to_owned();
                let through = e
                    .str_field("summarizedThroughId")
                    .unwrap_or_default()
                    .to_owned();
                self.summary = Some((summary, through));
                self.summary_retired = false;
            }
            EntryKind::ContextCompaction | EntryKind::ContextWindowChange => {
                self.atomic_markers = true;
            }
            _ => {}
        }
    }

    fn message(&mut self, e: &Entry) {
        self.message_count += 1;
        let Some(m) = e.message() else { return };
        let role = m.get("role").and_then(Value::as_str);
        if matches!(role, Some("assistant" | "toolResult")) {
            self.add_usage(m.get("usage"));
        }
        if !matches!(role, Some("user" | "assistant")) {
            return;
        }
        self.last_conversation_id = Some(e.id.clone());
        if !m.contains_key("content") {
            return;
        }
        let t = m
            .get("timestamp")
            .and_then(Value::as_f64)
            .map(|f| f as i64)
            .or(e.timestamp_ms);
        if let Some(t) = t {
            self.last_activity = Some(self.last_activity.map_or(t, |l| l.max(t)));
        }
        let Some(text) = content_text(m.get("content")) else {
            return;
        };
        if text.is_empty() {
            return;
        }
        if role == Some("user") && self.first_message.is_none() {
            self.first_message = Some(text.clone());
        }
        if !self.texts.is_empty() {
            self.texts.push(' ');
        }
        self.texts.push_str(&text);
    }

    fn add_usage(&mut self, usage: Option<&Value>) {
        let Some(u) = usage else { return };
        if let Some(t) = u.get("totalTokens").and_then(Value::as_f64) {
            self.total_tokens += t.max(0.0) as u64;
        }
        if let Some(c) = u
            .get("cost")
            .and_then(|c| c.get("total"))
            .and_then(Value::as_f64)
        {
            self.cost += c;
        }
    }

    /// Finishes the listing fields. `None` when the file had no header.
    pub fn finish(
        self,
        path: PathBuf,
        agent: Dialect,
        bytes: u64,
        mtime_ms: i64,
        parse_issues: u64,
        first_issue: Option<String>,
    ) -> Option<SessionInfo> {
        let header = self.header?;
        let created_ms = parse_iso_ms(&header.timestamp);
        let modified_ms = match self.last_activity {
            Some(t) if t > 0 => t,
            _ => created_ms.unwrap_or(mtime_ms),
        };
        let leaf_count = self
            .ids
            .iter()
            .filter(|id| !self.parents.contains(*id))
            .count() as u64;
        let summary = match (&self.summary, self.summary_retired) {
            (Some((s, through)), false)
                if Some(through.as_str()) == self.last_conversation_id.as_deref() =>
            {
                Some(s.clone())
            }
            _ => None,
        };
        let workflow = header.workflow().map(WorkflowInfo::from);
        Some(SessionInfo {
            path,
            id: header.id.clone(),
            cwd: header.cwd.clone(),
            name: self.name.name,
            parent_session_path: header.parent_session.clone(),
            created_ms,
            modified_ms,
            message_count: self.message_count,
            first_message: self
                .first_message
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
            parse_issues,
            first_issue,
            all_messages_text: self.texts,
        })
    }
}
