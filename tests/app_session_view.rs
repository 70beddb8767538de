//! The session view hosted by the app: Enter opens it, its writes run as effects whose results
//! come back to it, the picker row is refreshed, and Esc returns to the picker unchanged.

#[path = "picker_support/mod.rs"]
mod support;

use std::sync::Arc;

use grove::app::event::{Effect, Event};
use grove::app::session_view::{ViewEffect, execute};
use grove::app::state::{Options, Screen, SessionRecord};
use grove::storage::read::scan_info;
use ratatui::crossterm::event::KeyCode;
use support::{Harness, demo_records};

/// Opens the selected session with Enter: answers the load the way the event loop does.
fn open_selected(h: &mut Harness) -> std::path::PathBuf {
    open_with(h, |h| h.key(KeyCode::Enter))
}

fn open_with(h: &mut Harness, press: impl FnOnce(&mut Harness)) -> std::path::PathBuf {
    h.auto_preview = false;
    press(h);
    let open = h.take_open_request();
    let path = open.path.clone();
    h.answer_open(open);
    path
}

#[test]
fn enter_opens_the_view_and_a_label_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = Harness::with_options(120, 40, Options::default());
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab); // All scope: the demo cwds are not this folder
    let selected_before = h.state.picker.selected;
    let path = open_selected(&mut h);
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("not in the session view");
    };
    assert_eq!(view.path, path);
    let before = std::fs::read(&path).unwrap();

    // Label the selected entry: L, type, Enter.
    h.key(KeyCode::Char('L'));
    h.type_str("checkpoint");
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    let Some(Effect::View { session, effect }) =
        fx.into_iter().find(|e| matches!(e, Effect::View { .. }))
    else {
        panic!("no label effect");
    };
    assert_eq!(session, path);
    assert!(matches!(&effect, ViewEffect::AppendLabel { label: Some(l), .. } if l == "checkpoint"));
    // Run it as the loop does; the outcome goes back to the view.
    let outcome = execute(&effect).expect("a write has an outcome");
    h.raw(Event::ViewDone {
        path: path.clone(),
        outcome: Box::new(outcome),
    });
    let after = std::fs::read(&path).unwrap();
    assert!(after.starts_with(&before), "only appended");
    assert_eq!(
        after[before.len()..]
            .iter()
            .filter(|b| **b == b'\n')
            .count(),
        1
    );
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("left the view");
    };
    assert!(
        view.session
            .tree
            .labels
            .values()
            .any(|l| l.text == "checkpoint")
    );
    // The picker row is refreshed from disk.
    let fx = h.take_effects();
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::RefreshRecord { path: p, .. } if *p == path)),
        "{fx:?}"
    );

    // Esc returns to the picker with its selection.
    h.key(KeyCode::Esc);
    assert!(h.state.screen.is_picker());
    assert_eq!(h.state.picker.selected, selected_before);
}

#[test]
fn print_mode_enter_prints_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let options = Options {
        print_mode: true,
        ..Options::default()
    };
    let mut h = Harness::with_options(120, 40, options);
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    assert!(fx.iter().any(|e| matches!(e, Effect::Print(_))), "{fx:?}");
    assert!(h.state.screen.is_picker());
}

#[test]
fn print_mode_view_resume_prints_path_and_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let options = Options {
        print_mode: true,
        ..Options::default()
    };
    let mut h = Harness::with_options(120, 40, options);
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    // Ctrl+V opens the view even in --print mode.
    let path = open_with(&mut h, |h| h.ctrl('v'));
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("not in the view");
    };
    let entry = view.selected_id().unwrap().to_owned();
    h.key(KeyCode::Char('r'));
    let fx = h.take_effects();
    let expected = format!("{} {entry}", path.display());
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::PrintLine(l) if *l == expected)),
        "{fx:?}"
    );
}

/// `r` off the leaf under `--print`: the offer knows it prints (the view is told by the app),
/// and once the check-out is written the session and entry are printed, not resumed.
#[test]
fn print_mode_resume_offer_checks_out_then_prints() {
    let tmp = tempfile::tempdir().unwrap();
    let options = Options {
        print_mode: true,
        ..Options::default()
    };
    let mut h = Harness::with_options(120, 40, options);
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    let path = open_with(&mut h, |h| h.ctrl('v'));
    h.key(KeyCode::Home);
    h.key(KeyCode::Char('r'));
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("not in the view");
    };
    assert!(view.resume_prints, "the view knows --print");
    assert!(
        matches!(view.mode, grove::app::session_view::Mode::ConfirmResume(_)),
        "{:?}",
        view.mode
    );
    let entry = view.selected_id().unwrap().to_owned();
    let before = std::fs::read(&path).unwrap();
    h.key(KeyCode::Char('y'));
    let fx = h.take_effects();
    let Some(Effect::View { effect, .. }) =
        fx.into_iter().find(|e| matches!(e, Effect::View { .. }))
    else {
        panic!("no check-out effect");
    };
    assert!(matches!(effect, ViewEffect::Checkout { .. }), "{effect:?}");
    let outcome = execute(&effect).expect("outcome");
    h.raw(Event::ViewDone {
        path: path.clone(),
        outcome: Box::new(outcome),
    });
    let fx = h.take_effects();
    let expected = format!("{} {entry}", path.display());
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::PrintLine(l) if *l == expected)),
        "{fx:?}"
    );
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::LaunchAgent { .. })),
        "{fx:?}"
    );
    let now = std::fs::read(&path).unwrap();
    assert!(
        now.starts_with(&before) && now.len() > before.len(),
        "checked out"
    );
}

