//! Keys of the stats screen, and opening it (see [`super::stats_view`]).

use std::path::PathBuf;

use crate::model::stats::report::{Report, SessionMeta};

use super::event::Effect;
use super::keymap::Action;
use super::state::{AppState, Mode, Scope};
use super::stats_view::{StatsRequest, StatsView, lines};

/// Opens the stats screen for the sessions listed now.
pub(crate) fn open(state: &mut AppState, fx: &mut Vec<Effect>) {
    let by = state.stats.as_ref().map(|s| s.by).unwrap_or_default();
    let generation = state.stats.as_ref().map_or(0, |s| s.generation) + 1;
    let sessions: Vec<(PathBuf, SessionMeta)> = state
        .picker
        .rows
        .iter()
        .filter_map(|row| state.picker.records.get(row.record))
        .map(|r| {
            let i = &r.info;
            (
                i.path.clone(),
                SessionMeta {
                    path: i.path.to_string_lossy().into_owned(),
                    id: i.id.clone(),
                    cwd: i.cwd.clone(),
                    title: i.title().to_owned(),
                },
            )
        })
        .collect();
    let scope = scope_label(state);
    state.stats = Some(StatsView {
        generation,
        by,
        sessions: sessions.len(),
        scope,
        report: None,
    });
    state.mode = Mode::Stats { scroll: 0 };
    fx.push(Effect::LoadStats(StatsRequest {
        generation,
        by,
        sessions,
    }));
}

fn scope_label(state: &AppState) -> String {
    let mut s = match state.picker.scope {
        Scope::Current => "this folder".to_owned(),
        Scope::Repo => "this repository".to_owned(),
        Scope::All => "all folders".to_owned(),
    };
    if state.picker.has_query() {
        s.push_str(", matching the search");
    }
    s
}

/// A key on the stats screen: scroll, change the grouping, or close.
pub(crate) fn key(state: &mut AppState, action: Option<Action>, fx: &mut Vec<Effect>) {
    let Mode::Stats { scroll } = state.mode else {
        return;
    };
    if action == Some(Action::StatsGroup) {
        if let Some(v) = &mut state.stats {
            v.by = v.by.next();
        }
        open(state, fx);
        return;
    }
    let max = state
        .stats
        .as_ref()
        .map_or(0, |v| lines(v, usize::MAX).len() + 1);
    let max = max.min(u16::MAX as usize) as u16;
    state.mode = match action {
        Some(Action::Down) => Mode::Stats {
            scroll: scroll.saturating_add(1).min(max),
        },
        Some(Action::Up) => Mode::Stats {
            scroll: scroll.saturating_sub(1),
        },
        Some(Action::PageDown) => Mode::Stats {
            scroll: scroll.saturating_add(10).min(max),
        },
        Some(Action::PageUp) => Mode::Stats {
            scroll: scroll.saturating_sub(10),
        },
        _ => Mode::Normal,
    };
}

/// A report came back.
pub(crate) fn on_ready(state: &mut AppState, generation: u64, report: Report) {
    if let Some(v) = &mut state.stats
        && v.generation == generation
    {
        v.report = Some(report);
        state.dirty = true;
    }
}
