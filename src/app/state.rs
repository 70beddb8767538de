//! The browser's state: everything a frame is drawn from, changed only by [`super::update`].

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::model::search::{MatchOrder, Query, RankKey, Score, compare_matches};
use crate::storage::roots::Skipped;

pub use super::live::Liveness;
pub use super::record::{SessionRecord, same_dir};
pub use super::rows::Row;
use super::rows::{plain_rows, sort_recent};
pub use super::undo::UndoItem;

use super::keymap::Keymap;
use super::preview::Preview;
use super::text_input::TextInput;
use super::theme::Palette;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Current,
    /// grove: every worktree of the current folder's git repository.
    Repo,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortMode {
    Threaded,
    Recent,
    Fuzzy,
    /// grove: newest created, largest file, most expensive first.
    Created,
    Size,
    Cost,
}

impl SortMode {
    pub fn next(self) -> Self {
        match self {
            SortMode::Threaded => SortMode::Recent,
            SortMode::Recent => SortMode::Fuzzy,
            SortMode::Fuzzy => SortMode::Created,
            SortMode::Created => SortMode::Size,
            SortMode::Size => SortMode::Cost,
            SortMode::Cost => SortMode::Threaded,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SortMode::Threaded => "Threaded",
            SortMode::Recent => "Recent",
            SortMode::Fuzzy => "Fuzzy",
            SortMode::Created => "Created",
            SortMode::Size => "Size",
            SortMode::Cost => "Cost",
        }
    }

    /// The session order of grove's own sorts (`None` for pi's).
    pub fn key(self) -> Option<crate::model::stats::order::SessionKey> {
        use crate::model::stats::order::SessionKey;
        match self {
            SortMode::Created => Some(SessionKey::Created),
            SortMode::Size => Some(SessionKey::Size),
            SortMode::Cost => Some(SessionKey::Cost),
            SortMode::Threaded | SortMode::Recent | SortMode::Fuzzy => None,
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
        view: Box<crate::app::session_view::state::SessionViewState>,
    },
}

impl Screen {
    pub fn is_picker(&self) -> bool {
        matches!(self, Screen::Picker)
    }
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
    /// The trash view: the session files in the platform trash, to restore.
    Trash(Box<crate::app::trash_state::TrashView>),
    /// The stats screen ([`AppState::stats`]), scrolled down by this many lines.
    Stats {
        scroll: u16,
    },
    Rename {
        record: usize,
        input: TextInput,
    },
    ConfirmDelete {
        record: usize,
        live: Liveness,
        /// The backups that move to the trash with it.
        backups: Vec<PathBuf>,
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
    /// Trash every marked session (listed in the confirmation)?
    ConfirmTrashMarked {
        records: Vec<usize>,
    },
    /// The marked sessions' trash moves are running.
    TrashingMarked {
        records: Vec<usize>,
    },
    /// The bookmarks screen.
    Bookmarks(Box<super::org::BookmarkScreen>),
    /// The hand-off popup: copy or open (see [`super::handoff`]).
    Handoff(Box<super::handoff_types::HandoffMenu>),
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

/// A fork made in the session view, waiting for its row to open it ([`super::fork_open`]):
/// the new file and the session it was forked from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingFork {
    pub path: PathBuf,
    pub parent: PathBuf,
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
    /// The session folders searched, for the empty list's first-run text
    /// ([`crate::app::first_run::searched_summary`]); empty when not known.
    pub searched: String,
    /// What Enter does on a session (`[picker] enter`).
    pub enter: super::config::EnterAction,
    /// The columns at the right of a row (`[picker] columns`).
    pub columns: Vec<super::columns::Column>,
    /// The agents' commands (`[agents]`), for the hand-off's resume command.
    pub agents: super::handoff_types::AgentCommands,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            print_mode: false,
            home: None,
            preview_min_width: 120,
            searched: String::new(),
            enter: super::config::EnterAction::View,
            columns: super::columns::DEFAULT_COLUMNS.to_vec(),
            agents: Default::default(),
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
    /// Pins, archive marks, the view over them and the marked sessions.
    pub org: super::org::Organise,
    /// Changed files waiting to be read again (live lists).
    pub live: super::live_data::LiveRefresh,
    /// The threaded rows being built in the background (long lists).
    pub threads: super::live_data::ThreadsJob,
    /// The git repository of the folder grove was started in (the Repo scope needs one).
    pub current_repo: Option<Arc<crate::storage::repo::RepoInfo>>,
    /// Folded families of the threaded list, and whether child sessions are hidden.
    pub families: super::families::Families,
    /// Each record's index by path, for the batches of records sent again with their text.
    pub slots: super::slots::PathSlots,
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
            org: Default::default(),
            live: Default::default(),
            threads: Default::default(),
            current_repo: None,
            families: super::families::Families::default(),
            slots: Default::default(),
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
    /// The colour choices the views draw with.
    pub palette: Palette,
    pub options: Options,
    /// Something visible changed since the last frame.
    pub dirty: bool,
    /// Whether the confirmation on screen (if any) has been drawn: until then its keys do
    /// nothing, so a burst of keys cannot confirm what the user never saw.
    pub confirm_drawn: bool,
    /// Notices that stay until dismissed: in the status line (unreadable files) or over the
    /// screen (config problems at start).
    pub notices: super::notice::Notices,
    /// File writes asked for and not yet reported back.
    pub writes_in_flight: usize,
    /// Quit was asked for while a write was in flight: quit when it is done.
    pub quit_when_idle: bool,
    /// The session view's pane sizes as last left: the next session opens with them.
    pub view_panes: crate::app::session_view::geometry::Panes,
    /// Why the selected session matched the search (the preview's top).
    pub hits: Option<super::preview_hits::HitsSlot>,
    /// A fork made in the view, to open once its row is read.
    pub open_after_fork: Option<PendingFork>,
    /// The stats screen's data (kept when closed: its grouping is remembered).
    pub stats: Option<super::stats_view::StatsView>,
}

impl AppState {
    pub fn new(options: Options, keymap: Keymap, palette: Palette) -> Self {
        AppState {
            picker: PickerState::default(),
            screen: Screen::Picker,
            mode: Mode::Normal,
            status: None,
            undo: Vec::new(),
            previews: HashMap::new(),
            viewport: (80, 24),
            keymap,
            palette,
            options,
            dirty: true,
            confirm_drawn: false,
            notices: Default::default(),
            writes_in_flight: 0,
            quit_when_idle: false,
            view_panes: Default::default(),
            hits: None,
            open_after_fork: None,
            stats: None,
        }
    }

