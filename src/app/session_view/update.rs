//! The session view's key handling: a key in, state changes and [`ViewEffect`]s out, no I/O.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

use crate::model::flatten::FilterMode;

use crate::app::text_input::{Edit, TextInput};

use super::state::SessionViewState;
use super::types::{Focus, Mode, ViewEffect};
use crate::app::keymap::{Action, Conditions, KeyContext, Keymap, default_keymap};

/// Why an export waits in a view of the leaf branch alone.
const EXPORT_WAITS: &str = "The whole session is still loading: export once it is shown";

/// Handles one key with the default key map. Returns the effects for the loop to run;
/// performs no I/O.
pub fn update(state: &mut SessionViewState, key: KeyEvent) -> Vec<ViewEffect> {
    let effects = apply_key(state, key);
    settle(state);
    effects
}

/// Brings the transcript up to the tree's selection: once per burst of keys, before drawing.
pub fn settle(state: &mut SessionViewState) {
    state.sync_transcript();
}

/// [`apply_key_with`] the default key map.
pub fn apply_key(state: &mut SessionViewState, key: KeyEvent) -> Vec<ViewEffect> {
    apply_key_with(state, key, default_keymap())
}

/// The key layer the view is in: its popup's, else the focused pane's.
pub fn view_context(state: &SessionViewState) -> KeyContext {
    match &state.mode {
        Mode::Normal => match state.focus {
            Focus::Tree => KeyContext::Tree,
            Focus::Transcript => KeyContext::Transcript,
        },
        Mode::Help { .. } => KeyContext::Help,
        Mode::TreeSearch(_)
        | Mode::TranscriptSearch(_)
        | Mode::Label { .. }
        | Mode::ExportName(_) => KeyContext::Input,
        Mode::ConfirmCheckout { .. } | Mode::ConfirmOverwrite { .. } | Mode::ConfirmResume(_) => {
            KeyContext::Confirm
        }
    }
}

/// The mouse wheel: one step up or down in the focused pane.
pub fn wheel(state: &mut SessionViewState, up: bool) {
    if state.mode == Mode::Normal {
        let action = if up { Action::Up } else { Action::Down };
        if !(state.focus == Focus::Tree) {
            state.sync_transcript();
        }
        let _ = run_action(state, action);
    }
}

/// [`update`] without building the transcript for where the selection ends up: a held arrow key
/// moves the selection through many entries, and building each one's branch (the whole context
/// of a long session) per repeat would queue seconds of work. Keys that read the transcript
/// bring it up to date first; call [`settle`] after the burst.
pub fn apply_key_with(
    state: &mut SessionViewState,
    key: KeyEvent,
    keymap: &Keymap,
) -> Vec<ViewEffect> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let any = Conditions { query_empty: true };
    let action = keymap.lookup(&key, view_context(state), any);
    if action == Some(Action::Quit) {
        return vec![ViewEffect::Quit];
    }
    if !moves_only_the_tree(state, action) {
        state.sync_transcript();
    }
    let mode = std::mem::replace(&mut state.mode, Mode::Normal);
    match mode {
        Mode::Normal => {
            state.status = None;
            match action {
                Some(a) => run_action(state, a),
                None => Vec::new(),
            }
        }
        Mode::Help { scroll } => {
            let lines = crate::app::help::view_help_lines(keymap).len() + 2;
            if let Some(s) = crate::app::popup_keys::scroll_popup(action, scroll, lines) {
                state.mode = Mode::Help { scroll: s };
            }
            Vec::new()
        }
        Mode::TreeSearch(input) => tree_search_key(state, input, &key, action),
        Mode::TranscriptSearch(input) => transcript_search_key(state, input, &key, action),
        Mode::Label { target, input } => label_key(state, target, input, &key, action),
        Mode::ConfirmCheckout {
            target,
            resumes_after,
        } => match action {
            Some(Action::Yes) => {
                let id = state.session.entry(target).map(|e| e.id.clone());
                match id {
                    Some(target_id) => {
                        state.set_status("Checking out…", false);
                        vec![ViewEffect::Checkout {
                            path: state.path.clone(),
                            target_id,
                        }]
                    }
                    None => Vec::new(),
                }
            }
            Some(Action::No) => {
                state.set_status("Check-out cancelled", false);
                Vec::new()
            }
            _ => {
                state.mode = Mode::ConfirmCheckout {
                    target,
                    resumes_after,
                };
                Vec::new()
            }
        },
        Mode::ConfirmResume(offer) => super::resume_offer::offer_key(state, offer, action),
        Mode::ExportName(mut input) => match action {
            Some(Action::Confirm) => {
                let name = input.text().trim().to_owned();
                if name.is_empty() {
                    state.mode = Mode::ExportName(input);
                    return Vec::new();
                }
                if state.leaf_first {
                    state.set_status(EXPORT_WAITS, true);
                    state.mode = Mode::ExportName(input);
                    return Vec::new();
                }
                match state.export_contents(std::path::Path::new(&name)) {
                    Some(contents) => vec![ViewEffect::Export {
                        file: PathBuf::from(name),
                        contents,
                        overwrite: false,
                    }],
                    None => Vec::new(),
                }
            }
            Some(Action::Cancel) => {
                state.set_status("Export cancelled", false);
                Vec::new()
            }
            _ => {
                input.handle_key(&key);
                state.mode = Mode::ExportName(input);
                Vec::new()
            }
        },
        Mode::ConfirmOverwrite { file } => match action {
            Some(Action::Yes) if state.leaf_first => {
                state.set_status(EXPORT_WAITS, true);
                state.mode = Mode::ConfirmOverwrite { file };
                Vec::new()
            }
            Some(Action::Yes) => match state.export_contents(&file) {
                Some(contents) => vec![ViewEffect::Export {
                    file,
                    contents,
                    overwrite: true,
                }],
                None => Vec::new(),
            },
            Some(Action::No) => {
                // Back to the name, to pick another one.
                let name = file.to_string_lossy().into_owned();
                state.mode = Mode::ExportName(TextInput::with_text(&name));
                Vec::new()
            }
            _ => {
                state.mode = Mode::ConfirmOverwrite { file };
                Vec::new()
            }
        },
    }
}

