//! Snapshots of the session view (tree + transcript) on ratatui's `TestBackend` at 60×20,
//! 100×30 and 160×45, on demo sessions, and a 100 000-entry session rendering its first screen.

use std::path::{Path, PathBuf};

use grove::app::keymap::default_keymap;
use grove::app::session_view::{SessionViewState, apply_resize, update};
use grove::model::context::Dialect;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use grove::storage::read::load_session;
use grove::ui::session_view::draw_session_view;
use grove::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];

fn demo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo")
        .join(rel)
}

fn open(path: &Path, dialect: Dialect, w: u16, h: u16) -> SessionViewState {
    let session = load_session(path).expect("demo session loads");
    // A fixed path keeps snapshots independent of the checkout location.
    let name = path.file_name().unwrap().to_owned();
    SessionViewState::new(PathBuf::from(name), session, dialect, Rect::new(0, 0, w, h))
        .with_home(Some("/home/demo".into()))
}

fn render(state: &SessionViewState) -> String {
    let area = state.viewport;
    let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
    terminal
        .draw(|f| draw_session_view(f, f.area(), state, &Theme::default(), default_keymap()))
        .unwrap();
    format!("{}", terminal.backend())
}

fn press(state: &mut SessionViewState, code: KeyCode, mods: KeyModifiers) {
    update(state, KeyEvent::new(code, mods));
}

const BRANCHED_PI: &str = "pi-agent/sessions/--home-demo-code-tern--/2026-10-14T13-05-47-918Z_01a13a84-db8e-7aa3-9beb-5076223abfe4.jsonl";
const BRANCHED_ATOMIC: &str = "atomic-agent/sessions/--home-demo-code-tern--/2026-11-10T12-08-19-644Z_01a1c55b-f1bc-7b0a-b4b2-2704dd7911f1.jsonl";
const RELEASE_PI: &str = "pi-agent/sessions/--home-demo-code-tern--/2026-11-27T15-20-44-120Z_01a21d98-3558-789c-8860-4837bc638672.jsonl";
const SPOOF_PI: &str = "pi-agent/sessions/--home-demo-code-tidewater--/2026-11-04T11-26-40-775Z_01a1a64f-a887-726b-9d1c-7b88cd9d3d51.jsonl";
const COMPACTED_ATOMIC: &str = "atomic-agent/sessions/--home-demo-code-ledger-sync--/2026-11-03T09-15-06-402Z_01a1a0b0-d722-79e4-b941-50e9605a8281.jsonl";

#[test]
fn branched_pi_session_at_three_sizes() {
    for (w, h) in SIZES {
        let state = open(&demo(BRANCHED_PI), Dialect::Pi, w, h);
        insta::assert_snapshot!(format!("branched_pi_{w}x{h}"), render(&state));
    }
}

#[test]
fn branched_atomic_session_at_three_sizes() {
    for (w, h) in SIZES {
        let state = open(&demo(BRANCHED_ATOMIC), Dialect::Atomic, w, h);
        insta::assert_snapshot!(format!("branched_atomic_{w}x{h}"), render(&state));
    }
}

#[test]
fn release_session_all_filter_at_three_sizes() {
    // Model / thinking changes, renames, a compaction, failing tool results: all rows.
    for (w, h) in SIZES {
        let mut state = open(&demo(RELEASE_PI), Dialect::Pi, w, h);
        press(&mut state, KeyCode::Char('a'), KeyModifiers::CONTROL);
        insta::assert_snapshot!(format!("release_all_{w}x{h}"), render(&state));
    }
}

#[test]
fn atomic_verbatim_compaction_transcript() {
    let mut state = open(&demo(COMPACTED_ATOMIC), Dialect::Atomic, 160, 45);
    press(&mut state, KeyCode::Tab, KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('g'), KeyModifiers::NONE);
    insta::assert_snapshot!("compacted_atomic_top_160x45", render(&state));
}

#[test]
fn escape_sequences_and_bidi_controls_are_shown_inert() {
    let state = open(&demo(SPOOF_PI), Dialect::Pi, 100, 30);
    let screen = render(&state);
    assert!(!screen.contains('\u{1b}'));
    assert!(!screen.contains('\u{202e}'));
    insta::assert_snapshot!("spoof_100x30", screen);
}

#[test]
fn dialogs_and_help() {
    let mut state = open(&demo(BRANCHED_PI), Dialect::Pi, 100, 30);
    // The selection is the leaf's point already: c only says so.
    press(&mut state, KeyCode::Char('c'), KeyModifiers::NONE);
    assert!(state.status.as_ref().unwrap().text.starts_with("Already"));
    // The last row, a user message on the other branch.
    press(&mut state, KeyCode::Char('G'), KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('c'), KeyModifiers::NONE);
    insta::assert_snapshot!("checkout_dialog_100x30", render(&state));
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('L'), KeyModifiers::NONE);
    insta::assert_snapshot!("label_dialog_100x30", render(&state));
    press(&mut state, KeyCode::Esc, KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('?'), KeyModifiers::NONE);
    apply_resize(&mut state, Rect::new(0, 0, 100, 40));
    insta::assert_snapshot!("help_100x40", render(&state));
}

