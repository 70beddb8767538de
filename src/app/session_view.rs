//! The session view: a session's tree beside the transcript of the selected branch, with
//! label, check-out, fork, resume and export actions.
//!
//! [`update`] turns a key into state changes and [`ViewEffect`]s and does no I/O; the event
//! loop executes the effects (for the file writes [`execute`] does exactly that) and feeds
//! the results back with [`apply_outcome`]. Rendering is `ui::session_view::draw_session_view`.

pub mod transcript;
mod window;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Direction, Layout, Rect};

use crate::model::context::{ContextPlan, Dialect, LeafChoice, build_context};
use crate::model::export::to_markdown;
use crate::model::flatten::{FilterMode, TreeNav, row_text};
use crate::model::tree::Session;

use super::text_input::{Edit, TextInput};

use transcript::{FoldKey, Transcript};

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

/// The session view's state.
#[derive(Debug)]
pub struct SessionViewState {
    pub path: PathBuf,
    pub session: Session,
    pub dialect: Dialect,
    /// `$HOME`, to show paths in tool rows as `~/…` (set by the loop; `None` in tests).
    pub home: Option<String>,
    pub nav: TreeNav,
    pub focus: Focus,
    pub mode: Mode,
    /// Context of the selected entry's branch (planned: messages made when laid out) and
    /// the laid-out window of its transcript (`window.rs`).
    pub context: ContextPlan,
    pub transcript: Transcript,
    /// Entry the transcript was built for.
    transcript_entry: Option<usize>,
    /// Collapsible blocks the user toggled, for the current transcript.
    pub toggled: HashSet<FoldKey>,
    /// Logical transcript line at the top of the pane.
    pub transcript_scroll: usize,
    /// Confirmed tree search (hits highlighted, n/N).
    pub tree_search: Option<String>,
    /// Confirmed transcript search and its hit lines.
    pub transcript_search: Option<String>,
    pub transcript_hits: Vec<usize>,
    pub status: Option<Status>,
    /// Terminal size the view is drawn at (for pages and "scroll to end").
    pub viewport: Rect,
    /// How many times a branch's context and transcript were built: a held key must not
    /// build one per repeat (see [`apply_key`]).
    pub transcript_builds: usize,
}

/// Where the parts of the view go; shared by `update` (page sizes) and the renderer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    pub header: Rect,
    pub tree: Rect,
    pub transcript: Rect,
    pub footer: Rect,
}

/// Side by side from this width, stacked below it.
pub const SIDE_BY_SIDE_MIN_WIDTH: u16 = 100;

pub fn layout(area: Rect) -> ViewLayout {
    let [header, body, footer] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
    let [tree, transcript] = if area.width >= SIDE_BY_SIDE_MIN_WIDTH {
        Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Percentage(42), Constraint::Percentage(58)])
            .areas(body)
    } else {
        Layout::default()
            .direction(Direction::Vertical)
            .constraints([Constraint::Percentage(45), Constraint::Percentage(55)])
            .areas(body)
    };
    ViewLayout {
        header,
        tree,
        transcript,
        footer,
    }
}

/// The inside of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x.saturating_add(1),
        y: r.y.saturating_add(1),
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

// ----- the key table -----

/// Everything a key does in the session view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewAction {
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    FoldOrUp,
    UnfoldOrDown,
    FilterDefault,
    FilterNoTools,
    FilterUserOnly,
    FilterLabeled,
    FilterAll,
    CycleFilter,
    CycleFilterBack,
    Search,
    NextHit,
    PrevHit,
    ToggleFocus,
    /// Transcript: open/close the first collapsible block on screen.
    ToggleBlock,
    /// Transcript: open/close every collapsible block.
    ToggleAllBlocks,
    Label,
    Checkout,
    Fork,
    Resume,
    Export,
    Help,
    Back,
}

/// Which pane a binding works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Both,
    Tree,
    Transcript,
}

impl Scope {
    /// Whether a binding of this scope works while `focus` has the keyboard.
    pub fn includes(self, focus: Focus) -> bool {
        match self {
            Scope::Both => true,
            Scope::Tree => focus == Focus::Tree,
            Scope::Transcript => focus == Focus::Transcript,
        }
    }
}