    /// A frame showing the state was drawn: nothing is dirty, and a confirmation on screen
    /// has been seen.
    pub fn drawn(&mut self) {
        self.dirty = false;
        self.confirm_drawn = true;
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
    pub(crate) fn preview_visible(&self) -> bool {
        self.picker.show_preview && self.viewport.0 >= self.options.preview_min_width
    }

    /// The record a row-styling "being deleted" applies to.
    pub(crate) fn deleting_record(&self) -> Option<usize> {
        match &self.mode {
            Mode::ConfirmDelete { record, .. }
            | Mode::Deleting { record }
            | Mode::ConfirmPermanent { record, .. } => Some(*record),
            _ => None,
        }
    }
}

impl PickerState {
    /// The index of the record of `path`, if the list has one.
    pub(crate) fn slot_of(&mut self, path: &std::path::Path) -> Option<usize> {
        self.slots.find(&self.records, path, &mut false)
    }

    /// Adds a session to the list: its record, its deleted flag and its place by path.
    pub(crate) fn push_record(&mut self, record: Arc<SessionRecord>) {
        self.records.push(record);
        self.deleted.push(false);
        self.slots.put(&self.records, self.records.len() - 1);
    }

    /// Whether a record passes the scope and name filters (and is not deleted or internal).
    pub(crate) fn is_listed(&self, index: usize) -> bool {
        let Some(r) = self.records.get(index) else {
            return false;
        };
        if self.deleted.get(index).copied().unwrap_or(false) || r.info.internal {
            return false;
        }
        if self.scope == Scope::Current && !r.in_current_dir {
            return false;
        }
        if self.scope == Scope::Repo && !r.in_current_repo {
            return false;
        }
        if self.families.hide_children && r.info.parent_session_path.is_some() {
            return false;
        }
        if !self.org.shows(r) {
            return false;
        }
        self.name_filter == NameFilter::All || r.is_named()
    }

    /// Whether the query box holds something to search for.
    pub(crate) fn has_query(&self) -> bool {
        !self.query.text().trim().is_empty()
    }

    /// Recomputes the rows from records, filters, sort and search results, keeping the
    /// selection on the same session when it is still listed.
    pub(crate) fn rebuild_rows(&mut self) {
        let listed: Vec<usize> = (0..self.records.len())
            .filter(|&i| self.is_listed(i))
            .collect();
        // A long threaded list is built in the background (see `threads_job`); the rows and
        // families shown meanwhile stay.
        let threaded = self.sort == SortMode::Threaded && !self.has_query();
        if threaded && listed.len() > super::live_data::INLINE_MAX {
            self.request_threaded(listed);
            self.restore_selection();
            return;
        }
        self.threads.cancel();
        self.families.shown = Default::default();
        self.rows = if !self.has_query() {
            match self.sort {
                // Pins first and families folded (`family_keys`).
                SortMode::Threaded => self.threaded_now(&listed),
                SortMode::Recent | SortMode::Fuzzy => {
                    let mut l = listed;
                    sort_recent(&self.records, &mut l);
                    plain_rows(l)
                }
                SortMode::Created | SortMode::Size | SortMode::Cost => {
                    let mut l = listed;
                    if let Some(k) = self.sort.key() {
                        l.sort_by(|a, b| k.compare(&self.records[*a].info, &self.records[*b].info));
                    }
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
            let order = match self.sort {
                SortMode::Recent => MatchOrder::Recent,
                _ => MatchOrder::Relevance,
            };
            let key = |i: &usize| RankKey {
                score: &self.search.matches[i],
                modified_ms: self.records[*i].info.modified_ms,
                path: &self.records[*i].info.path,
            };
            l.sort_by(|a, b| compare_matches(order, key(a), key(b)));
            // grove's sorts order the matches by their key (relevance breaks ties).
            if let Some(k) = self.sort.key() {
                l.sort_by(|a, b| k.compare(&self.records[*a].info, &self.records[*b].info));
            }
            plain_rows(l)
        };
        if !threaded {
            super::org::pins_first(&self.org, &self.records, &mut self.rows, false);
        }
        self.restore_selection();
    }

    pub(crate) fn restore_selection(&mut self) {
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
    pub(crate) fn move_by(&mut self, delta: isize) {
        let target = (self.selected as isize + delta).max(0) as usize;
        self.select(target);
    }
}
