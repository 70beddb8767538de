//! Hand-off: what the user sees, passed on to another program. The popup (`y` in the
//! session view, Alt+Y in the list) copies the entry's text, the session id, the file path or
//! the resume command to the clipboard; `o` / `O` open the entry's text / the branch's
//! transcript in `$PAGER`, and the popup's `e` / `E` a copy of them in `$EDITOR`.
//!
//! Pure: keys in, an [`Effect::Copy`] or [`Effect::OpenExternal`] out, with the text already
//! made safe and bounded ([`super::handoff_text`]). The terminal runtime performs them and
//! reports back with [`Event::HandedOff`](super::event::Event::HandedOff).

use ratatui::crossterm::event::KeyEvent;

use super::event::Effect;
use super::handoff_text::{
    COPY_CAP, OPEN_CAP, cap_text, exact_text, resume_command, sanitize_for_handoff,
};
use super::keymap::{Action, Conditions, KeyContext};
use super::ops::set_status;
use super::state::{AppState, Mode, Screen, StatusKind};
use crate::model::context::{Dialect, LeafChoice, build_context};

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
    /// Sanitized and at most [`COPY_CAP`] bytes.
    pub text: String,
    /// Its size before it was cut to the cap, when it was.
    pub cut_from: Option<usize>,
}

/// Text for a pager or an editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenRequest {
    pub program: Program,
    pub what: OpenWhat,
    /// Sanitized and at most [`OPEN_CAP`] bytes.
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
    fn of(&self, agent: Dialect) -> &str {
        match agent {
            Dialect::Pi => &self.pi,
            Dialect::Atomic => &self.atomic,
        }
    }
}

/// The popup for the session `record`, on `origin`.
fn menu(state: &AppState, record: usize, origin: Origin, subject: String) -> Option<HandoffMenu> {
    let info = &state.picker.records.get(record)?.info;
    let template = state.options.agents.of(info.agent);
    Some(HandoffMenu {
        origin,
        record,
        subject,
        session_id: exact_text("the session id", Some(&info.id)),
        path: exact_text("the path", info.path.to_str()),
        resume: resume_command(template, &info.path, &info.cwd, info.agent),
    })
}

/// Alt+Y in the list: the popup on the selected session.
pub(crate) fn open_from_picker(state: &mut AppState) {
    let Some(row) = state.picker.rows.get(state.picker.selected) else {
        return;
    };
    let record = row.record;
    let subject = state
        .picker
        .records
        .get(record)
        .map(|r| r.info.first_message.clone())
        .unwrap_or_default();
    if let Some(m) = menu(state, record, Origin::Picker, subject) {
        state.mode = Mode::Handoff(Box::new(m));
    }
}

/// A hand-off key in the session view: `y` opens the popup, `o` / `O` the pager at once.
pub(crate) fn view_key(state: &mut AppState, action: Action, fx: &mut Vec<Effect>) {
    let Screen::View { record, view } = &state.screen else {
        return;
    };
    let record = *record;
    let Some(sel) = view.nav.selected_entry() else {
        return;
    };
    let Some(entry_id) = view.session.entry(sel).map(|e| e.id.clone()) else {
        return;
    };
    let subject = view.entry_line(sel);
    let Some(m) = menu(state, record, Origin::View { entry_id }, subject) else {
        return;
    };
    match action {
        Action::Yank => state.mode = Mode::Handoff(Box::new(m)),
        Action::PagerEntry => choose(state, &m, Action::PagerEntry, fx),
        Action::PagerBranch => choose(state, &m, Action::PagerBranch, fx),
        _ => {}
    }
}

/// Keys on the popup: a choice acts (once the popup has been drawn, see
/// [`super::picker_keys::on_key`]) and closes it; Esc closes it; other keys do nothing.
pub(crate) fn on_key(state: &mut AppState, key: KeyEvent, fx: &mut Vec<Effect>) {
    let Mode::Handoff(m) = &state.mode else {
        return;
    };
    let any = Conditions { query_empty: true };
    let Some(action) = state.keymap.lookup_in(&key, KeyContext::Handoff, any) else {
        return;
    };
    let m = (**m).clone();
    if action == Action::Cancel {
        state.mode = Mode::Normal;
        return;
    }
    if !offers(&m, action) {
        return;
    }
    state.mode = Mode::Normal;
    choose(state, &m, action, fx);
}

