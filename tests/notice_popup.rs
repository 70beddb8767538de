//! The notice popup (config problems at start) over the picker: drawn with the keys the key
//! map gives its `notice` layer, keys under it do nothing, and once it is dismissed the
//! status-line notices (one model with it) are still there. Snapshots at three sizes.

#[path = "picker_support/mod.rs"]
mod support;

use std::collections::BTreeMap;

use grove::app::notice::{Notice, NoticeKind};
use ratatui::crossterm::event::KeyCode;
use support::*;

fn with_popup(w: u16, h: u16) -> Harness {
    let mut harness = Harness::new(w, h);
    harness.load(fixtures());
    harness
        .state
        .notices
        .push_status("2 files could not be read as sessions · ctrl+e lists them");
    harness.state.notices.extend(Notice::config_problems(vec![
        "line 4, column 10: invalid string\nexpected `\"`, `'`".into(),
        "[keys] unknown action `lable`".into(),
        "[theme] accent: unknown colour `blu\u{1b}[2J`".into(),
    ]));
    harness
}

#[test]
fn popup_over_the_picker() {
    for (w, h) in SIZES {
        let harness = with_popup(w, h);
        insta::assert_snapshot!(format!("notice_popup_{w}x{h}"), harness.render());
    }
}

#[test]
fn keys_under_the_popup_do_nothing_until_it_is_dismissed() {
    let mut h = with_popup(100, 30);
    let before = h.state.picker.selected;
    h.key(KeyCode::Down);
    h.type_str("x");
    h.ctrl('d');
    assert_eq!(h.state.picker.selected, before);
    assert_eq!(h.state.picker.query.text(), "");
    assert_eq!(h.state.mode, grove::app::state::Mode::Normal);
    assert_eq!(h.state.notices.scroll, 1, "down scrolled the popup");
    assert!(h.render().contains("3 config problems"));
    h.key(KeyCode::Enter);
    assert!(h.state.notices.popup().is_none());
    let screen = h.render();
    assert!(!screen.contains("config problems"), "{screen}");
    // The status notice is the same model: shown now, dismissed by its own key.
    assert!(screen.contains("2 files could not be read"), "{screen}");
    assert!(screen.contains("ctrl+x dismiss"), "{screen}");
    h.ctrl('x');
    assert!(!h.state.notices.has_status());
    assert!(!h.render().contains("could not be read"));
    assert!(!h.state.notices.dismiss(NoticeKind::Popup));
}

/// `[keys] notice.dismiss = "x"`: the popup's footer and its keys follow.
#[test]
fn the_popup_keys_are_configurable() {
    let mut h = with_popup(100, 30);
    let problems = h.state.keymap.apply_overrides(&BTreeMap::from([(
        "notice.dismiss".to_owned(),
        vec!["x".to_owned()],
    )]));
    assert!(problems.is_empty(), "{problems:?}");
    let screen = h.render();
    assert!(screen.contains("x dismiss · ↑↓ scroll"), "{screen}");
    h.key(KeyCode::Esc);
    assert!(h.state.notices.popup().is_some());
    h.type_str("x");
    assert!(h.state.notices.popup().is_none());
    assert_eq!(h.state.picker.query.text(), "", "the x went to the popup");
}
