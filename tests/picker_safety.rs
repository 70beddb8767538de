//! A key acts only on what the user can see: Ctrl+C quits from every screen and popup (after a
//! write in flight), nothing acts while the terminal is too small to draw, a confirmation acts
//! only once drawn, `q` leaves the view and F1 / `?` open help everywhere.

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::event::{Effect, Event};
use grove::app::session_view::Mode as ViewMode;
use grove::app::state::{Liveness, Mode, Options, Screen};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::{Harness, demo_records, fixtures};

/// A harness in the session view of a demo session.
fn in_view(tmp: &std::path::Path) -> Harness {
    let mut h = Harness::with_options(120, 40, Options::default());
    h.load(demo_records(tmp));
    h.key(KeyCode::Tab);
    h.enter_and_open();
    assert!(matches!(h.state.screen, Screen::View { .. }));
    h
}

fn view_mode(h: &Harness) -> ViewMode {
    match &h.state.screen {
        Screen::View { view, .. } => view.mode.clone(),
        _ => panic!("not in the view"),
    }
}

fn ctrl_c(h: &mut Harness) -> Vec<Effect> {
    h.take_effects();
    h.ctrl('c');
    h.take_effects()
}

/// What puts the harness on the screen or popup under test.
type Setup = fn(&mut Harness);

fn quits(fx: &[Effect]) -> bool {
    fx.iter().any(|e| matches!(e, Effect::Quit { .. }))
}

#[test]
fn ctrl_c_quits_from_every_picker_screen_and_popup() {
    let setups: Vec<(&str, Setup)> = vec![
        ("picker", |_| {}),
        ("picker with a query", |h| h.type_str("fix")),
        ("help", |h| h.key(KeyCode::F(1))),
        ("rename", |h| h.ctrl('r')),
        ("delete confirmation", |h| h.ctrl('d')),
        ("permanent deletion", |h| {
            h.ctrl('d');
            h.key(KeyCode::Enter);
            h.raw(Event::Trashed {
                record: 0,
                result: Err("no trash here".into()),
            });
        }),
        ("preview screen", |h| {
            h.auto_preview = false;
            h.key(KeyCode::Enter);
        }),
    ];
    for (name, setup) in setups {
        let mut h = Harness::new(100, 30);
        h.load(fixtures());
        setup(&mut h);
        assert!(quits(&ctrl_c(&mut h)), "Ctrl+C did not quit from {name}");
    }
}

#[test]
fn ctrl_c_quits_from_every_view_layer_and_popup() {
    let setups: Vec<(&str, Setup)> = vec![
        ("tree", |_| {}),
        ("transcript", |h| h.key(KeyCode::Tab)),
        ("tree search", |h| h.key(KeyCode::Char('/'))),
        ("transcript search", |h| {
            h.key(KeyCode::Tab);
            h.key(KeyCode::Char('/'));
        }),
        ("label", |h| h.key(KeyCode::Char('L'))),
        ("export name", |h| h.key(KeyCode::Char('e'))),
        ("help", |h| h.key(KeyCode::Char('?'))),
        ("help by F1", |h| h.key(KeyCode::F(1))),
    ];
    for (name, setup) in setups {
        let tmp = tempfile::tempdir().unwrap();
        let mut h = in_view(tmp.path());
        setup(&mut h);
        assert!(
            quits(&ctrl_c(&mut h)),
            "Ctrl+C did not quit from the view's {name}"
        );
    }
}

#[test]
fn f1_and_question_mark_open_help_in_the_view_and_q_leaves_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = in_view(tmp.path());
    h.key(KeyCode::F(1));
    assert!(matches!(view_mode(&h), ViewMode::Help { .. }));
    h.key(KeyCode::Esc);
    assert_eq!(view_mode(&h), ViewMode::Normal);
    h.key(KeyCode::Char('?'));
    assert!(matches!(view_mode(&h), ViewMode::Help { .. }));
    h.key(KeyCode::Char('q'));
    assert_eq!(view_mode(&h), ViewMode::Normal);
    h.key(KeyCode::Char('q'));
    assert!(h.state.screen.is_picker(), "q leaves the view");
}

#[test]
fn in_a_too_small_terminal_keys_change_nothing_but_ctrl_c() {
    let mut h = Harness::new(100, 30);
    h.load(fixtures());
    h.send(Event::Resize(30, 8));
    h.take_effects();
    for key in [
        KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL),
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT),
        KeyEvent::new(KeyCode::Char('e'), KeyModifiers::NONE),
    ] {
        h.send(Event::Key(key));
    }
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.state.screen.is_picker());
    assert_eq!(h.state.picker.query.text(), "");
    assert!(
        !h.take_effects()
            .iter()
            .any(|e| matches!(e, Effect::TrashSession { .. } | Effect::OpenSession { .. })),
    );
    assert!(quits(&ctrl_c(&mut h)));
}

#[test]
fn in_a_too_small_terminal_the_view_ignores_its_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = in_view(tmp.path());
    h.send(Event::Resize(30, 8));
    for c in ['c', 'L', 'e', '/'] {
        h.key(KeyCode::Char(c));
    }
    h.key(KeyCode::Enter);
    h.ctrl('d');
    assert_eq!(view_mode(&h), ViewMode::Normal);
    let Screen::View { view, .. } = &h.state.screen else {
        panic!()
    };
    assert_eq!(
        view.nav.filter(),
        grove::model::flatten::FilterMode::Default
    );
}

#[test]
fn a_delete_confirmation_acts_only_once_drawn() {
    let mut h = Harness::new(100, 30);
    h.load(fixtures());
    // Ctrl+D then Enter in one burst, before any frame: the Enter must not confirm.
    h.undrawn(Event::Key(KeyEvent::new(
        KeyCode::Char('d'),
        KeyModifiers::CONTROL,
    )));
    h.undrawn(Event::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    assert!(matches!(h.state.mode, Mode::ConfirmDelete { .. }));
    assert!(
        !h.take_effects()
            .iter()
            .any(|e| matches!(e, Effect::TrashSession { .. }))
    );
    // Drawn: now Enter confirms.
    h.state.drawn();
    h.key(KeyCode::Enter);
    assert!(
        h.take_effects()
            .iter()
            .any(|e| matches!(e, Effect::TrashSession { .. }))
    );
}

#[test]
fn ctrl_c_waits_for_a_write_in_flight() {
    let mut h = Harness::new(100, 30);
    h.load(fixtures());
    h.ctrl('d');
    h.raw(Event::LiveChecked {
        record: 0,
        liveness: Liveness::Idle.into(),
    });
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    let Some(Effect::TrashSession { record, path }) = fx
        .into_iter()
        .find(|e| matches!(e, Effect::TrashSession { .. }))
    else {
        panic!("no trash effect");
    };
    h.ctrl('c');
    assert!(!quits(&h.take_effects()), "quit before the write finished");
    h.raw(Event::Trashed {
        record,
        result: Ok(grove::storage::trash::Trashed { paths: vec![path] }),
    });
    assert!(quits(&h.take_effects()), "no quit once the write finished");
}