/// One row of the table: keys, what they do, where, and how the footer / help show it.
#[derive(Clone, Copy, Debug)]
pub struct KeyBinding {
    pub keys: &'static [(KeyCode, KeyModifiers)],
    /// Key names as shown (`j/↓`).
    pub shown: &'static str,
    pub action: ViewAction,
    pub scope: Scope,
    /// Footer word; `None` keeps it out of the footer (help only).
    pub hint: Option<&'static str>,
    pub description: &'static str,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL_SHIFT: KeyModifiers = KeyModifiers::CONTROL.union(KeyModifiers::SHIFT);

const fn b(
    keys: &'static [(KeyCode, KeyModifiers)],
    shown: &'static str,
    action: ViewAction,
    scope: Scope,
    hint: Option<&'static str>,
    description: &'static str,
) -> KeyBinding {
    KeyBinding {
        keys,
        shown,
        action,
        scope,
        hint,
        description,
    }
}

/// The session view's keys. Dispatch, the footer and the `?` help all read this table.
pub const SESSION_VIEW_KEYS: &[KeyBinding] = &[
    b(
        &[(KeyCode::Char('j'), NONE), (KeyCode::Down, NONE)],
        "j/↓",
        ViewAction::Down,
        Scope::Both,
        None,
        "down (tree: wraps around) / scroll down",
    ),
    b(
        &[(KeyCode::Char('k'), NONE), (KeyCode::Up, NONE)],
        "k/↑",
        ViewAction::Up,
        Scope::Both,
        None,
        "up (tree: wraps around) / scroll up",
    ),
    b(
        &[
            (KeyCode::PageDown, NONE),
            (KeyCode::Right, NONE),
            (KeyCode::Char('f'), CTRL),
        ],
        "PgDn",
        ViewAction::PageDown,
        Scope::Both,
        None,
        "page down",
    ),
    b(
        &[
            (KeyCode::PageUp, NONE),
            (KeyCode::Left, NONE),
            (KeyCode::Char('b'), CTRL),
        ],
        "PgUp",
        ViewAction::PageUp,
        Scope::Both,
        None,
        "page up",
    ),
    b(
        &[(KeyCode::Char('g'), NONE), (KeyCode::Home, NONE)],
        "g",
        ViewAction::First,
        Scope::Both,
        None,
        "first entry / top",
    ),
    b(
        &[(KeyCode::Char('G'), NONE), (KeyCode::End, NONE)],
        "G",
        ViewAction::Last,
        Scope::Both,
        None,
        "last entry / bottom",
    ),
    b(
        &[(KeyCode::Left, CTRL), (KeyCode::Left, ALT)],
        "^←",
        ViewAction::FoldOrUp,
        Scope::Tree,
        Some("fold"),
        "fold the branch, or jump to the start of the branch segment",
    ),
    b(
        &[(KeyCode::Right, CTRL), (KeyCode::Right, ALT)],
        "^→",
        ViewAction::UnfoldOrDown,
        Scope::Tree,
        None,
        "unfold, or jump to the next branch point / branch end",
    ),
    b(
        &[(KeyCode::Char('d'), CTRL)],
        "^D",
        ViewAction::FilterDefault,
        Scope::Both,
        None,
        "filter: default (no settings entries)",
    ),
    b(
        &[(KeyCode::Char('t'), CTRL)],
        "^T",
        ViewAction::FilterNoTools,
        Scope::Both,
        None,
        "filter: no tool results (toggle)",
    ),
    b(
        &[(KeyCode::Char('u'), CTRL)],
        "^U",
        ViewAction::FilterUserOnly,
        Scope::Both,
        None,
        "filter: user messages only (toggle)",
    ),
    b(
        &[(KeyCode::Char('l'), CTRL)],
        "^L",
        ViewAction::FilterLabeled,
        Scope::Both,
        None,
        "filter: labelled entries only (toggle)",
    ),
    b(
        &[(KeyCode::Char('a'), CTRL)],
        "^A",
        ViewAction::FilterAll,
        Scope::Both,
        None,
        "filter: everything (toggle)",
    ),
    b(
        &[(KeyCode::Char('o'), CTRL)],
        "^O",
        ViewAction::CycleFilter,
        Scope::Both,
        Some("filter"),
        "next filter",
    ),
    b(
        &[(KeyCode::Char('o'), CTRL_SHIFT)],
        "⇧^O",
        ViewAction::CycleFilterBack,
        Scope::Both,
        None,
        "previous filter",
    ),
    b(
        &[(KeyCode::Char('/'), NONE)],
        "/",
        ViewAction::Search,
        Scope::Both,
        Some("search"),
        "search the tree (filters while typing) or the transcript",
    ),
    b(
        &[(KeyCode::Char('n'), NONE)],
        "n",
        ViewAction::NextHit,
        Scope::Both,
        None,
        "next search hit",
    ),
    b(
        &[(KeyCode::Char('N'), NONE)],
        "N",
        ViewAction::PrevHit,
        Scope::Both,
        None,
        "previous search hit",
    ),
    b(
        &[
            (KeyCode::Tab, NONE),
            (KeyCode::BackTab, SHIFT),
            (KeyCode::BackTab, NONE),
        ],
        "Tab",
        ViewAction::ToggleFocus,
        Scope::Both,
        Some("pane"),
        "switch between tree and transcript",
    ),
    b(
        &[(KeyCode::Enter, NONE)],
        "Enter",
        ViewAction::ToggleFocus,
        Scope::Tree,
        None,
        "read the selected branch in the transcript",
    ),
    b(
        &[(KeyCode::Enter, NONE), (KeyCode::Char(' '), NONE)],
        "Enter",
        ViewAction::ToggleBlock,
        Scope::Transcript,
        Some("expand"),
        "expand / collapse the first folded block on screen",
    ),
    b(
        &[(KeyCode::Char('x'), NONE)],
        "x",
        ViewAction::ToggleAllBlocks,
        Scope::Transcript,
        None,
        "expand / collapse every block",
    ),
    b(
        &[(KeyCode::Char('L'), NONE)],
        "L",
        ViewAction::Label,
        Scope::Both,
        Some("label"),
        "label the selected entry (empty removes)",
    ),
    b(
        &[(KeyCode::Char('c'), NONE)],
        "c",
        ViewAction::Checkout,
        Scope::Both,
        Some("checkout"),
        "check out: make the selected entry the session's leaf",
    ),
    b(
        &[(KeyCode::Char('f'), NONE)],
        "f",
        ViewAction::Fork,
        Scope::Both,
        Some("fork"),
        "fork: new session holding the path to the selected entry",
    ),
    b(
        &[(KeyCode::Char('r'), NONE)],
        "r",
        ViewAction::Resume,
        Scope::Both,
        Some("resume"),
        "resume the session in its agent",
    ),
    b(
        &[(KeyCode::Char('e'), NONE)],
        "e",
        ViewAction::Export,
        Scope::Both,
        Some("export"),
        "export the selected branch to Markdown",
    ),
    b(
        &[(KeyCode::Char('?'), NONE)],
        "?",
        ViewAction::Help,
        Scope::Both,
        Some("help"),
        "this help",
    ),
    b(
        &[(KeyCode::Esc, NONE)],
        "Esc",
        ViewAction::Back,
        Scope::Both,
        Some("back"),
        "clear the search, leave the transcript, or back to the list",
    ),
];

/// Normalises how terminals report shifted and control keys: `L` may come with or without
/// SHIFT; `Ctrl+Shift+O` as `O` or `o`.
fn normalize_key(key: &KeyEvent) -> (KeyCode, KeyModifiers) {
    let mut mods =
        key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
    let code = match key.code {
        KeyCode::Char(c) if mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
            if c.is_uppercase() {
                mods |= KeyModifiers::SHIFT;
            }
            KeyCode::Char(c.to_ascii_lowercase())
        }
        KeyCode::Char(c) => {
            mods.remove(KeyModifiers::SHIFT);
            KeyCode::Char(c)
        }
        other => other,
    };
    (code, mods)
}

