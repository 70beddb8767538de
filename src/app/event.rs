//! Everything that can happen to the app, and everything the app asks the outside world to do.
//!
//! Input, background results and ticks all arrive as [`Event`]s on one channel;
//! [`super::update::update`] turns them into state changes and [`Effect`]s, which the event
//! loop ([`super::run`]) executes. `update` itself never does I/O.

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::model::context::Dialect;
use crate::model::search::{Query, Score};
use crate::storage::roots::Skipped;
use crate::storage::trash::Trashed;

use super::preview::Preview;
use super::record::SessionRecord;
use super::session_view::types::{Outcome, ViewEffect};
use super::undo::UndoItem;
use crate::app::session_view::state::SessionViewState;
use ratatui::layout::Rect;

/// Progress of a scan.
#[derive(Clone, Debug)]
pub enum ScanUpdate {
    /// The folders were listed: this many files will be read.
    Found(usize),
    /// Sessions read since the last update.
    Sessions(Vec<Arc<SessionRecord>>),
    /// Sessions already sent, again with their searchable text (read after the rows were
    /// shown): each replaces the record of its path.
    Texts(Vec<Arc<SessionRecord>>),
    /// Files that could not be read as sessions.
    Failed(Vec<Skipped>),
    /// Every file was read.
    Done,
}

#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    Tick,
    ScanResult {
        generation: u64,
        update: ScanUpdate,
    },
    SearchResult {
        generation: u64,
        /// Matching records (indices into the state's records) with their scores.
        matches: Vec<(usize, Score)>,
    },
    PreviewLoaded {
        path: PathBuf,
        result: Result<Arc<Preview>, String>,
    },
    /// A newer preview request replaced this one before it was loaded.
    PreviewCancelled {
        path: PathBuf,
    },
    LiveChecked {
        record: usize,
        /// Whether it looks live, and its backups.
        liveness: super::live::LiveCheck,
    },
    Renamed {
        record: usize,
        /// The session re-read after the append.
        result: Result<Arc<SessionRecord>, String>,
    },
    Trashed {
        record: usize,
        result: Result<Trashed, String>,
    },
    DeletedPermanently {
        record: usize,
        result: Result<(), String>,
    },
    Restored {
        item: UndoItem,
        result: Result<(), String>,
    },
    /// The trash view's listing.
    TrashListed {
        generation: u64,
        result: Result<Vec<crate::app::trash_state::TrashRow>, String>,
    },
    /// A restore from the trash view: the files put back.
    TrashRestored {
        original: PathBuf,
        result: Result<Vec<PathBuf>, String>,
    },
    /// The session view of a whole session, loaded and laid out off the UI thread.
    SessionOpened {
        record: usize,
        path: PathBuf,
        result: Result<Box<SessionViewState>, String>,
    },
    /// A session view effect (label, check-out, fork, export) finished.
    ViewDone {
        path: PathBuf,
        outcome: Box<Outcome>,
    },
    /// The search hits of the selected session, for its preview.
    HitsFound {
        path: PathBuf,
        /// The query's text.
        query: String,
        result: Result<Vec<super::preview_hits::PreviewHit>, String>,
    },
    /// The watcher saw these paths change under the roots.
    FilesChanged {
        paths: Vec<PathBuf>,
    },
    /// The session of the open view, read again.
    SessionReread {
        path: PathBuf,
        result: Result<Box<crate::model::tree::Session>, String>,
    },
    /// Threaded rows built in the background for request `generation`.
    ThreadsBuilt {
        generation: u64,
        rows: super::families::BuiltThreads,
    },
    /// The changed paths, read again.
    Refreshed(Box<super::live_data::Refreshed>),
    /// The stats screen's report for request `generation`.
    StatsReady {
        generation: u64,
        report: Box<crate::model::stats::report::Report>,
    },
    /// One session re-read after it changed (or was created by a fork).
    RecordRefreshed {
        path: PathBuf,
        result: Result<Arc<SessionRecord>, String>,
    },
    /// grove's state (pins, archive, bookmarks): see [`super::marks`].
    Organise(super::org::OrgEvent),
    /// A copy or a pager / editor run finished: what to say in the status line.
    HandedOff {
        text: String,
        is_error: bool,
    },
}

