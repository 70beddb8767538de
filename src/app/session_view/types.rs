//! The session view's vocabulary: focus, modes, footer status, the effects it asks for and
//! the outcomes fed back.

use std::path::PathBuf;

use crate::model::context::Dialect;
use crate::model::tree::Session;

use crate::app::text_input::TextInput;

/// Which pane has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Transcript,
}

/// What the view is doing besides browsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// `/` in the tree: typing filters the tree live (pi's search).
    TreeSearch(TextInput),
    /// `/` in the transcript.
    TranscriptSearch(TextInput),
    /// `L`: the label of `target` (empty removes it).
    Label {
        target: usize,
        input: TextInput,
    },
    /// `c`: confirm writing a check-out of `target`; the branch then resumes after `resumes_after`.
    ConfirmCheckout {
        target: usize,
        resumes_after: Option<usize>,
    },
    /// `r` on an entry that is not where the session resumes: check it out first?
    ConfirmResume(ResumeOffer),
    /// `e`: the file name to export to.
    ExportName(TextInput),
    /// The export file exists: overwrite it?
    ConfirmOverwrite {
        file: PathBuf,
    },
    /// `?`.
    /// The help overlay, scrolled down by this many lines.
    Help {
        scroll: u16,
    },
}

/// The offer on screen: check out `target` (the branch then resumes after `resumes_after`),
/// instead of resuming after `leaf` as the file stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResumeOffer {
    pub target: usize,
    pub resumes_after: Option<usize>,
    /// Where the session resumes now (the leaf, looking through labels and names).
    pub leaf: Option<usize>,
}

/// A message in the footer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub is_error: bool,
}

/// Work for the event loop. Only `AppendLabel`, `Checkout`, `Fork` and `Export` touch files,
/// and [`execute`] performs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewEffect {
    /// Append a `label` entry (`None` clears the label).
    AppendLabel {
        path: PathBuf,
        target_id: String,
        label: Option<String>,
    },
    /// Append a check-out so resuming continues at `target_id`.
    Checkout { path: PathBuf, target_id: String },
    /// Write a new session holding the path to `at_id`.
    Fork { path: PathBuf, at_id: String },
    /// Write `contents` to `file` (relative to the current directory); never replace an
    /// existing file unless `overwrite`.
    Export {
        file: PathBuf,
        contents: String,
        overwrite: bool,
    },
    /// Launch the agent on the session (or, with `--print`, print `PATH ENTRY_ID` and exit).
    Resume {
        path: PathBuf,
        entry_id: Option<String>,
        dialect: Dialect,
    },
    /// Back to the picker.
    Close,
    /// Quit grove (Ctrl+C).
    Quit,
    /// A session file changed on disk (after a label or check-out): refresh its picker row.
    SessionChanged { path: PathBuf },
    /// A new session file exists (after a fork): add it to the picker, under its parent.
    SessionCreated { path: PathBuf, parent: PathBuf },
}

/// The result of [`execute`], handed back with [`apply_outcome`].
#[derive(Debug)]
pub enum Outcome {
    /// A label was written; the session as reloaded (or why not).
    Labeled(Result<Session, String>),
    /// A check-out was written; the session as reloaded (or why not).
    CheckedOut(Result<Session, String>),
    Forked(Result<PathBuf, String>),
    Exported(Result<PathBuf, ExportFailure>),
}

#[derive(Debug, PartialEq, Eq)]
pub enum ExportFailure {
    Exists(PathBuf),
    Other(String),
}
