//! Hand-off (copy, pager, editor): key sequences through the pure update — the right effect
//! with the right payload for every choice, Esc changing nothing, nothing done on a popup not
//! yet drawn or a screen too small — and snapshots of the popup.

#[path = "picker_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use grove::app::event::{Effect, Event};
use grove::app::handoff::{CopyRequest, CopyWhat, OpenRequest, OpenWhat, Program};
use grove::app::handoff_text::COPY_CAP;
use grove::app::session_view::SessionViewState;
use grove::app::state::{Mode, Screen, SessionRecord};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use support::{CURRENT, Harness};

const SESSION_ID: &str = "aaaaaaaa-1111-7000-8000-000000000001";
/// The path the records and the popup show (the file itself lives in a temp dir).
const SHOWN_PATH: &str =
    "/home/u/.pi/agent/sessions/--home-u-code-app--/2026-11-28T09-00-00-000Z_aaaaaaaa.jsonl";

fn line(v: serde_json::Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}

/// A session: a question and an answer of `answer`.
fn write_session(dir: &Path, answer: &str) -> PathBuf {
    let mut text = line(json!({"type": "session", "version": 3, "id": SESSION_ID,
        "timestamp": "2026-11-28T09:00:00.000Z", "cwd": CURRENT}));
    text.push_str(&line(
        json!({"type": "message", "id": "u1", "parentId": null,
        "timestamp": "2026-11-28T09:00:01.000Z",
        "message": {"role": "user", "content": "Why does the CI job fail on macOS?"}}),
    ));
    text.push_str(&line(
        json!({"type": "message", "id": "a1", "parentId": "u1",
        "timestamp": "2026-11-28T09:00:02.000Z",
        "message": {"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": answer}], "stopReason": "stop"}}),
    ));
    let path = dir.join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn key(c: char) -> Event {
    let m = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Event::Key(KeyEvent::new(KeyCode::Char(c), m))
}

/// The list with the session, its record showing [`SHOWN_PATH`].
fn harness(file: &Path, w: u16, h: u16) -> Harness {
    let mut info = grove::storage::read::scan_info(file, None).unwrap();
    info.path = PathBuf::from(SHOWN_PATH);
    let mut h = Harness::new(w, h);
    h.load(vec![Arc::new(SessionRecord::without_fs(info, true))]);
    h.take_effects();
    h
}

/// Enter, answered as the event loop answers it: the view of `file`.
fn open_view(h: &mut Harness, file: &Path) {
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    let Some(Effect::OpenSession {
        record,
        path,
        agent,
        viewport,
        home,
        ..
    }) = fx
        .into_iter()
        .find(|e| matches!(e, Effect::OpenSession { .. }))
    else {
        panic!("Enter did not open the session");
    };
    let mut view = SessionViewState::open(file, agent, viewport, home).unwrap();
    view.path = path.clone();
    h.raw(Event::SessionOpened {
        record,
        path,
        result: Ok(view),
    });
    assert!(matches!(h.state.screen, Screen::View { .. }));
}

fn view_harness(answer: &str, w: u16, h: u16) -> (tempfile::TempDir, Harness) {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_session(tmp.path(), answer);
    let mut h = harness(&file, w, h);
    open_view(&mut h, &file);
    h.take_effects();
    (tmp, h)
}

fn alt_y() -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::ALT))
}

fn copies(h: &mut Harness) -> Vec<CopyRequest> {
    h.take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Copy(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn opens(h: &mut Harness) -> Vec<OpenRequest> {
    h.take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::OpenExternal(o) => Some(o),
            _ => None,
        })
        .collect()
}

const ANSWER: &str = "The cache key holds the runner's temp path.\n\n\tfix: pin it";

#[test]
fn every_copy_choice_in_the_view_copies_what_it_names() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    let cases = [
        ('t', CopyWhat::EntryText, ANSWER.to_owned()),
        ('i', CopyWhat::SessionId, SESSION_ID.to_owned()),
        ('p', CopyWhat::Path, SHOWN_PATH.to_owned()),
        (
            'r',
            CopyWhat::ResumeCommand,
            format!("cd {CURRENT} && pi --session {SHOWN_PATH}"),
        ),
    ];
    for (choice, what, text) in cases {
        h.send(key('y'));
        assert!(
            matches!(h.state.mode, Mode::Handoff(_)),
            "y opens the popup"
        );
        h.send(key(choice));
        assert_eq!(h.state.mode, Mode::Normal, "{choice} closes the popup");
        assert_eq!(
            copies(&mut h),
            vec![CopyRequest {
                what,
                text,
                cut_from: None
            }],
            "{choice}"
        );
    }
}

