//! `r` in the session view on an entry that is not where the session resumes offers to check
//! it out first (one appended line, as `c` writes) and then resumes there, saying which branch
//! resumes; on the leaf it resumes at once; declining writes nothing.

#[path = "session_builder/mod.rs"]
mod builder;

use grove::app::keymap::default_keymap;
use grove::app::session_view::{
    Mode, SessionViewState, ViewEffect, apply_outcome, execute, update,
};
use grove::model::context::Dialect;
use grove::ui::session_view::draw_session_view;
use grove::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use serde_json::json;

fn session() -> builder::Builder {
    let mut b = builder::Builder::create(
        "2026-11-01T00-00-00-000Z_resume.jsonl",
        1_796_000_000_000,
        json!({"type":"session","version":3,"id":"0190a000-0000-7000-8000-0000000000ee",
               "timestamp":"2026-11-29T00:00:00.000Z","cwd":"/home/u/code/app"}),
    );
    b.user("u1", "Write the parser");
    b.assistant("a1", "Here is a parser built on nom.");
    b.user("u2", "Rewrite it by hand instead");
    b.assistant("a2", "Here is the hand-written parser.");
    b.write();
    b
}

fn open(b: &builder::Builder) -> SessionViewState {
    *SessionViewState::open(&b.path, Dialect::Pi, Rect::new(0, 0, 110, 28), None).unwrap()
}

