//! Layout for real sessions (issue "The transcript as the agent showed it"): deep branch
//! gutters compress to a depth number so a row keeps at least 60% of the tree pane for its
//! text, rows cut at the pane's edge end with `…`, `<` / `>` narrow and widen the tree pane,
//! `z` zooms the focused pane to the whole screen. Key sequences and snapshots at 60×20,
//! 100×30 and 160×45 on a 30-level deep fork chain.

#[path = "render_support/mod.rs"]
mod render_support;
use render_support::screen;

use std::path::PathBuf;

use grove::app::keymap::default_keymap;
use grove::app::session_view::{Focus, SessionViewState, update};
use grove::model::context::Dialect;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use grove::ui::session_view::draw_session_view;
use grove::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];
const DEPTH: usize = 30;

/// A chain of `DEPTH` forks: each level's user message has a short side branch (an assistant
/// answer) and the next level; the leaf is the deepest level.
fn deep_forks() -> Session {
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"deep","timestamp":"2026-01-01T00:00:00Z","cwd":"/work"}"#
            .to_owned(),
    ];
    let mut t = 0;
    let mut entry = |lines: &mut Vec<String>, id: &str, parent: Option<&str>, message: String| {
        t += 1;
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:{:02}:{:02}Z","message":{message}}}"#,
            t / 60,
            t % 60
        ));
    };
    let user = |d: usize| {
        format!(
            r#"{{"role":"user","content":"level {d}: try another approach to the parser, keeping the old one around"}}"#
        )
    };
    entry(&mut lines, "n00", None, user(0));
    for d in 0..DEPTH {
        let side = format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"side branch {d}: this approach failed, see the log for the details"}}],"model":"m","stopReason":"stop"}}"#
        );
        entry(
            &mut lines,
            &format!("s{d:02}"),
            Some(&format!("n{d:02}")),
            side,
        );
        entry(
            &mut lines,
            &format!("n{:02}", d + 1),
            Some(&format!("n{d:02}")),
            user(d + 1),
        );
    }
    Session::new(ParsedSession::from_bytes(lines.join("\n").as_bytes()))
}

fn view(w: u16, h: u16) -> SessionViewState {
    SessionViewState::new(
        PathBuf::from("deep.jsonl"),
        deep_forks(),
        Dialect::Pi,
        Rect::new(0, 0, w, h),
    )
}

fn press(v: &mut SessionViewState, code: KeyCode) {
    update(v, KeyEvent::new(code, KeyModifiers::NONE));
}

fn draw(v: &SessionViewState) -> Buffer {
    let area = v.viewport;
    let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
    terminal
        .draw(|f| draw_session_view(f, f.area(), v, &Theme::default(), default_keymap()))
        .unwrap();
    terminal.backend().buffer().clone()
}

/// The tree pane's list rows, as text (after the `› ` cursor column).
fn tree_rows(v: &SessionViewState, b: &Buffer) -> Vec<String> {
    let r = v.layout().tree;
    (r.y + 1..r.y + r.height - 1)
        .map(|y| {
            (r.x + 3..r.x + r.width - 1)
                .map(|x| b[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn deep_gutters_compress_to_a_depth_number() {
    for (w, h) in SIZES {
        let v = view(w, h);
        let row_width = v.layout().tree.width as usize - 4;
        // Every row's prefix keeps within 40% of the row, however deep.
        for row in v.nav.rows() {
            let prefix = v.nav.row_prefix_within(row, row_width * 2 / 5);
            assert!(prefix.width() <= row_width * 2 / 5, "{prefix:?} at {w}x{h}");
            assert!(v.nav.row_prefix(row).width() >= prefix.width());
        }
        // The selection is the deepest level: its depth is shown as a number.
        let b = draw(&v);
        let rows = tree_rows(&v, &b);
        assert!(
            rows.iter().any(|r| r.trim_start().starts_with("·30 ")),
            "{rows:#?}"
        );
        insta::assert_snapshot!(format!("deep_{w}x{h}"), screen(&b));
    }
}

#[test]
fn cut_rows_end_with_an_ellipsis() {
    let v = view(100, 30);
    let b = draw(&v);
    let rows = tree_rows(&v, &b);
    let cut: Vec<&String> = rows.iter().filter(|r| r.ends_with('…')).collect();
    assert!(!cut.is_empty(), "{rows:#?}");
    // A row's text that does not fit is cut, never run into the border: every full row ends
    // with the ellipsis.
    for r in &rows {
        if !r.ends_with(' ') {
            assert!(r.ends_with('…'), "{r:?}");
        }
    }
}

#[test]
fn angle_brackets_resize_the_tree_and_z_zooms() {
    let mut v = view(100, 30);
    assert_eq!(v.layout().tree.width, 42);
    press(&mut v, KeyCode::Char('>'));
    press(&mut v, KeyCode::Char('>'));
    let wide = v.layout();
    assert_eq!(wide.tree.width, 54);
    assert_eq!(wide.tree.width + wide.transcript.width, 100);
    // The transcript lays out at its new width.
    assert_eq!(v.transcript_size().0, wide.transcript.width as usize - 2);
    insta::assert_snapshot!("wider_100x30", screen(&draw(&v)));
    for _ in 0..20 {
        press(&mut v, KeyCode::Char('<'));
    }
    assert_eq!(v.layout().tree.width, 18, "narrowing stops at a minimum");
    for _ in 0..20 {
        press(&mut v, KeyCode::Char('>'));
    }
    assert_eq!(v.layout().tree.width, 78, "widening stops at a maximum");

    // z: the focused pane takes the whole body; tab shows the other one; z again goes back.
    press(&mut v, KeyCode::Char('z'));
    assert_eq!(v.layout().tree.width, 100);
    assert!(v.layout().transcript.is_empty());
    insta::assert_snapshot!("zoomed_tree_100x30", screen(&draw(&v)));
    press(&mut v, KeyCode::Tab);
    assert_eq!(v.focus, Focus::Transcript);
    assert_eq!(v.layout().transcript.width, 100);
    assert!(v.layout().tree.is_empty());
    assert_eq!(v.transcript_size().0, 98);
    insta::assert_snapshot!("zoomed_transcript_100x30", screen(&draw(&v)));
    press(&mut v, KeyCode::Char('z'));
    assert_eq!(
        v.layout().tree.width,
        78,
        "the chosen width is kept under the zoom"
    );
    // Stacked (narrow terminals): the keys change the tree's height share.
    let mut v = view(60, 20);
    let before = v.layout().tree.height;
    press(&mut v, KeyCode::Char('<'));
    assert!(v.layout().tree.height < before);
    press(&mut v, KeyCode::Char('z'));
    assert_eq!(v.layout().tree.height, 18);
}
