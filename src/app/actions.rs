//! Everything a key can do, and the layers (screens and popups) a binding belongs to: names
//! for the config file, footer words and help lines.

/// Where a binding applies. [`KeyContext::Global`] bindings work on every screen and popup,
/// before the layer's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyContext {
    Global,
    /// The session list.
    Picker,
    /// One session's preview, full-screen, while its view loads.
    Preview,
    /// The session view, tree pane focused.
    Tree,
    /// The session view, transcript pane focused.
    Transcript,
    /// Text inputs: the search boxes, rename, label, export name.
    Input,
    /// Yes/no confirmations (trash, check-out, overwrite).
    Confirm,
    /// The permanent-deletion confirmation: only its own key deletes; any other keeps.
    Danger,
    /// The help overlay; any key not bound here closes it.
    Help,
    /// The list of unreadable files (Ctrl+E); any key not bound here closes it.
    Problems,
    /// A notice over the screen (config problems at start); any key not bound here does
    /// nothing, so keys meant for the screen under it are not acted on unseen.
    Notice,
    /// The trash view (Alt+T): trashed session files, to restore.
    Trash,
    /// The bookmarks screen (labelled entries of every session); typing searches.
    Bookmarks,
    /// The stats screen (Alt+S); any key not bound here closes it.
    Stats,
    /// The hand-off popup (`y` in the view, Alt+Y in the list): copy or open what it lists.
    Handoff,
}

impl KeyContext {
    pub const ALL: [KeyContext; 15] = [
        KeyContext::Global,
        KeyContext::Picker,
        KeyContext::Preview,
        KeyContext::Tree,
        KeyContext::Transcript,
        KeyContext::Input,
        KeyContext::Confirm,
        KeyContext::Danger,
        KeyContext::Help,
        KeyContext::Problems,
        KeyContext::Notice,
        KeyContext::Trash,
        KeyContext::Bookmarks,
        KeyContext::Stats,
        KeyContext::Handoff,
    ];

    /// `(name used in the config's layer prefix, title in the help and README)`.
    pub fn info(self) -> (&'static str, &'static str) {
        match self {
            KeyContext::Global => ("global", "Everywhere"),
            KeyContext::Picker => ("picker", "Session list"),
            KeyContext::Preview => ("preview", "Session preview"),
            KeyContext::Tree => ("tree", "Session view: tree"),
            KeyContext::Transcript => ("transcript", "Session view: transcript"),
            KeyContext::Input => ("input", "Text inputs"),
            KeyContext::Confirm => ("confirm", "Confirmations"),
            KeyContext::Danger => ("danger", "Permanent deletion"),
            KeyContext::Help => ("help", "Help"),
            KeyContext::Problems => ("problems", "Unreadable files list"),
            KeyContext::Notice => ("notice", "Notice"),
            KeyContext::Trash => ("trash", "Trash view"),
            KeyContext::Bookmarks => ("bookmarks", "Bookmarks"),
            KeyContext::Stats => ("stats", "Stats screen"),
            KeyContext::Handoff => ("handoff", "Copy or open (hand-off)"),
        }
    }