/// The action a key triggers in a pane, from [`SESSION_VIEW_KEYS`].
pub fn action_for(key: &KeyEvent, focus: Focus) -> Option<ViewAction> {
    let (code, mods) = normalize_key(key);
    // Pane-specific bindings win over shared ones (Enter).
    let find = |specific: bool| {
        SESSION_VIEW_KEYS
            .iter()
            .filter(|kb| kb.scope.includes(focus) && (kb.scope != Scope::Both) == specific)
            .find(|kb| kb.keys.iter().any(|&(c, m)| c == code && m == mods))
            .map(|kb| kb.action)
    };
    find(true).or_else(|| find(false))
}

// ----- state -----

impl SessionViewState {
    /// Opens the view on a loaded session, the leaf selected. `viewport` is the terminal size.
    pub fn new(path: PathBuf, session: Session, dialect: Dialect, viewport: Rect) -> Self {
        let nav = TreeNav::new(&session, session.tree.leaf, None, FilterMode::Default);
        let mut s = SessionViewState {
            path,
            session,
            dialect,
            home: None,
            nav,
            focus: Focus::Tree,
            mode: Mode::Normal,
            context: ContextPlan::default(),
            transcript: Transcript::default(),
            transcript_entry: None,
            toggled: HashSet::new(),
            transcript_scroll: 0,
            tree_search: None,
            transcript_search: None,
            transcript_hits: Vec::new(),
            status: None,
            viewport,
            transcript_builds: 0,
        };
        s.sync_transcript();
        s
    }

    /// Sets `$HOME` for `~/…` paths in tool rows.
    /// Loads a session and lays out its view (tree rows, the first transcript): the slow part
    /// of opening a large session, run off the UI thread.
    pub fn open(
        path: &std::path::Path,
        agent: Dialect,
        viewport: Rect,
        home: Option<String>,
    ) -> Result<Box<SessionViewState>, String> {
        let session = crate::storage::read::load_session(path).map_err(|e| e.to_string())?;
        let view = SessionViewState::new(path.to_owned(), session, agent, viewport).with_home(home);
        Ok(Box::new(view))
    }

    pub fn with_home(mut self, home: Option<String>) -> Self {
        self.home = home;
        self
    }

    /// The selected entry's id.
    pub fn selected_id(&self) -> Option<&str> {
        let e = self.session.entry(self.nav.selected_entry()?)?;
        Some(e.id.as_str())
    }