#[test]
fn pager_and_editor_get_the_entry_or_the_branch() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    // o / O at once in the view, e / E (and o / O) from the popup.
    let cases: [(&[char], Program, OpenWhat); 6] = [
        (&['o'], Program::Pager, OpenWhat::Entry),
        (&['O'], Program::Pager, OpenWhat::Branch),
        (&['y', 'o'], Program::Pager, OpenWhat::Entry),
        (&['y', 'O'], Program::Pager, OpenWhat::Branch),
        (&['y', 'e'], Program::Editor, OpenWhat::Entry),
        (&['y', 'E'], Program::Editor, OpenWhat::Branch),
    ];
    for (keys, program, what) in cases {
        for k in keys {
            h.send(key(*k));
        }
        let got = opens(&mut h);
        assert_eq!(got.len(), 1, "{keys:?}");
        let o = &got[0];
        assert_eq!(
            (o.program, o.what, o.cut_from),
            (program, what, None),
            "{keys:?}"
        );
        match what {
            OpenWhat::Entry => {
                assert_eq!(o.text, ANSWER);
                assert_eq!(o.file_name, "grove-aaaaaaaa-entry-a1.md");
            }
            OpenWhat::Branch => {
                assert!(
                    o.text.starts_with("# Why does the CI job fail on macOS?\n"),
                    "{}",
                    o.text
                );
                assert!(
                    o.text
                        .contains("## User\n\nWhy does the CI job fail on macOS?")
                );
                assert!(o.text.contains("fix: pin it"));
                assert_eq!(o.file_name, "grove-aaaaaaaa-branch-a1.md");
            }
        }
        assert_eq!(h.state.mode, Mode::Normal);
    }
}

#[test]
fn the_selected_entry_is_the_one_handed_off() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    h.key(KeyCode::Up); // the question
    h.send(key('y'));
    h.send(key('t'));
    assert_eq!(copies(&mut h)[0].text, "Why does the CI job fail on macOS?");
    h.send(key('O'));
    let o = opens(&mut h);
    // The branch up to the question: the answer is not in it.
    assert!(!o[0].text.contains("cache key"), "{}", o[0].text);
}

#[test]
fn esc_closes_the_popup_and_changes_nothing() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    let before = h.render();
    h.send(key('y'));
    assert_ne!(h.render(), before, "the popup is drawn");
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    assert_eq!(h.render(), before);
    // q too, and a key the popup does not bind leaves it open, doing nothing.
    h.send(key('y'));
    h.send(key('z'));
    assert!(matches!(h.state.mode, Mode::Handoff(_)));
    h.send(key('q'));
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    assert_eq!(h.render(), before);
}

#[test]
fn a_choice_before_the_popup_was_drawn_does_nothing() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    // y and i in one burst: the popup was never on screen when i arrived.
    h.undrawn(key('y'));
    h.undrawn(key('i'));
    assert!(matches!(h.state.mode, Mode::Handoff(_)));
    assert!(copies(&mut h).is_empty());
    h.state.drawn();
    h.send(key('i'));
    assert_eq!(copies(&mut h).len(), 1);
}

#[test]
fn nothing_happens_on_a_screen_too_small() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    h.send(Event::Resize(20, 5));
    for k in ['y', 'o', 'O'] {
        h.send(key(k));
    }
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
}

#[test]
fn the_list_copies_id_path_resume_and_first_message_and_opens_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_session(tmp.path(), ANSWER);
    let mut h = harness(&file, 100, 30);
    h.send(alt_y());
    assert!(matches!(h.state.mode, Mode::Handoff(_)));
    for k in ['o', 'O', 'e', 'E'] {
        h.send(key(k));
    }
    assert!(
        matches!(h.state.mode, Mode::Handoff(_)),
        "nothing to open in the list"
    );
    assert!(h.take_effects().is_empty());
    h.send(key('t'));
    assert_eq!(
        copies(&mut h),
        vec![CopyRequest {
            what: CopyWhat::FirstMessage,
            text: "Why does the CI job fail on macOS?".into(),
            cut_from: None
        }]
    );
    h.send(alt_y());
    h.send(key('i'));
    assert_eq!(copies(&mut h)[0].text, SESSION_ID);
    // Typed into the query, y is a letter, not the popup.
    h.send(key('y'));
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(h.state.picker.query.text(), "y");
}

