//! The stats screen (Alt+S on the list): messages, tokens, cache hit rate and cost of the
//! sessions the list shows (its scope, filters and search), grouped by day, project, model or
//! session, the same numbers as `grove stats`. The files are read off the UI thread; Tab
//! changes the grouping (read again: only the groups are kept, never the sessions).
//! Its keys are in [`super::stats_keys`]; this module holds what it shows.

use std::path::PathBuf;

use crate::model::stats::Totals;
use crate::model::stats::report::{GroupBy, Report, SessionMeta};
use crate::text::pad::fit_width;

use super::styled::{TextLine, Tone};

/// What the stats screen shows.
#[derive(Clone, Debug, Default)]
pub struct StatsView {
    /// Bumped for every request; older results are dropped.
    pub generation: u64,
    pub by: GroupBy,
    /// How many sessions are counted, and which scope they come from ("this folder", …).
    pub sessions: usize,
    pub scope: String,
    /// `None` while the files are read.
    pub report: Option<Report>,
}

/// Stats to compute off the UI thread.
#[derive(Clone, Debug)]
pub struct StatsRequest {
    pub generation: u64,
    pub by: GroupBy,
    pub sessions: Vec<(PathBuf, SessionMeta)>,
}

/// `1.2k`, `3.4M`.
pub fn short_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

/// The widest the key column (day, project, model, session) gets, and the narrowest before a
/// number column is left out instead.
const KEY_COLS: usize = 36;
const MIN_KEY_COLS: usize = 20;

/// A number column: its head, its width, its cell.
struct NumberColumn {
    head: &'static str,
    width: usize,
    cell: fn(&Totals) -> String,
}

/// The number columns in the order shown.
const COLUMNS: [NumberColumn; 7] = [
    NumberColumn {
        head: "messages",
        width: 8,
        cell: |t| t.messages.to_string(),
    },
    NumberColumn {
        head: "input",
        width: 8,
        cell: |t| short_count(t.input),
    },
    NumberColumn {
        head: "output",
        width: 8,
        cell: |t| short_count(t.output),
    },
    NumberColumn {
        head: "cache rd",
        width: 8,
        cell: |t| short_count(t.cache_read),
    },
    NumberColumn {
        head: "cache wr",
        width: 8,
        cell: |t| short_count(t.cache_write),
    },
    NumberColumn {
        head: "hit",
        width: 6,
        cell: |t| {
            t.cache_hit_rate()
                .map_or_else(|| "-".to_owned(), |r| format!("{r:.1}%"))
        },
    },
    NumberColumn {
        head: "cost",
        width: 10,
        cell: |t| format!("${:.4}", t.cost),
    },
];

/// Which columns are left out first when the screen is narrow (indexes into [`COLUMNS`]):
/// messages and cost stay longest.
const DROP_ORDER: [usize; 5] = [4, 3, 5, 2, 1];

/// The number columns that fit in `width` with a key column of at least [`MIN_KEY_COLS`], and
/// the key column's width.
fn layout(width: usize) -> (Vec<&'static NumberColumn>, usize) {
    let mut shown = [true; 7];
    let need = |shown: &[bool; 7]| -> usize {
        COLUMNS
            .iter()
            .zip(shown)
            .filter(|(_, s)| **s)
            .map(|(c, _)| c.width + 1)
            .sum()
    };
    for i in DROP_ORDER {
        if need(&shown) + MIN_KEY_COLS <= width {
            break;
        }
        shown[i] = false;
    }
    let key = width
        .saturating_sub(need(&shown))
        .clamp(MIN_KEY_COLS, KEY_COLS);
    let columns = COLUMNS
        .iter()
        .zip(shown)
        .filter(|(_, s)| *s)
        .map(|(c, _)| c)
        .collect();
    (columns, key)
}

fn cells(columns: &[&NumberColumn], t: &Totals) -> String {
    columns
        .iter()
        .map(|c| format!(" {:>w$}", (c.cell)(t), w = c.width))
        .collect()
}

/// The screen's lines for `width` columns (the view styles them): the key column narrows,
/// then the least needed number columns are left out, so no column is ever cut.
pub fn lines(v: &StatsView, width: usize) -> Vec<TextLine> {
    let mut out = vec![TextLine::new(vec![
        (Tone::Bold, format!("{} sessions ({})", v.sessions, v.scope)),
        (Tone::Muted, "  ·  by ".to_owned()),
        (Tone::Accent, v.by.as_str().to_owned()),
    ])];
    out.push(TextLine::blank());
    let Some(r) = &v.report else {
        out.push(TextLine::one(Tone::Muted, "Reading the sessions…"));
        return out;
    };
    let (columns, key_cols) = layout(width);
    let heads: String = columns
        .iter()
        .map(|c| format!(" {:>w$}", c.head, w = c.width))
        .collect();
    out.push(TextLine::one(
        Tone::MutedBold,
        format!("{}{heads}", fit_width(v.by.as_str(), key_cols)),
    ));
    for g in r.rows() {
        let key = match &g.session {
            Some(s) => format!("{} {}", s.id.get(..8).unwrap_or(&s.id), s.title),
            None => g.key.clone(),
        };
        out.push(TextLine::new(vec![
            (Tone::Plain, fit_width(&key, key_cols)),
            (Tone::Plain, cells(&columns, &g.totals)),
        ]));
    }
    if r.is_empty() {
        out.push(TextLine::one(Tone::Muted, "No usage recorded."));
    }
    out.push(TextLine::new(vec![
        (
            Tone::Bold,
            fit_width(&format!("total ({} sessions)", r.sessions), key_cols),
        ),
        (Tone::Bold, cells(&columns, &r.total)),
    ]));
    out
}
