//! The rows' vocabulary: filter modes, rows and their gutters, styled row text, tool calls.

use std::collections::HashMap;
use std::sync::Arc;

/// Marks "no row" / "no entry" in the dense per-entry tables.
pub(super) const NONE: u32 = u32::MAX;

/// pi's filter modes, in `Ctrl+O` cycle order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FilterMode {
    /// Everything but settings entries (labels, custom, model / thinking changes, names, edits).
    #[default]
    Default,
    /// Default minus tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labelled entries only.
    LabeledOnly,
    /// Everything (tool-call-only assistant turns are still hidden, as in pi).
    All,
}

impl FilterMode {
    pub const CYCLE: [FilterMode; 5] = [
        FilterMode::Default,
        FilterMode::NoTools,
        FilterMode::UserOnly,
        FilterMode::LabeledOnly,
        FilterMode::All,
    ];

    /// The next mode in `Ctrl+O` order (or the previous one when `forward` is false).
    pub fn cycle(self, forward: bool) -> Self {
        let i = Self::CYCLE.iter().position(|&m| m == self).unwrap_or(0);
        let n = Self::CYCLE.len();
        Self::CYCLE[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    /// The footer tag pi shows (` [no-tools]`, …); empty for the default.
    pub fn tag(self) -> &'static str {
        match self {
            FilterMode::Default => "",
            FilterMode::NoTools => " [no-tools]",
            FilterMode::UserOnly => " [user]",
            FilterMode::LabeledOnly => " [labeled]",
            FilterMode::All => " [all]",
        }
    }
}

/// Levels of branch gutters a row shows at most; a deeper row shows its depth as a number.
pub const GUTTER_LEVELS_SHOWN: usize = 6;

/// One level of vertical line drawn to the left of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gutter {
    /// The indent level (in display indent units) the line sits at.
    pub position: u32,
    /// `│` when true, blank when the branch above was the last one.
    pub show: bool,
}

/// A gutter and the set it extends.
#[derive(Clone, Copy, Debug)]
pub(super) struct GutterLink {
    pub(super) parent: u32,
    pub(super) gutter: Gutter,
}

/// One visible row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Index of the entry in the session.
    pub entry: usize,
    /// pi's `indent` (before the multiple-roots adjustment, see [`TreeNav::display_indent`]).
    pub indent: u32,
    pub show_connector: bool,
    pub is_last: bool,
    pub is_virtual_root_child: bool,
    /// Index into the gutter sets (rows of one run share a set).
    pub(super) gutters: u32,
}

pub use crate::model::digest::ToolCall;

/// Tool calls by id, to label their results. Hashed with foldhash: a big session has a
/// hundred thousand of them.
pub type ToolCalls = HashMap<Arc<str>, Arc<ToolCall>, foldhash::fast::RandomState>;

/// How a piece of row text is styled; the UI maps these to colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStyle {
    Plain,
    /// `user: `
    UserLabel,
    /// `assistant: `
    AssistantLabel,
    Muted,
    Dim,
    Error,
    /// `[branch summary]: `, labels.
    Warning,
    /// `[<customType>]: `
    CustomLabel,
    /// `[compaction: …]`
    Compaction,
    /// Italic `empty` in `[title: empty]`.
    DimItalic,
}

/// The text of one row, in styled pieces, sanitised and on one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowText {
    pub spans: Vec<(RowStyle, String)>,
}

impl RowText {
    pub(super) fn push(&mut self, style: RowStyle, text: impl Into<String>) {
        self.spans.push((style, text.into()));
    }

    /// The row as plain text.
    pub fn plain(&self) -> String {
        self.spans.iter().map(|(_, s)| s.as_str()).collect()
    }
}
