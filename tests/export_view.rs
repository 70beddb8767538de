//! `e` in the session view: a file name ending in `.html` exports the self-contained page,
//! anything else Markdown.

use grove::app::session_view::{Mode, SessionViewState, ViewEffect, update};
use grove::model::context::Dialect;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn export_as(name: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2025-01-01T00-00-00-000Z_s1.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hello **there**","timestamp":1}}"#,
            "\n"
        ),
    )
    .unwrap();
    let session = grove::storage::read::load_session(&path).unwrap();
    let mut v = SessionViewState::new(path, session, Dialect::Pi, Rect::new(0, 0, 100, 30));
    update(&mut v, key(KeyCode::Char('e')));
    let Mode::ExportName(input) = &v.mode else {
        panic!("{:?}", v.mode)
    };
    for _ in 0..input.text().chars().count() {
        update(&mut v, key(KeyCode::Backspace));
    }
    for c in dir.path().join(name).to_string_lossy().chars() {
        update(&mut v, key(KeyCode::Char(c)));
    }
    let fx = update(&mut v, key(KeyCode::Enter));
    match &fx[..] {
        [ViewEffect::Export { contents, .. }] => contents.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_file_name_chooses_the_format() {
    let html = export_as("out.HTML");
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("Content-Security-Policy"));
    let md = export_as("out.md");
    assert!(
        md.starts_with("# hello **there**\n") || md.starts_with("# hello \\*\\*there\\*\\*\n"),
        "{md}"
    );
    assert!(md.contains("## User\n\nhello **there**"), "{md}");
}
