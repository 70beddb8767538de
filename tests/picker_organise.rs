//! Pins, archive, marks with bulk trash and one undo, the bookmarks screen: key sequences in,
//! state, effects and screens out (no terminal, no files; the state database is the effects').

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::bookmark_screen::Loaded;
use grove::app::bookmarks::Bookmark;
use grove::app::event::{Effect, Event};
use grove::app::marks::{OrgEffect, OrgEvent, OrgView};
use grove::app::state::{Mode, Screen};
use grove::model::context::Dialect;
use grove::storage::state::{Flag, SessionKey, StateSnapshot};
use grove::storage::trash::Trashed;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::*;

fn loaded() -> Harness {
    let mut h = Harness::new(100, 30);
    // Families open, so the fork is a row (folding has its own tests: tests/families.rs).
    h.state.picker.families.folded_by_default = false;
    h.load(fixtures());
    h.take_effects();
    h
}

fn alt(h: &mut Harness, c: char) {
    h.send(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::ALT,
    )));
}

const FIX: &str = "Fix the flaky CI job on macOS runners";
const RELEASE: &str = "Release 0.4.0";
const BENCH: &str = "Benchmark the bytes pipeline after the release";
const PASTE: &str = "Paste from terminal: \u{1b}[31mred\u{1b}[0m alert \u{202e}spoof";
const OLD: &str = "Old experiment";

fn select(h: &mut Harness, title: &str) {
    let row = h.titles().iter().position(|t| t == title).unwrap();
    h.state.picker.select(row);
}

fn key_of(h: &Harness, title: &str) -> SessionKey {
    let r = h
        .state
        .picker
        .records
        .iter()
        .find(|r| r.info.title() == title)
        .unwrap();
    SessionKey::new(r.info.id.clone(), r.info.path.clone())
}

#[test]
fn pin_puts_a_session_first_in_every_sort_and_scope_and_saves_it() {
    let mut h = loaded();
    select(&mut h, OLD);
    alt(&mut h, 'p');
    assert_eq!(h.titles(), vec![OLD, FIX, RELEASE, BENCH, PASTE]);
    let fx = h.take_effects();
    let want = key_of(&h, OLD);
    assert!(
        matches!(fx.as_slice(), [Effect::Organise(OrgEffect::SaveFlags { keys, flag: Flag::Pinned, value: true })] if *keys == vec![want.clone()]),
        "{fx:?}"
    );
    // The fork stays threaded under its parent; the pinned row is flat.
    assert_eq!(h.state.picker.rows[0].prefix, "");
    assert_eq!(h.state.picker.rows[3].prefix, "   └─ ");
    // Every sort and scope.
    h.ctrl('s');
    assert_eq!(h.titles()[0], OLD);
    h.key(KeyCode::Tab);
    assert_eq!(h.titles()[0], OLD);
    h.type_str("e");
    assert_eq!(h.titles()[0], OLD, "with a query too");
    h.key(KeyCode::Esc);
    // Pinned only, then back.
    alt(&mut h, 'h');
    assert_eq!(h.state.picker.org.view, OrgView::Pinned);
    assert_eq!(h.titles(), vec![OLD]);
    alt(&mut h, 'h');
    alt(&mut h, 'h');
    assert_eq!(h.state.picker.org.view, OrgView::Default);
    // Again: unpinned.
    select(&mut h, OLD);
    alt(&mut h, 'p');
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::Organise(OrgEffect::SaveFlags { value: false, .. })]
    ));
    assert_ne!(h.titles()[0], OLD);
}

#[test]
fn the_state_read_at_start_up_pins_and_archives() {
    let mut h = loaded();
    let mut snap = StateSnapshot::default();
    snap.set(&key_of(&h, PASTE), Flag::Pinned, true);
    snap.set(&key_of(&h, FIX), Flag::Archived, true);
    // A pin made before the state was read is kept.
    select(&mut h, OLD);
    alt(&mut h, 'p');
    h.send(Event::Organise(OrgEvent::Loaded(Ok(snap))));
    assert_eq!(h.titles(), vec![PASTE, OLD, RELEASE, BENCH]);
    // A state that cannot be read: said, and the keys say so too.
    let mut h = loaded();
    h.send(Event::Organise(OrgEvent::Loaded(Err(
        "grove's state database /d/state.sqlite3 is damaged".into(),
    ))));
    assert!(
        h.state
            .notices
            .first_status()
            .is_some_and(|n| n.contains("damaged"))
    );
    alt(&mut h, 'p');
    assert!(h.take_effects().is_empty());
    assert!(h.status_text().contains("unavailable"));
}

#[test]
fn a_failed_save_is_undone_on_screen() {
    let mut h = loaded();
    select(&mut h, OLD);
    alt(&mut h, 'p');
    let keys = vec![key_of(&h, OLD)];
    h.send(Event::Organise(OrgEvent::Saved {
        keys,
        flag: Flag::Pinned,
        value: true,
        result: Err("disk full".into()),
    }));
    assert_eq!(h.titles()[0], FIX);
    assert!(h.status_text().contains("disk full"));
}

