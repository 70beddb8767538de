//! Session families in the threaded list: folded by default with the number of sessions
//! each hides (`▸ 3`), unfolded with Alt+→, folded with Alt+← (from inside a family too),
//! toggled with Alt+F, `[picker] families = "unfolded"` to start them open, a search that
//! finds a folded family's sessions, and hiding child sessions in every sort (Alt+C).

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::config::Config;
use grove::app::event::Event;
use grove::app::state::SortMode;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::*;

const PARENT: &str = "Release 0.4.0";
const FORK: &str = "Benchmark the bytes pipeline after the release";
/// A fork of the fork (a subagent's session, say).
const GRANDCHILD: &str = "Profile the parser hot loop";
/// A second fork of the parent.
const SIBLING: &str = "Write the changelog for 0.4.0";
const NEXT: &str = "Paste from terminal: \u{1b}[31mred\u{1b}[0m alert \u{202e}spoof";

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];

/// The fixtures plus two more in the family of "Release 0.4.0": three sessions under it.
fn sessions() -> Vec<std::sync::Arc<grove::app::record::SessionRecord>> {
    let mut all = fixtures();
    let fork = all
        .iter()
        .find(|r| r.info.first_message == FORK)
        .expect("the fork")
        .info
        .path
        .clone();
    let parent = all
        .iter()
        .find(|r| r.info.name.as_deref() == Some(PARENT))
        .expect("the parent")
        .info
        .path
        .clone();
    let mut g = info("gggg0001", GRANDCHILD, CURRENT, 2 * DAY + MIN, 5);
    g.parent_session_path = Some(fork.to_string_lossy().into_owned());
    let mut s = info("ssss0002", SIBLING, CURRENT, 4 * HOUR, 7);
    s.parent_session_path = Some(parent.to_string_lossy().into_owned());
    all.push(record(g));
    all.push(record(s));
    all
}

fn harness(folded: bool) -> Harness {
    let mut h = Harness::new(100, 30);
    h.state.picker.families.folded_by_default = folded;
    h.load(sessions());
    h.take_effects();
    h
}

fn alt(h: &mut Harness, code: KeyCode) {
    h.send(Event::Key(KeyEvent::new(code, KeyModifiers::ALT)));
}

fn select(h: &mut Harness, title: &str) {
    let pos = h.titles().iter().position(|t| t == title).expect("listed");
    h.state.picker.select(pos);
}

fn titles_has(h: &Harness, title: &str) -> bool {
    h.titles().iter().any(|t| t == title)
}

fn render_at(h: &mut Harness, (w, height): (u16, u16)) -> String {
    h.state.viewport = (w, height);
    h.render()
}

#[test]
fn families_start_folded_with_their_count() {
    let h = harness(true);
    assert_eq!(
        h.titles(),
        [
            "Fix the flaky CI job on macOS runners",
            PARENT,
            NEXT,
            "Old experiment"
        ]
    );
    let screen = h.render();
    let row = screen
        .lines()
        .find(|l| l.contains(PARENT))
        .expect("the parent row");
    assert!(row.contains("▸ 3 Release 0.4.0"), "{row}");
}

