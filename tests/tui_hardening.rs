//! Hardening of the browser's loop logic (issue 5): a held key or a burst of typing queues one
//! search, one preview and one transcript build, never one per repeat; and the browser's
//! deletes go through the same "listed under the roots" guard as `grove rm`.
//!
//! The loop applies every queued event with `update::apply` and then calls `update::settle`
//! once; these tests do the same and count the work that comes out (no timing).

mod common;
#[path = "picker_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use grove::app::event::{Effect, Event, ScanUpdate};
use grove::app::matcher::execute_search;
use grove::app::session_view::SessionViewState;
use grove::app::state::{Mode, PreviewSlot, Scope, Screen, SessionRecord};
use grove::app::update::{apply, settle, update};
use grove::storage::read::scan_info;
use grove::storage::roots::SessionRoot;
use grove::tui::run::delete_session;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::{CURRENT, Harness, MIN, info, record};

const SESSIONS: usize = 10_000;
const BURST: usize = 2_000;

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ctrl(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::CONTROL))
}

/// A wide picker (the preview is shown) with ten thousand sessions loaded.
fn big_picker() -> Harness {
    let mut h = Harness::new(160, 40);
    let records: Vec<Arc<SessionRecord>> = (0..SESSIONS)
        .map(|i| {
            record(info(
                &format!("{i:08x}"),
                &format!("task number {i} about widgets"),
                CURRENT,
                i as i64 * MIN,
                4,
            ))
        })
        .collect();
    h.load(records);
    h.take_effects();
    assert_eq!(h.state.picker.rows.len(), SESSIONS);
    h
}

/// Applies `events` as the loop does under a flood: all of them, then one settle.
fn burst(h: &mut Harness, events: impl IntoIterator<Item = Event>) -> Vec<Effect> {
    let mut fx = Vec::new();
    for ev in events {
        fx.extend(apply(&mut h.state, ev));
    }
    settle(&mut h.state, &mut fx);
    fx
}

fn count(fx: &[Effect], pred: impl Fn(&Effect) -> bool) -> usize {
    fx.iter().filter(|e| pred(e)).count()
}

