//! The stats screen (Alt+S): keys, the background request and its result, snapshots.

#[path = "picker_support/mod.rs"]
mod support;

use std::path::Path;

use grove::app::event::{Effect, Event};
use grove::app::state::{Mode, SessionRecord};
use grove::app::stats_view::StatsRequest;
use grove::model::stats::report::GroupBy;
use grove::storage::stats::report_over;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use support::*;

fn assistant(id: &str, ts: &str, model: &str, input: u64, cost: f64) -> String {
    json!({
        "type": "message", "id": id, "parentId": null, "timestamp": ts,
        "message": {
            "role": "assistant", "provider": "anthropic", "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input": input, "output": input / 10, "cacheRead": input * 2,
                      "cacheWrite": 0, "totalTokens": 0, "cost": {"total": cost}},
            "stopReason": "stop"
        }
    })
    .to_string()
}

fn write_session(dir: &Path, id: &str, cwd: &str, lines: &[String]) -> std::path::PathBuf {
    let header = json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-11-28T09:00:00.000Z", "cwd": cwd})
    .to_string();
    let user = json!({"type": "message", "id": format!("u{id}"), "parentId": null,
        "timestamp": "2026-11-28T09:00:01.000Z",
        "message": {"role": "user", "content": format!("question {id}")}})
    .to_string();
    let mut text = format!("{header}\n{user}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, text).expect("write");
    path
}

/// Two sessions of the current folder, with usage on two days and two models.
fn harness(dir: &Path) -> Harness {
    let a = write_session(
        dir,
        "aaaaaaaa-1",
        CURRENT,
        &[
            assistant(
                "a1",
                "2026-11-28T09:00:02.000Z",
                "claude-sonnet-4-5",
                12_000,
                0.25,
            ),
            assistant(
                "a2",
                "2026-11-29T10:00:00.000Z",
                "claude-opus-4-1",
                3_000,
                1.5,
            ),
        ],
    );
    let b = write_session(
        dir,
        "bbbbbbbb-2",
        CURRENT,
        &[assistant(
            "b1",
            "2026-11-29T11:00:00.000Z",
            "claude-sonnet-4-5",
            800,
            0.01,
        )],
    );
    let records = [a, b]
        .iter()
        .map(|p| {
            let info = grove::storage::read::scan_info(p, None).expect("scan");
            std::sync::Arc::new(SessionRecord::without_fs(info, true))
        })
        .collect();
    let mut h = Harness::new(110, 24);
    // No preview: it shows the temp dir's path, which changes per run.
    h.state.picker.show_preview = false;
    h.load(records);
    h.take_effects();
    h
}

fn alt(h: &mut Harness, c: char) {
    h.send(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::ALT,
    )));
}

fn stats_request(h: &mut Harness) -> StatsRequest {
    let mut reqs: Vec<StatsRequest> = h
        .take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::LoadStats(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(reqs.len(), 1, "one stats request");
    reqs.remove(0)
}

fn answer(h: &mut Harness, req: &StatsRequest) {
    let (report, problems) = report_over(&req.sessions, req.by, None, &|| false);
    assert!(problems.is_empty());
    h.send(Event::StatsReady {
        generation: req.generation,
        report: Box::new(report),
    });
}

#[test]
fn alt_s_reads_the_listed_sessions_and_shows_their_totals() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(dir.path());
    alt(&mut h, 's');
    assert_eq!(h.state.mode, Mode::Stats { scroll: 0 });
    let req = stats_request(&mut h);
    assert_eq!(req.by, GroupBy::Day);
    assert_eq!(req.sessions.len(), 2);
    assert_sizes!("stats_loading", h);
    answer(&mut h, &req);
    assert_sizes!("stats_by_day", h);
}

#[test]
fn tab_changes_the_grouping_and_a_stale_result_is_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(dir.path());
    alt(&mut h, 's');
    let by_day = stats_request(&mut h);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.mode, Mode::Stats { scroll: 0 });
    let by_project = stats_request(&mut h);
    assert_eq!(by_project.by, GroupBy::Project);
    assert!(by_project.generation > by_day.generation);
    // The older answer arrives late: it is not shown.
    answer(&mut h, &by_day);
    assert!(h.state.stats.as_ref().expect("stats").report.is_none());
    answer(&mut h, &by_project);
    h.key(KeyCode::Tab);
    let by_model = stats_request(&mut h);
    assert_eq!(by_model.by, GroupBy::Model);
    answer(&mut h, &by_model);
    assert_sizes!("stats_by_model", h);
    h.key(KeyCode::Tab);
    let by_session = stats_request(&mut h);
    answer(&mut h, &by_session);
    assert_sizes!("stats_by_session", h);
    // Esc closes; opening again keeps the grouping.
    h.key(KeyCode::Esc);
    assert_eq!(h.state.mode, Mode::Normal);
    alt(&mut h, 's');
    assert_eq!(stats_request(&mut h).by, GroupBy::Session);
}

#[test]
fn the_stats_follow_the_list_scope_and_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(dir.path());
    h.type_str("question bbbbbbbb");
    assert_eq!(h.titles(), vec!["question bbbbbbbb-2"]);
    alt(&mut h, 's');
    let req = stats_request(&mut h);
    assert_eq!(req.sessions.len(), 1);
    answer(&mut h, &req);
    let total = h
        .state
        .stats
        .as_ref()
        .and_then(|s| s.report.as_ref())
        .expect("report")
        .total;
    assert_eq!((total.messages, total.input), (2, 800));
}

#[test]
fn configured_columns_show_outcome_model_cost_size_and_created() {
    use grove::app::columns::{Column, resolve};
    let names: Vec<String> = ["outcome", "model", "cost", "size", "created", "age"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (columns, problems) = resolve(Some(&names));
    assert!(problems.is_empty());
    assert_eq!(columns.len(), 6);
    let options = grove::app::state::Options {
        columns,
        ..grove::app::state::Options::default()
    };
    let mut h = Harness::with_options(150, 12, options);
    let outcomes = [Some("stop"), Some("aborted"), Some("length"), None];
    let sessions: Vec<_> = outcomes
        .iter()
        .enumerate()
        .map(|(i, stop)| {
            let mut info = info(
                &format!("c{i}"),
                &format!("session {i}"),
                CURRENT,
                (i as i64 + 1) * DAY,
                5,
            );
            info.last_stop_reason = stop.map(str::to_owned);
            info.bytes = 1500 * 10u64.pow(i as u32);
            info.cost = i as f64 * 1.25;
            if stop.is_none() {
                info.model = None;
            }
            record(info)
        })
        .collect();
    h.load(sessions);
    h.state.picker.show_preview = false;
    insta::assert_snapshot!("columns_configured", h.render());
    assert_eq!(Column::Outcome.name(), "outcome");
}