/// Keys that change only the tree (selection, folds, filters, the tree search) and never read
/// the transcript: they may leave it stale until [`settle`].
fn moves_only_the_tree(state: &SessionViewState, action: Option<Action>) -> bool {
    match &state.mode {
        // Typing filters the tree; Enter/Esc confirm or clear the query.
        Mode::TreeSearch(_) => true,
        Mode::Normal => match action {
            Some(
                Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End,
            ) => state.focus == Focus::Tree,
            Some(
                Action::Fold
                | Action::Unfold
                | Action::FilterDefault
                | Action::FilterNoTools
                | Action::FilterUserOnly
                | Action::FilterLabeled
                | Action::FilterAll
                | Action::NextFilter
                | Action::PrevFilter,
            ) => true,
            _ => false,
        },
        _ => false,
    }
}

fn run_action(state: &mut SessionViewState, action: Action) -> Vec<ViewEffect> {
    let session = &state.session;
    let tree_focus = state.focus == Focus::Tree;
    match action {
        Action::Up if tree_focus => state.nav.move_up(),
        Action::Down if tree_focus => state.nav.move_down(),
        Action::PageUp if tree_focus => state.nav.page_up(state.tree_list_height()),
        Action::PageDown if tree_focus => state.nav.page_down(state.tree_list_height()),
        Action::Home if tree_focus => state.nav.select_first(),
        Action::End if tree_focus => state.nav.select_last(),
        Action::Up => state.transcript_scroll = state.transcript_scroll.saturating_sub(1),
        Action::Down => {
            state.transcript_scroll = (state.transcript_scroll + 1).min(state.transcript_bottom());
        }
        Action::PageUp => {
            let page = state.transcript_size().1.saturating_sub(1).max(1);
            state.transcript_scroll = state.transcript_scroll.saturating_sub(page);
        }
        Action::PageDown => {
            let page = state.transcript_size().1.saturating_sub(1).max(1);
            state.transcript_scroll =
                (state.transcript_scroll + page).min(state.transcript_bottom());
        }
        Action::Home => state.transcript_to_start(),
        Action::End => state.transcript_to_end(),
        Action::Fold => state.nav.fold_or_up(session),
        Action::Unfold => state.nav.unfold_or_down(session),
        Action::FilterDefault => state.nav.set_filter(session, FilterMode::Default),
        Action::FilterNoTools => state.nav.toggle_filter(session, FilterMode::NoTools),
        Action::FilterUserOnly => state.nav.toggle_filter(session, FilterMode::UserOnly),
        Action::FilterLabeled => state.nav.toggle_filter(session, FilterMode::LabeledOnly),
        Action::FilterAll => state.nav.toggle_filter(session, FilterMode::All),
        Action::NextFilter => state.nav.cycle_filter(session, true),
        Action::PrevFilter => state.nav.cycle_filter(session, false),
        Action::Search if tree_focus => {
            let q = state.tree_search.take().unwrap_or_default();
            state.nav.set_query(session, &q);
            state.mode = Mode::TreeSearch(TextInput::with_text(&q));
        }
        Action::Search => {
            let q = state.transcript_search.clone().unwrap_or_default();
            state.mode = Mode::TranscriptSearch(TextInput::with_text(&q));
        }
        Action::NextHit | Action::PrevHit => {
            jump_to_hit(state, action == Action::NextHit);
        }
        Action::SwitchPane => {
            state.focus = if tree_focus {
                Focus::Transcript
            } else {
                Focus::Tree
            };
            if state.panes.zoomed {
                // The other pane is shown now, at another width.
                state.set_panes(state.panes);
            }
        }
        Action::WidenTree | Action::NarrowTree => {
            let mut panes = state.panes;
            panes.zoomed = false;
            panes.resize_tree(state.viewport, action == Action::WidenTree);
            state.set_panes(panes);
        }
        Action::Zoom => {
            let mut panes = state.panes;
            panes.zoomed = !panes.zoomed;
            state.set_panes(panes);
        }
        Action::Expand => toggle_block(state, false),
        Action::ExpandAll => toggle_block(state, true),
        Action::Label => {
            if let Some(sel) = state.nav.selected_entry() {
                let current = state
                    .session
                    .tree
                    .label_of(state.session.entries(), sel)
                    .map(|l| l.text.clone())
                    .unwrap_or_default();
                state.mode = Mode::Label {
                    target: sel,
                    input: TextInput::with_text(&current),
                };
            }
        }
        Action::Checkout => {
            if let Some(sel) = state.nav.selected_entry() {
                let resumes_after = state.checkout_resumes_after(sel);
                if resumes_after.is_some() && resumes_after == state.effective_leaf() {
                    state.set_status("Already at this point: the session resumes here", false);
                } else {
                    state.mode = Mode::ConfirmCheckout {
                        target: sel,
                        resumes_after,
                    };
                }
            }
        }
        Action::Fork => {
            if let Some(id) = state.selected_id().map(str::to_owned) {
                state.set_status("Forking…", false);
                return vec![ViewEffect::Fork {
                    path: state.path.clone(),
                    at_id: id,
                }];
            }
        }
        Action::Resume => return super::resume_offer::on_resume(state),
        Action::Export if state.nav.selected_entry().is_some() => {
            state.mode = Mode::ExportName(TextInput::with_text(&state.export_prefill()));
        }
        Action::Help => state.mode = Mode::Help { scroll: 0 },
        Action::Back => {
            if tree_focus && state.tree_search.is_some() {
                // As pi's Esc with a query: clear it, and the folds.
                state.tree_search = None;
                state.nav.clear_query_and_folds(session);
            } else if !tree_focus && state.transcript_search.is_some() {
                state.clear_transcript_search();
            } else if !tree_focus {
                state.focus = Focus::Tree;
            } else {
                return vec![ViewEffect::Close];
            }
        }
        Action::Leave => return vec![ViewEffect::Close],
        Action::Quit => return vec![ViewEffect::Quit],
        _ => {}
    }
    Vec::new()
}

