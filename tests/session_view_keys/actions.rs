//! Label, check-out, fork and export flows: effects asserted, then executed on a temporary copy.

use super::*;

// ----- actions -----

fn temp_session(b: &B) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2025-01-01T00-00-00-000Z_s1.jsonl");
    std::fs::write(&path, b.text()).unwrap();
    (dir, path)
}

fn open(path: &std::path::Path) -> SessionViewState {
    let session = grove::storage::read::load_session(path).unwrap();
    SessionViewState::new(
        path.to_path_buf(),
        session,
        Dialect::Pi,
        Rect::new(0, 0, 100, 30),
    )
}

fn run(v: &mut SessionViewState, effects: Vec<ViewEffect>) -> Vec<ViewEffect> {
    let mut notes = Vec::new();
    for e in effects {
        if let Some(outcome) = execute(&e) {
            notes.extend(apply_outcome(v, outcome));
        }
    }
    notes
}

#[test]
fn label_is_prefilled_written_and_removed() {
    let (_dir, path) = temp_session(&branching());
    let mut v = open(&path);
    press(&mut v, ch('g'));
    assert_eq!(sel(&v).as_deref(), Some("user-1"));
    // Shift+L as terminals report it
    let fx = press(
        &mut v,
        KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT),
    );
    assert!(fx.is_empty());
    assert!(matches!(&v.mode, Mode::Label { input, .. } if input.text().is_empty()));
    type_text(&mut v, "start here");
    let fx = press(&mut v, key(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![ViewEffect::AppendLabel {
            path: path.clone(),
            target_id: "user-1".into(),
            label: Some("start here".into()),
        }]
    );
    let before = std::fs::read_to_string(&path).unwrap();
    let notes = run(&mut v, fx);
    assert_eq!(
        notes,
        vec![ViewEffect::SessionChanged { path: path.clone() }]
    );
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(&before), "only appended");
    assert_eq!(after.lines().count(), before.lines().count() + 1);
    assert_eq!(sel(&v).as_deref(), Some("user-1"), "selection kept");
    assert_eq!(v.session.tree.labels["user-1"].text, "start here");
    // Labeled-only filter now has one row.
    press(&mut v, ctrl('l'));
    assert_eq!(v.nav.len(), 1);
    // Edit: prefilled; clearing it removes the label.
    press(&mut v, ch('L'));
    assert!(matches!(&v.mode, Mode::Label { input, .. } if input.text() == "start here"));
    press(&mut v, ctrl('u'));
    let fx = press(&mut v, key(KeyCode::Enter));
    assert!(matches!(
        &fx[..],
        [ViewEffect::AppendLabel { label: None, .. }]
    ));
    run(&mut v, fx);
    assert!(v.session.tree.labels.is_empty());
    // Esc cancels without effects.
    press(&mut v, ctrl('d'));
    press(&mut v, ch('L'));
    type_text(&mut v, "nope");
    assert!(press(&mut v, key(KeyCode::Esc)).is_empty());
    assert_eq!(v.mode, Mode::Normal);
}

#[test]
fn checkout_confirms_which_branch_resumes() {
    let (_dir, path) = temp_session(&branching());
    let mut v = open(&path);
    // go to asst-3b (the other branch), an assistant entry: resumes at itself
    down_to(&mut v, "asst-3b");
    let target = v.nav.selected_entry().unwrap();
    press(&mut v, ch('c'));
    assert_eq!(
        v.mode,
        Mode::ConfirmCheckout {
            target,
            resumes_after: Some(target)
        }
    );
    // n cancels
    assert!(press(&mut v, ch('n')).is_empty());
    assert_eq!(v.mode, Mode::Normal);
    press(&mut v, ch('c'));
    let fx = press(&mut v, ch('y'));
    assert_eq!(
        fx,
        vec![ViewEffect::Checkout {
            path: path.clone(),
            target_id: "asst-3b".into()
        }]
    );
    run(&mut v, fx);
    // the leaf is now the check-out entry under asst-3b; its branch is the active path
    let leaf = v.session.tree.leaf.unwrap();
    assert_eq!(v.session.tree.parent[leaf], Some(target));
    assert!(v.nav.is_on_active_path(target));
    assert_eq!(sel(&v).as_deref(), Some("asst-3b"));
    // the active branch is listed first now
    assert_eq!(
        v.nav.rows()[4].entry,
        v.session.tree.index_of("user-3b").unwrap()
    );
    // checking out the same point again writes nothing
    press(&mut v, ch('c'));
    assert_eq!(v.mode, Mode::Normal);
    assert!(v.status.as_ref().unwrap().text.contains("Already"));
}

#[test]
fn checkout_of_a_user_message_resumes_after_its_parent() {
    let mut v = branching().view();
    down_to(&mut v, "user-3b");
    let target = v.nav.selected_entry().unwrap();
    let parent = v.session.tree.index_of("asst-2");
    press(&mut v, ch('c'));
    assert_eq!(
        v.mode,
        Mode::ConfirmCheckout {
            target,
            resumes_after: parent
        }
    );
}

