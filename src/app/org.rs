//! The data of pins, archive, marks and the bookmarks screen that the app state and the
//! events hold (the logic is in [`super::marks`] and [`super::bookmark_screen`]).

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::storage::state::{
    BookmarkEdit, BookmarkKey, BookmarkMeta, Flag, Flags, SessionKey, StateSnapshot,
};
use crate::storage::trash::Trashed;

use super::bookmarks::Bookmark;
use super::record::SessionRecord;
use super::rows::Row;
use super::text_input::TextInput;

/// Which sessions the list shows, on top of scope and name filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OrgView {
    /// Everything not archived.
    #[default]
    Default,
    /// Only pinned sessions (not archived).
    Pinned,
    /// Only archived sessions.
    Archived,
}

impl OrgView {
    pub fn next(self) -> Self {
        match self {
            OrgView::Default => OrgView::Pinned,
            OrgView::Pinned => OrgView::Archived,
            OrgView::Archived => OrgView::Default,
        }
    }

    pub fn label(self) -> Option<&'static str> {
        match self {
            OrgView::Default => None,
            OrgView::Pinned => Some("Pinned only"),
            OrgView::Archived => Some("Archived"),
        }
    }
}

/// The picker's organising state.
#[derive(Clone, Debug, Default)]
pub struct Organise {
    /// Pins and archive marks, as read from the state database (and changed since).
    pub flags: StateSnapshot,
    pub view: OrgView,
    /// Marked sessions (record indices).
    pub marked: BTreeSet<usize>,
    /// Why the state database cannot be used: pins and archive then say so and do nothing.
    pub unavailable: Option<String>,
    /// Ranges of `AppState::undo` pushed by one bulk trash: one Ctrl+Z restores them all.
    pub undo_batches: Vec<Range<usize>>,
    /// The entry to select once the session view being opened arrives (from a bookmark).
    pub open_at: Option<(PathBuf, String)>,
    /// Whether the state database has been read (see `early`).
    pub loaded: bool,
    /// Changes made before it was read: replayed over what it says.
    pub early: Vec<(SessionKey, Flag, bool)>,
}

impl Organise {
    pub fn flags_of(&self, r: &SessionRecord) -> Flags {
        self.flags.flags(&r.info.id, &r.info.path)
    }

    pub fn is_pinned(&self, r: &SessionRecord) -> bool {
        self.flags_of(r).pinned
    }

    /// Whether the view lets a session through.
    pub(crate) fn shows(&self, r: &SessionRecord) -> bool {
        // Nothing pinned or archived (most users, most of the time): no lookup per row.
        if self.flags.is_empty() {
            return self.view == OrgView::Default;
        }
        let f = self.flags_of(r);
        match self.view {
            OrgView::Default => !f.archived,
            OrgView::Pinned => f.pinned && !f.archived,
            OrgView::Archived => f.archived,
        }
    }
}

/// What the state-database work reports back.
#[derive(Clone, Debug)]
pub enum OrgEvent {
    /// The state at start-up (or why it cannot be used).
    Loaded(Result<StateSnapshot, String>),
    /// A flag change was written (or not: then it is undone on screen).
    Saved {
        keys: Vec<SessionKey>,
        flag: Flag,
        value: bool,
        result: Result<(), String>,
    },
    /// The marked sessions' trash moves, one result each.
    TrashedMarked {
        results: Vec<(usize, Result<Trashed, String>)>,
    },
    /// The bookmarks screen's list.
    Bookmarks(Loaded),
    /// A bookmark's note and tags as saved (or why not).
    BookmarkSaved {
        key: BookmarkKey,
        result: Result<BookmarkMeta, String>,
    },
}

/// Work on grove's state for the effects runner.
#[derive(Clone, Debug)]
pub enum OrgEffect {
    SaveFlags {
        keys: Vec<SessionKey>,
        flag: Flag,
        value: bool,
    },
    /// Pin what the marked sessions are now: the trash refuses a file that changed since.
    PinFiles(Vec<PathBuf>),
    TrashMarked {
        items: Vec<(usize, PathBuf)>,
    },
    LoadBookmarks {
        sessions: Vec<Arc<SessionRecord>>,
    },
    /// A bookmark's note and tags, to the state database.
    SaveBookmark {
        key: BookmarkKey,
        path: PathBuf,
        edit: BookmarkEdit,
    },
}

impl OrgEffect {
    /// Whether quitting waits for it (its event is a write result).
    pub(crate) fn is_write(&self) -> bool {
        matches!(
            self,
            OrgEffect::SaveFlags { .. }
                | OrgEffect::TrashMarked { .. }
                | OrgEffect::SaveBookmark { .. }
        )
    }
}

impl OrgEvent {
    pub(crate) fn is_write_result(&self) -> bool {
        matches!(
            self,
            OrgEvent::Saved { .. }
                | OrgEvent::TrashedMarked { .. }
                | OrgEvent::BookmarkSaved { .. }
        )
    }
}

/// The screen's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookmarkScreen {
    pub all: Vec<Bookmark>,
    pub loading: bool,
    /// Sessions whose file could not be read for its labels.
    pub problems: usize,
    pub query: TextInput,
    /// Indices into `all` that match the query, in order.
    pub shown: Vec<usize>,
    /// Index into `shown`.
    pub selected: usize,
    /// The note (and `#tags`) of the selected bookmark being edited.
    pub editing: Option<TextInput>,
}

impl BookmarkScreen {
    pub(crate) fn refilter(&mut self) {
        let q = self.query.text().trim().to_owned();
        self.shown = (0..self.all.len())
            .filter(|&i| q.is_empty() || self.all[i].matches(&q))
            .collect();
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
    }

    pub fn selected_bookmark(&self) -> Option<&Bookmark> {
        self.all.get(*self.shown.get(self.selected)?)
    }

    pub(crate) fn move_by(&mut self, delta: isize) {
        let target = (self.selected as isize + delta).max(0) as usize;
        self.selected = target.min(self.shown.len().saturating_sub(1));
    }
}

/// What the background load found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    pub bookmarks: Result<Vec<Bookmark>, String>,
    pub problems: usize,
}

/// Pinned rows first (in their order, drawn flat); in the threaded sort (`threaded`) the
/// others are threaded without them.
pub(crate) fn pins_first(
    org: &Organise,
    records: &[Arc<SessionRecord>],
    rows: &mut Vec<Row>,
    threaded: bool,
) {
    if org.flags.is_empty() {
        return;
    }
    let (mut pinned, rest): (Vec<Row>, Vec<Row>) = std::mem::take(rows)
        .into_iter()
        .partition(|row| records.get(row.record).is_some_and(|r| org.is_pinned(r)));
    if pinned.is_empty() {
        *rows = rest;
        return;
    }
    for row in &mut pinned {
        row.prefix.clear();
    }
    let rest = if threaded {
        let listed: Vec<usize> = rest.iter().map(|r| r.record).collect();
        super::threads::threaded_rows(records, &listed)
    } else {
        rest
    };
    pinned.extend(rest);
    *rows = pinned;
}
