//! Key-sequence tests: events in, state and effects out. No terminal, no files.

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::event::{Effect, Event, ScanUpdate};
use grove::app::state::{Liveness, Mode, NameFilter, Options, Scope, Screen, SortMode};
use grove::storage::trash::Trashed;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::*;

fn loaded() -> Harness {
    let mut h = Harness::new(100, 30);
    // Families open, so the fork is a row (folding has its own tests: tests/families.rs).
    h.state.picker.families.folded_by_default = false;
    h.load(fixtures());
    h.take_effects();
    h
}

#[test]
fn starts_with_a_scan_and_an_empty_list() {
    let h = Harness::new(100, 30);
    assert!(matches!(
        h.effects.as_slice(),
        [Effect::StartScan { generation: 1 }]
    ));
    assert!(h.state.picker.rows.is_empty());
    assert!(!h.state.picker.loading.done);
}

#[test]
fn current_folder_threaded_by_default_internal_hidden() {
    // By default the fork is folded under its parent.
    let mut h = Harness::new(100, 30);
    h.load(fixtures());
    assert_eq!(h.titles().len(), 4);
    assert_eq!(h.state.picker.families.shown.hidden_under.len(), 1);
    let h = loaded();
    assert_eq!(h.state.picker.scope, Scope::Current);
    assert_eq!(h.state.picker.sort, SortMode::Threaded);
    assert_eq!(
        h.titles(),
        vec![
            "Fix the flaky CI job on macOS runners",
            "Release 0.4.0",
            "Benchmark the bytes pipeline after the release",
            "Paste from terminal: \u{1b}[31mred\u{1b}[0m alert \u{202e}spoof",
            "Old experiment",
        ]
    );
    // The fork sits under its parent.
    assert_eq!(h.state.picker.rows[2].prefix, "   └─ ");
}

#[test]
fn rows_stream_in_and_the_selection_stays_on_its_session() {
    let mut h = Harness::new(100, 30);
    let all = fixtures();
    let gen_ = h.scan_generation();
    // The older half first.
    h.send(Event::ScanResult {
        generation: gen_,
        update: ScanUpdate::Sessions(vec![all[4].clone(), all[6].clone()]),
    });
    assert_eq!(h.state.picker.rows.len(), 2);
    h.key(KeyCode::Down);
    assert_eq!(h.selected_title().as_deref(), Some("Old experiment"));
    // Newer sessions arrive above it; the selection follows the session, not the row.
    h.send(Event::ScanResult {
        generation: gen_,
        update: ScanUpdate::Sessions(vec![all[0].clone(), all[1].clone()]),
    });
    assert_eq!(h.selected_title().as_deref(), Some("Old experiment"));
    assert_eq!(h.state.picker.selected, 3);
    // A stale scan generation is ignored.
    h.send(Event::ScanResult {
        generation: gen_ + 7,
        update: ScanUpdate::Sessions(vec![all[3].clone()]),
    });
    assert_eq!(h.state.picker.records.len(), 4);
}

#[test]
fn movement_is_clamped_without_wrapping() {
    let mut h = loaded();
    h.key(KeyCode::Up);
    assert_eq!(h.state.picker.selected, 0);
    h.key(KeyCode::End);
    assert_eq!(h.state.picker.selected, 4);
    h.key(KeyCode::Down);
    assert_eq!(h.state.picker.selected, 4);
    h.key(KeyCode::PageUp);
    assert_eq!(h.state.picker.selected, 0);
    h.key(KeyCode::PageDown);
    assert_eq!(h.state.picker.selected, 4);
    h.key(KeyCode::Home);
    assert_eq!(h.state.picker.selected, 0);
    h.wheel(true);
    h.wheel(true);
    assert_eq!(h.state.picker.selected, 2);
    h.wheel(false);
    assert_eq!(h.state.picker.selected, 1);
}