#[test]
fn hostile_text_is_made_inert_and_a_long_one_is_cut() {
    let hostile = "ok\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{202e}gnp.exe\r\nnext";
    let (_tmp, mut h) = view_harness(hostile, 100, 30);
    h.send(key('y'));
    h.send(key('t'));
    let c = copies(&mut h);
    assert_eq!(c[0].text, "ok^[]52;c;ZXZpbA==^G^[[2J<U+202E>gnp.exe\nnext");
    h.send(key('O'));
    let o = opens(&mut h);
    assert!(
        !o[0]
            .text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{:?}",
        o[0].text
    );

    let long = "x".repeat(COPY_CAP * 3);
    let (_tmp, mut h) = view_harness(&long, 100, 30);
    h.send(key('y'));
    h.send(key('t'));
    let c = copies(&mut h);
    assert_eq!(c[0].text.len(), COPY_CAP);
    assert_eq!(c[0].cut_from, Some(COPY_CAP * 3));
    // The pager gets it whole.
    h.send(key('o'));
    assert_eq!(opens(&mut h)[0].text.len(), COPY_CAP * 3);
}

#[test]
fn a_path_that_would_paste_as_two_commands_is_not_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write_session(tmp.path(), ANSWER);
    let mut info = grove::storage::read::scan_info(&file, None).unwrap();
    info.path = PathBuf::from("/s/a\nrm -rf ~.jsonl");
    let mut h = Harness::new(100, 30);
    h.load(vec![Arc::new(SessionRecord::without_fs(info, true))]);
    h.take_effects();
    for k in ['p', 'r'] {
        h.send(alt_y());
        h.send(key(k));
        assert!(h.take_effects().is_empty(), "{k}");
        let status = h.state.status.clone().unwrap();
        assert!(
            status.text.contains("control or invisible characters"),
            "{}",
            status.text
        );
    }
    // The id is still fine.
    h.send(alt_y());
    h.send(key('i'));
    assert_eq!(copies(&mut h).len(), 1);
}

#[test]
fn the_outcome_shows_in_the_status_line() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    h.send(Event::HandedOff {
        text: "Copied the session id (OSC 52)".into(),
        is_error: false,
    });
    assert!(h.render().contains("Copied the session id (OSC 52)"));
    let tmp = tempfile::tempdir().unwrap();
    let mut h = harness(&write_session(tmp.path(), ANSWER), 100, 30);
    h.send(Event::HandedOff {
        text: "Copied the file path (system clipboard)".into(),
        is_error: false,
    });
    assert!(
        h.render()
            .contains("Copied the file path (system clipboard)")
    );
}

#[test]
fn the_keys_are_configurable() {
    use grove::app::keymap::{Action, KeyContext, Keymap};
    let mut km = Keymap::default();
    let problems = km.apply_overrides(&std::collections::BTreeMap::from([
        ("yank".to_owned(), vec!["Y".to_owned()]),
        ("handoff.copy-id".to_owned(), vec!["d".to_owned()]),
    ]));
    assert_eq!(problems, Vec::<String>::new());
    let keys = |c, a| -> Vec<String> { km.keys_for(c, a).iter().map(|k| k.to_string()).collect() };
    assert_eq!(keys(KeyContext::Tree, Action::Yank), ["Y"]);
    assert_eq!(keys(KeyContext::Picker, Action::Yank), ["Y"]);
    assert_eq!(keys(KeyContext::Handoff, Action::CopyId), ["d"]);
}

#[test]
fn popup_snapshots() {
    for (w, ht) in [(60, 20), (100, 30), (160, 45)] {
        let (_tmp, mut h) = view_harness(ANSWER, w, ht);
        h.send(key('y'));
        insta::assert_snapshot!(format!("view_popup_{w}x{ht}"), h.render());
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut h = harness(&write_session(tmp.path(), ANSWER), 100, 30);
    h.send(alt_y());
    insta::assert_snapshot!("list_popup_100x30", h.render());
}

#[test]
fn in_a_text_input_the_hand_off_keys_are_typed() {
    let (_tmp, mut h) = view_harness(ANSWER, 100, 30);
    h.send(key('L')); // the label input
    for k in ['y', 'o', 'O'] {
        h.send(key(k));
    }
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("not in the view");
    };
    let grove::app::session_view::Mode::Label { input, .. } = &view.mode else {
        panic!("not labelling: {:?}", view.mode);
    };
    assert_eq!(input.text(), "yoO");
}
