//! Session families in the threaded list: fold and unfold a session's forks (Alt+←, Alt+→,
//! Alt+F), their count while folded, folded by default when configured, and hiding child
//! sessions in every sort (Alt+C).

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::state::SortMode;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::*;

fn loaded() -> Harness {
    let mut h = Harness::new(100, 12);
    h.load(fixtures());
    h.take_effects();
    h
}

fn alt(h: &mut Harness, code: KeyCode) {
    h.send(Event::Key(KeyEvent::new(code, KeyModifiers::ALT)));
}

use grove::app::event::Event;

const PARENT: &str = "Release 0.4.0";
const FORK: &str = "Benchmark the bytes pipeline after the release";

fn select(h: &mut Harness, title: &str) {
    let pos = h.titles().iter().position(|t| t == title).expect("listed");
    h.state.picker.select(pos);
}

#[test]
fn alt_left_folds_a_family_and_alt_right_unfolds_it() {
    let mut h = loaded();
    assert!(h.titles().contains(&FORK.to_owned()));
    select(&mut h, PARENT);
    alt(&mut h, KeyCode::Left);
    assert!(!h.titles().contains(&FORK.to_owned()));
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
    insta::assert_snapshot!("family_folded", h.render());
    assert_sizes!("family_folded", h);
    alt(&mut h, KeyCode::Right);
    assert!(h.titles().contains(&FORK.to_owned()));
    // Alt+F toggles; on a session without children it does nothing.
    alt(&mut h, KeyCode::Char('f'));
    assert!(!h.titles().contains(&FORK.to_owned()));
    alt(&mut h, KeyCode::Char('f'));
    assert!(h.titles().contains(&FORK.to_owned()));
    select(&mut h, FORK);
    let before = h.titles();
    alt(&mut h, KeyCode::Char('f'));
    assert_eq!(h.titles(), before);
}

#[test]
fn families_can_start_folded() {
    let mut h = Harness::new(100, 12);
    h.state.picker.families.folded_by_default = true;
    h.load(fixtures());
    assert!(!h.titles().contains(&FORK.to_owned()));
    assert_eq!(
        h.state.picker.families.hidden_under.len(),
        1,
        "one family folded"
    );
    select(&mut h, PARENT);
    alt(&mut h, KeyCode::Right);
    assert!(h.titles().contains(&FORK.to_owned()));
}

#[test]
fn alt_c_hides_child_sessions_in_every_sort() {
    let mut h = loaded();
    let all = h.titles().len();
    alt(&mut h, KeyCode::Char('c'));
    assert_eq!(h.titles().len(), all - 1);
    assert!(!h.titles().contains(&FORK.to_owned()));
    h.ctrl('s');
    assert_eq!(h.state.picker.sort, SortMode::Recent);
    assert!(!h.titles().contains(&FORK.to_owned()));
    alt(&mut h, KeyCode::Char('c'));
    assert!(h.titles().contains(&FORK.to_owned()));
}
