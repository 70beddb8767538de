//! Search hits from the picker to the session view: the preview's top says where the query
//! matched and shows each hit's snippet with the hit highlighted (tool-call hits marked as
//! such); Enter on a content match opens the view on the entry that holds the hit, its text
//! highlighted, and `n`/`N` step through the session's hits.

#[path = "session_builder/mod.rs"]
mod builder;
#[path = "picker_support/mod.rs"]
mod support;

use std::sync::Arc;

use grove::app::event::{Effect, Event};
use grove::app::preview_hits::find_preview_hits;
use grove::app::session_view::SessionViewState;
use grove::app::state::{Screen, SessionRecord};
use grove::storage::read::scan_info;
use ratatui::crossterm::event::KeyCode;
use serde_json::json;
use support::{Harness, assert_sizes};

/// A session whose assistant says "zebra crossing" twice (in two messages) and whose only
/// mention of `cargo publish` is a bash tool call.
fn session() -> builder::Builder {
    let mut b = builder::Builder::create(
        "2026-11-01T00-00-00-000Z_hits.jsonl",
        1_796_000_000_000,
        json!({"type":"session","version":3,"id":"0190a000-0000-7000-8000-00000000abcd",
               "timestamp":"2026-11-29T00:00:00.000Z","cwd":"/home/u/code/app"}),
    );
    b.user("u1", "How do we ship the crate?");
    b.assistant(
        "a1",
        "First we check the Zebra crossing protocol\nthen we tag.",
    );
    b.message(
        "a2",
        json!({"role":"assistant","content":[
            {"type":"text","text":"Publishing now."},
            {"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"cargo publish --dry-run"}}],
            "provider":"anthropic","model":"claude","stopReason":"toolUse","timestamp":1}),
    );
    b.message(
        "r1",
        json!({"role":"toolResult","toolCallId":"t1","toolName":"bash",
               "content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":2}),
    );
    b.user("u2", "thanks");
    b.assistant("a3", "Any time: the zebra crossing is done.");
    b.write();
    b
}

fn harness(b: &builder::Builder) -> Harness {
    let mut h = Harness::new(150, 30);
    let info = scan_info(&b.path, None).expect("scan");
    h.load(vec![Arc::new(SessionRecord::new(info, None))]);
    h.key(KeyCode::Tab); // All: the session's folder is not this one
    h
}

/// Answers the preview's hit request the way the event loop does.
fn answer_hits(h: &mut Harness) {
    let fx = h.take_effects();
    // The last request is the one for the query as typed.
    // The harness answers them (as the worker does) when it settles.
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::FindHits { .. })),
        "{fx:?}"
    );
    let slot = h
        .state
        .hits
        .as_ref()
        .expect("the preview asked for the hits");
    assert!(
        matches!(
            slot.hits,
            None | Some(grove::app::preview_hits::HitsResult::Ready(_))
        ),
        "{:?}",
        slot.hits
    );
    let _ = (find_preview_hits, Event::Tick);
}

/// Enter, answered the way the event loop does (the load and the search applied off the UI
/// thread).
fn enter(h: &mut Harness) {
    h.enter_and_open();
}

/// The screen with the temp folder's random name made constant.
fn render(h: &Harness) -> String {
    tmp_constant(h.render())
}

fn tmp_constant(screen: String) -> String {
    let re = regex::Regex::new(r"/tmp/\.tmp[A-Za-z0-9]{6}").unwrap();
    re.replace_all(&screen, "/tmp/.tmpXXXXXX").into_owned()
}

fn view(h: &Harness) -> &SessionViewState {
    match &h.state.screen {
        Screen::View { view, .. } => view,
        _ => panic!("not in the session view"),
    }
}

#[test]
fn the_preview_shows_the_hits_with_their_snippets() {
    let b = session();
    let mut h = harness(&b);
    h.type_str("zebra");
    answer_hits(&mut h);
    let screen = render(&h);
    insta::assert_snapshot!("preview_hits_messages", screen);
    assert_sizes!("preview_hits_messages", h, tmp_constant);
    assert!(screen.contains("matched in messages"), "{screen}");
    assert!(screen.contains("assistant First we check the Zebra crossing protocol then we tag."));
    let slot = h.state.hits.as_ref().expect("hits slot");
    assert_eq!(slot.query, "zebra");

    // A command found only in a tool call: marked as a tool-call hit.
    for _ in 0.."zebra".len() {
        h.key(KeyCode::Backspace);
    }
    h.type_str("cargo publish");
    answer_hits(&mut h);
    let screen = render(&h);
    insta::assert_snapshot!("preview_hits_tool", screen);
    assert!(screen.contains("matched in tool call"), "{screen}");
    assert!(
        screen.contains("tool call bash cargo publish --dry-run"),
        "{screen}"
    );
    assert!(
        screen.contains("tool hit"),
        "the row says pi would not list it: {screen}"
    );
}

