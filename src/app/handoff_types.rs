//! The hand-off's data ([`super::handoff`]): what a choice copies or opens, the popup's
//! content, the agents' commands. A leaf module: the effect, the event and the state name
//! these types without depending on the hand-off's logic.

use crate::model::context::Dialect;

/// What is copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyWhat {
    EntryText,
    /// The list has no entry selected: its `t` copies the session's first message.
    FirstMessage,
    SessionId,
    Path,
    ResumeCommand,
}

impl CopyWhat {
    /// For the status line: "Copied {label}".
    pub fn label(self) -> &'static str {
        match self {
            CopyWhat::EntryText => "the entry text",
            CopyWhat::FirstMessage => "the first message",
            CopyWhat::SessionId => "the session id",
            CopyWhat::Path => "the file path",
            CopyWhat::ResumeCommand => "the resume command",
        }
    }
}

/// Which program opens the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// `$PAGER`, else `less`.
    Pager,
    /// `$VISUAL`, else `$EDITOR`, else `vi`, on a temporary copy.
    Editor,
}

/// What is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenWhat {
    Entry,
    /// The transcript of the branch ending at the selected entry (as `e` exports it).
    Branch,
}

impl OpenWhat {
    pub fn label(self) -> &'static str {
        match self {
            OpenWhat::Entry => "the entry",
            OpenWhat::Branch => "the branch",
        }
    }
}

/// Text for the clipboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyRequest {
    pub what: CopyWhat,
    /// Sanitized and at most [`COPY_CAP`](super::handoff_text::COPY_CAP) bytes.
    pub text: String,
    /// Its size before it was cut to the cap, when it was.
    pub cut_from: Option<usize>,
}

/// Text for a pager or an editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenRequest {
    pub program: Program,
    pub what: OpenWhat,
    /// Sanitized and at most [`OPEN_CAP`](super::handoff_text::OPEN_CAP) bytes.
    pub text: String,
    pub cut_from: Option<usize>,
    /// A file name for the editor's temporary copy (`grove-SESSION-ENTRY.md`): ASCII only.
    pub file_name: String,
}

/// Where the popup was opened, and on what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The list, on this session.
    Picker,
    /// The session view, on the entry with this id (found again by id when a choice is
    /// made: a live session may have been re-read meanwhile).
    View { entry_id: String },
}

/// The popup: everything it offers, as shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandoffMenu {
    pub origin: Origin,
    pub record: usize,
    /// One line of the entry (the view) or the first message (the list), as shown.
    pub subject: String,
    pub session_id: Result<String, String>,
    pub path: Result<String, String>,
    pub resume: Result<String, String>,
}

impl HandoffMenu {
    pub fn in_view(&self) -> bool {
        matches!(self.origin, Origin::View { .. })
    }
}

/// The agent commands of the config (`[agents]`), for the resume command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentCommands {
    pub pi: String,
    pub atomic: String,
}

impl Default for AgentCommands {
    fn default() -> Self {
        AgentCommands {
            pi: super::config::DEFAULT_PI_COMMAND.to_owned(),
            atomic: super::config::DEFAULT_ATOMIC_COMMAND.to_owned(),
        }
    }
}

impl AgentCommands {
    pub(crate) fn of(&self, agent: Dialect) -> &str {
        match agent {
            Dialect::Pi => &self.pi,
            Dialect::Atomic => &self.atomic,
        }
    }
}