/// Pasted text goes into whichever input is open (search, label, export name).
pub fn paste(state: &mut SessionViewState, text: &str) {
    match &mut state.mode {
        Mode::TreeSearch(input) => {
            input.paste(text);
            let query = input.text().to_owned();
            state.nav.set_query(&state.session, &query);
        }
        Mode::TranscriptSearch(input) | Mode::Label { input, .. } | Mode::ExportName(input) => {
            input.paste(text)
        }
        _ => {}
    }
}

fn tree_search_key(
    state: &mut SessionViewState,
    mut input: TextInput,
    key: &KeyEvent,
    action: Option<Action>,
) -> Vec<ViewEffect> {
    match action {
        Some(Action::Cancel) => {
            // Clears the query and the folds, as pi does.
            state.tree_search = None;
            state.nav.clear_query_and_folds(&state.session);
        }
        Some(Action::Confirm) => {
            let q = input.text().trim().to_owned();
            let hits = if q.is_empty() { 0 } else { state.nav.len() };
            // Back to the whole tree around the chosen hit; n/N walk the hits.
            state.nav.set_query(&state.session, "");
            if q.is_empty() {
                state.tree_search = None;
            } else {
                state.set_status(
                    format!("{hits} matching entries · n/N next/previous"),
                    false,
                );
                state.tree_search = Some(q);
            }
        }
        Some(Action::Up) => {
            state.nav.move_up();
            state.mode = Mode::TreeSearch(input);
        }
        Some(Action::Down) => {
            state.nav.move_down();
            state.mode = Mode::TreeSearch(input);
        }
        Some(Action::PageUp) => {
            state.nav.page_up(state.tree_list_height());
            state.mode = Mode::TreeSearch(input);
        }
        Some(Action::PageDown) => {
            state.nav.page_down(state.tree_list_height());
            state.mode = Mode::TreeSearch(input);
        }
        _ => {
            if input.handle_key(key) == Edit::Changed {
                state.nav.set_query(&state.session, input.text());
            }
            state.mode = Mode::TreeSearch(input);
        }
    }
    Vec::new()
}

