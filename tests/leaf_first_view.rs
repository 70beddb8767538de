//! A large session's view is shown from its leaf branch first, then whole: the whole view
//! takes over the first one's place (selection, focus, transcript position, filter) instead of
//! starting again at the leaf, and a bookmark's entry is selected once, in the first view that
//! holds it.

mod common;
#[path = "picker_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{chain, header, jsonl};
use grove::app::event::Event;
use grove::app::session_view::{Focus, SessionViewState};
use grove::app::state::{Screen, SessionRecord};
use grove::model::context::Dialect;
use grove::storage::leaf::{LeafOptions, load_leaf_branch};
use grove::storage::read::{load_session, scan_info};
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use support::Harness;

const W: u16 = 120;
const H: u16 = 35;

/// A linear session of 3,000 messages, `m0000000` … `m0000bb7`, in a folder of its own.
fn session_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2025-01-01T00-00-00-000Z_big.jsonl");
    let mut lines = vec![header("big-1", "/w")];
    lines.extend(chain(3_000, None));
    std::fs::write(&path, jsonl(&lines)).unwrap();
    (dir, path)
}

/// The picker with the session listed and Enter pressed on it: the view is loading.
fn opening(path: &Path) -> (Harness, usize) {
    let mut h = Harness::new(W, H);
    // In the current folder, so the picker shows it.
    let record = Arc::new(SessionRecord::without_fs(
        scan_info(path, None).unwrap(),
        true,
    ));
    h.load(vec![record]);
    h.take_effects();
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    let Screen::Session { record, .. } = h.state.screen else {
        panic!("not loading: {:?}", h.state.screen)
    };
    (h, record)
}

/// What the effects runner sends first for a large session: its leaf branch alone.
fn first_view(path: &Path) -> Box<SessionViewState> {
    let first = load_leaf_branch(
        path,
        LeafOptions {
            entries: 400,
            ..LeafOptions::default()
        },
    )
    .unwrap();
    let mut view = SessionViewState::new(
        path.to_owned(),
        first.session,
        Dialect::Pi,
        Rect::new(0, 0, W, H),
    );
    view.leaf_first = true;
    Box::new(view)
}

/// Then the whole session.
fn whole_view(path: &Path) -> Box<SessionViewState> {
    Box::new(SessionViewState::new(
        path.to_owned(),
        load_session(path).unwrap(),
        Dialect::Pi,
        Rect::new(0, 0, W, H),
    ))
}

fn deliver(h: &mut Harness, record: usize, path: &Path, view: Box<SessionViewState>) {
    h.send(Event::SessionOpened {
        record,
        path: path.to_owned(),
        result: Ok(view),
    });
}

fn view(h: &Harness) -> &SessionViewState {
    match &h.state.screen {
        Screen::View { view, .. } => view,
        other => panic!("no view: {other:?}"),
    }
}

/// The entry of the transcript's top line, and the line within its message.
fn transcript_top(v: &SessionViewState) -> (String, usize) {
    let (k, line) = v.transcript.anchor(v.transcript_scroll);
    let entry = v.context.messages[k].entry_index;
    (v.session.entries()[entry].id.clone(), line)
}

#[test]
fn the_whole_view_keeps_the_place_moved_to_in_the_first() {
    let (_dir, path) = session_file();
    let (mut h, record) = opening(&path);
    deliver(&mut h, record, &path, first_view(&path));
    assert_eq!(view(&h).session.entries().len(), 400);
    assert_eq!(view(&h).selected_id(), Some("m0000bb7"));
    // Up the tree, into the transcript, scrolled up a few pages.
    for _ in 0..25 {
        h.key(KeyCode::Up);
    }
    h.key(KeyCode::Tab);
    for _ in 0..3 {
        h.key(KeyCode::PageUp);
    }
    let (selected, focus, top) = {
        let v = view(&h);
        (
            v.selected_id().map(str::to_owned),
            v.focus,
            transcript_top(v),
        )
    };
    assert_ne!(selected.as_deref(), Some("m0000bb7"), "the selection moved");
    assert_eq!(focus, Focus::Transcript);

    deliver(&mut h, record, &path, whole_view(&path));
    let v = view(&h);
    assert!(!v.leaf_first);
    assert_eq!(
        v.session.entries().len(),
        3_000,
        "the whole session is shown"
    );
    assert_eq!(v.selected_id().map(str::to_owned), selected);
    assert_eq!(v.focus, focus);
    assert_eq!(transcript_top(v), top);
    // The transcript now holds the whole branch: the selected entry's 3,000-odd messages.
    assert!(v.context.messages.len() > 2_900);
    // And keys go on from there.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Up);
    let expected = load_session(&path).unwrap();
    let i = expected
        .tree
        .index_of(selected.as_deref().unwrap())
        .unwrap();
    let parent = expected.tree.parent[i].unwrap();
    assert_eq!(
        view(&h).selected_id(),
        Some(expected.entries()[parent].id.as_str())
    );
}

#[test]
fn a_whole_view_already_shown_is_not_replaced_by_an_older_load() {
    let (_dir, path) = session_file();
    let (mut h, record) = opening(&path);
    deliver(&mut h, record, &path, whole_view(&path));
    h.key(KeyCode::Up);
    let selected = view(&h).selected_id().map(str::to_owned);
    deliver(&mut h, record, &path, whole_view(&path));
    assert_eq!(view(&h).selected_id().map(str::to_owned), selected);
}

#[test]
fn a_bookmark_far_back_is_selected_once_the_whole_session_holds_it() {
    let (_dir, path) = session_file();
    let (mut h, record) = opening(&path);
    // Older than the leaf branch read first.
    h.state.picker.org.open_at = Some((path.clone(), "m0000010".into()));
    deliver(&mut h, record, &path, first_view(&path));
    assert_eq!(view(&h).selected_id(), Some("m0000bb7"));
    assert!(h.state.picker.org.open_at.is_some(), "still to apply");
    deliver(&mut h, record, &path, whole_view(&path));
    assert_eq!(view(&h).selected_id(), Some("m0000010"));
    assert!(h.state.picker.org.open_at.is_none());
}

#[test]
fn a_bookmark_in_the_leaf_branch_is_applied_once_and_moves_are_kept() {
    let (_dir, path) = session_file();
    let (mut h, record) = opening(&path);
    h.state.picker.org.open_at = Some((path.clone(), "m0000b80".into()));
    deliver(&mut h, record, &path, first_view(&path));
    assert_eq!(view(&h).selected_id(), Some("m0000b80"));
    assert!(h.state.picker.org.open_at.is_none());
    h.key(KeyCode::Up);
    assert_eq!(view(&h).selected_id(), Some("m0000b7f"));
    deliver(&mut h, record, &path, whole_view(&path));
    assert_eq!(
        view(&h).selected_id(),
        Some("m0000b7f"),
        "the bookmark is not applied again over the move"
    );
}