/// Whether the popup offers `action` (the list has no entry or branch to open).
pub fn offers(m: &HandoffMenu, action: Action) -> bool {
    match action {
        Action::CopyText | Action::CopyId | Action::CopyPath | Action::CopyResume => true,
        Action::PagerEntry | Action::PagerBranch | Action::EditorEntry | Action::EditorBranch => {
            m.in_view()
        }
        _ => false,
    }
}

fn choose(state: &mut AppState, m: &HandoffMenu, action: Action, fx: &mut Vec<Effect>) {
    let copy = |what: CopyWhat, text: Result<String, String>| {
        text.map(|t| {
            let (text, cut_from) = cap_text(t, COPY_CAP);
            Effect::Copy(CopyRequest {
                what,
                text,
                cut_from,
            })
        })
    };
    let effect = match action {
        Action::CopyId => copy(CopyWhat::SessionId, m.session_id.clone()),
        Action::CopyPath => copy(CopyWhat::Path, m.path.clone()),
        Action::CopyResume => copy(CopyWhat::ResumeCommand, m.resume.clone()),
        Action::CopyText => match &m.origin {
            Origin::Picker => copy(CopyWhat::FirstMessage, first_message(state, m.record)),
            Origin::View { entry_id } => copy(
                CopyWhat::EntryText,
                view_text(state, entry_id, OpenWhat::Entry),
            ),
        },
        Action::PagerEntry | Action::PagerBranch | Action::EditorEntry | Action::EditorBranch => {
            let Origin::View { entry_id } = &m.origin else {
                return;
            };
            let program = match action {
                Action::PagerEntry | Action::PagerBranch => Program::Pager,
                _ => Program::Editor,
            };
            let what = match action {
                Action::PagerEntry | Action::EditorEntry => OpenWhat::Entry,
                _ => OpenWhat::Branch,
            };
            view_text(state, entry_id, what).map(|t| {
                let (text, cut_from) = cap_text(t, OPEN_CAP);
                Effect::OpenExternal(OpenRequest {
                    program,
                    what,
                    text,
                    cut_from,
                    file_name: file_name(m, entry_id, what),
                })
            })
        }
        _ => return,
    };
    match effect {
        Ok(e) => fx.push(e),
        Err(why) => report(state, format!("Nothing copied or opened: {why}"), true),
    }
}

fn first_message(state: &AppState, record: usize) -> Result<String, String> {
    let text = state
        .picker
        .records
        .get(record)
        .map(|r| r.info.first_message.as_str())
        .unwrap_or_default();
    if text.trim().is_empty() {
        return Err("the session has no message".into());
    }
    Ok(sanitize_for_handoff(text))
}

/// The entry's text, or the transcript of its branch, from the view on screen, sanitized.
fn view_text(state: &AppState, entry_id: &str, what: OpenWhat) -> Result<String, String> {
    let Screen::View { view, .. } = &state.screen else {
        return Err("the session view is closed".into());
    };
    let Some(index) = view.session.tree.index_of(entry_id) else {
        return Err("the entry is no longer in the session".into());
    };
    let text = match what {
        OpenWhat::Entry => view
            .session
            .entry(index)
            .and_then(super::handoff_text::entry_text)
            .unwrap_or_else(|| view.entry_line(index)),
        OpenWhat::Branch => {
            let ctx = build_context(&view.session, LeafChoice::Index(index), view.dialect);
            crate::model::export::to_markdown(&view.session, &ctx)
        }
    };
    Ok(sanitize_for_handoff(&text))
}

/// `grove-SESSION-ENTRY.md`, from the ids' ASCII letters and digits only.
fn file_name(m: &HandoffMenu, entry_id: &str, what: OpenWhat) -> String {
    let clean = |s: &str, n: usize| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .take(n)
            .collect()
    };
    let session = m
        .session_id
        .as_deref()
        .map(|s| clean(s, 8))
        .unwrap_or_default();
    let entry = clean(entry_id, 16);
    let kind = match what {
        OpenWhat::Entry => "entry",
        OpenWhat::Branch => "branch",
    };
    format!("grove-{session}-{kind}-{entry}.md")
}

/// A hand-off's outcome, in the status line of the screen shown.
pub(crate) fn report(state: &mut AppState, text: String, is_error: bool) {
    if let Screen::View { view, .. } = &mut state.screen {
        view.set_status(text, is_error);
        return;
    }
    let kind = if is_error {
        StatusKind::Error
    } else {
        StatusKind::Ok
    };
    set_status(state, text, kind);
}
