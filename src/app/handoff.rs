//! Hand-off: what the user sees, passed on to another program. The popup (`y` in the
//! session view, Alt+Y in the list) copies the entry's text, the session id, the file path or
//! the resume command to the clipboard; `o` / `O` open the entry's text / the branch's
//! transcript in `$PAGER`, and the popup's `e` / `E` a copy of them in `$EDITOR`.
//!
//! Pure: keys in, an [`Effect::Copy`] or [`Effect::OpenExternal`] out, with the text already
//! made safe and bounded ([`super::handoff_text`]). The terminal runtime performs them and
//! reports back with [`Event::HandedOff`](super::event::Event::HandedOff).

use ratatui::crossterm::event::KeyEvent;

pub use super::handoff_types::{
    AgentCommands, CopyRequest, CopyWhat, HandoffMenu, OpenRequest, OpenWhat, Origin, Program,
};

use super::event::Effect;
use super::handoff_text::{
    COPY_CAP, OPEN_CAP, cap_text, exact_text, resume_command, sanitize_for_handoff,
};
use super::keymap::{Action, Conditions, KeyContext};
use super::ops::set_status;
use super::state::{AppState, Mode, Screen, StatusKind};
use crate::model::context::{LeafChoice, build_context};

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
