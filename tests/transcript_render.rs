//! The session view's transcript as the agent showed it (issue "The transcript as the agent
//! showed it"): Markdown rendered, code highlighted, an edit as a coloured diff, a bash call as
//! `$ command` with its output, an image as a placeholder. Snapshots at 60×20, 100×30 and
//! 160×45 (nothing on screen depends on the clock), and style assertions on the cells: the
//! diff's lines carry their colours, code tokens are highlighted, `NO_COLOR` removes colour.

#[path = "render_support/mod.rs"]
mod render_support;
use render_support::screen;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use grove::app::keymap::default_keymap;
use grove::app::session_view::{SessionViewState, layout, update};
use grove::app::theme::Palette;
use grove::model::context::Dialect;
use grove::storage::read::load_session;
use grove::ui::session_view::draw_session_view;
use grove::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::{Buffer, Cell};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcript/rendered.jsonl")
}

fn open(w: u16, h: u16) -> SessionViewState {
    let session = load_session(&fixture()).expect("fixture loads");
    SessionViewState::new(
        PathBuf::from("rendered.jsonl"),
        session,
        Dialect::Pi,
        Rect::new(0, 0, w, h),
    )
}

fn press(state: &mut SessionViewState, code: KeyCode) {
    update(state, KeyEvent::new(code, KeyModifiers::NONE));
}

fn draw(state: &SessionViewState, theme: &Theme) -> Buffer {
    let area = state.viewport;
    let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
    terminal
        .draw(|f| draw_session_view(f, f.area(), state, theme, default_keymap()))
        .unwrap();
    terminal.backend().buffer().clone()
}

/// The transcript pane's cells of the first row whose text there starts with `prefix`.
fn row_starting<'a>(b: &'a Buffer, prefix: &str) -> &'a [Cell] {
    let w = b.area.width as usize;
    for row in b.content.chunks(w) {
        // The transcript pane is the right (or lower) one: look after each `│`.
        let text: Vec<&str> = row.iter().map(|c| c.symbol()).collect();
        for (i, s) in text.iter().enumerate() {
            if *s == "│" && text[i + 1..].concat().starts_with(prefix) {
                return &row[i + 1..];
            }
        }
    }
    panic!("no row starting {prefix:?} in\n{}", screen(b))
}

#[test]
fn transcript_at_three_sizes() {
    for (w, h) in SIZES {
        let mut state = open(w, h);
        press(&mut state, KeyCode::Tab);
        press(&mut state, KeyCode::Char('g'));
        insta::assert_snapshot!(
            format!("top_{w}x{h}"),
            screen(&draw(&state, &Theme::default()))
        );
        // Half a pane further: the diff and the bash call.
        let page = state.transcript_size().1;
        for _ in 0..page.div_ceil(2) {
            press(&mut state, KeyCode::Char('j'));
        }
        insta::assert_snapshot!(
            format!("middle_{w}x{h}"),
            screen(&draw(&state, &Theme::default()))
        );
        press(&mut state, KeyCode::Char('G'));
        insta::assert_snapshot!(
            format!("end_{w}x{h}"),
            screen(&draw(&state, &Theme::default()))
        );
    }
}

/// A view tall enough to show the whole transcript at once.
fn whole_view() -> SessionViewState {
    let mut state = open(160, 90);
    press(&mut state, KeyCode::Tab);
    press(&mut state, KeyCode::Char('g'));
    state
}

/// The transcript pane's text (the tree's rows keep their short, raw forms).
fn transcript_text(b: &Buffer) -> String {
    let r = layout(b.area).transcript;
    (r.y..r.y + r.height)
        .map(|y| {
            (r.x..r.x + r.width)
                .map(|x| b[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_transcript_is_rendered_not_raw() {
    let b = draw(&whole_view(), &Theme::default());
    let text = transcript_text(&b);
    assert!(!text.contains("```") && !text.contains("**"), "{text}");
    assert!(
        !text.contains("oldText"),
        "the edit is a diff, not JSON: {text}"
    );
    assert!(text.contains("the docs (https://docs.example/log)"));
    assert!(text.contains("[image: image/png, 48 KB]"));
    assert!(text.contains("$ cargo test -q log"));
    assert!(text.contains("edit src/log.rs"));
    assert!(text.contains("running 3 tests"));
    // The table is laid out in columns.
    assert!(text.contains("level │ code"), "{text}");
}

#[test]
fn diff_lines_carry_their_colours_and_code_is_highlighted() {
    let b = draw(&whole_view(), &Theme::default());
    let added = row_starting(&b, "+let code = colour(level);");
    assert!(
        added.iter().take(10).all(|c| c.fg == Color::Green),
        "{added:?}"
    );
    let removed = row_starting(&b, "-let code = \"0\";");
    assert!(removed.iter().take(10).all(|c| c.fg == Color::Red));
    // A code line holds more than one foreground colour: its tokens are highlighted.
    let code = row_starting(&b, "fn code(level: Level)");
    let line: Vec<&Cell> = code.iter().take("fn code(level: Level)".len()).collect();
    let mut colours: Vec<Color> = line.iter().map(|c| c.fg).collect();
    colours.sort_by_key(|c| format!("{c:?}"));
    colours.dedup();
    assert!(colours.len() > 1, "one colour on a code line: {colours:?}");
    assert_eq!(line[0].fg, Color::Magenta, "`fn` is a keyword");
    // The heading and strong text are bold.
    let plan = row_starting(&b, "Plan");
    assert!(plan[0].modifier.contains(Modifier::BOLD));
}

#[test]
fn no_color_removes_every_colour() {
    // NO_COLOR wins over the config's colours.
    let overrides = BTreeMap::from([("accent".to_owned(), "#ff0000".to_owned())]);
    let (palette, problems) = Palette::resolve(true, &overrides);
    assert!(problems.is_empty() && !palette.color);
    let theme = Theme::from_palette(&palette);
    let mut state = whole_view();
    // With a search open, hits are marked too.
    press(&mut state, KeyCode::Char('/'));
    for c in "code".chars() {
        press(&mut state, KeyCode::Char(c));
    }
    press(&mut state, KeyCode::Enter);
    for sized in [whole_view(), state, open(100, 30)] {
        let b = draw(&sized, &theme);
        let allowed = Modifier::BOLD | Modifier::ITALIC | Modifier::REVERSED;
        for c in &b.content {
            assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset), "{c:?}");
            assert!(allowed.contains(c.modifier), "{c:?}");
        }
        let colour = draw(&sized, &Theme::default());
        assert_eq!(screen(&b), screen(&colour), "the same text either way");
    }
    // The diff and code stay distinguishable by attributes.
    let b = draw(&whole_view(), &theme);
    assert!(
        row_starting(&b, "+let code")[0]
            .modifier
            .contains(Modifier::BOLD)
    );
    assert!(
        row_starting(&b, "fn code(level")[0]
            .modifier
            .contains(Modifier::BOLD)
    );
}
