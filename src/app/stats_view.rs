//! The stats screen (Alt+S on the list): messages, tokens, cache hit rate and cost of the
//! sessions the list shows (its scope, filters and search), grouped by day, project, model or
//! session, the same numbers as `grove stats`. The files are read off the UI thread; Tab
//! changes the grouping (read again: only the groups are kept, never the sessions).
//! Its keys are in [`super::stats_keys`]; this module holds what it shows.

use std::path::PathBuf;

use crate::model::stats::Totals;
use crate::model::stats::report::{GroupBy, Report, SessionMeta};
use crate::text::sanitize::sanitize_line;

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

const KEY_COLS: usize = 36;

fn cells(t: &Totals) -> String {
    format!(
        "{:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>10}",
        t.messages,
        short_count(t.input),
        short_count(t.output),
        short_count(t.cache_read),
        short_count(t.cache_write),
        t.cache_hit_rate()
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.1}%")),
        format!("${:.4}", t.cost),
    )
}

/// Cut or padded to `cols` columns.
fn fit(s: &str, cols: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let clean = sanitize_line(s);
    let cut = crate::text::sanitize::truncate_width(&clean, cols);
    let pad = cols.saturating_sub(cut.width());
    format!("{cut}{}", " ".repeat(pad))
}

/// The screen's lines (the view styles them).
pub fn lines(v: &StatsView) -> Vec<TextLine> {
    let mut out = vec![TextLine::new(vec![
        (Tone::Bold, format!("{} sessions ({})", v.sessions, v.scope)),
        (Tone::Muted, "  ·  by ".to_owned()),
        (Tone::Accent, v.by.as_str().to_owned()),
        (Tone::Muted, "  ·  tab: group by".to_owned()),
    ])];
    out.push(TextLine::blank());
    let Some(r) = &v.report else {
        out.push(TextLine::one(Tone::Muted, "Reading the sessions…"));
        return out;
    };
    out.push(TextLine::one(
        Tone::MutedBold,
        format!(
            "{} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>10}",
            fit(v.by.as_str(), KEY_COLS),
            "messages",
            "input",
            "output",
            "cache rd",
            "cache wr",
            "hit",
            "cost"
        ),
    ));
    for g in r.rows() {
        let key = match &g.session {
            Some(s) => format!("{} {}", s.id.get(..8).unwrap_or(&s.id), s.title),
            None => g.key.clone(),
        };
        out.push(TextLine::new(vec![
            (Tone::Plain, fit(&key, KEY_COLS)),
            (Tone::Plain, format!(" {}", cells(&g.totals))),
        ]));
    }
    if r.is_empty() {
        out.push(TextLine::one(Tone::Muted, "No usage recorded."));
    }
    out.push(TextLine::new(vec![
        (
            Tone::Bold,
            fit(&format!("total ({} sessions)", r.sessions), KEY_COLS),
        ),
        (Tone::Bold, format!(" {}", cells(&r.total))),
    ]));
    out
}
