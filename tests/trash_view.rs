//! Issue 13, "nothing deleted is out of reach" and "a first run that explains itself", in the
//! browser: the trash view (alt+t in the picker) lists the trashed session files, Enter asks,
//! then restores the selected one (an effect; the restore itself is `storage::restore`, tested
//! byte for byte in `tests/hardening_trash_cli.rs`), and the picker reads it again; the empty
//! picker of a first run names the folders searched. Key sequences and snapshots at three
//! sizes.

#[path = "picker_support/mod.rs"]
mod support;

use std::path::PathBuf;

use grove::app::event::{Effect, Event};
use grove::app::state::{Mode, Options};
use grove::app::trash_view::TrashRow;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::*;

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];

fn rows() -> Vec<TrashRow> {
    vec![
        TrashRow {
            name: "2026-11-29T21-14-02-640Z_01a22928.jsonl".into(),
            original: PathBuf::from(
                "/home/u/.pi/agent/sessions/--home-u-code-app--/2026-11-29T21-14-02-640Z_01a22928.jsonl",
            ),
            deleted_s: Some(1_796_036_400),
            backups: 0,
        },
        TrashRow {
            name: "2026-11-20T22-00-04-117Z_01a1faf9.jsonl".into(),
            original: PathBuf::from(
                "/home/u/.atomic/agent/sessions/--home-u-code-ledger--/2026-11-20T22-00-04-117Z_01a1faf9.jsonl",
            ),
            deleted_s: Some(1_795_950_000),
            backups: 2,
        },
        TrashRow {
            name: "weird \u{1b}[31mname.jsonl".into(),
            original: PathBuf::from("/tmp/x/weird \u{1b}[31mname.jsonl"),
            deleted_s: None,
            backups: 0,
        },
    ]
}

fn alt_t(h: &mut Harness) {
    h.raw(Event::Key(KeyEvent::new(
        KeyCode::Char('t'),
        KeyModifiers::ALT,
    )));
}

fn list_generation(fx: &[Effect]) -> u64 {
    fx.iter()
        .find_map(|e| match e {
            Effect::ListTrash { generation } => Some(*generation),
            _ => None,
        })
        .expect("the trash is listed")
}

/// The picker with the fixtures, the trash view opened on `rows`.
fn opened(w: u16, h: u16, rows: Vec<TrashRow>) -> Harness {
    let mut harness = Harness::new(w, h);
    harness.load(fixtures());
    harness.take_effects();
    alt_t(&mut harness);
    let generation = list_generation(&harness.take_effects());
    harness.send(Event::TrashListed {
        generation,
        result: Ok(rows),
    });
    harness
}

fn view(h: &Harness) -> &grove::app::trash_view::TrashView {
    match &h.state.mode {
        Mode::Trash(v) => v,
        other => panic!("not the trash view: {other:?}"),
    }
}

#[test]
fn snapshots_of_the_trash_view_its_confirmation_and_its_empty_state() {
    for (w, h) in SIZES {
        let mut harness = opened(w, h, rows());
        insta::assert_snapshot!(format!("trash_view_{w}x{h}"), harness.render());
        harness.key(KeyCode::Down);
        harness.key(KeyCode::Enter);
        insta::assert_snapshot!(format!("trash_view_confirm_{w}x{h}"), harness.render());
        let empty = opened(w, h, Vec::new());
        insta::assert_snapshot!(format!("trash_view_empty_{w}x{h}"), empty.render());
    }
}

#[test]
fn enter_asks_then_restores_the_selected_session_and_the_picker_reads_it_again() {
    let mut h = opened(100, 30, rows());
    assert_eq!(view(&h).selected, 0);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    assert!(view(&h).confirm, "Enter asks first");
    assert!(h.take_effects().is_empty(), "nothing restored before yes");
    // Other keys are swallowed by the confirmation.
    h.key(KeyCode::Down);
    assert!(view(&h).confirm);
    assert_eq!(view(&h).selected, 1);
    h.key(KeyCode::Char('y'));
    let original = rows()[1].original.clone();
    let fx = h.take_effects();
    assert!(
        matches!(
            fx.as_slice(),
            [Effect::RestoreFromTrash { original: o, deleted_s: Some(1_795_950_000) }] if *o == original
        ),
        "{fx:?}"
    );
    assert!(view(&h).restoring);
    // One restore at a time, and the view stays while it runs.
    h.key(KeyCode::Enter);
    h.key(KeyCode::Esc);
    assert!(!view(&h).confirm);
    assert!(matches!(h.state.mode, Mode::Trash(_)));

    let bak = PathBuf::from(format!("{}.1700000000.bak", original.display()));
    h.raw(Event::TrashRestored {
        original: original.clone(),
        result: Ok(vec![original.clone(), bak.clone(), bak]),
    });
    let status = h.state.status.as_ref().expect("a status").text.clone();
    assert!(
        status.starts_with("Restored /home/u/.atomic/agent/sessions/"),
        "{status}"
    );
    assert!(status.ends_with("with 2 backups"), "{status}");
    let fx = h.take_effects();
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::RefreshRecord { path, agent: None } if *path == original)),
        "{fx:?}"
    );
    let generation = list_generation(&fx);
    // The trash is listed again; the restored session is gone from it.
    let mut left = rows();
    left.remove(1);
    h.send(Event::TrashListed {
        generation,
        result: Ok(left),
    });
    assert_eq!(view(&h).listed().len(), 2);
    assert_eq!(view(&h).selected, 1);
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
}

#[test]
fn keys_act_only_on_rows_that_are_shown() {
    let mut h = Harness::new(100, 30);
    h.load(fixtures());
    h.take_effects();
    alt_t(&mut h);
    let generation = list_generation(&h.take_effects());
    // Still reading: Enter has nothing to act on.
    h.key(KeyCode::Enter);
    assert!(!view(&h).confirm);
    // A listing from an older request is ignored.
    h.send(Event::TrashListed {
        generation: generation + 7,
        result: Ok(rows()),
    });
    assert!(view(&h).rows.is_none());
    h.send(Event::TrashListed {
        generation,
        result: Ok(Vec::new()),
    });
    h.key(KeyCode::Enter);
    assert!(!view(&h).confirm);
    assert!(h.take_effects().is_empty());
    // A failed restore says why and keeps the view.
    h.send(Event::TrashListed {
        generation,
        result: Ok(rows()),
    });
    h.raw(Event::TrashRestored {
        original: rows()[0].original.clone(),
        result: Err("a file took its place".into()),
    });
    let status = h.state.status.as_ref().unwrap();
    assert!(
        status.text.contains("a file took its place"),
        "{}",
        status.text
    );
    assert!(matches!(h.state.mode, Mode::Trash(_)));
    h.key(KeyCode::Char('q'));
    assert_eq!(h.state.mode, Mode::Normal);
}

#[test]
fn a_first_run_names_the_folders_searched_and_how_to_see_sessions() {
    for (w, h) in SIZES {
        let options = Options {
            searched:
                "~/.pi/agent/sessions (pi, not there), ~/.atomic/agent/sessions (Atomic, not there)"
                    .into(),
            home: Some("/home/u".into()),
            ..Options::default()
        };
        let mut harness = Harness::with_options(w, h, options);
        harness.load(Vec::new());
        let screen = harness.render();
        insta::assert_snapshot!(format!("first_run_{w}x{h}"), screen);
        assert!(screen.contains("No sessions found."), "{screen}");
        assert!(screen.contains("--demo"), "{screen}");
    }
}