    /// Rows of the tree pane's list.
    pub fn tree_list_height(&self) -> usize {
        let l = layout(self.viewport);
        let h = inner(l.tree).height as usize;
        // The search line takes a row while searching.
        if matches!(self.mode, Mode::TreeSearch(_)) || self.tree_search.is_some() {
            h.saturating_sub(1).max(1)
        } else {
            h.max(1)
        }
    }

    /// Width and height of the transcript text.
    pub fn transcript_size(&self) -> (usize, usize) {
        let l = layout(self.viewport);
        let i = inner(l.transcript);
        (i.width.max(1) as usize, i.height.max(1) as usize)
    }

    /// Rebuilds the transcript when the selection moved to another entry.
    fn sync_transcript(&mut self) {
        let sel = self.nav.selected_entry();
        if sel == self.transcript_entry && !self.transcript.lines.is_empty() {
            self.keep_transcript_window();
            return;
        }
        self.transcript_entry = sel;
        self.transcript_builds += 1;
        self.toggled.clear();
        self.open_transcript(sel);
    }

    fn rebuild_lines(&mut self) {
        self.relayout_transcript();
    }

    fn set_status(&mut self, text: impl Into<String>, is_error: bool) {
        self.status = Some(Status {
            text: text.into(),
            is_error,
        });
    }

    /// The file name `e` offers: the session name (or id) and the entry id.
    pub fn default_export_name(&self) -> String {
        let base = self
            .session
            .tree
            .name
            .name
            .clone()
            .or_else(|| self.session.parsed.header.as_ref().map(|h| h.id.clone()))
            .unwrap_or_else(|| "session".into());
        let mut slug = String::new();
        for c in base.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
            if slug.len() >= 40 {
                break;
            }
        }
        let slug = slug.trim_end_matches('-');
        let slug = if slug.is_empty() { "session" } else { slug };
        match self.selected_id().filter(|id| !id.is_empty()) {
            Some(id) => {
                let id: String = id
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .take(16)
                    .collect();
                format!("{slug}-{id}.md")
            }
            None => format!("{slug}.md"),
        }
    }

    /// The entry a check-out of `target` leaves as the leaf (a user or custom message puts its
    /// text back in the editor, so the branch resumes from its parent), as the core writes it.
    pub fn checkout_resumes_after(&self, target: usize) -> Option<usize> {
        let e = self.session.entry(target)?;
        if e.role() == Some("user") || e.kind == crate::model::entry::EntryKind::CustomMessage {
            self.session.tree.parent[target]
        } else {
            Some(target)
        }
    }

    /// The leaf on disk, looking through trailing entries that change nothing the agent
    /// resumes with: labels, names and grove's own check-out entries.
    pub fn effective_leaf(&self) -> Option<usize> {
        use crate::model::entry::EntryKind;
        let mut leaf = self.session.tree.leaf?;
        for _ in 0..self.session.entries().len() {
            let e = self.session.entry(leaf)?;
            let inert = matches!(e.kind, EntryKind::Label | EntryKind::SessionInfo)
                || (e.kind == EntryKind::Custom
                    && e.str_field("customType") == Some("grove.checkout"));
            match (inert, self.session.tree.parent[leaf]) {
                (true, Some(p)) => leaf = p,
                _ => break,
            }
        }
        Some(leaf)
    }

    /// One-line text of an entry (for dialogs).
    pub fn entry_line(&self, index: usize) -> String {
        match self.session.entry(index) {
            Some(e) => row_text(e, self.nav.tool_calls(), self.home.as_deref()).plain(),
            None => String::new(),
        }
    }

    fn export_contents(&self) -> Option<String> {
        let sel = self.nav.selected_entry()?;
        let ctx = build_context(&self.session, LeafChoice::Index(sel), self.dialect);
        Some(to_markdown(&self.session, &ctx))
    }

    fn tree_hits(&mut self) -> Vec<usize> {
        match self.tree_search.clone() {
            Some(q) => self.nav.matches(&self.session, &q),
            None => Vec::new(),
        }
    }

    /// Replaces the session after a write, keeping filter, folds-free layout and selection.
    fn reload(&mut self, session: Session) {
        let selected_id = self.selected_id().map(str::to_owned);
        let filter = self.nav.filter();
        self.session = session;
        let initial = selected_id.and_then(|id| self.session.tree.index_of(&id));
        self.nav = TreeNav::new(&self.session, self.session.tree.leaf, initial, filter);
        self.transcript_entry = None;
        self.transcript.lines.clear();
        self.sync_transcript();
    }
}

// ----- update -----

/// Handles one key. Returns the effects for the loop to run; performs no I/O.
pub fn update(state: &mut SessionViewState, key: KeyEvent) -> Vec<ViewEffect> {
    let effects = apply_key(state, key);
    settle(state);
    effects
}

/// Brings the transcript up to the tree's selection: once per burst of keys, before drawing.
pub fn settle(state: &mut SessionViewState) {
    state.sync_transcript();
}

