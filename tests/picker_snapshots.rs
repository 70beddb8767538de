//! Snapshots of the rendered picker (ratatui TestBackend) at three sizes, with "now" fixed at
//! 2026-11-30T12:00:00Z so ages are stable. Review changes with `cargo insta review`.

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::event::{Event, ScanUpdate};
use grove::app::state::Liveness;
use ratatui::crossterm::event::KeyCode;
use support::*;

fn check(name: &str, build: impl Fn(u16, u16) -> Harness) {
    for (w, h) in SIZES {
        let harness = build(w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), harness.render());
    }
}

fn loaded(w: u16, h: u16) -> Harness {
    let mut harness = Harness::new(w, h);
    harness.load(fixtures());
    harness
}

#[test]
fn empty() {
    check("empty", |w, h| {
        let mut harness = Harness::new(w, h);
        harness.load(Vec::new());
        harness
    });
}

#[test]
fn loading() {
    check("loading", |w, h| {
        let mut harness = Harness::new(w, h);
        let generation = harness.scan_generation();
        harness.send(Event::ScanResult {
            generation,
            update: ScanUpdate::Found(1063),
        });
        let some: Vec<_> = fixtures().into_iter().take(3).collect();
        harness.send(Event::ScanResult {
            generation,
            update: ScanUpdate::Sessions(some),
        });
        harness
    });
}

#[test]
fn loaded_all_recent() {
    check("loaded", |w, h| {
        let mut harness = loaded(w, h);
        harness.key(KeyCode::Tab);
        harness.ctrl('s');
        harness.key(KeyCode::Down);
        harness
    });
}

#[test]
fn threaded() {
    check("threaded", |w, h| {
        let mut harness = loaded(w, h);
        harness.key(KeyCode::Down);
        harness.key(KeyCode::Down);
        harness
    });
}

#[test]
fn searching() {
    check("searching", |w, h| {
        let mut harness = loaded(w, h);
        harness.key(KeyCode::Tab);
        harness.type_str("release");
        harness
    });
}

#[test]
fn rename() {
    check("rename", |w, h| {
        let mut harness = loaded(w, h);
        harness.key(KeyCode::Down);
        harness.ctrl('r');
        harness.type_str(" (shipped)");
        harness
    });
}

#[test]
fn delete_confirm() {
    check("delete_confirm", |w, h| {
        let mut harness = loaded(w, h);
        harness.ctrl('d');
        let record = harness.state.picker.rows[0].record;
        harness.send(Event::LiveChecked {
            record,
            liveness: Liveness::Live("written 12s ago".into()).into(),
        });
        harness
    });
}

#[test]
fn help() {
    check("help", |w, h| {
        let mut harness = loaded(w, h);
        harness.key(KeyCode::Char('?'));
        harness
    });
}

#[test]
fn session_screen() {
    check("session_screen", |w, h| {
        let mut harness = loaded(w, h);
        harness.key(KeyCode::Enter);
        harness
    });
}

#[test]
fn problems_list() {
    check("problems", |w, h| {
        let mut harness = Harness::new(w, h);
        let generation = harness.scan_generation();
        harness.send(Event::ScanResult {
            generation,
            update: ScanUpdate::Failed(vec![grove::storage::roots::Skipped {
                path: "/home/demo/.pi/agent/sessions/--home-demo--/broken.jsonl".into(),
                reason: "no session header on the first line".into(),
            }]),
        });
        harness.load(fixtures());
        harness.ctrl('e');
        harness
    });
}

#[test]
fn startup_notice() {
    check("notice", |w, h| {
        let mut harness = loaded(w, h);
        harness
            .state
            .notices
            .push_status("[keys] unknown action `lable`");
        harness
            .state
            .notices
            .push_status("[theme] accent: unknown colour `blu`");
        harness
    });
}

#[test]
fn permanent_deletion_confirm() {
    check("permanent_delete", |w, h| {
        let mut harness = loaded(w, h);
        harness.ctrl('d');
        harness.key(KeyCode::Enter);
        let record = harness.state.picker.rows[0].record;
        harness.send(Event::Trashed {
            record,
            result: Err("no trash can on this file system".into()),
        });
        harness
    });
}

#[test]
fn too_small() {
    let mut harness = loaded(100, 30);
    harness.send(Event::Resize(30, 8));
    insta::assert_snapshot!("too_small_30x8", harness.render());
}
