//! State changes shared by the event handlers ([`super::update`]) and the key handlers
//! ([`super::picker_keys`]): status messages, query and search bookkeeping, delete marks,
//! and turning the session view's effects into the app's.

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::app::layout::picker_layout;
use crate::model::search::Query;

use super::event::Effect;
use super::session_view::types::ViewEffect;
use super::state::{AppState, Screen, Status, StatusKind};

const INFO_TICKS: u32 = 12;
const ERROR_TICKS: u32 = 24;

pub(crate) fn mark_deleted(state: &mut AppState, record: usize, deleted: bool) {
    if let Some(d) = state.picker.deleted.get_mut(record) {
        *d = deleted;
    }
    state.picker.rebuild_rows();
}

pub(crate) fn set_status(state: &mut AppState, text: String, kind: StatusKind) {
    let ticks_left = if kind == StatusKind::Error {
        ERROR_TICKS
    } else {
        INFO_TICKS
    };
    state.status = Some(Status {
        text,
        kind,
        ticks_left,
    });
}

/// Starts a search for the current query over all records; older results will be dropped.
/// The request itself goes out in [`settle`]: one per burst of keys or scan batches.
pub(crate) fn start_search(state: &mut AppState, reset_selection: bool) {
    let search = &mut state.picker.search;
    if search.query.is_none() {
        return;
    }
    search.generation += 1;
    search.pending = true;
    search.reset_selection |= reset_selection;
    search.queued = true;
}

pub(crate) fn query_changed(state: &mut AppState) {
    let text = state.picker.query.text().trim().to_owned();
    let search = &mut state.picker.search;
    // Whatever is in flight belongs to the old text.
    search.generation += 1;
    search.pending = false;
    search.reset_selection = false;
    if text.is_empty() {
        search.query = None;
        search.error = None;
        search.matches.clear();
        state.picker.rebuild_rows();
        return;
    }
    match Query::parse(&text) {
        Err(e) => {
            search.query = None;
            search.error = Some(e.to_string());
            search.matches.clear();
            state.picker.rebuild_rows();
        }
        Ok(q) => {
            search.error = None;
            search.query = Some(Arc::new(q));
            start_search(state, true);
        }
    }
}

pub(crate) fn list_height(state: &AppState) -> usize {
    let area = Rect::new(0, 0, state.viewport.0, state.viewport.1);
    picker_layout(area, state.preview_visible()).list.height as usize
}

/// Turns the session view's effects into the app's.
pub(crate) fn view_effects(
    state: &mut AppState,
    record: usize,
    session: PathBuf,
    effects: Vec<ViewEffect>,
    fx: &mut Vec<Effect>,
) {
    for e in effects {
        match e {
            ViewEffect::Quit => request_quit(state, fx),
            ViewEffect::Close => {
                // Its row shows the session as it is now.
                state.picker.live.pending.insert(session.clone());
                if let Screen::View { view, .. } =
                    std::mem::replace(&mut state.screen, Screen::Picker)
                {
                    // The pane sizes are kept for the next session; a zoom is not.
                    state.view_panes = crate::app::session_view::geometry::Panes {
                        zoomed: false,
                        ..view.panes
                    };
                    fx.push(Effect::Discard(Arc::from(view)));
                }
            }
            ViewEffect::Resume {
                path,
                entry_id,
                dialect,
            } => {
                if state.options.print_mode {
                    let line = match entry_id {
                        Some(id) => format!("{} {id}", path.display()),
                        None => path.display().to_string(),
                    };
                    fx.push(Effect::PrintLine(line));
                } else {
                    let cwd = state
                        .picker
                        .records
                        .get(record)
                        .map(|r| PathBuf::from(&r.info.cwd))
                        .unwrap_or_default();
                    fx.push(Effect::LaunchAgent {
                        path,
                        agent: dialect,
                        cwd,
                    });
                }
            }
            ViewEffect::SessionChanged { path } => {
                state.previews.remove(&path);
                let agent = state.picker.records.get(record).map(|r| r.info.agent);
                fx.push(Effect::RefreshRecord { path, agent });
            }
            ViewEffect::SessionCreated { path, parent } => {
                state.open_after_fork = Some(super::state::PendingFork {
                    path: path.clone(),
                    parent,
                });
                let agent = state.picker.records.get(record).map(|r| r.info.agent);
                fx.push(Effect::RefreshRecord { path, agent });
            }
            effect => fx.push(Effect::View {
                session: session.clone(),
                effect,
            }),
        }
    }
}

pub(crate) fn resume(state: &mut AppState, record: Option<usize>, fx: &mut Vec<Effect>) {
    let r = match record {
        Some(i) => state.picker.records.get(i),
        None => state.selected(),
    };
    let Some(r) = r else { return };
    fx.push(Effect::LaunchAgent {
        path: r.info.path.clone(),
        agent: r.info.agent,
        cwd: PathBuf::from(&r.info.cwd),
    });
}

/// Quits now, or once the writes in flight have finished (a write is never cut off).
pub(crate) fn request_quit(state: &mut AppState, fx: &mut Vec<Effect>) {
    if state.writes_in_flight > 0 {
        state.quit_when_idle = true;
        set_status(
            state,
            "Finishing a write, then quitting…".into(),
            StatusKind::Info,
        );
        return;
    }
    fx.push(Effect::Quit {
        code: if state.options.print_mode { 130 } else { 0 },
    });
}