/// A search to run off the UI thread.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    pub generation: u64,
    pub query: Arc<Query>,
    /// A snapshot of the records (cheap: shared pointers); result indices refer to it.
    pub records: Vec<Arc<SessionRecord>>,
}

/// Work for the event loop.
#[derive(Clone, Debug)]
pub enum Effect {
    /// A closed session view, freed off the UI thread (a large session takes a moment to free).
    Discard(Arc<SessionViewState>),
    /// List and read the session files; results come back as `ScanResult`s.
    StartScan {
        generation: u64,
    },
    RunSearch(SearchRequest),
    /// Read the usage of these sessions for the stats screen.
    LoadStats(super::stats_view::StatsRequest),
    LoadPreview {
        path: PathBuf,
        agent: Dialect,
    },
    /// Find the query's hits in a session's text, for its preview (latest request only).
    FindHits {
        path: PathBuf,
        query: Arc<Query>,
    },
    /// Enter on a session: load it for the session view (its preview shows meanwhile).
    OpenSession {
        record: usize,
        path: PathBuf,
        agent: Dialect,
        /// The terminal size and home folder the view is laid out for.
        viewport: Rect,
        home: Option<String>,
        /// The search it was found by: the view opens on the first hit.
        search: Option<super::search_hits::OpenSearch>,
    },
    /// A session view write or export, run off the UI thread; the result goes back to the
    /// view of `session`.
    View {
        session: PathBuf,
        effect: ViewEffect,
    },
    /// Re-read one session file and update (or add) its row.
    RefreshRecord {
        path: PathBuf,
        agent: Option<Dialect>,
    },
    /// Read the session of the open view again (it grew); the answer is `SessionReread`.
    FollowSession {
        path: PathBuf,
    },
    /// Build threaded rows off the UI thread; the answer is `ThreadsBuilt`.
    BuildThreads(super::live_data::ThreadsRequest),
    /// Read changed paths again (live lists); the answer is `Refreshed`.
    Refresh(super::live_data::RefreshRequest),
    /// Restore the terminal, print this line to stdout, exit 0 (`--print` from the view).
    PrintLine(String),
    /// Check whether an agent still writes the session (mtime, open file handles).
    CheckLive {
        record: usize,
        path: PathBuf,
    },
    AppendRename {
        record: usize,
        path: PathBuf,
        name: String,
    },
    TrashSession {
        record: usize,
        path: PathBuf,
    },
    /// Only after the second, explicit confirmation.
    DeletePermanently {
        record: usize,
        path: PathBuf,
    },
    RestoreTrash(UndoItem),
    /// The trash view: list the session files in the platform trash.
    ListTrash {
        generation: u64,
    },
    /// The trash view: restore the trashed session of this original path (the most recent
    /// delete of it at `deleted_s`) with its backups.
    RestoreFromTrash {
        original: PathBuf,
        deleted_s: Option<i64>,
    },
    /// `--print`: restore the terminal, print the path to stdout, exit 0.
    Print(PathBuf),
    /// Restore the terminal and run the session's agent in its folder.
    LaunchAgent {
        path: PathBuf,
        agent: Dialect,
        cwd: PathBuf,
    },
    Quit {
        code: u8,
    },
    /// Work on grove's state (pins, archive, bulk trash, bookmarks): see [`super::marks`].
    Organise(super::org::OrgEffect),
    /// Put text on the clipboard (the system's, else OSC 52): see [`super::handoff`].
    Copy(super::handoff_types::CopyRequest),
    /// Show text in `$PAGER` or a temporary copy in `$EDITOR`, the terminal handed over
    /// meanwhile: see [`super::handoff`].
    OpenExternal(super::handoff_types::OpenRequest),
}
