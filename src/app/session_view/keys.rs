//! The session view's key table.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::types::Focus;

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