/// The effects' names (a search's Debug holds every record).
fn kinds(fx: &[Effect]) -> String {
    fx.iter()
        .map(|e| match e {
            Effect::RunSearch(r) => format!("RunSearch(gen {})", r.generation),
            other => format!("{other:?}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_preview(e: &Effect) -> bool {
    matches!(e, Effect::LoadPreview { .. })
}

fn is_search(e: &Effect) -> bool {
    matches!(e, Effect::RunSearch(_))
}

#[test]
fn held_down_in_the_picker_loads_one_preview() {
    let mut h = big_picker();
    let fx = burst(&mut h, (0..BURST).map(|_| key(KeyCode::Down)));
    assert_eq!(
        h.state.picker.selected, BURST,
        "every repeat moved the selection"
    );
    assert_eq!(count(&fx, is_preview), 1, "{}", kinds(&fx));
    let selected = h.state.selected().unwrap().info.path.clone();
    assert!(
        matches!(&fx[..], [Effect::LoadPreview { path, .. }] if *path == selected),
        "the one preview is the row the burst ended on: {}",
        kinds(&fx)
    );
    // Rows passed over are not left "loading": going back to one asks for it.
    let loading = h
        .state
        .previews
        .values()
        .filter(|s| matches!(s, PreviewSlot::Loading))
        .count();
    assert_eq!(loading, 1);
    let fx = burst(&mut h, [key(KeyCode::Up)]);
    assert_eq!(count(&fx, is_preview), 1, "{}", kinds(&fx));

    // A held PageDown, End/Home and the mouse wheel alike.
    let mut events: Vec<Event> = (0..BURST / 4).map(|_| key(KeyCode::PageDown)).collect();
    events.extend([key(KeyCode::End), key(KeyCode::Home)]);
    events.extend((0..BURST / 4).map(|_| {
        Event::Mouse(ratatui::crossterm::event::MouseEvent {
            kind: ratatui::crossterm::event::MouseEventKind::ScrollDown,
            column: 10,
            row: 10,
            modifiers: KeyModifiers::NONE,
        })
    }));
    let fx = burst(&mut h, events);
    assert!(count(&fx, is_preview) <= 1, "{}", kinds(&fx));
}

#[test]
fn one_event_at_a_time_still_asks_for_its_work() {
    // `update` = apply + settle: the tests and callers that feed single events see no change.
    let mut h = big_picker();
    let fx = update(&mut h.state, key(KeyCode::Down));
    assert_eq!(count(&fx, is_preview), 1, "{}", kinds(&fx));
    let fx = update(&mut h.state, key(KeyCode::Char('w')));
    assert_eq!(count(&fx, is_search), 1, "{}", kinds(&fx));
}

#[test]
fn a_typing_burst_runs_one_search_for_the_final_text() {
    let mut h = big_picker();
    let text: String = "widget number ".repeat(BURST / 14 + 1)[..BURST].to_owned();
    let fx = burst(&mut h, text.chars().map(|c| key(KeyCode::Char(c))));
    assert_eq!(count(&fx, is_search), 1, "one search, not one per key");
    let Some(Effect::RunSearch(req)) = fx.iter().find(|e| is_search(e)) else {
        unreachable!()
    };
    let search = &h.state.picker.search;
    assert_eq!(req.generation, search.generation, "the newest generation");
    assert!(search.pending && !search.queued);
    assert_eq!(h.state.picker.query.text(), text);
    // Its result is the one the picker takes.
    let matches = execute_search(req, &|| false).unwrap();
    let generation = req.generation;
    let fx = burst(
        &mut h,
        [Event::SearchResult {
            generation,
            matches,
        }],
    );
    assert!(!h.state.picker.search.pending);
    assert_eq!(count(&fx, is_search), 0);

    // A burst that ends in an invalid regex, or an empty box, runs nothing.
    let mut events: Vec<Event> = "re:(unclosed"
        .chars()
        .map(|c| key(KeyCode::Char(c)))
        .collect();
    events.insert(0, ctrl(KeyCode::Char('u')));
    let fx = burst(&mut h, events);
    assert_eq!(count(&fx, is_search), 0, "{}", kinds(&fx));
    assert!(h.state.picker.search.error.is_some());
    let mut events: Vec<Event> = "phrase".chars().map(|c| key(KeyCode::Char(c))).collect();
    events.push(ctrl(KeyCode::Char('u')));
    let fx = burst(&mut h, events);
    assert_eq!(count(&fx, is_search), 0, "{}", kinds(&fx));
    assert!(!h.state.picker.search.pending);
}

#[test]
fn scan_batches_under_a_query_run_one_search() {
    let mut h = Harness::new(160, 40);
    h.type_str("widgets");
    h.take_effects();
    let generation = h.scan_generation();
    let batches = (0..40).map(|b| Event::ScanResult {
        generation,
        update: ScanUpdate::Sessions(
            (0..250)
                .map(|i| {
                    let n = b * 250 + i;
                    record(info(&format!("{n:08x}"), "widgets", CURRENT, n as i64, 2))
                })
                .collect(),
        ),
    });
    let fx = burst(&mut h, batches);
    assert_eq!(count(&fx, is_search), 1, "{}", fx.len());
    let Some(Effect::RunSearch(req)) = fx.iter().find(|e| is_search(e)) else {
        unreachable!()
    };
    assert_eq!(req.records.len(), SESSIONS, "over every record read so far");
}

/// A session of `n` messages in one chain, written to a temp dir; the app on it with the
/// session view open (leaf selected).
fn open_long_session(n: usize) -> (tempfile::TempDir, Harness) {
    let (dir, _root, folder) = common::session_root();
    let mut lines = vec![common::header("long", "/w")];
    lines.extend(common::chain(n, None));
    let path = common::write_file(&folder, "long.jsonl", common::jsonl(&lines));
    let mut h = Harness::new(160, 40);
    h.state.picker.scope = Scope::All;
    h.load(vec![Arc::new(SessionRecord::new(
        scan_info(&path, None).unwrap(),
        None,
    ))]);
    h.raw(key(KeyCode::Enter));
    let fx = h.take_effects();
    let Some(Effect::OpenSession {
        agent,
        viewport,
        home,
        ..
    }) = fx
        .iter()
        .find(|e| matches!(e, Effect::OpenSession { .. }))
        .cloned()
    else {
        panic!("Enter did not ask to open the session: {}", kinds(&fx));
    };
    h.raw(Event::SessionOpened {
        record: 0,
        path: path.clone(),
        result: SessionViewState::open(&path, agent, viewport, home),
    });
    assert!(matches!(h.state.screen, Screen::View { .. }));
    (dir, h)
}

fn builds(h: &Harness) -> usize {
    match &h.state.screen {
        Screen::View { view, .. } => view.transcript_builds,
        _ => panic!("not in the session view"),
    }
}

fn messages_shown(h: &Harness) -> usize {
    match &h.state.screen {
        Screen::View { view, .. } => view.transcript.message_count,
        _ => panic!("not in the session view"),
    }
}

#[test]
fn held_arrow_in_the_session_view_builds_one_transcript() {
    let n = 3_000;
    let (_dir, mut h) = open_long_session(n);
    let start = builds(&h);
    assert_eq!(messages_shown(&h), n);

    let mut fx = Vec::new();
    for _ in 0..BURST {
        fx.extend(apply(&mut h.state, key(KeyCode::Up)));
    }
    assert_eq!(
        builds(&h),
        start,
        "no branch is built while the key repeats"
    );
    settle(&mut h.state, &mut fx);
    assert_eq!(
        builds(&h),
        start + 1,
        "one build, for where the selection ended"
    );
    assert_eq!(
        messages_shown(&h),
        n - BURST,
        "the transcript follows the selection"
    );

    // Folding, filters and tree-search typing repeat cheaply too.
    let mut events = Vec::new();
    for _ in 0..100 {
        events.push(ctrl(KeyCode::Left));
        events.push(ctrl(KeyCode::Right));
    }
    for c in ['t', 'u', 'l', 'a', 'o'] {
        events.push(ctrl(KeyCode::Char(c)));
    }
    events.push(ctrl(KeyCode::Char('o')));
    events.push(key(KeyCode::Char('/')));
    events.extend("message 12".chars().map(|c| key(KeyCode::Char(c))));
    events.extend((0..200).map(|_| key(KeyCode::Down)));
    let before = builds(&h);
    burst(&mut h, events);
    assert!(builds(&h) <= before + 2, "{} builds", builds(&h) - before);

    // A key that reads the transcript sees it up to date, even mid-burst.
    burst(&mut h, [key(KeyCode::Esc)]);
    let mut events: Vec<Event> = (0..500).map(|_| key(KeyCode::Down)).collect();
    events.push(key(KeyCode::Tab));
    events.push(key(KeyCode::Char('x')));
    let before = builds(&h);
    let mut fx = Vec::new();
    for ev in events {
        fx.extend(apply(&mut h.state, ev));
    }
    assert_eq!(builds(&h), before + 1, "Tab brought it up to date once");
    settle(&mut h.state, &mut fx);
    assert_eq!(builds(&h), before + 1);
}

// ----- deletes -----

/// A session inside `root` and one outside it; the app lists both (the outside one as if a
/// record had come from somewhere else, or its folder had left the roots since the scan).
fn delete_setup() -> (
    tempfile::TempDir,
    Vec<SessionRoot>,
    PathBuf,
    PathBuf,
    Harness,
) {
    let (dir, root, folder) = common::session_root();
    let inside = common::write_file(&folder, "in.jsonl", common::small_session("in", "/w"));
    let outside_dir = dir.path().join("elsewhere");
    std::fs::create_dir(&outside_dir).unwrap();
    let outside = common::write_file(
        &outside_dir,
        "out.jsonl",
        common::small_session("out", "/w"),
    );
    let mut h = Harness::new(160, 40);
    h.state.picker.scope = Scope::All;
    let rec = |p: &Path| Arc::new(SessionRecord::new(scan_info(p, None).unwrap(), None));
    h.load(vec![rec(&inside), rec(&outside)]);
    h.take_effects();
    let roots = vec![SessionRoot {
        path: root,
        agent: None,
    }];
    (dir, roots, inside, outside, h)
}

fn select_path(h: &mut Harness, path: &Path) {
    let row = h
        .state
        .picker
        .rows
        .iter()
        .position(|r| h.state.picker.records[r.record].info.path == path)
        .unwrap();
    h.state.picker.select(row);
}

/// Ctrl+D, Enter: the effect the browser runs.
fn confirm_delete(h: &mut Harness) -> Effect {
    h.raw(ctrl(KeyCode::Char('d')));
    h.take_effects();
    h.raw(key(KeyCode::Enter));
    let fx = h.take_effects();
    match &fx[..] {
        [e @ Effect::TrashSession { .. }] => e.clone(),
        other => panic!("expected a trash effect: {other:?}"),
    }
}

#[test]
fn the_browser_never_trashes_a_file_outside_the_roots() {
    const CHILD: &str = "GROVE_TUI_TRASH_CHILD";
    if std::env::var_os(CHILD).is_none() {
        // The check runs in a child whose trash is a temp dir: were the guard missing, the file
        // would land there, never in the user's trash.
        let sandbox = tempfile::tempdir().unwrap();
        let data = sandbox.path().join("data");
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_browser_never_trashes_a_file_outside_the_roots",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .env("HOME", sandbox.path().join("home"))
            .env("XDG_DATA_HOME", &data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let trashed = std::fs::read_dir(data.join("Trash/files")).map_or(0, |d| d.count());
        assert_eq!(trashed, 0, "something was moved to the trash");
        return;
    }
    let (_dir, roots, _inside, outside, mut h) = delete_setup();
    let before = std::fs::read(&outside).unwrap();
    select_path(&mut h, &outside);
    let effect = confirm_delete(&mut h);
    let event = delete_session(&effect, &roots).expect("a delete effect");
    assert!(
        matches!(&event, Event::DeletedPermanently { result: Err(e), .. } if e.contains("nothing was deleted")),
        "{event:?}"
    );
    assert_eq!(std::fs::read(&outside).unwrap(), before, "untouched");
    // The browser reports it and does not offer permanent deletion instead.
    h.raw(event);
    assert_eq!(h.state.mode, Mode::Normal);
    let status = h
        .state
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(status.contains("nothing was deleted"), "{status}");
    assert!(h.render().contains("out"), "the row is still listed");
}

#[test]
fn the_browser_never_deletes_permanently_outside_the_roots() {
    let (_dir, roots, inside, outside, mut h) = delete_setup();
    for (path, listed) in [(&outside, false), (&inside, true)] {
        select_path(&mut h, path);
        let Effect::TrashSession { record, .. } = confirm_delete(&mut h) else {
            unreachable!()
        };
        // The trash failed (as on a filesystem without one): the second confirmation.
        h.raw(Event::Trashed {
            record,
            result: Err("no trash here".into()),
        });
        assert!(matches!(h.state.mode, Mode::ConfirmPermanent { .. }));
        h.raw(key(KeyCode::Char('y')));
        let fx = h.take_effects();
        let [effect @ Effect::DeletePermanently { .. }] = &fx[..] else {
            panic!("expected a permanent delete: {fx:?}")
        };
        let event = delete_session(effect, &roots).unwrap();
        let Event::DeletedPermanently { result, .. } = &event else {
            panic!("{event:?}")
        };
        if listed {
            assert!(result.is_ok(), "{result:?}");
            assert!(!path.exists());
        } else {
            assert!(result.as_ref().unwrap_err().contains("nothing was deleted"));
            assert!(path.exists());
        }
        h.raw(event);
        assert_eq!(h.state.mode, Mode::Normal);
    }
    assert!(delete_session(&Effect::Quit { code: 0 }, &roots).is_none());
}