    pub fn name(self) -> &'static str {
        self.info().0
    }

    pub fn from_name(name: &str) -> Option<KeyContext> {
        KeyContext::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Everything a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Open,
    /// Open the session view even in `--print` mode (where Enter prints the path).
    View,
    Resume,
    ToggleScope,
    CycleSort,
    ToggleNamed,
    TogglePath,
    TogglePreview,
    Rename,
    Delete,
    Undo,
    /// List the files that could not be read as sessions, with the reason.
    Problems,
    /// Open the trash view: the session files in the platform trash.
    TrashView,
    /// Trash view: restore the selected session (asks first).
    Restore,
    Fold,
    Unfold,
    FilterDefault,
    FilterNoTools,
    FilterUserOnly,
    FilterLabeled,
    FilterAll,
    NextFilter,
    PrevFilter,
    Search,
    NextHit,
    PrevHit,
    SwitchPane,
    Expand,
    ExpandAll,
    /// `<`: the tree pane narrower.
    NarrowTree,
    /// `>`: the tree pane wider.
    WidenTree,
    /// `z`: the focused pane full-screen, or back.
    Zoom,
    Label,
    Checkout,
    Fork,
    Export,
    Help,
    /// Esc: clears a search, leaves the transcript, else back (in the list: quits).
    Back,
    /// `q`: leaves the view or closes the popup at once.
    Leave,
    Quit,
    /// Text inputs: keep what was typed.
    Confirm,
    /// Text inputs: drop it.
    Cancel,
    Yes,
    No,
    DeleteForever,
    /// Dismiss a notice: the status line's first, or the popup in front.
    Dismiss,
    /// Mark or unmark the selected session (for acting on many at once).
    Mark,
    /// Pin or unpin the marked (else the selected) sessions.
    Pin,
    /// Archive or unarchive the marked (else the selected) sessions.
    Archive,
    /// All sessions → pinned only → archived.
    CycleView,
    /// The bookmarks screen.
    Bookmarks,
    /// Bookmarks screen: edit the selected bookmark's note and tags.
    EditNote,
    /// Read the sessions again now (the list; in the view, the session).
    Refresh,
    /// The stats screen of the listed sessions.
    Stats,
    /// Stats screen: the next grouping.
    StatsGroup,
    /// Threaded list: fold / unfold / toggle the selected session's family.
    FoldFamily,
    UnfoldFamily,
    ToggleFamily,
    /// Hide or show the sessions that have a parent session, in every sort.
    HideChildren,
    /// The hand-off popup: copy the entry text, id, path or resume command; open in a pager
    /// or editor ([`super::handoff`]).
    Yank,
    /// Hand-off: copy the selected entry's text (the list: the first message).
    CopyText,
    CopyId,
    CopyPath,
    /// Hand-off: copy the command that resumes the session in its agent.
    CopyResume,
    /// Open the selected entry's text in `$PAGER`.
    PagerEntry,
    /// Open the selected branch's transcript in `$PAGER`.
    PagerBranch,
    /// Open a copy of the selected entry's text in `$EDITOR` (never the session file).
    EditorEntry,
    /// Open a copy of the selected branch's transcript in `$EDITOR`.
    EditorBranch,
}

/// What the table says about an action.
pub struct ActionInfo {
    /// The name used in the config file (`[keys] rename = "ctrl+e"`).
    pub name: &'static str,
    /// The short word shown in the footer (`None`: only in the help).
    pub hint: Option<&'static str>,
    /// One line for the help overlay.
    pub description: &'static str,
}

impl Action {
    pub const ALL: [Action; 74] = [
        Action::Up,
        Action::Down,
        Action::PageUp,
        Action::PageDown,
        Action::Home,
        Action::End,
        Action::Open,
        Action::View,
        Action::Resume,
        Action::ToggleScope,
        Action::CycleSort,
        Action::ToggleNamed,
        Action::TogglePath,
        Action::TogglePreview,
        Action::Rename,
        Action::Delete,
        Action::Undo,
        Action::Problems,
        Action::TrashView,
        Action::Restore,
        Action::Fold,
        Action::Unfold,
        Action::FilterDefault,
        Action::FilterNoTools,
        Action::FilterUserOnly,
        Action::FilterLabeled,
        Action::FilterAll,
        Action::NextFilter,
        Action::PrevFilter,
        Action::Search,
        Action::NextHit,
        Action::PrevHit,
        Action::SwitchPane,
        Action::Expand,
        Action::ExpandAll,
        Action::NarrowTree,
        Action::WidenTree,
        Action::Zoom,
        Action::Label,
        Action::Checkout,
        Action::Fork,
        Action::Export,
        Action::Help,
        Action::Back,
        Action::Leave,
        Action::Quit,
        Action::Confirm,
        Action::Cancel,
        Action::Yes,
        Action::No,
        Action::DeleteForever,
        Action::Dismiss,
        Action::Mark,
        Action::Pin,
        Action::Archive,
        Action::CycleView,
        Action::Bookmarks,
        Action::EditNote,
        Action::Refresh,
        Action::Stats,
        Action::StatsGroup,
        Action::FoldFamily,
        Action::UnfoldFamily,
        Action::ToggleFamily,
        Action::HideChildren,
        Action::Yank,
        Action::CopyText,
        Action::CopyId,
        Action::CopyPath,
        Action::CopyResume,
        Action::PagerEntry,
        Action::PagerBranch,
        Action::EditorEntry,
        Action::EditorBranch,
    ];

