//! The browser's state: everything a frame is drawn from, changed only by [`super::update`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::info::SessionInfo;
use crate::model::search::{PreparedText, Query, Score, SearchFields};
use crate::storage::roots::Skipped;
use crate::storage::trash::Trashed;
use crate::ui::theme::Theme;

use super::keymap::Keymap;
use super::preview::Preview;
use super::text_input::TextInput;

/// One listed session, with what search and threading need precomputed (off the UI thread).
#[derive(Debug, Clone)]
pub struct SessionRecord {
    /// The listing fields; `all_messages_text` is emptied once `prepared` holds it.
    pub info: SessionInfo,
    /// The lowercased searched text, built once per session.
    pub prepared: PreparedText,
    /// Whether the session's cwd is the folder grove was started in.
    pub in_current_dir: bool,
    /// The file's canonical path, for matching forks to parents.
    pub canonical_path: Option<PathBuf>,
    /// The canonical path of `parentSession`, when it exists.
    pub canonical_parent: Option<PathBuf>,
}

impl SessionRecord {
    /// Builds a record, touching the file system to canonicalise paths. Call off the UI thread.
    pub fn new(info: SessionInfo, current_dir: Option<&Path>) -> Self {
        let in_current_dir = current_dir.is_some_and(|d| same_dir(&info.cwd, d));
        let canonical_path = std::fs::canonicalize(&info.path).ok();
        let canonical_parent = info
            .parent_session_path
            .as_deref()
            .and_then(|p| std::fs::canonicalize(p).ok());
        let mut r = Self::without_fs(info, in_current_dir);
        r.canonical_path = canonical_path;
        r.canonical_parent = canonical_parent;
        r
    }

    /// Builds a record without touching the file system (tests, cached listings).
    pub fn without_fs(mut info: SessionInfo, in_current_dir: bool) -> Self {
        let prepared = PreparedText::new(&SearchFields {
            id: &info.id,
            name: info.name.as_deref(),
            summary: info.summary.as_deref(),
            text: &info.all_messages_text,
            cwd: &info.cwd,
        });
        // The prepared copy replaces the original text; keeping both would double memory.
        info.all_messages_text = String::new();
        SessionRecord {
            info,
            prepared,
            in_current_dir,
            canonical_path: None,
            canonical_parent: None,
        }
    }

    /// The fields the exact-match tier looks at (the text itself is in `prepared`).
    pub fn search_fields(&self) -> SearchFields<'_> {
        SearchFields {
            id: &self.info.id,
            name: self.info.name.as_deref(),
            summary: self.info.summary.as_deref(),
            text: "",
            cwd: &self.info.cwd,
        }
    }

    pub fn is_named(&self) -> bool {
        self.info
            .name
            .as_deref()
            .is_some_and(|n| !n.trim().is_empty())
    }
}