#[test]
fn archive_leaves_the_default_view_and_the_archived_view_restores() {
    let mut h = loaded();
    select(&mut h, RELEASE);
    alt(&mut h, 'a');
    assert_eq!(h.titles(), vec![FIX, BENCH, PASTE, OLD]);
    assert!(h.status_text().contains("archived"));
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::Organise(OrgEffect::SaveFlags {
            flag: Flag::Archived,
            value: true,
            ..
        })]
    ));
    // Not in the other scope either.
    h.key(KeyCode::Tab);
    assert!(!h.titles().contains(&RELEASE.to_owned()));
    alt(&mut h, 'h');
    alt(&mut h, 'h');
    assert_eq!(h.state.picker.org.view, OrgView::Archived);
    assert_eq!(h.titles(), vec![RELEASE]);
    assert_sizes!("archived_view", h);
    alt(&mut h, 'a');
    assert!(h.titles().is_empty());
    alt(&mut h, 'h');
    assert!(h.titles().contains(&RELEASE.to_owned()));
}

#[test]
fn space_marks_only_with_an_empty_query_and_alt_m_always() {
    let mut h = loaded();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char(' '));
    let marked: Vec<usize> = h.state.picker.org.marked.iter().copied().collect();
    assert_eq!(marked.len(), 2);
    assert_eq!(h.state.picker.selected, 2, "marking moves down");
    assert_sizes!("marked", h);
    // Typed into a query, Space is a space.
    h.type_str("re");
    h.key(KeyCode::Char(' '));
    assert_eq!(h.state.picker.query.text(), "re ");
    assert_eq!(h.state.picker.org.marked.len(), 2);
    let sel = h.state.picker.rows[h.state.picker.selected].record;
    let was = h.state.picker.org.marked.contains(&sel);
    alt(&mut h, 'm');
    assert_eq!(h.state.picker.org.marked.contains(&sel), !was);
    let n = h.state.picker.org.marked.len();
    // Esc clears the query, then the marks, then quits.
    h.key(KeyCode::Esc);
    assert_eq!(h.state.picker.org.marked.len(), n);
    h.key(KeyCode::Esc);
    assert!(h.state.picker.org.marked.is_empty());
    assert!(
        h.take_effects()
            .iter()
            .all(|e| !matches!(e, Effect::Quit { .. }))
    );
}

#[test]
fn pin_and_archive_act_on_every_marked_session() {
    let mut h = loaded();
    select(&mut h, RELEASE);
    alt(&mut h, 'm');
    select(&mut h, OLD);
    alt(&mut h, 'm');
    alt(&mut h, 'p');
    assert_eq!(&h.titles()[..2], &[RELEASE, OLD]);
    assert!(h.state.picker.org.marked.is_empty(), "marks are used up");
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::Organise(OrgEffect::SaveFlags { keys, .. })] if keys.len() == 2),
        "{fx:?}"
    );
    assert_sizes!("pinned", h);
    h.key(KeyCode::Home);
    alt(&mut h, 'm');
    alt(&mut h, 'm');
    alt(&mut h, 'a');
    assert_eq!(h.titles(), vec![FIX, BENCH, PASTE]);
}

#[test]
fn the_pinned_only_view_lists_the_pinned_sessions_with_their_marker() {
    let mut h = loaded();
    select(&mut h, RELEASE);
    alt(&mut h, 'm');
    select(&mut h, OLD);
    alt(&mut h, 'm');
    alt(&mut h, 'p');
    h.take_effects();
    alt(&mut h, 'h');
    assert_eq!(h.state.picker.org.view, OrgView::Pinned);
    assert_eq!(h.titles(), vec![RELEASE, OLD]);
    assert_sizes!("pinned_only", h);
}

#[test]
fn bulk_trash_asks_once_listing_them_and_one_undo_restores_all() {
    let mut h = loaded();
    select(&mut h, FIX);
    h.key(KeyCode::Char(' '));
    select(&mut h, PASTE);
    h.key(KeyCode::Char(' '));
    h.take_effects();
    h.ctrl('d');
    let (fix, paste) = (key_of(&h, FIX), key_of(&h, PASTE));
    let records = match &h.state.mode {
        Mode::ConfirmTrashMarked { records } => records.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(records.len(), 2);
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::Organise(OrgEffect::PinFiles(p))] if *p == vec![fix.path.clone(), paste.path.clone()]
    ));
    assert_sizes!("bulk_trash_confirm", h);
    h.key(KeyCode::Char('y'));
    assert!(matches!(h.state.mode, Mode::TrashingMarked { .. }));
    let items = match h.take_effects().as_slice() {
        [Effect::Organise(OrgEffect::TrashMarked { items })] => items.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        items.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>(),
        vec![fix.path.clone(), paste.path.clone()]
    );
    let results = items
        .iter()
        .map(|(r, p)| {
            (
                *r,
                Ok(Trashed {
                    paths: vec![p.clone()],
                }),
            )
        })
        .collect();
    h.send(Event::Organise(OrgEvent::TrashedMarked { results }));
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(h.titles(), vec![RELEASE, BENCH, OLD]);
    assert!(h.status_text().contains("2 sessions moved to trash"));
    assert_sizes!("bulk_trashed", h);
    // One Ctrl+Z: both restored.
    h.ctrl('z');
    let restores: Vec<_> = h
        .take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::RestoreTrash(item) => Some(item),
            _ => None,
        })
        .collect();
    assert_eq!(restores.len(), 2);
    for item in restores {
        h.send(Event::Restored {
            item,
            result: Ok(()),
        });
    }
    assert_eq!(h.titles(), vec![FIX, RELEASE, BENCH, PASTE, OLD]);
    h.ctrl('z');
    assert!(h.status_text().contains("Nothing to undo"));
}