#[test]
fn no_color_theme_draws_without_colours() {
    use ratatui::style::Color;
    let mut state = open(&demo(BRANCHED_PI), Dialect::Pi, 100, 30);
    press(&mut state, KeyCode::Tab, KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('/'), KeyModifiers::NONE);
    press(&mut state, KeyCode::Char('e'), KeyModifiers::NONE);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal
        .draw(|f| draw_session_view(f, f.area(), &state, &Theme::monochrome(), default_keymap()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let coloured: Vec<_> = buffer
        .content()
        .iter()
        .filter(|c| c.fg != Color::Reset || c.bg != Color::Reset)
        .map(|c| c.symbol().to_owned())
        .collect();
    assert!(coloured.is_empty(), "coloured cells: {coloured:?}");
}

#[test]
fn searching_the_tree_filters_live() {
    let mut state = open(&demo(BRANCHED_PI), Dialect::Pi, 100, 30);
    press(&mut state, KeyCode::Char('/'), KeyModifiers::NONE);
    for c in "lossy".chars() {
        press(&mut state, KeyCode::Char(c), KeyModifiers::NONE);
    }
    insta::assert_snapshot!("tree_search_100x30", render(&state));
}

/// A linear session of `n` user/assistant turns, built in memory.
fn linear_session(n: usize) -> Session {
    let mut data = String::with_capacity(n * 200);
    data.push_str(r#"{"type":"session","version":3,"id":"big","timestamp":"2025-01-01T00:00:00Z","cwd":"/big"}"#);
    data.push('\n');
    for i in 0..n {
        let parent = if i == 0 {
            "null".to_owned()
        } else {
            format!("\"{:08x}\"", i - 1)
        };
        let (role, content) = if i % 2 == 0 {
            ("user", format!("\"question {i}\""))
        } else {
            (
                "assistant",
                format!(
                    r#"[{{"type":"text","text":"answer {i}"}}],"model":"m","stopReason":"stop""#
                ),
            )
        };
        data.push_str(&format!(
            r#"{{"type":"message","id":"{i:08x}","parentId":{parent},"timestamp":"2025-01-01T00:00:00Z","message":{{"role":"{role}","content":{content}}}}}"#
        ));
        data.push('\n');
    }
    Session::new(ParsedSession::from_bytes(data.as_bytes()))
}

#[test]
fn hundred_thousand_entries_render_the_first_screen() {
    let session = linear_session(100_000);
    let mut state = SessionViewState::new(
        PathBuf::from("big.jsonl"),
        session,
        Dialect::Pi,
        Rect::new(0, 0, 100, 30),
    );
    assert_eq!(state.nav.len(), 100_000);
    assert!(
        state.nav.rows().iter().all(|r| r.indent == 0),
        "a chain never indents"
    );
    let screen = render(&state);
    assert!(screen.contains("(100000/100000)"), "{screen}");
    assert!(screen.contains("answer 99999"), "{screen}");
    // Moving and filtering stay correct at this size.
    press(&mut state, KeyCode::Char('g'), KeyModifiers::NONE);
    assert_eq!(state.nav.selected_index(), 0);
    press(&mut state, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(state.nav.len(), 50_000);
    let screen = render(&state);
    assert!(screen.contains("user: question 0"), "{screen}");
}

/// Every popup and input of the view, at the three sizes.
#[test]
fn every_view_popup_at_three_sizes() {
    type Keys = &'static [(KeyCode, KeyModifiers)];
    const N: KeyModifiers = KeyModifiers::NONE;
    let popups: [(&str, Keys); 7] = [
        (
            "checkout",
            &[(KeyCode::Char('G'), N), (KeyCode::Char('c'), N)],
        ),
        ("label", &[(KeyCode::Char('L'), N)]),
        ("export", &[(KeyCode::Char('e'), N)]),
        ("help", &[(KeyCode::Char('?'), N)]),
        (
            "tree_search",
            &[(KeyCode::Char('/'), N), (KeyCode::Char('t'), N)],
        ),
        (
            "transcript_search",
            &[
                (KeyCode::Tab, N),
                (KeyCode::Char('/'), N),
                (KeyCode::Char('e'), N),
            ],
        ),
        ("transcript", &[(KeyCode::Tab, N)]),
    ];
    for (name, keys) in popups {
        for (w, h) in SIZES {
            let mut state = open(&demo(BRANCHED_PI), Dialect::Pi, w, h);
            for &(code, mods) in keys {
                press(&mut state, code, mods);
            }
            insta::assert_snapshot!(format!("popup_{name}_{w}x{h}"), render(&state));
        }
    }
}

#[test]
fn overwrite_confirmation_at_three_sizes() {
    for (w, h) in SIZES {
        let mut state = open(&demo(BRANCHED_PI), Dialect::Pi, w, h);
        press(&mut state, KeyCode::Char('e'), KeyModifiers::NONE);
        grove::app::session_view::apply_outcome(
            &mut state,
            grove::app::session_view::Outcome::Exported(Err(
                grove::app::session_view::ExportFailure::Exists(PathBuf::from("notes.md")),
            )),
        );
        insta::assert_snapshot!(format!("popup_overwrite_{w}x{h}"), render(&state));
    }
}