#[test]
fn tab_ctrl_s_ctrl_n_ctrl_p_switch_views() {
    let mut h = loaded();
    h.key(KeyCode::Tab);
    assert_eq!(h.state.picker.scope, Scope::All);
    assert_eq!(h.titles().len(), 7);
    h.ctrl('s');
    assert_eq!(h.state.picker.sort, SortMode::Recent);
    assert!(h.state.picker.rows.iter().all(|r| r.prefix.is_empty()));
    h.ctrl('s');
    assert_eq!(h.state.picker.sort, SortMode::Fuzzy);
    for mode in [SortMode::Created, SortMode::Size, SortMode::Cost] {
        h.ctrl('s');
        assert_eq!(h.state.picker.sort, mode);
        assert!(h.state.picker.rows.iter().all(|r| r.prefix.is_empty()));
    }
    h.ctrl('s');
    assert_eq!(h.state.picker.sort, SortMode::Threaded);
    h.ctrl('n');
    assert_eq!(h.state.picker.name_filter, NameFilter::Named);
    assert_eq!(h.titles(), vec!["Release 0.4.0", "Old experiment"]);
    h.ctrl('n');
    h.ctrl('p');
    assert!(h.state.picker.show_path);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.picker.scope, Scope::Current);
}

#[test]
fn typing_searches_off_thread_and_drops_stale_results() {
    let mut h = loaded();
    h.key(KeyCode::Tab);
    h.raw(Event::Key(KeyEvent::new(
        KeyCode::Char('d'),
        KeyModifiers::NONE,
    )));
    let first = match h.take_effects().as_slice() {
        [Effect::RunSearch(req)] => req.clone(),
        other => panic!("expected one search, got {other:?}"),
    };
    assert!(h.state.picker.search.pending);
    h.raw(Event::Key(KeyEvent::new(
        KeyCode::Char('a'),
        KeyModifiers::NONE,
    )));
    let second = match h.take_effects().as_slice() {
        [Effect::RunSearch(req)] => req.clone(),
        other => panic!("expected one search, got {other:?}"),
    };
    assert!(second.generation > first.generation);
    // The result of the first search arrives late: dropped.
    let stale = grove::app::matcher::execute_search(&first, &|| false).unwrap();
    h.raw(Event::SearchResult {
        generation: first.generation,
        matches: stale,
    });
    assert!(h.state.picker.search.pending);
    let fresh = grove::app::matcher::execute_search(&second, &|| false).unwrap();
    h.raw(Event::SearchResult {
        generation: second.generation,
        matches: fresh,
    });
    assert!(!h.state.picker.search.pending);
    h.type_str("rk mode");
    assert_eq!(h.titles(), vec!["Add a dark mode toggle"]);
}

#[test]
fn exact_name_ranks_first_and_threaded_search_is_flat() {
    let mut h = loaded();
    h.type_str("release 0.4.0");
    assert_eq!(h.titles()[0], "Release 0.4.0");
    assert!(h.state.picker.rows.iter().all(|r| r.prefix.is_empty()));
    // A new query resets the selection to the first row.
    h.key(KeyCode::Down);
    h.key(KeyCode::Backspace);
    assert_eq!(h.state.picker.selected, 0);
}

#[test]
fn phrase_and_regex_queries() {
    let mut h = loaded();
    h.key(KeyCode::Tab);
    h.type_str("\"dark mode\"");
    assert_eq!(h.titles(), vec!["Add a dark mode toggle"]);
    h.ctrl('u');
    // pi 1.6.0 tests each field on its own: `^` anchors at the start of the messages too.
    h.type_str("re:^fix|readme");
    assert_eq!(h.titles().len(), 2, "{:?}", h.titles());
    h.ctrl('u');
    h.type_str("re:(");
    assert!(h.state.picker.rows.is_empty());
    let err = h.state.picker.search.error.clone().expect("an error");
    assert!(err.starts_with("invalid regex"), "{err}");
    assert!(h.render().contains("invalid regex"));
}

#[test]
fn esc_clears_the_query_then_quits() {
    let mut h = loaded();
    h.type_str("ci");
    h.key(KeyCode::Esc);
    assert_eq!(h.state.picker.query.text(), "");
    assert_eq!(h.titles().len(), 5);
    assert!(h.take_effects().is_empty());
    h.key(KeyCode::Esc);
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::Quit { code: 0 }]
    ));
    h.ctrl('c');
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::Quit { code: 0 }]
    ));
}

#[test]
fn print_mode_enter_prints_and_esc_exits_1() {
    let options = Options {
        print_mode: true,
        ..Options::default()
    };
    let mut h = Harness::with_options(100, 30, options);
    h.load(fixtures());
    h.take_effects();
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::Print(p)] if *p == session_path("bbbb2222", CURRENT)),
        "{fx:?}"
    );
    h.key(KeyCode::Esc);
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::Quit { code: 1 }]
    ));
}

