//! The session view's state and the queries on it (selection, transcript sync, leaf, export
//! names).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ratatui::layout::Rect;

use crate::model::context::{ContextPlan, Dialect, LeafChoice, build_context};
use crate::model::export::to_markdown;
use crate::model::flatten::{FilterMode, TreeNav, row_text};
use crate::model::tree::Session;

use super::geometry::{Panes, ViewLayout, inner, layout_with};
use super::transcript::{FoldKey, Transcript};
use super::types::{Focus, Mode, Status};

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
    /// Context of the selected entry's branch and its display lines.
    pub context: ContextPlan,
    pub transcript: Transcript,
    /// Entry the transcript was built for.
    pub(crate) transcript_entry: Option<usize>,
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
    /// The panes' sizes the user chose (`<`, `>`, `z`).
    pub panes: Panes,
    /// The picker's search hits, when the view was opened from a content match.
    pub(crate) seeded_hits: Option<super::seeded::SeededHits>,
    /// The check-out being written was asked for by the resume offer: resume once written.
    pub(crate) resume_after_checkout: bool,
    /// The folder `e` offers to export to (grove's working folder; set by the loop).
    pub export_dir: Option<PathBuf>,
    /// `--print`: `r` prints the session and entry for a script instead of resuming (set by
    /// the app).
    pub resume_prints: bool,
    /// The view holds a large session's leaf branch alone, read from the end of the file,
    /// while the whole session loads; the whole view takes over its place
    /// ([`SessionViewState::take_over`]).
    pub leaf_first: bool,
}

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
            panes: Panes::default(),
            seeded_hits: None,
            resume_after_checkout: false,
            export_dir: None,
            resume_prints: false,
            leaf_first: false,
        };
        s.sync_transcript();
        s
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

    /// Where the view's parts go at its size, with the user's pane sizes.
    pub fn layout(&self) -> ViewLayout {
        layout_with(self.viewport, self.panes, self.focus)
    }

    /// Sets the panes' sizes (a reopened session keeps the run's), keeping the transcript's
    /// place at its new width.
    pub fn set_panes(&mut self, panes: Panes) {
        self.panes = panes;
        self.transcript_scroll = self.transcript_scroll.min(self.transcript_bottom());
    }

    /// Rows of the tree pane's list.
    pub(crate) fn tree_list_height(&self) -> usize {
        let l = self.layout();
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
        let l = self.layout();
        let i = inner(l.transcript);
        (i.width.max(1) as usize, i.height.max(1) as usize)
    }

    /// Rebuilds the transcript when the selection moved to another entry.
    pub(crate) fn sync_transcript(&mut self) {
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

    pub(crate) fn rebuild_lines(&mut self) {
        self.relayout_transcript();
    }

    pub(crate) fn set_status(&mut self, text: impl Into<String>, is_error: bool) {
        self.status = Some(Status {
            text: text.into(),
            is_error,
        });
    }

    /// The file name `e` offers: the session name (or id) and the entry id.
    pub(crate) fn default_export_name(&self) -> String {
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
    pub(crate) fn checkout_resumes_after(&self, target: usize) -> Option<usize> {
        let e = self.session.entry(target)?;
        if e.role() == Some("user") || e.kind == crate::model::entry::EntryKind::CustomMessage {
            self.session.tree.parent[target]
        } else {
            Some(target)
        }
    }

    /// The leaf on disk, looking through trailing entries that change nothing the agent
    /// resumes with: labels, names and grove's own check-out entries.
    pub(crate) fn effective_leaf(&self) -> Option<usize> {
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

    /// The entry the tree marks as the current leaf: the leaf itself when it is shown, else
    /// the nearest shown entry it hangs from (a trailing label, rename or check-out is
    /// hidden by the default filter), as pi's `/tree` does.
    pub fn marked_leaf(&self) -> Option<usize> {
        let mut at = self.session.tree.leaf?;
        for _ in 0..=self.session.entries().len() {
            if self.nav.row_of(at).is_some() {
                return Some(at);
            }
            at = self.session.tree.parent.get(at).copied().flatten()?;
        }
        None
    }

    /// One-line text of an entry (for dialogs).
    pub fn entry_line(&self, index: usize) -> String {
        match self.session.entry(index) {
            Some(e) => row_text(e, self.nav.tool_calls(), self.home.as_deref()).plain(),
            None => String::new(),
        }
    }

    /// The export of the selected branch: an HTML page when the file name ends in `.html`
    /// or `.htm`, Markdown otherwise.
    pub(crate) fn export_contents(&self, file: &Path) -> Option<String> {
        if self.leaf_first {
            // The branch is not all here yet: an export of it would be cut.
            return None;
        }
        let sel = self.nav.selected_entry()?;
        let ctx = build_context(&self.session, LeafChoice::Index(sel), self.dialect);
        let html = file
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"));
        Some(if html {
            crate::model::export::html::to_html(&self.session, &ctx)
        } else {
            to_markdown(&self.session, &ctx)
        })
    }

    pub(crate) fn tree_hits(&mut self) -> Vec<usize> {
        match self.tree_search.clone() {
            Some(q) => self.nav.matches(&self.session, &q),
            None => Vec::new(),
        }
    }

    /// Replaces the session after a write, keeping filter, folds-free layout and selection.
    pub(crate) fn reload(&mut self, session: Session) {
        let selected_id = self.selected_id().map(str::to_owned);
        let filter = self.nav.filter();
        self.session = session;
        // A session re-read after a write is whole.
        self.leaf_first = false;
        let initial = selected_id.and_then(|id| self.session.tree.index_of(&id));
        self.nav = TreeNav::new(&self.session, self.session.tree.leaf, initial, filter);
        self.transcript_entry = None;
        self.transcript.lines.clear();
        self.sync_transcript();
    }
}