    pub fn info(self) -> ActionInfo {
        use Action as A;
        let (name, hint, description) = match self {
            A::Up => ("up", None, "move up (tree: wraps around) / scroll up"),
            A::Down => ("down", None, "move down (tree: wraps around) / scroll down"),
            A::PageUp => ("page-up", None, "one page up"),
            A::PageDown => ("page-down", None, "one page down"),
            A::Home => ("home", None, "first entry / top"),
            A::End => ("end", None, "last entry / bottom"),
            A::Open => (
                "open",
                Some("open"),
                "open the session view, on the hit of a content match ([picker] enter = \"resume\": resume; --print: print the path)",
            ),
            A::View => ("view", None, "open the session view (also with --print)"),
            A::Resume => (
                "resume",
                Some("resume"),
                "resume the session in its agent (pi / atomic); in the view, off the leaf, offers to check the entry out first",
            ),
            A::ToggleScope => (
                "toggle-scope",
                Some("scope"),
                "current folder → its git repository (worktrees too) → all folders",
            ),
            A::CycleSort => (
                "cycle-sort",
                Some("sort"),
                "sort: threaded → recent → fuzzy → created → size → cost",
            ),
            A::ToggleNamed => ("toggle-named", Some("named"), "only named sessions ↔ all"),
            A::TogglePath => ("toggle-path", Some("path"), "show the file path"),
            A::TogglePreview => (
                "toggle-preview",
                Some("preview"),
                "show or hide the preview pane",
            ),
            A::Rename => ("rename", Some("rename"), "rename the session"),
            A::Delete => ("delete", Some("delete"), "move to the trash (asks first)"),
            A::Undo => ("undo", Some("undo"), "restore the last deleted session"),
            A::Problems => (
                "problems",
                None,
                "list the files that could not be read, and why",
            ),
            A::TrashView => (
                "trash",
                None,
                "the trash: sessions deleted by any run, to restore",
            ),
            A::Restore => (
                "restore",
                Some("restore"),
                "restore the session with its backups, byte for byte (asks first)",
            ),
            A::Fold => (
                "fold",
                Some("fold"),
                "fold the branch, or jump to the start of its segment",
            ),
            A::Unfold => (
                "unfold",
                None,
                "unfold, or jump to the next branch point / branch end",
            ),
            A::FilterDefault => (
                "filter-default",
                None,
                "filter: default (no settings entries)",
            ),
            A::FilterNoTools => ("filter-no-tools", None, "filter: no tool results (toggle)"),
            A::FilterUserOnly => ("filter-user", None, "filter: user messages only (toggle)"),
            A::FilterLabeled => (
                "filter-labeled",
                None,
                "filter: labelled entries only (toggle)",
            ),
            A::FilterAll => ("filter-all", None, "filter: everything (toggle)"),
            A::NextFilter => ("next-filter", Some("filter"), "next filter"),
            A::PrevFilter => ("prev-filter", None, "previous filter"),
            A::Search => (
                "search",
                Some("search"),
                "search (the tree filters while typing)",
            ),
            A::NextHit => ("next-hit", None, "next search hit"),
            A::PrevHit => ("prev-hit", None, "previous search hit"),
            A::SwitchPane => (
                "switch-pane",
                Some("pane"),
                "switch between tree and transcript",
            ),
            A::Expand => (
                "expand",
                Some("expand"),
                "expand / collapse the first folded block on screen",
            ),
            A::ExpandAll => ("expand-all", None, "expand / collapse every block"),
            A::NarrowTree => (
                "narrow-tree",
                None,
                "tree pane narrower (kept while grove runs)",
            ),
            A::WidenTree => (
                "widen-tree",
                Some("wider"),
                "tree pane wider (kept while grove runs)",
            ),
            A::Zoom => (
                "zoom",
                Some("zoom"),
                "focused pane full-screen, or back (tab switches the pane shown)",
            ),
            A::Label => (
                "label",
                Some("label"),
                "label the selected entry (empty removes)",
            ),
            A::Checkout => (
                "checkout",
                Some("checkout"),
                "check out: make the selected entry the session's leaf",
            ),
            A::Fork => (
                "fork",
                Some("fork"),
                "fork: new session holding the path to the selected entry",
            ),
            A::Export => (
                "export",
                Some("export"),
                "export the selected branch to Markdown",
            ),
            A::Help => ("help", Some("help"), "this help"),
            A::Back => (
                "back",
                Some("back"),
                "clear the search, leave the transcript, else back (list: quit)",
            ),
            A::Leave => ("leave", None, "leave the view / close the popup"),
            A::Quit => (
                "quit",
                Some("quit"),
                "quit grove (a write in flight finishes first)",
            ),
            A::Confirm => ("confirm", Some("ok"), "keep what was typed"),
            A::Cancel => ("cancel", Some("cancel"), "cancel"),
            A::Yes => ("yes", Some("yes"), "yes, do it"),
            A::No => ("no", Some("no"), "no, cancel"),
            A::Dismiss => (
                "dismiss",
                None,
                "dismiss the notice (the status line's first, or the popup)",
            ),
            A::Mark => (
                "mark",
                None,
                "mark / unmark the session (delete, pin, archive act on all marked)",
            ),
            A::Pin => ("pin", None, "pin / unpin: pinned sessions come first"),
            A::Archive => (
                "archive",
                None,
                "archive / unarchive (nothing moves on disk)",
            ),
            A::CycleView => ("cycle-view", None, "show: all → pinned only → archived"),
            A::EditNote => (
                "edit-note",
                Some("note"),
                "edit the bookmark's note; #words in it are its tags",
            ),
            A::Bookmarks => (
                "bookmarks",
                None,
                "bookmarks: the labelled entries of every session",
            ),
            A::Refresh => ("refresh", Some("refresh"), "read the sessions again now"),
            A::Stats => (
                "stats",
                None,
                "stats: messages, tokens, cache hits and cost of the listed sessions",
            ),
            A::FoldFamily => (
                "fold-family",
                None,
                "threaded: fold the session's forks and subagents, or the family it is in",
            ),
            A::UnfoldFamily => (
                "unfold-family",
                None,
                "threaded: unfold the session's forks and subagents",
            ),
            A::ToggleFamily => (
                "toggle-family",
                None,
                "threaded: fold or unfold the session's family",
            ),
            A::HideChildren => (
                "hide-children",
                None,
                "hide or show child sessions (forks, subagents) in every sort",
            ),
            A::StatsGroup => (
                "stats-group",
                Some("group by"),
                "stats: group by day → project → model → session",
            ),
            A::Yank => (
                "yank",
                Some("copy"),
                "copy or open (text, id, path, resume command; pager, editor)",
            ),
            A::CopyText => (
                "copy-text",
                Some("text"),
                "copy the entry's text (the list: the first message)",
            ),
            A::CopyId => ("copy-id", Some("id"), "copy the session id"),
            A::CopyPath => ("copy-path", Some("path"), "copy the session file's path"),
            A::CopyResume => (
                "copy-resume",
                Some("resume command"),
                "copy the command that resumes the session (cd to its folder, then the agent)",
            ),
            A::PagerEntry => (
                "pager",
                None,
                "open the entry's text in $PAGER (default less)",
            ),
            A::PagerBranch => (
                "pager-branch",
                None,
                "open the branch's transcript in $PAGER",
            ),
            A::EditorEntry => (
                "editor",
                None,
                "open a copy of the entry's text in $VISUAL / $EDITOR (default vi)",
            ),
            A::EditorBranch => (
                "editor-branch",
                None,
                "open a copy of the branch's transcript in $VISUAL / $EDITOR",
            ),
            A::DeleteForever => (
                "delete-forever",
                Some("delete forever"),
                "delete permanently (any other key keeps the session)",
            ),
        };
        ActionInfo {
            name,
            hint,
            description,
        }
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}
