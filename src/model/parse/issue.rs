//! What reading a file skipped or repaired: the issues reported, never fatal.

/// Something in a file that grove skipped or repaired. Never fatal.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParseIssue {
    /// 1-based line number (0 for file-level issues).
    pub line: usize,
    pub kind: IssueKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum IssueKind {
    /// The line is not JSON; skipped.
    InvalidJson,
    /// The last line has no newline and does not parse: probably still being written.
    TornLastLine,
    /// Valid JSON but not an object; skipped.
    NotAnObject,
    /// Loaded after replacing lone surrogate escapes or invalid UTF-8 with U+FFFD.
    Repaired,
    /// The first object in the file is not a session header.
    NoHeader,
    /// A session header after the first object; ignored.
    ExtraHeader,
    /// The tree has a problem (cycle, duplicate id, …); see the message.
    Tree,
    /// A line of [`crate::model::lines::MAX_LINE_BYTES`] or more; skipped without being read into memory.
    LineTooLong,
}
