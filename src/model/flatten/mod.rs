//! The session tree laid out as rows, the way pi's `/tree` selector shows it.
//!
//! pi's rules (`tree-selector.ts`, see `pi-atomic-behaviour.md` §5): a pre-order walk with the
//! branch holding the current leaf first; a linear chain stays at one indent and only a fork
//! (a parent with several visible children) indents its children, with `├─`/`└─` connectors and
//! `│` gutters; filters hide settings entries, tool results, non-user messages or unlabelled
//! entries; a search keeps the entries whose searchable text holds every query token; folding a
//! node hides its descendants. After every change the visual structure is recomputed over the
//! visible entries (a hidden entry's children hang from its nearest visible ancestor) and the
//! selection moves to the nearest visible ancestor of what was selected.
//!
//! Everything here is O(entries) per change and iterative (no recursion over depth), so a
//! 100 000-entry chain is fine; only the rows on screen are ever turned into text. Rows and
//! search read entries as loaded: top-level fields ([`Entry::slim`]) and a message's
//! [`super::digest::MessageDigest`] (a few direct fields, the first 200 characters of its text,
//! whether it holds any text, tool-call names and arguments cut for display), which are exact
//! for a large session loaded slim too.

mod nav;
mod text;
mod types;

pub use nav::TreeNav;
pub use text::{contains_all, format_tool_call, row_text, search_tokens, searchable_text};
pub use types::{
    FilterMode, GUTTER_LEVELS_SHOWN, Gutter, Row, RowStyle, RowText, ToolCall, ToolCalls,
};

#[cfg(test)]
mod tests;
