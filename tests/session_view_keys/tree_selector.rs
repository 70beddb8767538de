//! Ports of pi's `tree-selector.test.ts`: initial selection, filters, folding.

use super::*;

// ----- pi tree-selector.test.ts: initial selection with metadata entries -----

#[test]
fn leaf_on_model_change_focuses_nearest_visible_ancestor() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "active branch")
        .user("user-3", Some("asst-1"), "sibling branch")
        .raw(&model_change("model-1", "user-2"));
    let v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
}

#[test]
fn leaf_on_thinking_change_focuses_nearest_visible_ancestor() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "active branch")
        .user("user-3", Some("asst-1"), "sibling branch")
        .raw(r#"{"type":"thinking_level_change","id":"thinking-1","parentId":"user-2","timestamp":"2025-01-01T01:00:00Z","thinkingLevel":"high"}"#);
    let v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
}

#[test]
fn context_edits_hidden_by_default_and_labelled_in_all_mode() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .raw(r#"{"type":"context_edit","id":"edit-1","parentId":"asst-1","timestamp":"2025-01-01T01:00:00Z","targetId":"asst-1","replacement":null}"#);
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    press(&mut v, ctrl('a'));
    assert_eq!(v.nav.filter(), FilterMode::All);
    let texts: Vec<String> = v.nav.rows().iter().map(|r| v.entry_line(r.entry)).collect();
    assert!(
        texts.contains(&"[context omit: asst-1]".to_owned()),
        "{texts:?}"
    );
}

// ----- filter switching with parent traversal -----

#[test]
fn ctrl_u_moves_to_nearest_user_ancestor_and_ctrl_d_keeps_it() {
    let mut v = five().view();
    assert_eq!(sel(&v).as_deref(), Some("asst-2"));
    press(&mut v, ctrl('u'));
    assert_eq!(v.nav.filter(), FilterMode::UserOnly);
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v).as_deref(), Some("user-2"));
}

#[test]
fn filters_toggle_and_cycle() {
    let mut v = five().view();
    press(&mut v, ctrl('t'));
    assert_eq!(v.nav.filter(), FilterMode::NoTools);
    press(&mut v, ctrl('t'));
    assert_eq!(v.nav.filter(), FilterMode::Default);
    press(&mut v, ctrl('o'));
    assert_eq!(v.nav.filter(), FilterMode::NoTools);
    press(&mut v, ctrl('o'));
    assert_eq!(v.nav.filter(), FilterMode::UserOnly);
    // Alt+O goes back (legacy terminals cannot send pi's Shift+Ctrl+O).
    press(&mut v, KeyEvent::new(KeyCode::Char('o'), KeyModifiers::ALT));
    assert_eq!(v.nav.filter(), FilterMode::NoTools);
    press(&mut v, KeyEvent::new(KeyCode::Char('o'), KeyModifiers::ALT));
    assert_eq!(v.nav.filter(), FilterMode::Default);
    press(&mut v, ctrl('o'));
    press(&mut v, ctrl('d'));
    assert_eq!(v.nav.filter(), FilterMode::Default);
}

// ----- empty filter preservation -----

#[test]
fn empty_labeled_filter_and_back_restores_selection() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi")
        .user("user-2", Some("asst-1"), "bye")
        .asst("asst-2", Some("user-2"), "goodbye");
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-2"));
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v), None);
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v).as_deref(), Some("asst-2"));
}

#[test]
fn selection_survives_repeated_empty_filters() {
    let b = B::new()
        .user("user-1", None, "hello")
        .asst("asst-1", Some("user-1"), "hi");
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v), None);
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    press(&mut v, ctrl('l'));
    assert_eq!(sel(&v), None);
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
}

// ----- branch navigation and folding -----

fn expect_seq(v: &mut SessionViewState, steps: &[(KeyEvent, &str)]) {
    for (i, (k, want)) in steps.iter().enumerate() {
        press(v, *k);
        assert_eq!(sel(v).as_deref(), Some(*want), "step {i} ({k:?})");
    }
}

