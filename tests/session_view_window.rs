//! The session view lays out a window of a long branch's transcript, not the whole branch
//! (issue "Storage": no cost proportional to the branch on the way to the first frame; issue
//! "Transcript": a transcript that costs what is on screen). What the window shows is exactly
//! the whole transcript's lines there, wherever the scroll, the search or `g`/`G` take it.

use std::collections::HashSet;
use std::path::PathBuf;

use grove::app::session_view::body;
use grove::app::session_view::transcript::TLine;
use grove::app::session_view::{Focus, SessionViewState, update};
use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/work"}"#;

/// A linear session of `turns` user/assistant/tool-result turns; the tool result of turn `n`
/// has `n % 20` lines, the assistant thinks, and turn 7 says "needle".
fn long_session(turns: usize) -> Session {
    let mut lines = vec![HEADER.to_owned()];
    let mut parent = "null".to_owned();
    let mut n = 0;
    let mut push = |lines: &mut Vec<String>, body: String| {
        let id = format!("e{n:06}");
        let ts = format!(
            "2025-01-01T{:02}:{:02}:{:02}Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        );
        lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{body}}}"#
        ));
        parent = format!("\"{id}\"");
        n += 1;
    };
    for t in 0..turns {
        let say = if t == 7 { "needle here" } else { "hay" };
        push(
            &mut lines,
            format!(r#"{{"role":"user","content":"turn {t}: {say}"}}"#),
        );
        push(
            &mut lines,
            format!(
                r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"hm\nhm"}},{{"type":"text","text":"answer {t}\nsecond line"}},{{"type":"toolCall","id":"c{t}","name":"bash","arguments":{{"command":"ls {t}"}}}}],"model":"m","stopReason":"toolUse"}}"#
            ),
        );
        let out: Vec<String> = (0..t % 20).map(|i| format!("out {t}.{i}")).collect();
        push(
            &mut lines,
            format!(
                r#"{{"role":"toolResult","toolCallId":"c{t}","toolName":"bash","content":[{{"type":"text","text":"{}"}}]}}"#,
                out.join("\\n")
            ),
        );
    }
    Session::new(ParsedSession::from_bytes(lines.join("\n").as_bytes()))
}

fn view(turns: usize) -> SessionViewState {
    SessionViewState::new(
        PathBuf::from("/nonexistent/s.jsonl"),
        long_session(turns),
        Dialect::Pi,
        Rect::new(0, 0, 100, 30),
    )
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn press(v: &mut SessionViewState, code: KeyCode) {
    update(v, key(code));
}

/// The whole transcript of the leaf's branch, as it was laid out before windows.
fn whole(v: &SessionViewState) -> (Vec<TLine>, Vec<usize>) {
    let ctx = build_context(&v.session, LeafChoice::Current, Dialect::Pi);
    let t = body::build(&ctx, &HashSet::new());
    (t.lines, t.starts)
}

/// The window's lines are the whole transcript's lines of the same messages.
fn assert_window_is_exact(v: &SessionViewState) {
    let (lines, starts) = whole(v);
    let t = &v.transcript;
    let from = starts[t.first];
    assert_eq!(t.lines[..], lines[from..from + t.lines.len()]);
}

#[test]
fn a_long_branch_is_laid_out_around_the_screen_only() {
    let mut v = view(3000);
    let (lines, _) = whole(&v);
    assert_eq!(v.transcript.message_count, 9000);
    // The end is shown, and only a window of lines around it is laid out.
    assert!(v.transcript.at_end());
    assert!(v.transcript.first > 8000, "first {}", v.transcript.first);
    assert!(
        v.transcript.lines.len() < 3000,
        "{}",
        v.transcript.lines.len()
    );
    assert!(lines.len() > 30_000);
    assert_window_is_exact(&v);
    let bottom = v.transcript_scroll;
    assert_eq!(
        v.transcript.lines[bottom..],
        lines[lines.len() - (v.transcript.lines.len() - bottom)..]
    );

    // `g` goes to the first line of the branch, `G` back to the end.
    press(&mut v, KeyCode::Tab);
    assert_eq!(v.focus, Focus::Transcript);
    press(&mut v, KeyCode::Char('g'));
    assert_eq!(v.transcript.first, 0);
    assert_eq!(v.transcript_scroll, 0);
    assert_eq!(v.transcript.lines[0], lines[0]);
    assert_window_is_exact(&v);
    press(&mut v, KeyCode::Char('G'));
    assert!(v.transcript.at_end());
    assert_eq!(v.transcript_scroll, bottom);

    // Paging up through the branch moves the window: each top line is the whole
    // transcript's line at the same place.
    let starts = whole(&v).1;
    let (first_msg, off) = v.transcript.anchor(v.transcript_scroll);
    let mut global = starts[first_msg] + off;
    for _ in 0..300 {
        press(&mut v, KeyCode::PageUp);
        let (m, off) = v.transcript.anchor(v.transcript_scroll);
        let now = starts[m] + off;
        assert!(now < global || now == 0);
        global = now;
        assert_eq!(v.transcript.lines[v.transcript_scroll], lines[now]);
        assert!(v.transcript.lines.len() < 5000);
    }
    assert_window_is_exact(&v);
    assert!(
        v.transcript
            .position(v.transcript_scroll)
            .contains("message")
    );
}

#[test]
fn search_streams_over_the_whole_branch_and_jumps_there() {
    let mut v = view(3000);
    press(&mut v, KeyCode::Tab);
    press(&mut v, KeyCode::Char('/'));
    for c in "needle".chars() {
        press(&mut v, KeyCode::Char(c));
    }
    press(&mut v, KeyCode::Enter);
    // Far before the window: found by the whole-branch search on Enter.
    assert_eq!(v.transcript.hits.len(), 1);
    assert!(v.transcript.hits_cover_all);
    assert_eq!(v.transcript.hits[0].0, 21);
    press(&mut v, KeyCode::Char('n'));
    let line = &v.transcript.lines[v.transcript_scroll];
    assert!(line.text.contains("needle"), "{line:?}");
    assert_eq!(v.transcript_hits, vec![v.transcript_scroll]);
    assert_window_is_exact(&v);
}

#[test]
fn a_short_branch_is_laid_out_whole() {
    let v = view(20);
    let (lines, _) = whole(&v);
    assert!(v.transcript.is_whole());
    assert_eq!(v.transcript.lines, lines);
    assert_eq!(v.transcript.position(0), format!(" 1/{} ", lines.len()));
}