/// [`update`] without building the transcript for where the selection ends up: a held arrow key
/// moves the selection through many entries, and building each one's branch (the whole context
/// of a long session) per repeat would queue seconds of work. Keys that read the transcript
/// bring it up to date first; call [`settle`] after the burst.
pub fn apply_key(state: &mut SessionViewState, key: KeyEvent) -> Vec<ViewEffect> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    if !moves_only_the_tree(state, &key) {
        state.sync_transcript();
    }
    let mode = std::mem::replace(&mut state.mode, Mode::Normal);
    match mode {
        Mode::Normal => {
            state.status = None;
            match action_for(&key, state.focus) {
                Some(a) => run_action(state, a),
                None => Vec::new(),
            }
        }
        Mode::Help { scroll } => {
            let lines =
                crate::ui::session_view::help_lines(&crate::ui::theme::Theme::default()).len() + 2;
            if let crate::ui::help::HelpKey::Scroll(s) =
                crate::ui::help::help_key(&key, scroll, lines)
            {
                state.mode = Mode::Help { scroll: s };
            }
            Vec::new()
        }
        Mode::TreeSearch(input) => tree_search_key(state, input, &key),
        Mode::TranscriptSearch(input) => transcript_search_key(state, input, &key),
        Mode::Label { target, input } => label_key(state, target, input, &key),
        Mode::ConfirmCheckout {
            target,
            resumes_after,
        } => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => {
                let id = state.session.entry(target).map(|e| e.id.clone());
                match id {
                    Some(target_id) => {
                        state.set_status("Checking out…", false);
                        vec![ViewEffect::Checkout {
                            path: state.path.clone(),
                            target_id,
                        }]
                    }
                    None => Vec::new(),
                }
            }
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
                state.set_status("Check-out cancelled", false);
                Vec::new()
            }
            _ => {
                state.mode = Mode::ConfirmCheckout {
                    target,
                    resumes_after,
                };
                Vec::new()
            }
        },
        Mode::ExportName(mut input) => match key.code {
            KeyCode::Enter => {
                let name = input.text().trim().to_owned();
                if name.is_empty() {
                    state.mode = Mode::ExportName(input);
                    return Vec::new();
                }
                match state.export_contents() {
                    Some(contents) => vec![ViewEffect::Export {
                        file: PathBuf::from(name),
                        contents,
                        overwrite: false,
                    }],
                    None => Vec::new(),
                }
            }
            KeyCode::Esc => {
                state.set_status("Export cancelled", false);
                Vec::new()
            }
            _ => {
                input.handle_key(&key);
                state.mode = Mode::ExportName(input);
                Vec::new()
            }
        },
        Mode::ConfirmOverwrite { file } => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => match state.export_contents() {
                Some(contents) => vec![ViewEffect::Export {
                    file,
                    contents,
                    overwrite: true,
                }],
                None => Vec::new(),
            },
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
                // Back to the name, to pick another one.
                let name = file.to_string_lossy().into_owned();
                state.mode = Mode::ExportName(TextInput::with_text(&name));
                Vec::new()
            }
            _ => {
                state.mode = Mode::ConfirmOverwrite { file };
                Vec::new()
            }
        },
    }
}

/// Keys that change only the tree (selection, folds, filters, the tree search) and never read
/// the transcript: they may leave it stale until [`settle`].
fn moves_only_the_tree(state: &SessionViewState, key: &KeyEvent) -> bool {
    match &state.mode {
        // Typing filters the tree; Enter/Esc confirm or clear the query.
        Mode::TreeSearch(_) => true,
        Mode::Normal => match action_for(key, state.focus) {
            Some(
                ViewAction::Up
                | ViewAction::Down
                | ViewAction::PageUp
                | ViewAction::PageDown
                | ViewAction::First
                | ViewAction::Last,
            ) => state.focus == Focus::Tree,
            Some(
                ViewAction::FoldOrUp
                | ViewAction::UnfoldOrDown
                | ViewAction::FilterDefault
                | ViewAction::FilterNoTools
                | ViewAction::FilterUserOnly
                | ViewAction::FilterLabeled
                | ViewAction::FilterAll
                | ViewAction::CycleFilter
                | ViewAction::CycleFilterBack,
            ) => true,
            _ => false,
        },
        _ => false,
    }
}