#[test]
fn fork_writes_a_new_session_and_reports_it() {
    let (dir, path) = temp_session(&branching());
    let mut v = open(&path);
    press(&mut v, ch('g'));
    press(&mut v, ch('j'));
    let fx = press(&mut v, ch('f'));
    assert_eq!(
        fx,
        vec![ViewEffect::Fork {
            path: path.clone(),
            at_id: "asst-1".into()
        }]
    );
    let notes = run(&mut v, fx);
    let [ViewEffect::SessionCreated { path: new, parent }] = &notes[..] else {
        panic!("{notes:?}");
    };
    assert_eq!(parent, &path);
    assert_eq!(new.parent(), Some(dir.path()));
    let forked = grove::storage::read::load_session(new).unwrap();
    assert_eq!(forked.entries().len(), 2);
}

#[test]
fn resume_reports_the_selected_entry() {
    let mut v = branching().view();
    // Not where the session resumes: the check-out is offered first (tests/resume_offer.rs).
    press(&mut v, ch('g'));
    assert_eq!(press(&mut v, ch('r')), vec![]);
    assert!(matches!(v.mode, Mode::ConfirmResume(_)), "{:?}", v.mode);
    press(&mut v, ch('n'));
    // On the leaf it resumes at once.
    let leaf = v.session.tree.leaf.unwrap();
    v.nav.select_entry(&v.session, leaf);
    let id = v.session.entry(leaf).unwrap().id.clone();
    assert_eq!(
        press(&mut v, ch('r')),
        vec![ViewEffect::Resume {
            path: PathBuf::from("/nonexistent/s.jsonl"),
            entry_id: Some(id),
            dialect: Dialect::Pi,
        }]
    );
}

#[test]
fn export_offers_a_name_and_never_overwrites_without_asking() {
    let (dir, path) = temp_session(&branching());
    let mut v = open(&path);
    press(&mut v, ch('e'));
    let Mode::ExportName(input) = &v.mode else {
        panic!("{:?}", v.mode)
    };
    assert_eq!(input.text(), "s1-asst4a.md");
    // Replace the offered name with a path in the temp dir.
    let target = dir.path().join("out.md");
    for _ in 0..input.text().chars().count() {
        press(&mut v, key(KeyCode::Backspace));
    }
    type_text(&mut v, &target.to_string_lossy());
    let fx = press(&mut v, key(KeyCode::Enter));
    let [
        ViewEffect::Export {
            file,
            contents,
            overwrite: false,
        },
    ] = &fx[..]
    else {
        panic!("{fx:?}")
    };
    assert_eq!(file, &target);
    assert!(contents.contains("branch A leaf"));
    run(&mut v, fx.clone());
    assert!(v.status.as_ref().unwrap().text.starts_with("Exported to"));
    let first = std::fs::read_to_string(&target).unwrap();
    // Again: the file exists, so the view asks.
    std::fs::write(&target, "keep me").unwrap();
    run(&mut v, fx.clone());
    assert_eq!(
        v.mode,
        Mode::ConfirmOverwrite {
            file: target.clone()
        }
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    // n: back to the name, file untouched
    press(&mut v, ch('n'));
    assert!(matches!(v.mode, Mode::ExportName(_)));
    let again = press(&mut v, key(KeyCode::Enter));
    run(&mut v, again);
    assert!(matches!(v.mode, Mode::ConfirmOverwrite { .. }));
    let fx = press(&mut v, ch('y'));
    assert!(matches!(
        &fx[..],
        [ViewEffect::Export {
            overwrite: true,
            ..
        }]
    ));
    run(&mut v, fx);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), first);
    // The write helper itself refuses to replace.
    assert_eq!(
        grove::app::session_view::write_export(&target, "x", false),
        Err(ExportFailure::Exists(target.clone()))
    );
    let _ = Outcome::Forked(Ok(PathBuf::new()));
}

#[test]
fn help_opens_scrolls_and_any_other_key_closes() {
    let mut v = branching().view();
    press(&mut v, ch('?'));
    assert_eq!(v.mode, Mode::Help { scroll: 0 });
    press(&mut v, ch('j'));
    assert_eq!(v.mode, Mode::Help { scroll: 1 });
    press(&mut v, ch('q'));
    assert_eq!(v.mode, Mode::Normal);
}

#[test]
fn the_leaf_marker_hangs_from_the_nearest_shown_entry_after_a_label_or_rename() {
    let b = five()
        .raw(r#"{"type":"label","id":"lab-1","parentId":"asst-2","timestamp":"2025-01-01T01:00:00Z","targetId":"user-1","label":"start"}"#)
        .raw(r#"{"type":"session_info","id":"name-1","parentId":"lab-1","timestamp":"2025-01-01T01:00:01Z","name":"named"}"#);
    let v = b.view();
    let leaf = v.session.tree.leaf.unwrap();
    assert_eq!(v.session.entry(leaf).unwrap().id, "name-1");
    // The label and the name are hidden by the default filter: the marker is on asst-2.
    assert!(v.nav.row_of(leaf).is_none());
    let marked = v.marked_leaf().unwrap();
    assert_eq!(v.session.entry(marked).unwrap().id, "asst-2");
    // Shown entries mark themselves.
    let v = five().view();
    assert_eq!(v.marked_leaf(), v.session.tree.leaf);
}