#[test]
fn enter_opens_the_session_screen_and_esc_returns() {
    let mut h = loaded();
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    assert!(matches!(h.state.screen, Screen::Session { scroll: 0, .. }));
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::OpenSession { .. }]
    ));
    h.ctrl('o');
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::LaunchAgent { cwd, .. }] if cwd.as_path() == std::path::Path::new(CURRENT)),
        "{fx:?}"
    );
    h.key(KeyCode::Esc);
    assert!(h.state.screen.is_picker());
}

#[test]
fn preview_loads_for_the_selection_when_wide_enough() {
    let mut h = Harness::new(160, 45);
    h.auto_preview = false;
    h.load(fixtures());
    let fx = h.take_effects();
    assert!(
        fx.iter().any(|e| matches!(e, Effect::LoadPreview { path, .. } if *path == session_path("aaaa1111", CURRENT))),
        "{fx:?}"
    );
    let mut narrow = Harness::new(100, 30);
    narrow.auto_preview = false;
    narrow.load(fixtures());
    assert!(
        !narrow
            .take_effects()
            .iter()
            .any(|e| matches!(e, Effect::LoadPreview { .. }))
    );
}

#[test]
fn rename_prefills_saves_and_cancels() {
    let mut h = loaded();
    h.key(KeyCode::Down);
    h.ctrl('r');
    match &h.state.mode {
        Mode::Rename { input, .. } => {
            assert_eq!(input.text(), "Release 0.4.0");
            assert_eq!(input.cursor(), input.text().len());
        }
        m => panic!("not renaming: {m:?}"),
    }
    h.type_str(" final");
    h.key(KeyCode::Enter);
    assert_eq!(h.state.mode, Mode::Normal);
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::AppendRename { name, .. }] if name == "Release 0.4.0 final"),
        "{fx:?}"
    );
    // Esc cancels without writing.
    h.ctrl('r');
    h.type_str("xyz");
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    // The write's result updates the row in place.
    let mut renamed = info("bbbb2222", "cut a release", CURRENT, 3 * HOUR, 38);
    renamed.name = Some("Release 0.4.0 final".into());
    let record = h.state.picker.rows[1].record;
    h.send(Event::Renamed {
        record,
        result: Ok(record_arc(renamed)),
    });
    assert_eq!(h.titles()[1], "Release 0.4.0 final");
    assert!(h.status_text().contains("Renamed"));
}

fn record_arc(
    i: grove::model::info::SessionInfo,
) -> std::sync::Arc<grove::app::state::SessionRecord> {
    record(i)
}

#[test]
fn delete_confirms_trashes_and_undo_restores() {
    let mut h = loaded();
    h.ctrl('d');
    let record = h.state.picker.rows[0].record;
    assert_eq!(
        h.state.mode,
        Mode::ConfirmDelete {
            record,
            live: Liveness::Checking,
            backups: Vec::new(),
        }
    );
    assert!(matches!(
        h.take_effects().as_slice(),
        [Effect::CheckLive { .. }]
    ));
    h.send(Event::LiveChecked {
        record,
        liveness: grove::app::live::LiveCheck {
            liveness: Liveness::Live("written 5s ago".into()),
            backups: vec!["/s/x.jsonl.1.bak".into()],
        },
    });
    let screen = h.render();
    assert!(screen.contains("looks live"));
    // Asked once: in the dialog, which names the backups; not also in the status line.
    assert_eq!(screen.matches("cancel").count(), 1, "{screen}");
    assert!(screen.contains("with 1 backup: x.jsonl.1.bak"), "{screen}");
    // Other keys are swallowed while confirming.
    h.type_str("x");
    h.key(KeyCode::Down);
    assert_eq!(h.state.picker.query.text(), "");
    assert_eq!(h.state.picker.selected, 0);
    h.key(KeyCode::Enter);
    assert_eq!(h.state.mode, Mode::Deleting { record });
    let path = session_path("aaaa1111", CURRENT);
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::TrashSession { path: p, .. }] if *p == path),
        "{fx:?}"
    );
    let trashed = Trashed {
        paths: vec![path.clone()],
    };
    h.send(Event::Trashed {
        record,
        result: Ok(trashed.clone()),
    });
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(h.titles().len(), 4);
    assert!(h.status_text().contains("moved to trash"));
    h.ctrl('z');
    let item = match h.take_effects().as_slice() {
        [Effect::RestoreTrash(item)] => item.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(item.trashed, trashed);
    h.send(Event::Restored {
        item,
        result: Ok(()),
    });
    assert_eq!(h.titles().len(), 5);
    assert_eq!(
        h.selected_title().as_deref(),
        Some("Fix the flaky CI job on macOS runners")
    );
    h.ctrl('z');
    assert!(h.take_effects().is_empty());
    assert!(h.status_text().contains("Nothing to undo"));
}