fn run_action(state: &mut SessionViewState, action: ViewAction) -> Vec<ViewEffect> {
    let session = &state.session;
    let tree_focus = state.focus == Focus::Tree;
    match action {
        ViewAction::Up if tree_focus => state.nav.move_up(),
        ViewAction::Down if tree_focus => state.nav.move_down(),
        ViewAction::PageUp if tree_focus => state.nav.page_up(state.tree_list_height()),
        ViewAction::PageDown if tree_focus => state.nav.page_down(state.tree_list_height()),
        ViewAction::First if tree_focus => state.nav.select_first(),
        ViewAction::Last if tree_focus => state.nav.select_last(),
        ViewAction::Up => state.transcript_scroll = state.transcript_scroll.saturating_sub(1),
        ViewAction::Down => {
            state.transcript_scroll = (state.transcript_scroll + 1).min(state.transcript_bottom());
        }
        ViewAction::PageUp => {
            let page = state.transcript_size().1.saturating_sub(1).max(1);
            state.transcript_scroll = state.transcript_scroll.saturating_sub(page);
        }
        ViewAction::PageDown => {
            let page = state.transcript_size().1.saturating_sub(1).max(1);
            state.transcript_scroll =
                (state.transcript_scroll + page).min(state.transcript_bottom());
        }
        ViewAction::First => state.transcript_to_start(),
        ViewAction::Last => state.transcript_to_end(),
        ViewAction::FoldOrUp => state.nav.fold_or_up(session),
        ViewAction::UnfoldOrDown => state.nav.unfold_or_down(session),
        ViewAction::FilterDefault => state.nav.set_filter(session, FilterMode::Default),
        ViewAction::FilterNoTools => state.nav.toggle_filter(session, FilterMode::NoTools),
        ViewAction::FilterUserOnly => state.nav.toggle_filter(session, FilterMode::UserOnly),
        ViewAction::FilterLabeled => state.nav.toggle_filter(session, FilterMode::LabeledOnly),
        ViewAction::FilterAll => state.nav.toggle_filter(session, FilterMode::All),
        ViewAction::CycleFilter => state.nav.cycle_filter(session, true),
        ViewAction::CycleFilterBack => state.nav.cycle_filter(session, false),
        ViewAction::Search if tree_focus => {
            let q = state.tree_search.take().unwrap_or_default();
            state.nav.set_query(session, &q);
            state.mode = Mode::TreeSearch(TextInput::with_text(&q));
        }
        ViewAction::Search => {
            let q = state.transcript_search.clone().unwrap_or_default();
            state.mode = Mode::TranscriptSearch(TextInput::with_text(&q));
        }
        ViewAction::NextHit | ViewAction::PrevHit => {
            jump_to_hit(state, action == ViewAction::NextHit);
        }
        ViewAction::ToggleFocus => {
            state.focus = if tree_focus {
                Focus::Transcript
            } else {
                Focus::Tree
            };
        }
        ViewAction::ToggleBlock => toggle_block(state, false),
        ViewAction::ToggleAllBlocks => toggle_block(state, true),
        ViewAction::Label => {
            if let Some(sel) = state.nav.selected_entry() {
                let current = state
                    .session
                    .tree
                    .label_of(state.session.entries(), sel)
                    .map(|l| l.text.clone())
                    .unwrap_or_default();
                state.mode = Mode::Label {
                    target: sel,
                    input: TextInput::with_text(&current),
                };
            }
        }
        ViewAction::Checkout => {
            if let Some(sel) = state.nav.selected_entry() {
                let resumes_after = state.checkout_resumes_after(sel);
                if resumes_after.is_some() && resumes_after == state.effective_leaf() {
                    state.set_status("Already at this point: the session resumes here", false);
                } else {
                    state.mode = Mode::ConfirmCheckout {
                        target: sel,
                        resumes_after,
                    };
                }
            }
        }
        ViewAction::Fork => {
            if let Some(id) = state.selected_id().map(str::to_owned) {
                state.set_status("Forking…", false);
                return vec![ViewEffect::Fork {
                    path: state.path.clone(),
                    at_id: id,
                }];
            }
        }
        ViewAction::Resume => {
            return vec![ViewEffect::Resume {
                path: state.path.clone(),
                entry_id: state.selected_id().map(str::to_owned),
                dialect: state.dialect,
            }];
        }
        ViewAction::Export => {
            if state.nav.selected_entry().is_some() {
                state.mode = Mode::ExportName(TextInput::with_text(&state.default_export_name()));
            }
        }
        ViewAction::Help => state.mode = Mode::Help { scroll: 0 },
        ViewAction::Back => {
            if tree_focus && state.tree_search.is_some() {
                // As pi's Esc with a query: clear it, and the folds.
                state.tree_search = None;
                state.nav.clear_query_and_folds(session);
            } else if !tree_focus && state.transcript_search.is_some() {
                state.clear_transcript_search();
            } else if !tree_focus {
                state.focus = Focus::Tree;
            } else {
                return vec![ViewEffect::Close];
            }
        }
    }
    Vec::new()
}

/// Pasted text goes into whichever input is open (search, label, export name).
pub fn paste(state: &mut SessionViewState, text: &str) {
    match &mut state.mode {
        Mode::TreeSearch(input) => {
            input.paste(text);
            let query = input.text().to_owned();
            state.nav.set_query(&state.session, &query);
        }
        Mode::TranscriptSearch(input) | Mode::Label { input, .. } | Mode::ExportName(input) => {
            input.paste(text)
        }
        _ => {}
    }
}