fn key(v: &mut SessionViewState, c: char) -> Vec<ViewEffect> {
    update(v, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn select(v: &mut SessionViewState, id: &str) {
    let i = v.session.tree.index_of(id).unwrap();
    v.nav.select_entry(&v.session, i);
    grove::app::session_view::settle(v);
    assert_eq!(v.selected_id(), Some(id));
}

fn render(v: &SessionViewState) -> String {
    render_sized(v, 110, 28)
}

fn render_sized(v: &SessionViewState, width: u16, height: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(|f| draw_session_view(f, f.area(), v, &Theme::default(), default_keymap()))
        .unwrap();
    let re = regex::Regex::new(r"/tmp/\.tmp[A-Za-z0-9]{6}").unwrap();
    re.replace_all(&t.backend().to_string(), "/tmp/.tmpXXXXXX")
        .into_owned()
}

#[test]
fn r_on_the_leaf_resumes_at_once() {
    let b = session();
    let mut v = open(&b);
    assert_eq!(v.selected_id(), Some("a2"));
    let fx = key(&mut v, 'r');
    assert!(
        matches!(&fx[..], [ViewEffect::Resume { entry_id: Some(id), .. }] if id == "a2"),
        "{fx:?}"
    );
    assert_eq!(v.mode, Mode::Normal);
}

#[test]
fn r_elsewhere_offers_the_check_out_then_resumes_there() {
    let b = session();
    let before = std::fs::read(&b.path).unwrap();
    let mut v = open(&b);
    select(&mut v, "a1");
    let fx = key(&mut v, 'r');
    assert!(fx.is_empty(), "nothing happens before the answer: {fx:?}");
    assert!(matches!(v.mode, Mode::ConfirmResume(_)), "{:?}", v.mode);
    let screen = render(&v);
    insta::assert_snapshot!("resume_offer_dialog", screen);
    for (w, h) in [(60, 20), (100, 30), (160, 45)] {
        let mut sized = open(&b);
        select(&mut sized, "a1");
        key(&mut sized, 'r');
        grove::app::session_view::apply_resize(&mut sized, Rect::new(0, 0, w, h));
        let screen = render_sized(&sized, w, h);
        insta::assert_snapshot!(format!("resume_offer_dialog_{w}x{h}"), screen);
    }
    assert!(screen.contains("Resume here?"), "{screen}");
    assert!(
        screen.contains("assistant: Here is a parser built on nom."),
        "{screen}"
    );

    // Yes: the check-out is written first; the resume follows its outcome.
    let fx = key(&mut v, 'y');
    let [ViewEffect::Checkout { target_id, .. }] = &fx[..] else {
        panic!("expected a check-out: {fx:?}");
    };
    assert_eq!(target_id, "a1");
    let outcome = execute(&fx[0]).expect("a write has an outcome");
    let after = apply_outcome(&mut v, outcome);
    assert!(
        after.iter().any(|e| matches!(e, ViewEffect::Resume { .. })),
        "{after:?}"
    );
    let now = std::fs::read(&b.path).unwrap();
    assert!(now.starts_with(&before), "only appended");
    assert_eq!(
        now[before.len()..].iter().filter(|&&c| c == b'\n').count(),
        1,
        "one line"
    );
    // The session now resumes after the chosen entry.
    let reloaded = grove::storage::read::load_session(&b.path).unwrap();
    let leaf = reloaded.tree.leaf.unwrap();
    let parent = reloaded.tree.parent[leaf].unwrap();
    assert_eq!(reloaded.entry(parent).unwrap().id, "a1");
    // Resuming again from there does not offer anything.
    let fx = key(&mut v, 'r');
    assert!(
        matches!(&fx[..], [ViewEffect::Resume { .. }]),
        "{fx:?} {:?}",
        v.mode
    );
}

#[test]
fn declining_the_offer_writes_nothing_and_a_user_message_says_where_it_resumes() {
    let b = session();
    let before = std::fs::read(&b.path).unwrap();
    let mut v = open(&b);
    select(&mut v, "u2");
    key(&mut v, 'r');
    let Mode::ConfirmResume(offer) = &v.mode else {
        panic!("no offer: {:?}", v.mode);
    };
    // A user message goes back to the editor: the branch resumes after its parent.
    assert_eq!(offer.resumes_after, v.session.tree.index_of("a1"));
    let screen = render(&v);
    assert!(
        screen.contains("a user message goes back to the editor"),
        "{screen}"
    );
    let fx = key(&mut v, 'n');
    assert!(fx.is_empty());
    assert_eq!(v.mode, Mode::Normal);
    assert_eq!(std::fs::read(&b.path).unwrap(), before);
}

#[test]
fn export_asks_for_the_folder_and_reports_the_full_path() {
    let b = session();
    let out = tempfile::tempdir().unwrap();
    let mut v = open(&b);
    v.export_dir = Some(out.path().to_path_buf());
    key(&mut v, 'e');
    let Mode::ExportName(input) = &v.mode else {
        panic!("no export dialog: {:?}", v.mode);
    };
    let offered = input.text().to_owned();
    assert!(
        offered.starts_with(&out.path().display().to_string()) && offered.ends_with(".md"),
        "{offered}"
    );
    assert!(render(&v).contains("Folder and file name"));
    // Edit the folder: a subfolder that exists.
    std::fs::create_dir(out.path().join("sub")).unwrap();
    let mut edited = out.path().join("sub").join("notes.md");
    if let Mode::ExportName(input) = &mut v.mode {
        *input = grove::app::text_input::TextInput::with_text(&edited.to_string_lossy());
    }
    let fx = update(&mut v, KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let [effect @ ViewEffect::Export { .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    let outcome = execute(effect).expect("outcome");
    apply_outcome(&mut v, outcome);
    let status = v.status.as_ref().unwrap().text.clone();
    edited = std::fs::canonicalize(&edited).unwrap_or(edited);
    assert!(edited.exists());
    assert!(
        status.contains(&*out.path().join("sub").join("notes.md").to_string_lossy()),
        "{status}"
    );
}

/// With `--print` `r` prints the session for a script instead of resuming: the offer says it
/// checks out and then prints, and a yes still writes the check-out first (then the resume
/// effect, which the app prints); a no prints nothing.
#[test]
fn in_print_mode_the_offer_checks_out_then_prints() {
    let b = session();
    let mut v = open(&b);
    v.resume_prints = true;
    select(&mut v, "a1");
    assert!(key(&mut v, 'r').is_empty());
    let screen = render(&v);
    insta::assert_snapshot!("resume_offer_dialog_print", screen);
    assert!(screen.contains("Print from here?"), "{screen}");
    assert!(screen.contains("then print it (--print)"), "{screen}");
    assert!(screen.contains("check out and print"), "{screen}");
    assert!(!screen.contains("resume ·"), "{screen}");
    assert_eq!(key(&mut v, 'n'), vec![]);
    let status = v.status.as_ref().unwrap().text.clone();
    assert_eq!(status, "Nothing printed; nothing written");

    key(&mut v, 'r');
    let fx = key(&mut v, 'y');
    assert_eq!(
        v.status.as_ref().unwrap().text,
        "Checking out, then printing…"
    );
    let outcome = execute(&fx[0]).expect("a write has an outcome");
    let after = apply_outcome(&mut v, outcome);
    assert!(
        after
            .iter()
            .any(|e| matches!(e, ViewEffect::Resume { entry_id: Some(id), .. } if id == "a1")),
        "{after:?}"
    );
}