fn transcript_search_key(
    state: &mut SessionViewState,
    mut input: TextInput,
    key: &KeyEvent,
    action: Option<Action>,
) -> Vec<ViewEffect> {
    match action {
        Some(Action::Cancel) => state.clear_transcript_search(),
        Some(Action::Confirm) => {
            if input.text().trim().is_empty() {
                state.clear_transcript_search();
            } else {
                if !state.transcript.hits_cover_all {
                    state.search_transcript(input.text().trim(), true);
                }
                let n = state.transcript.hits.len();
                state.set_status(format!("{n} matching lines · n/N next/previous"), n == 0);
            }
        }
        _ => {
            if input.handle_key(key) == Edit::Changed {
                let q = input.text().trim().to_owned();
                if q.is_empty() {
                    state.clear_transcript_search();
                } else {
                    state.search_transcript(&q, false);
                }
            }
            state.mode = Mode::TranscriptSearch(input);
        }
    }
    Vec::new()
}

fn label_key(
    state: &mut SessionViewState,
    target: usize,
    mut input: TextInput,
    key: &KeyEvent,
    action: Option<Action>,
) -> Vec<ViewEffect> {
    match action {
        Some(Action::Cancel) => {
            state.set_status("Label unchanged", false);
            Vec::new()
        }
        Some(Action::Confirm) => {
            let Some(id) = state.session.entry(target).map(|e| e.id.clone()) else {
                return Vec::new();
            };
            let label = Some(input.text().trim().to_owned()).filter(|l| !l.is_empty());
            let current = state.session.tree.labels.get(&id).map(|l| l.text.clone());
            if label == current {
                state.set_status("Label unchanged", false);
                return Vec::new();
            }
            state.set_status("Writing label…", false);
            vec![ViewEffect::AppendLabel {
                path: state.path.clone(),
                target_id: id,
                label,
            }]
        }
        _ => {
            input.handle_key(key);
            state.mode = Mode::Label { target, input };
            Vec::new()
        }
    }
}

/// n/N in the focused pane, wrapping around.
fn jump_to_hit(state: &mut SessionViewState, forward: bool) {
    if state.step_seeded_hit(forward) {
        return;
    }
    let tree = state.focus == Focus::Tree;
    let searching = if tree {
        state.tree_search.is_some()
    } else {
        state.transcript_search.is_some()
    };
    if !searching {
        state.set_status("No search: press / to search", false);
        return;
    }
    if !tree {
        state.jump_transcript_hit(forward);
        return;
    }
    let (hits, from) = if tree {
        (state.tree_hits(), state.nav.selected_index())
    } else {
        (state.transcript_hits.clone(), state.transcript_scroll)
    };
    let Some((k, hit)) = next_hit(&hits, from, forward) else {
        let none = if tree {
            "No matching entries in this filter"
        } else {
            "No matching lines"
        };
        state.set_status(none, true);
        return;
    };
    if tree {
        state.nav.select_index(hit);
    } else {
        state.transcript_scroll = hit;
    }
    state.set_status(format!("match {}/{}", k + 1, hits.len()), false);
}

/// The first of the sorted `hits` after `from` (before it, going back), wrapping around;
/// with its position among the hits.
fn next_hit(hits: &[usize], from: usize, forward: bool) -> Option<(usize, usize)> {
    let k = if forward {
        hits.iter().position(|&h| h > from).unwrap_or(0)
    } else {
        hits.iter()
            .rposition(|&h| h < from)
            .unwrap_or(hits.len().checked_sub(1)?)
    };
    hits.get(k).map(|&h| (k, h))
}

/// Enter / x in the transcript.
fn toggle_block(state: &mut SessionViewState, all: bool) {
    let folds = &state.transcript.folds;
    if folds.is_empty() {
        state.set_status("Nothing to expand here", false);
        return;
    }
    if all {
        let any_closed = folds.iter().any(|(k, _, _)| !state.toggled.contains(k));
        if any_closed {
            state.toggled.extend(folds.iter().map(|(k, _, _)| *k));
        } else {
            state.toggled.clear();
        }
    } else {
        let top = state.transcript_scroll;
        let key = folds
            .iter()
            .find(|(_, _, end)| *end >= top)
            .or(folds.last())
            .map(|(k, _, _)| *k);
        let Some(key) = key else { return };
        if !state.toggled.remove(&key) {
            state.toggled.insert(key);
        }
        // Keep the block in view when collapsing it above the top.
        if let Some((_, start, _)) = folds.iter().find(|(k, _, _)| *k == key)
            && *start < top
        {
            state.transcript_scroll = *start;
        }
    }
    state.rebuild_lines();
}