fn tree_search_key(
    state: &mut SessionViewState,
    mut input: TextInput,
    key: &KeyEvent,
) -> Vec<ViewEffect> {
    match key.code {
        KeyCode::Esc => {
            // Clears the query and the folds, as pi does.
            state.tree_search = None;
            state.nav.clear_query_and_folds(&state.session);
        }
        KeyCode::Enter => {
            let q = input.text().trim().to_owned();
            let hits = if q.is_empty() { 0 } else { state.nav.len() };
            // Back to the whole tree around the chosen hit; n/N walk the hits.
            state.nav.set_query(&state.session, "");
            if q.is_empty() {
                state.tree_search = None;
            } else {
                state.set_status(
                    format!("{hits} matching entries · n/N next/previous"),
                    false,
                );
                state.tree_search = Some(q);
            }
        }
        KeyCode::Up => {
            state.nav.move_up();
            state.mode = Mode::TreeSearch(input);
        }
        KeyCode::Down => {
            state.nav.move_down();
            state.mode = Mode::TreeSearch(input);
        }
        KeyCode::PageUp => {
            state.nav.page_up(state.tree_list_height());
            state.mode = Mode::TreeSearch(input);
        }
        KeyCode::PageDown => {
            state.nav.page_down(state.tree_list_height());
            state.mode = Mode::TreeSearch(input);
        }
        _ => {
            if input.handle_key(key) == Edit::Changed {
                state.nav.set_query(&state.session, input.text());
            }
            state.mode = Mode::TreeSearch(input);
        }
    }
    Vec::new()
}

fn transcript_search_key(
    state: &mut SessionViewState,
    mut input: TextInput,
    key: &KeyEvent,
) -> Vec<ViewEffect> {
    match key.code {
        KeyCode::Esc => state.clear_transcript_search(),
        KeyCode::Enter => {
            if input.text().trim().is_empty() {
                state.clear_transcript_search();
            } else {
                if !state.transcript.hits_cover_all {
                    state.search_transcript(input.text().trim(), true);
                }
                let n = state.transcript.hits.len();
                state.set_status(format!("{n} matching lines · n/N next/previous"), n == 0);
            }
        }
        _ => {
            if input.handle_key(key) == Edit::Changed {
                let q = input.text().trim().to_owned();
                if q.is_empty() {
                    state.clear_transcript_search();
                } else {
                    state.search_transcript(&q, false);
                }
            }
            state.mode = Mode::TranscriptSearch(input);
        }
    }
    Vec::new()
}

fn label_key(
    state: &mut SessionViewState,
    target: usize,
    mut input: TextInput,
    key: &KeyEvent,
) -> Vec<ViewEffect> {
    match key.code {
        KeyCode::Esc => {
            state.set_status("Label unchanged", false);
            Vec::new()
        }
        KeyCode::Enter => {
            let Some(id) = state.session.entry(target).map(|e| e.id.clone()) else {
                return Vec::new();
            };
            let label = Some(input.text().trim().to_owned()).filter(|l| !l.is_empty());
            let current = state.session.tree.labels.get(&id).map(|l| l.text.clone());
            if label == current {
                state.set_status("Label unchanged", false);
                return Vec::new();
            }
            state.set_status("Writing label…", false);
            vec![ViewEffect::AppendLabel {
                path: state.path.clone(),
                target_id: id,
                label,
            }]
        }
        _ => {
            input.handle_key(key);
            state.mode = Mode::Label { target, input };
            Vec::new()
        }
    }
}

/// n/N in the focused pane, wrapping around.
fn jump_to_hit(state: &mut SessionViewState, forward: bool) {
    let tree = state.focus == Focus::Tree;
    let searching = if tree {
        state.tree_search.is_some()
    } else {
        state.transcript_search.is_some()
    };
    if !searching {
        state.set_status("No search: press / to search", false);
        return;
    }
    if !tree {
        state.jump_transcript_hit(forward);
        return;
    }
    let (hits, from) = if tree {
        (state.tree_hits(), state.nav.selected_index())
    } else {
        (state.transcript_hits.clone(), state.transcript_scroll)
    };
    let Some((k, hit)) = next_hit(&hits, from, forward) else {
        let none = if tree {
            "No matching entries in this filter"
        } else {
            "No matching lines"
        };
        state.set_status(none, true);
        return;
    };
    if tree {
        state.nav.select_index(hit);
    } else {
        state.transcript_scroll = hit;
    }
    state.set_status(format!("match {}/{}", k + 1, hits.len()), false);
}

/// The first of the sorted `hits` after `from` (before it, going back), wrapping around;
/// with its position among the hits.
fn next_hit(hits: &[usize], from: usize, forward: bool) -> Option<(usize, usize)> {
    let k = if forward {
        hits.iter().position(|&h| h > from).unwrap_or(0)
    } else {
        hits.iter()
            .rposition(|&h| h < from)
            .unwrap_or(hits.len().checked_sub(1)?)
    };
    hits.get(k).map(|&h| (k, h))
}