#[test]
fn folded_and_unfolded_snapshots() {
    let mut h = harness(true);
    select(&mut h, PARENT);
    for size in SIZES {
        let name = format!("family_folded_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, render_at(&mut h, size));
    }
    alt(&mut h, KeyCode::Right);
    for size in SIZES {
        let name = format!("family_unfolded_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, render_at(&mut h, size));
    }
}

#[test]
fn unfold_and_fold_keep_the_selection_on_the_same_session() {
    let mut h = harness(true);
    select(&mut h, PARENT);
    alt(&mut h, KeyCode::Right);
    // One level opens: the fork's own fork stays folded under it.
    assert_eq!(h.titles()[1..5], [PARENT, SIBLING, FORK, NEXT]);
    assert_eq!(h.state.picker.families.shown.hidden_under.len(), 1);
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
    // Alt+→ again: nothing more to open.
    let before = h.titles();
    alt(&mut h, KeyCode::Right);
    assert_eq!(h.titles(), before);
    alt(&mut h, KeyCode::Left);
    assert!(!titles_has(&h, FORK));
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
    // Alt+F toggles.
    alt(&mut h, KeyCode::Char('f'));
    assert!(titles_has(&h, FORK));
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
    alt(&mut h, KeyCode::Char('f'));
    assert!(!titles_has(&h, FORK));
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
}

#[test]
fn alt_left_inside_a_family_folds_it_and_selects_its_head() {
    let mut h = harness(false);
    select(&mut h, GRANDCHILD);
    // The grandchild has no children: Alt+← folds the fork it is under.
    alt(&mut h, KeyCode::Left);
    assert!(!titles_has(&h, GRANDCHILD));
    assert_eq!(h.selected_title().as_deref(), Some(FORK));
    assert!(titles_has(&h, SIBLING));
    // The fork is folded: Alt+← again folds the family above it.
    alt(&mut h, KeyCode::Left);
    assert!(!titles_has(&h, FORK) && !titles_has(&h, SIBLING));
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
    // A root without children: nothing to fold, nothing moves.
    select(&mut h, NEXT);
    let before = h.titles();
    alt(&mut h, KeyCode::Left);
    alt(&mut h, KeyCode::Char('f'));
    assert_eq!(h.titles(), before);
    assert_eq!(h.selected_title().as_deref(), Some(NEXT));
}

#[test]
fn keys_act_only_on_the_rows_shown() {
    let mut h = harness(true);
    select(&mut h, PARENT);
    // Down goes to the next row shown, past the folded family.
    h.key(KeyCode::Down);
    assert_eq!(h.selected_title().as_deref(), Some(NEXT));
    h.key(KeyCode::Up);
    assert_eq!(h.selected_title().as_deref(), Some(PARENT));
    // Every row is a listed session on screen; the folded ones are not rows.
    assert_eq!(h.state.picker.rows.len(), 4);
    assert_eq!(
        h.state
            .picker
            .families
            .shown
            .hidden_under
            .values()
            .sum::<usize>(),
        3
    );
}

/// A search lists its matches flat and ranked, a folded family's sessions too; the fold keys
/// do nothing there (and say why). Leaving the search keeps the session picked in it
/// selected: its family opens.
#[test]
fn a_search_finds_the_sessions_of_a_folded_family() {
    let mut h = harness(true);
    h.type_str("profile parser");
    assert_eq!(h.titles(), [GRANDCHILD]);
    let before = h.titles();
    alt(&mut h, KeyCode::Left);
    assert_eq!(h.titles(), before);
    let status = h.state.status.as_ref().map(|s| s.text.clone());
    assert_eq!(
        status.as_deref(),
        Some("Families fold in the threaded sort, without a search")
    );
    h.key(KeyCode::Esc);
    assert!(h.state.picker.query.text().is_empty());
    assert_eq!(h.selected_title().as_deref(), Some(GRANDCHILD));
    assert!(titles_has(&h, FORK) && titles_has(&h, GRANDCHILD));
    // Opened for good: with another session selected, a rebuild (a round of the sorts)
    // keeps it open.
    select(&mut h, NEXT);
    h.ctrl('s');
    while h.state.picker.sort != SortMode::Threaded {
        h.ctrl('s');
    }
    assert!(titles_has(&h, GRANDCHILD));
    assert_eq!(h.selected_title().as_deref(), Some(NEXT));
}

#[test]
fn families_can_start_unfolded() {
    let mut h = harness(false);
    assert!(titles_has(&h, FORK) && titles_has(&h, GRANDCHILD) && titles_has(&h, SIBLING));
    assert!(h.state.picker.families.shown.hidden_under.is_empty());
    select(&mut h, PARENT);
    alt(&mut h, KeyCode::Left);
    assert!(!titles_has(&h, FORK));
    assert_eq!(h.state.picker.families.shown.hidden_under.len(), 1);
}

#[test]
fn the_config_value_of_families() {
    let parse = |text: &str| {
        let config = Config::parse(text).expect("a config");
        (
            grove::app::families::parse_config(config.families.as_deref()),
            grove::app::launch::config_problems(&config),
        )
    };
    assert_eq!(parse(""), (Ok(true), vec![]), "folded by default");
    assert_eq!(
        parse("[picker]\nfamilies = \"folded\"\n"),
        (Ok(true), vec![])
    );
    assert_eq!(
        parse("[picker]\nfamilies = \"unfolded\"\n"),
        (Ok(false), vec![])
    );
    let (value, problems) = parse("[picker]\nfamilies = \"sideways\"\n");
    assert!(value.is_err());
    assert_eq!(
        problems,
        ["[picker] families: `sideways` is not \"folded\" or \"unfolded\""]
    );
}

#[test]
fn alt_c_hides_child_sessions_in_every_sort() {
    let mut h = harness(false);
    let all = h.titles().len();
    alt(&mut h, KeyCode::Char('c'));
    assert_eq!(h.titles().len(), all - 3);
    assert!(!titles_has(&h, FORK) && !titles_has(&h, SIBLING));
    assert!(
        h.state.picker.families.shown.parents.is_empty(),
        "no families"
    );
    h.ctrl('s');
    assert_eq!(h.state.picker.sort, SortMode::Recent);
    assert!(!titles_has(&h, FORK));
    alt(&mut h, KeyCode::Char('c'));
    assert!(titles_has(&h, FORK));
}
