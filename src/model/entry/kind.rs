//! What an entry is: the JSON object type, the entry types the formats name and a message's role.

use serde_json::Value;

/// A JSON object with its keys in file order.
pub type JsonMap = serde_json::Map<String, Value>;

/// The entry types named by the pi and Atomic formats; anything else is [`EntryKind::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    Message,
    ThinkingLevelChange,
    ModelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    /// Atomic: a generated summary shown in the picker.
    SessionSummary,
    /// Atomic, retired: logical deletions, inert.
    ContextCompaction,
    /// Atomic: a context-window selection in tokens.
    ContextWindowChange,
    /// pi 1.6.0: usage of side work (cache warming, …), not in context.
    Usage,
    /// pi 1.6.0: replaces or omits another entry's context contribution.
    ContextEdit,
    /// An entry type grove does not know; kept and shown, never an error.
    Other,
}

impl EntryKind {
    /// Every kind the formats name, with its `type` string.
    const NAMED: [(EntryKind, &'static str); 14] = [
        (Self::Message, "message"),
        (Self::ThinkingLevelChange, "thinking_level_change"),
        (Self::ModelChange, "model_change"),
        (Self::Compaction, "compaction"),
        (Self::BranchSummary, "branch_summary"),
        (Self::Custom, "custom"),
        (Self::CustomMessage, "custom_message"),
        (Self::Label, "label"),
        (Self::SessionInfo, "session_info"),
        (Self::SessionSummary, "session_summary"),
        (Self::ContextCompaction, "context_compaction"),
        (Self::ContextWindowChange, "context_window_change"),
        (Self::Usage, "usage"),
        (Self::ContextEdit, "context_edit"),
    ];

    /// The `type` string of a kind the formats name (`None` for [`EntryKind::Other`]).
    pub fn type_name(self) -> Option<&'static str> {
        Self::NAMED
            .iter()
            .find(|(k, _)| *k == self)
            .map(|&(_, t)| t)
    }

    pub fn from_type(t: &str) -> Self {
        Self::NAMED
            .iter()
            .find(|(_, name)| *name == t)
            .map_or(Self::Other, |&(k, _)| k)
    }
}

/// A `message` entry's role, lifted out at parse time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Not a message, or no string role.
    None,
    User,
    Assistant,
    ToolResult,
    BashExecution,
    Custom,
    BranchSummary,
    CompactionSummary,
    System,
    /// Any other role: read from the message when asked.
    Other,
}

impl Role {
    /// The role of a raw entry object.
    pub fn of(raw: &JsonMap) -> Role {
        if raw.get("type").and_then(Value::as_str) != Some("message") {
            return Role::None;
        }
        raw.get("message")
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
            .map_or(Role::None, Role::of_str)
    }

    /// The role a `role` string names.
    pub fn of_str(role: &str) -> Role {
        match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "toolResult" => Role::ToolResult,
            "bashExecution" => Role::BashExecution,
            "custom" => Role::Custom,
            "branchSummary" => Role::BranchSummary,
            "compactionSummary" => Role::CompactionSummary,
            "system" => Role::System,
            _ => Role::Other,
        }
    }

    pub fn as_str(self) -> Option<&'static str> {
        Some(match self {
            Role::None | Role::Other => return None,
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolResult => "toolResult",
            Role::BashExecution => "bashExecution",
            Role::Custom => "custom",
            Role::BranchSummary => "branchSummary",
            Role::CompactionSummary => "compactionSummary",
            Role::System => "system",
        })
    }
}