/// Enter / x in the transcript.
fn toggle_block(state: &mut SessionViewState, all: bool) {
    let folds = &state.transcript.folds;
    if folds.is_empty() {
        state.set_status("Nothing to expand here", false);
        return;
    }
    if all {
        let any_closed = folds.iter().any(|(k, _, _)| !state.toggled.contains(k));
        if any_closed {
            state.toggled.extend(folds.iter().map(|(k, _, _)| *k));
        } else {
            state.toggled.clear();
        }
    } else {
        let top = state.transcript_scroll;
        let key = folds
            .iter()
            .find(|(_, _, end)| *end >= top)
            .or(folds.last())
            .map(|(k, _, _)| *k);
        let Some(key) = key else { return };
        if !state.toggled.remove(&key) {
            state.toggled.insert(key);
        }
        // Keep the block in view when collapsing it above the top.
        if let Some((_, start, _)) = folds.iter().find(|(k, _, _)| *k == key)
            && *start < top
        {
            state.transcript_scroll = *start;
        }
    }
    state.rebuild_lines();
}

// ----- results -----

/// Tells the view the terminal size changed.
pub fn apply_resize(state: &mut SessionViewState, viewport: Rect) {
    state.viewport = viewport;
    state.transcript_scroll = state.transcript_scroll.min(state.transcript_bottom());
}

/// Feeds an effect's result back; returns notifications for the loop (picker refreshes).
pub fn apply_outcome(state: &mut SessionViewState, outcome: Outcome) -> Vec<ViewEffect> {
    match outcome {
        Outcome::Labeled(Ok(session)) => {
            state.reload(session);
            state.set_status("Label saved", false);
            vec![ViewEffect::SessionChanged {
                path: state.path.clone(),
            }]
        }
        Outcome::CheckedOut(Ok(session)) => {
            state.reload(session);
            state.set_status(
                "Checked out: resuming the session continues from here",
                false,
            );
            vec![ViewEffect::SessionChanged {
                path: state.path.clone(),
            }]
        }
        Outcome::Labeled(Err(e)) | Outcome::CheckedOut(Err(e)) => {
            state.set_status(e, true);
            Vec::new()
        }
        Outcome::Forked(Ok(path)) => {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            state.set_status(
                format!("Forked to {}", crate::text::sanitize::sanitize_line(&name)),
                false,
            );
            vec![ViewEffect::SessionCreated {
                path,
                parent: state.path.clone(),
            }]
        }
        Outcome::Forked(Err(e)) => {
            state.set_status(e, true);
            Vec::new()
        }
        Outcome::Exported(Ok(file)) => {
            state.set_status(
                format!(
                    "Exported to {}",
                    crate::text::sanitize::sanitize_line(&file.to_string_lossy())
                ),
                false,
            );
            Vec::new()
        }
        Outcome::Exported(Err(ExportFailure::Exists(file))) => {
            state.mode = Mode::ConfirmOverwrite { file };
            Vec::new()
        }
        Outcome::Exported(Err(ExportFailure::Other(e))) => {
            state.set_status(e, true);
            Vec::new()
        }
    }
}

/// Performs a file-writing effect (the only I/O of the view); `None` for effects the loop
/// handles itself (resume, close, notifications). Safe to run on a worker thread.
pub fn execute(effect: &ViewEffect) -> Option<Outcome> {
    use crate::storage::append::{NewEntry, append_entry};
    use crate::storage::fork::fork_session;
    use crate::storage::read::load_session;
    let reload = |path: &Path| load_session(path).map_err(|e| e.to_string());
    match effect {
        ViewEffect::AppendLabel {
            path,
            target_id,
            label,
        } => Some(Outcome::Labeled(
            append_entry(
                path,
                NewEntry::Label {
                    target_id: target_id.clone(),
                    label: label.clone(),
                },
            )
            .map_err(|e| e.to_string())
            .and_then(|_| reload(path)),
        )),
        ViewEffect::Checkout { path, target_id } => Some(Outcome::CheckedOut(
            append_entry(
                path,
                NewEntry::Checkout {
                    target_id: target_id.clone(),
                },
            )
            .map_err(|e| e.to_string())
            .and_then(|_| reload(path)),
        )),
        ViewEffect::Fork { path, at_id } => Some(Outcome::Forked(
            fork_session(path, Some(at_id))
                .map(|f| f.path)
                .map_err(|e| e.to_string()),
        )),
        ViewEffect::Export {
            file,
            contents,
            overwrite,
        } => Some(Outcome::Exported(write_export(file, contents, *overwrite))),
        _ => None,
    }
}

/// Writes an export; refuses to replace an existing file unless `overwrite`.
pub fn write_export(
    file: &Path,
    contents: &str,
    overwrite: bool,
) -> Result<PathBuf, ExportFailure> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    if overwrite {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    match opts.open(file) {
        Ok(mut f) => f
            .write_all(contents.as_bytes())
            .map(|()| file.to_path_buf())
            .map_err(|e| ExportFailure::Other(format!("{}: {e}", file.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(ExportFailure::Exists(file.to_path_buf()))
        }
        Err(e) => Err(ExportFailure::Other(format!("{}: {e}", file.display()))),
    }
}
