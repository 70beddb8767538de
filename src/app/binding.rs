//! One row of the key table, and the conditions ([`When`]) that are data in it.

use ratatui::crossterm::event::{KeyCode, KeyModifiers};

use super::actions::{Action, KeyContext};
use super::keyspec::KeySpec;

/// When a binding is live, beyond its layer: data, not special cases in `update`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum When {
    Always,
    /// Only while the search query is empty (a printable key is typed into a query).
    QueryEmpty,
}

impl When {
    /// The condition a key gets in a layer: in the picker, whose typing goes to the search
    /// box, a key that edits text (a printable one, Backspace with any modifier, Delete) acts
    /// only while the query is empty.
    pub(crate) fn for_key(context: KeyContext, key: &KeySpec) -> When {
        let printable = matches!(key.code, KeyCode::Char(_))
            && !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let edits = printable || matches!(key.code, KeyCode::Backspace | KeyCode::Delete);
        if context == KeyContext::Picker && edits {
            When::QueryEmpty
        } else {
            When::Always
        }
    }
}

/// What the state says about the conditions of [`When`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    pub query_empty: bool,
}

impl Conditions {
    pub(crate) fn allow(&self, when: When) -> bool {
        match when {
            When::Always => true,
            When::QueryEmpty => self.query_empty,
        }
    }
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub key: KeySpec,
    pub action: Action,
    pub context: KeyContext,
    pub when: When,
}