/// Whether a session's cwd names the folder `dir` (literally, or after resolving links).
pub fn same_dir(session_cwd: &str, dir: &Path) -> bool {
    if session_cwd.is_empty() {
        return false;
    }
    let trimmed = session_cwd.trim_end_matches('/');
    let cwd = Path::new(if trimmed.is_empty() { "/" } else { trimmed });
    if cwd == dir {
        return true;
    }
    match (std::fs::canonicalize(cwd), std::fs::canonicalize(dir)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Current,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortMode {
    Threaded,
    Recent,
    Fuzzy,
}

impl SortMode {
    pub fn next(self) -> Self {
        match self {
            SortMode::Threaded => SortMode::Recent,
            SortMode::Recent => SortMode::Fuzzy,
            SortMode::Fuzzy => SortMode::Threaded,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SortMode::Threaded => "Threaded",
            SortMode::Recent => "Recent",
            SortMode::Fuzzy => "Fuzzy",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameFilter {
    All,
    Named,
}

/// Which screen is shown.
#[derive(Debug)]
pub enum Screen {
    Picker,
    /// One session's preview full-screen: shown while the session view loads (or if it cannot).
    Session {
        record: usize,
        scroll: u16,
    },
    /// The session view: the entry tree beside the transcript of the selected branch.
    View {
        record: usize,
        view: Box<crate::app::session_view::SessionViewState>,
    },
}

impl Screen {
    pub fn is_picker(&self) -> bool {
        matches!(self, Screen::Picker)
    }
}

/// Whether a session looks like an agent is still writing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Liveness {
    Checking,
    Idle,
    /// Why it looks live, e.g. "written 12s ago" or "open in pi (pid 4242)".
    Live(String),
}

/// A popup or prompt on top of the screen; keys go to it first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// The help overlay, scrolled down by this many lines.
    Help {
        scroll: u16,
    },
    /// The files that could not be read as sessions, scrolled down by this many lines.
    Problems {
        scroll: u16,
    },
    Rename {
        record: usize,
        input: TextInput,
    },
    ConfirmDelete {
        record: usize,
        live: Liveness,
    },
    /// The trash move is running.
    Deleting {
        record: usize,
    },
    /// The trash failed; permanent deletion needs this second, explicit confirmation.
    ConfirmPermanent {
        record: usize,
        error: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusKind {
    Info,
    Ok,
    Warning,
    Error,
}

/// A transient message in the header's second line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub kind: StatusKind,
    /// Ticks until it disappears.
    pub ticks_left: u32,
}

/// One visible row of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Index into [`PickerState::records`].
    pub record: usize,
    /// Threaded sort: `│  `, `├─ `, `└─ ` drawing; empty otherwise.
    pub prefix: String,
}

/// Scan progress.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loading {
    pub generation: u64,
    /// Files found; `None` until the folders were listed.
    pub total: Option<usize>,
    /// Files read so far (sessions and failures).
    pub loaded: usize,
    pub done: bool,
}

/// The state of the search box's query.
#[derive(Clone, Debug, Default)]
pub struct SearchState {
    /// Bumped for every search started; results of older ones are dropped.
    pub generation: u64,
    /// The parsed query (`None` when empty or invalid).
    pub query: Option<Arc<Query>>,
    /// Why the query is invalid (shown instead of the list).
    pub error: Option<String>,
    /// Scores of the matching records for the last completed search.
    pub matches: HashMap<usize, Score>,
    /// Whether `matches` belongs to an older query or record set.
    pub pending: bool,
    /// Move the selection to the first row when the pending result lands.
    pub reset_selection: bool,
    /// A search for `generation` is wanted and not yet asked for (see `update::settle`).
    pub queued: bool,
}

/// A preview being loaded or loaded.
#[derive(Clone, Debug)]
pub enum PreviewSlot {
    Loading,
    Ready(Arc<Preview>),
    Failed(String),
}

/// A delete that Ctrl+Z can undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoItem {
    pub record: usize,
    pub trashed: Trashed,
}

/// Settings fixed for the run.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--print`: Enter prints the path and exits.
    pub print_mode: bool,
    /// Shown as `~` at the start of paths.
    pub home: Option<String>,
    /// The preview pane is shown only from this width on.
    pub preview_min_width: u16,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            print_mode: false,
            home: None,
            preview_min_width: 120,
        }
    }
}

/// Everything about the list: sessions, filters, query, rows and selection.
#[derive(Clone, Debug)]
pub struct PickerState {
    /// Every session loaded; indices are stable for the run (deletes only mark).
    pub records: Vec<Arc<SessionRecord>>,
    pub deleted: Vec<bool>,
    pub scope: Scope,
    pub sort: SortMode,
    pub name_filter: NameFilter,
    pub show_path: bool,
    pub show_preview: bool,
    pub query: TextInput,
    pub search: SearchState,
    pub rows: Vec<Row>,
    /// Index into `rows`.
    pub selected: usize,
    /// The selected session, kept across row rebuilds so the selection does not jump.
    pub selected_record: Option<usize>,
    pub loading: Loading,
    pub problems: Vec<Skipped>,
}

impl Default for PickerState {
    fn default() -> Self {
        PickerState {
            records: Vec::new(),
            deleted: Vec::new(),
            scope: Scope::Current,
            sort: SortMode::Threaded,
            name_filter: NameFilter::All,
            show_path: false,
            show_preview: true,
            query: TextInput::default(),
            search: SearchState::default(),
            rows: Vec::new(),
            selected: 0,
            selected_record: None,
            loading: Loading::default(),
            problems: Vec::new(),
        }
    }
}

/// The whole app.
#[derive(Debug)]
pub struct AppState {
    pub picker: PickerState,
    pub screen: Screen,
    pub mode: Mode,
    pub status: Option<Status>,
    pub undo: Vec<UndoItem>,
    pub previews: HashMap<PathBuf, PreviewSlot>,
    /// Terminal size (columns, rows).
    pub viewport: (u16, u16),
    pub keymap: Keymap,
    pub theme: Theme,
    pub options: Options,
    /// Something visible changed since the last frame.
    pub dirty: bool,
    /// The start-up notice (config problems), over everything until dismissed.
    pub notice: Option<super::notice::Notice>,
}