#[test]
fn a_fork_joins_the_picker() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = Harness::with_options(120, 40, Options::default());
    let records = demo_records(tmp.path());
    let count = records.len();
    h.load(records);
    h.key(KeyCode::Tab);
    let path = open_selected(&mut h);
    h.key(KeyCode::Char('f'));
    let fx = h.take_effects();
    let effect = fx
        .into_iter()
        .find_map(|e| match e {
            Effect::View { effect, .. } => Some(effect),
            _ => None,
        })
        .expect("fork effect");
    let outcome = execute(&effect).expect("outcome");
    h.raw(Event::ViewDone {
        path: path.clone(),
        outcome: Box::new(outcome),
    });
    let fx = h.take_effects();
    let Some(Effect::RefreshRecord { path: fork, agent }) = fx
        .into_iter()
        .find(|e| matches!(e, Effect::RefreshRecord { .. }))
    else {
        panic!("the fork is not added to the picker");
    };
    assert_ne!(fork, path);
    h.raw(Event::RecordRefreshed {
        path: fork.clone(),
        result: Ok(Arc::new(SessionRecord::new(
            scan_info(&fork, agent).unwrap(),
            None,
        ))),
    });
    assert_eq!(h.state.picker.records.len(), count + 1);
    // As pi's /fork switches to the new session, the view opens it.
    let open = h.take_open_request();
    assert_eq!(open.path, fork);
    h.answer_open(open);
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("the fork is not opened in the view");
    };
    assert_eq!(view.path, fork);
}

#[test]
fn paste_goes_into_the_label_input_without_controls() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = Harness::with_options(120, 40, Options::default());
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    open_selected(&mut h);
    h.key(KeyCode::Char('L'));
    h.raw(Event::Paste("pasted\u{1b}[2J\nlabel".into()));
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    assert!(
        fx.iter().any(|e| matches!(
            e,
            Effect::View { effect: ViewEffect::AppendLabel { label: Some(l), .. }, .. }
                if l.ends_with("pasted[2J label")
        )),
        "{fx:?}"
    );
}

#[test]
fn a_view_laid_out_off_thread_takes_the_size_the_terminal_has_when_it_arrives() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = Harness::with_options(120, 40, Options::default());
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    let open = h.take_open_request();
    assert_eq!((open.viewport.width, open.viewport.height), (120, 40));
    // The terminal shrinks while the session loads.
    h.raw(Event::Resize(70, 20));
    h.answer_open(open);
    match &h.state.screen {
        Screen::View { view, .. } => {
            assert_eq!((view.viewport.width, view.viewport.height), (70, 20));
        }
        _ => panic!("not in the session view"),
    }
}

#[test]
fn closing_the_view_frees_the_session_off_the_ui_thread() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = Harness::with_options(120, 40, Options::default());
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    open_selected(&mut h);
    assert!(matches!(h.state.screen, Screen::View { .. }));
    h.take_effects();
    h.key(KeyCode::Esc);
    assert!(matches!(h.state.screen, Screen::Picker));
    let fx = h.take_effects();
    assert!(fx.iter().any(|e| matches!(e, Effect::Discard(_))), "{fx:?}");
}

#[test]
fn the_tree_width_is_kept_for_the_run_and_the_zoom_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let mut h = Harness::with_options(120, 40, Options::default());
    h.load(demo_records(tmp.path()));
    h.key(KeyCode::Tab);
    open_selected(&mut h);
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("not in the session view");
    };
    let default_width = view.layout().tree.width;
    h.key(KeyCode::Char('>'));
    h.key(KeyCode::Char('>'));
    h.key(KeyCode::Char('z'));
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("left the view");
    };
    assert!(view.panes.zoomed);
    let chosen = view.panes.tree_share;
    assert!(chosen.is_some());
    // Leave, then open another session: the same width, no zoom.
    h.key(KeyCode::Esc);
    assert!(h.state.screen.is_picker());
    h.key(KeyCode::Down);
    open_selected(&mut h);
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("not in the session view");
    };
    assert_eq!(view.panes.tree_share, chosen);
    assert!(!view.panes.zoomed);
    assert!(view.layout().tree.width > default_width);
}