#[test]
fn ctrl_right_unfolds_then_jumps_segments() {
    let mut v = branching().view();
    assert_eq!(sel(&v).as_deref(), Some("asst-4a"));
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-3a"),
            (ctrl_left(), "user-3a"),
            (key(DOWN), "user-3b"),
            (key(UP), "user-3a"),
            (ctrl_right(), "user-3a"),
            (key(DOWN), "asst-3a"),
            (ctrl_left(), "user-3a"),
            (ctrl_right(), "asst-4a"),
        ],
    );
}

#[test]
fn alt_arrows_are_aliases() {
    let mut v = branching().view();
    expect_seq(
        &mut v,
        &[
            (alt_left(), "user-3a"),
            (alt_left(), "user-3a"),
            (alt_right(), "user-3a"),
            (alt_right(), "asst-4a"),
        ],
    );
}

#[test]
fn folding_root_hides_everything_and_nested_fold_survives() {
    let mut v = branching().view();
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-3a"),
            (ctrl_left(), "user-3a"),
            (ctrl_left(), "user-1"),
            (ctrl_left(), "user-1"),
            // a single row: down wraps onto itself
            (key(DOWN), "user-1"),
            (ctrl_right(), "user-1"),
            (ctrl_right(), "user-3a"),
            (key(DOWN), "user-3b"),
        ],
    );
    assert_eq!(v.nav.len(), 8, "user-3a stays folded");
}

#[test]
fn fold_and_navigate_on_non_active_branch() {
    let mut v = branching().view();
    assert!(down_to(&mut v, "user-3b"));
    expect_seq(
        &mut v,
        &[
            (ctrl_right(), "user-4b"),
            (ctrl_left(), "user-3b"),
            (ctrl_left(), "user-3b"),
            (ctrl_left(), "user-1"),
        ],
    );
}

#[test]
fn fold_and_navigate_with_multiple_roots() {
    let b = B::new()
        .user("user-1", None, "first root")
        .user("user-2", None, "second root")
        .asst("asst-2", Some("user-2"), "response 2")
        .asst("asst-1", Some("user-1"), "response 1");
    let mut v = b.view();
    assert_eq!(sel(&v).as_deref(), Some("asst-1"));
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-1"),
            (ctrl_left(), "user-1"),
            (key(DOWN), "user-2"),
            (ctrl_right(), "asst-2"),
            (ctrl_left(), "user-2"),
            (ctrl_left(), "user-2"),
            (ctrl_left(), "user-2"),
        ],
    );
}

#[test]
fn folding_root_hides_descendants_through_filtered_intermediates() {
    let b = B::new()
        .user("user-1", None, "hello")
        .tool_only("tool-asst-1", Some("user-1"))
        .user("user-2", Some("tool-asst-1"), "follow up")
        .asst("asst-2", Some("user-2"), "response");
    let mut v = b.view();
    expect_seq(
        &mut v,
        &[
            (ctrl_left(), "user-1"),
            (ctrl_left(), "user-1"),
            (key(DOWN), "user-1"),
        ],
    );
}

#[test]
fn search_and_esc_reset_folds() {
    let mut v = branching().view();
    press(&mut v, ctrl_left());
    press(&mut v, ctrl_left());
    press(&mut v, key(DOWN));
    assert_eq!(sel(&v).as_deref(), Some("user-3b"));
    press(&mut v, ch('/'));
    assert!(matches!(v.mode, Mode::TreeSearch(_)));
    press(&mut v, ch('b'));
    press(&mut v, key(KeyCode::Esc));
    assert_eq!(v.mode, Mode::Normal);
    assert!(!v.nav.has_folds());
    down_to(&mut v, "user-3a");
    assert_eq!(sel(&v).as_deref(), Some("user-3a"));
    press(&mut v, key(DOWN));
    assert_eq!(sel(&v).as_deref(), Some("asst-3a"));
}

#[test]
fn filter_change_resets_folds() {
    let mut v = branching().view();
    press(&mut v, ctrl_left());
    press(&mut v, ctrl_left());
    assert!(v.nav.has_folds());
    press(&mut v, ctrl('u'));
    press(&mut v, ctrl('d'));
    assert!(!v.nav.has_folds());
    down_to(&mut v, "user-3a");
    assert_eq!(sel(&v).as_deref(), Some("user-3a"));
    press(&mut v, key(DOWN));
    assert_eq!(sel(&v).as_deref(), Some("asst-3a"));
}