impl AppState {
    pub fn new(options: Options, keymap: Keymap, theme: Theme) -> Self {
        AppState {
            picker: PickerState::default(),
            screen: Screen::Picker,
            mode: Mode::Normal,
            status: None,
            undo: Vec::new(),
            previews: HashMap::new(),
            viewport: (80, 24),
            keymap,
            theme,
            options,
            dirty: true,
            notice: None,
        }
    }

    /// The selected session, if any row is shown.
    pub fn selected(&self) -> Option<&Arc<SessionRecord>> {
        let row = self.picker.rows.get(self.picker.selected)?;
        self.picker.records.get(row.record)
    }

    pub fn record(&self, index: usize) -> Option<&Arc<SessionRecord>> {
        self.picker.records.get(index)
    }

    /// Whether the preview pane fits and is wanted.
    pub fn preview_visible(&self) -> bool {
        self.picker.show_preview && self.viewport.0 >= self.options.preview_min_width
    }

    /// The record a row-styling "being deleted" applies to.
    pub fn deleting_record(&self) -> Option<usize> {
        match &self.mode {
            Mode::ConfirmDelete { record, .. }
            | Mode::Deleting { record }
            | Mode::ConfirmPermanent { record, .. } => Some(*record),
            _ => None,
        }
    }

    pub fn preview_for(&self, path: &Path) -> Option<&PreviewSlot> {
        self.previews.get(path)
    }
}

impl PickerState {
    /// Whether a record passes the scope and name filters (and is not deleted or internal).
    fn listed(&self, index: usize) -> bool {
        let Some(r) = self.records.get(index) else {
            return false;
        };
        if self.deleted.get(index).copied().unwrap_or(false) || r.info.internal {
            return false;
        }
        if self.scope == Scope::Current && !r.in_current_dir {
            return false;
        }
        self.name_filter == NameFilter::All || r.is_named()
    }

    /// Whether the query box holds something to search for.
    pub fn has_query(&self) -> bool {
        !self.query.text().trim().is_empty()
    }

    /// Recomputes the rows from records, filters, sort and search results, keeping the
    /// selection on the same session when it is still listed.
    pub fn rebuild_rows(&mut self) {
        let listed: Vec<usize> = (0..self.records.len())
            .filter(|&i| self.listed(i))
            .collect();
        self.rows = if !self.has_query() {
            match self.sort {
                SortMode::Threaded => super::threads::threaded_rows(&self.records, &listed),
                SortMode::Recent | SortMode::Fuzzy => {
                    let mut l = listed;
                    sort_recent(&self.records, &mut l);
                    plain_rows(l)
                }
            }
        } else if self.search.error.is_some() {
            Vec::new()
        } else {
            let mut l: Vec<usize> = listed
                .into_iter()
                .filter(|i| self.search.matches.contains_key(i))
                .collect();
            sort_recent(&self.records, &mut l);
            if self.sort != SortMode::Recent {
                // Stable: ties stay most-recent first.
                l.sort_by(|a, b| self.search.matches[a].cmp_rank(&self.search.matches[b]));
            }
            plain_rows(l)
        };
        self.restore_selection();
    }

    fn restore_selection(&mut self) {
        if let Some(r) = self.selected_record
            && let Some(pos) = self.rows.iter().position(|row| row.record == r)
        {
            self.selected = pos;
            return;
        }
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
        self.selected_record = self.rows.get(self.selected).map(|r| r.record);
    }

    /// Selects a row (clamped).
    pub fn select(&mut self, row: usize) {
        self.selected = row.min(self.rows.len().saturating_sub(1));
        self.selected_record = self.rows.get(self.selected).map(|r| r.record);
    }

    /// Moves the selection by `delta` rows, clamped (no wrap, as in pi).
    pub fn move_by(&mut self, delta: isize) {
        let target = (self.selected as isize + delta).max(0) as usize;
        self.select(target);
    }
}

fn plain_rows(indices: Vec<usize>) -> Vec<Row> {
    indices
        .into_iter()
        .map(|record| Row {
            record,
            prefix: String::new(),
        })
        .collect()
}

/// Newest first; ties by path so the order is stable.
fn sort_recent(records: &[Arc<SessionRecord>], indices: &mut [usize]) {
    indices.sort_by(|&a, &b| {
        let (a, b) = (&records[a].info, &records[b].info);
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
}