#[test]
fn enter_opens_the_view_on_the_hit_and_n_steps_through_the_hits() {
    let b = session();
    let mut h = harness(&b);
    h.type_str("zebra");
    enter(&mut h);
    let v = view(&h);
    assert_eq!(v.selected_id(), Some("a1"), "the first hit's entry");
    assert_eq!(v.transcript_search.as_deref(), Some("zebra"));
    assert!(
        !v.transcript_hits.is_empty(),
        "the hit's line is highlighted"
    );
    let status = v.status.as_ref().expect("status").text.clone();
    assert!(status.starts_with("hit 1/2"), "{status}");
    let hit_line = v.transcript_hits[0];
    assert!(
        v.transcript.lines[hit_line]
            .text
            .to_lowercase()
            .contains("zebra"),
        "{:?}",
        v.transcript.lines[hit_line]
    );
    insta::assert_snapshot!("view_opened_on_hit", render(&h));
    assert_sizes!("view_opened_on_hit", h, tmp_constant);

    h.key(KeyCode::Char('n'));
    assert_eq!(view(&h).selected_id(), Some("a3"));
    assert!(
        view(&h)
            .status
            .as_ref()
            .unwrap()
            .text
            .starts_with("hit 2/2")
    );
    h.key(KeyCode::Char('n'));
    assert_eq!(view(&h).selected_id(), Some("a1"), "wraps to the first");
    h.key(KeyCode::Char('N'));
    assert_eq!(view(&h).selected_id(), Some("a3"), "N goes back, wrapping");
}

#[test]
fn enter_on_a_tool_call_match_lands_on_the_tool_call() {
    let b = session();
    let mut h = harness(&b);
    h.type_str("cargo publish");
    enter(&mut h);
    let v = view(&h);
    assert_eq!(v.selected_id(), Some("a2"));
    let status = &v.status.as_ref().unwrap().text;
    assert!(status.contains("tool call"), "{status}");
}

#[test]
fn enter_without_a_content_match_opens_on_the_leaf() {
    let b = session();
    let mut h = harness(&b);
    // The cwd matches, no message does.
    h.type_str("code/app");
    enter(&mut h);
    let v = view(&h);
    assert_eq!(v.selected_id(), Some("a3"), "the leaf, as without a search");
    assert!(v.seeded_hits().is_none());
}

/// The row's cells that are drawn in the matched style, as text.
fn matched_cells(h: &Harness, row_text: &str) -> String {
    let matched = grove::ui::theme::Theme::of(&h.state).matched.fg;
    let (w, hgt) = h.state.viewport;
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, hgt)).expect("backend");
    terminal
        .draw(|f| grove::ui::draw(f, &h.state, support::NOW))
        .expect("draw");
    let buf = terminal.backend().buffer().clone();
    let y = (0..hgt)
        .find(|&y| {
            let line: String = (0..w).map(|x| buf[(x, y)].symbol().to_owned()).collect();
            // The selected row (the preview pane may quote the same text).
            line.starts_with('›') && line.contains(row_text)
        })
        .expect("the row is on screen");
    // The list is the left part; the preview pane starts at its border.
    (0..w)
        .map(|x| &buf[(x, y)])
        .take_while(|c| c.symbol() != "│")
        .filter(|c| c.fg == matched.unwrap_or_default() && c.symbol() != " ")
        .map(|c| c.symbol().to_owned())
        .collect()
}

#[test]
fn rows_highlight_fuzzy_hits_in_names_and_folders_and_literal_ones_everywhere() {
    let b = session();
    let mut h = harness(&b);
    // Scattered in the folder (pi's fuzzy tier): its matched characters are marked there.
    h.type_str("cdap");
    assert_eq!(h.state.picker.rows.len(), 1);
    assert_eq!(matched_cells(&h, "How do we ship"), "cdap");
    // Literal in the title: the word is marked, and not as scattered letters elsewhere.
    for _ in 0..4 {
        h.key(KeyCode::Backspace);
    }
    h.type_str("ship");
    assert_eq!(matched_cells(&h, "How do we ship"), "ship");
}

#[test]
fn without_the_preview_pane_the_status_line_shows_the_first_hit() {
    let b = session();
    let mut h = Harness::new(90, 20);
    let info = scan_info(&b.path, None).expect("scan");
    h.load(vec![Arc::new(SessionRecord::new(info, None))]);
    h.key(KeyCode::Tab);
    // 90 columns: no preview pane.
    h.type_str("zebra");
    answer_hits(&mut h);
    let screen = render(&h);
    let status = screen.lines().nth(1).unwrap_or_default().to_owned();
    assert!(
        status.contains("assistant First we check the Zebra crossing protocol"),
        "{screen}"
    );
    insta::assert_snapshot!("status_line_hit_90x20", screen);
}