#[test]
fn no_on_the_bulk_confirmation_trashes_nothing() {
    let mut h = loaded();
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char(' '));
    h.ctrl('d');
    h.take_effects();
    h.key(KeyCode::Char('n'));
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    assert_eq!(h.state.picker.org.marked.len(), 2, "the marks stay");
}

fn bookmark(h: &Harness, title: &str, entry: &str, label: &str, at: &str) -> Bookmark {
    let k = key_of(h, title);
    Bookmark {
        session_id: k.id,
        session_path: k.path,
        session_title: title.to_owned(),
        session_cwd: CURRENT.to_owned(),
        agent: Dialect::Pi,
        entry_id: entry.to_owned(),
        label: label.to_owned(),
        labelled_at: at.to_owned(),
        kind: "user".to_owned(),
        text: format!("the text of {entry}"),
        note: String::new(),
        tags: Vec::new(),
    }
}

#[test]
fn the_bookmarks_screen_searches_and_opens_the_session_on_the_entry() {
    let mut h = Harness::new(100, 30);
    let mut records = fixtures();
    for r in records.iter_mut().take(2) {
        let mut info = r.info.clone();
        info.label_count = 1;
        *r = record(info);
    }
    h.load(records);
    h.take_effects();
    alt(&mut h, 'b');
    assert!(matches!(h.state.mode, Mode::Bookmarks(_)));
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::Organise(OrgEffect::LoadBookmarks { sessions })] if sessions.len() == 2),
        "only sessions with labels are read: {fx:?}"
    );
    let mut a = bookmark(&h, FIX, "e0000001", "flaky repro", "2026-11-30T11:00:00Z");
    a.note = "fails one run in five".into();
    a.tags = vec!["ci".into(), "macos".into()];
    let b = bookmark(
        &h,
        RELEASE,
        "e0000002",
        "release checklist",
        "2026-11-29T10:00:00Z",
    );
    h.send(Event::Organise(OrgEvent::Bookmarks(Loaded {
        bookmarks: Ok(vec![a, b]),
        problems: 0,
    })));
    assert_sizes!("bookmarks", h);
    h.type_str("#ci");
    let Mode::Bookmarks(s) = &h.state.mode else {
        panic!()
    };
    assert_eq!(s.shown, vec![0]);
    // Ctrl+E edits the note; #words are tags.
    h.ctrl('e');
    h.type_str(" #keep");
    assert_sizes!("bookmark_note_editing", h);
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    let (key, edit) = match fx.as_slice() {
        [Effect::Organise(OrgEffect::SaveBookmark { key, edit, .. })] => {
            (key.clone(), edit.clone())
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(edit.note.as_deref(), Some("fails one run in five"));
    assert_eq!(edit.add_tags, vec!["ci", "keep", "macos"]);
    assert!(edit.remove_tags.is_empty());
    h.send(Event::Organise(OrgEvent::BookmarkSaved {
        key,
        result: Ok(grove::storage::state::BookmarkMeta {
            path: Default::default(),
            note: "fails one run in five".into(),
            tags: vec!["ci".into(), "keep".into(), "macos".into()],
        }),
    }));
    let Mode::Bookmarks(s) = &h.state.mode else {
        panic!()
    };
    assert_eq!(s.all[0].tags, vec!["ci", "keep", "macos"]);
    assert!(h.render().contains("#keep"));
    h.key(KeyCode::Esc);
    h.type_str("checklist");
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    assert_eq!(h.state.mode, Mode::Normal);
    let path = key_of(&h, RELEASE).path;
    assert!(matches!(h.state.screen, Screen::Session { .. }));
    assert_eq!(
        h.state.picker.org.open_at,
        Some((path.clone(), "e0000002".to_owned()))
    );
    assert!(
        h.take_effects()
            .iter()
            .any(|e| matches!(e, Effect::OpenSession { path: p, .. } if *p == path))
    );
}

#[test]
fn esc_leaves_the_bookmarks_screen() {
    let mut h = loaded();
    alt(&mut h, 'b');
    h.send(Event::Organise(OrgEvent::Bookmarks(Loaded {
        bookmarks: Ok(Vec::new()),
        problems: 0,
    })));
    assert!(h.render().contains("No bookmarks"));
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
}