#[test]
fn esc_cancels_a_delete() {
    let mut h = loaded();
    h.ctrl('d');
    h.take_effects();
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    assert_eq!(h.titles().len(), 5);
}

#[test]
fn trash_failure_needs_a_second_explicit_confirmation() {
    let mut h = loaded();
    let record = h.state.picker.rows[0].record;
    h.ctrl('d');
    h.key(KeyCode::Enter);
    h.take_effects();
    h.send(Event::Trashed {
        record,
        result: Err("no trash on this file system".into()),
    });
    assert!(matches!(h.state.mode, Mode::ConfirmPermanent { .. }));
    assert!(h.render().contains("The trash is unavailable"));
    // Enter is not enough: only `y` deletes for good.
    h.key(KeyCode::Enter);
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(h.take_effects().is_empty());
    assert_eq!(h.titles().len(), 5);
    h.ctrl('d');
    h.key(KeyCode::Enter);
    h.take_effects();
    h.send(Event::Trashed {
        record,
        result: Err("no trash".into()),
    });
    h.key(KeyCode::Char('y'));
    let fx = h.take_effects();
    assert!(
        matches!(fx.as_slice(), [Effect::DeletePermanently { .. }]),
        "{fx:?}"
    );
    h.send(Event::DeletedPermanently {
        record,
        result: Ok(()),
    });
    assert_eq!(h.titles().len(), 4);
}

#[test]
fn help_opens_with_question_mark_only_on_an_empty_query() {
    let mut h = loaded();
    h.key(KeyCode::Char('?'));
    assert_eq!(h.state.mode, Mode::Help { scroll: 0 });
    h.key(KeyCode::Char('x'));
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(h.state.picker.query.text(), "");
    h.type_str("a?");
    assert_eq!(h.state.picker.query.text(), "a?");
    h.key(KeyCode::F(1));
    assert_eq!(h.state.mode, Mode::Help { scroll: 0 });
}

#[test]
fn status_messages_expire_on_ticks() {
    let mut h = loaded();
    h.ctrl('z');
    assert!(h.state.status.is_some());
    for _ in 0..100 {
        h.send(Event::Tick);
    }
    assert!(h.state.status.is_none());
}

#[test]
fn empty_list_messages_follow_the_filters() {
    // No session at all: the first-run text (tests/trash_view.rs).
    let mut h = Harness::new(100, 30);
    h.load(vec![]);
    assert!(h.render().contains("No sessions found."));
    // Sessions, none listed: what the filters hide.
    let mut h = Harness::new(100, 30);
    h.load(vec![record(info("e1", "elsewhere", "/other", HOUR, 2))]);
    assert!(
        h.render()
            .contains("No sessions in current folder. Press tab to view all.")
    );
    h.ctrl('n');
    assert!(h.render().contains("No named sessions in current folder."));
    h.key(KeyCode::Tab);
    assert!(
        h.render()
            .contains("No named sessions found. Press ctrl+n to show all.")
    );
}

#[test]
fn tiny_terminals_get_a_message() {
    let mut h = loaded();
    h.send(Event::Resize(30, 6));
    assert!(h.render().contains("too small"));
}

#[test]
fn forks_match_parents_by_file_name_when_paths_moved_and_cycles_break() {
    // A copied session folder: the header names the parent's old absolute path.
    let parent = info("p0000001", "parent session", CURRENT, 3 * DAY, 5);
    let mut child = info("c0000001", "forked session", CURRENT, 2 * DAY, 7);
    let moved = format!(
        "/elsewhere/.pi/agent/sessions/x/{}",
        parent.path.file_name().unwrap().to_string_lossy()
    );
    child.parent_session_path = Some(moved);
    // Two sessions naming each other must both stay visible.
    let mut a = info("a0000001", "cycle a", CURRENT, 4 * DAY, 1);
    let mut b = info("b0000001", "cycle b", CURRENT, 5 * DAY, 1);
    a.parent_session_path = Some(b.path.to_string_lossy().into_owned());
    b.parent_session_path = Some(a.path.to_string_lossy().into_owned());
    let mut h = Harness::new(100, 30);
    h.state.picker.families.folded_by_default = false;
    h.load([parent, child, a, b].into_iter().map(record).collect());
    assert_eq!(h.titles()[0], "parent session");
    assert_eq!(h.titles()[1], "forked session");
    assert_eq!(h.state.picker.rows[1].prefix, "   └─ ");
    assert_eq!(h.titles().len(), 4);
    assert!(h.titles().contains(&"cycle a".to_owned()));
    assert!(h.titles().contains(&"cycle b".to_owned()));
}

#[test]
fn ctrl_backspace_added_in_the_config_deletes_only_with_an_empty_query() {
    let mut h = loaded();
    // Not a default (legacy terminals cannot send it); the query-empty condition comes with it.
    let problems = h
        .state
        .keymap
        .apply_overrides(&std::collections::BTreeMap::from([(
            "delete".to_owned(),
            vec!["ctrl+d".to_owned(), "ctrl+backspace".to_owned()],
        )]));
    assert_eq!(problems, Vec::<String>::new());
    h.raw(Event::Key(KeyEvent::new(
        KeyCode::Backspace,
        KeyModifiers::CONTROL,
    )));
    assert!(matches!(h.state.mode, Mode::ConfirmDelete { .. }));
    h.key(KeyCode::Esc);
    h.type_str("rel");
    h.raw(Event::Key(KeyEvent::new(
        KeyCode::Backspace,
        KeyModifiers::CONTROL,
    )));
    assert!(!matches!(h.state.mode, Mode::ConfirmDelete { .. }));
}

#[test]
fn help_scrolls_when_it_does_not_fit_and_other_keys_close_it() {
    let mut h = Harness::new(60, 20);
    h.load(fixtures());
    h.key(KeyCode::F(1));
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert_eq!(h.state.mode, Mode::Help { scroll: 2 });
    assert!(h.render().contains("restore the last deleted"));
    h.key(KeyCode::PageDown);
    h.key(KeyCode::PageDown);
    assert!(h.render().contains("re:<regex>"), "{}", h.render());
    h.key(KeyCode::Char('x'));
    assert_eq!(h.state.mode, Mode::Normal);
}

#[test]
fn unreadable_files_are_reported_and_listed() {
    let mut h = Harness::new(100, 30);
    let generation = h.scan_generation();
    h.send(Event::ScanResult {
        generation,
        update: ScanUpdate::Found(1),
    });
    h.send(Event::ScanResult {
        generation,
        update: ScanUpdate::Failed(vec![grove::storage::roots::Skipped {
            path: "/home/u/.pi/agent/sessions/--x--/bad\u{1b}[2J.jsonl".into(),
            reason: "no session header on the first line".into(),
        }]),
    });
    h.send(Event::ScanResult {
        generation,
        update: ScanUpdate::Done,
    });
    // A notice that stays (ticks do not clear it) until dismissed.
    for _ in 0..100 {
        h.send(Event::Tick);
    }
    let status = h.state.notices.first_status().unwrap().to_owned();
    assert!(status.contains("1 file could not be read"), "{status}");
    assert!(status.contains("ctrl+e"), "{status}");
    assert!(h.render().contains("ctrl+x dismiss"), "{}", h.render());
    h.ctrl('e');
    assert_eq!(h.state.mode, Mode::Problems { scroll: 0 });
    let screen = h.render();
    assert!(screen.contains("no session header"), "{screen}");
    assert!(screen.contains("bad^[[2J.jsonl"), "{screen}");
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
}

#[test]
fn created_size_and_cost_sorts_put_the_largest_first() {
    let mut h = Harness::new(100, 30);
    let sessions: Vec<_> = [
        ("a1", "note new", 1, 100, 0.5),
        ("a2", "big", 3, 9_000, 0.1),
        ("a3", "note old", 5, 500, 7.0),
    ]
    .into_iter()
    .map(|(id, title, ago_days, bytes, cost)| {
        let mut i = info(id, title, CURRENT, ago_days * DAY, 4);
        i.bytes = bytes;
        i.cost = cost;
        record(i)
    })
    .collect();
    h.load(sessions);
    for (presses, want) in [
        (3, ["note new", "big", "note old"]),
        (1, ["big", "note old", "note new"]),
        (1, ["note old", "note new", "big"]),
    ] {
        for _ in 0..presses {
            h.ctrl('s');
        }
        assert_eq!(h.titles(), want, "{:?}", h.state.picker.sort);
    }
    // With a query the matches keep the sort's order.
    h.type_str("\"note\"");
    assert_eq!(h.titles(), ["note old", "note new"]);
}
