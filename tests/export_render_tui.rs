//! Message bodies drawn from the rendering model on ratatui's `TestBackend` at 60×20, 100×30
//! and 160×45: Markdown (heading, list, quote, link, table), a highlighted code block, an edit
//! as a diff, a bash call with its output, an image. Style assertions: the diff's added and
//! removed lines carry their colours, code tokens are highlighted, `NO_COLOR` removes colour.

#[path = "render_support/mod.rs"]
mod render_support;
use render_support::screen_trimmed as screen;

use grove::model::render::{Block, render_message};
use grove::ui::rendered::block_lines;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::{Value, json};

const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 45)];

fn messages() -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "Make `log` print **coloured** levels, see [the docs](https://docs.example/log)."}),
        json!({"role": "assistant", "model": "m", "content": [
            {"type": "thinking", "thinking": "Look at the level match first."},
            {"type": "text", "text": "## Plan\n\n1. Colour by level\n2. Keep files plain\n\n> NO_COLOR wins.\n\n| level | code |\n|---|---:|\n| error | 31 |\n| warn | 33 |\n\n```rust\nfn code(level: Level) -> &'static str {\n    match level { Level::Error => \"31\", _ => \"0\" } // ANSI\n}\n```"},
            {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {"path": "src/log.rs", "edits": [
                {"oldText": "let code = \"0\";\nprint(code);\n", "newText": "let code = colour(level);\nprint(code);\n"}]}},
        ]}),
        json!({"role": "toolResult", "toolCallId": "t1", "toolName": "edit", "content": [{"type": "text", "text": "Successfully replaced text in src/log.rs."}]}),
        json!({"role": "assistant", "model": "m", "content": [
            {"type": "toolCall", "id": "t2", "name": "bash", "arguments": {"command": "cargo test -q log"}}]}),
        json!({"role": "toolResult", "toolCallId": "t2", "toolName": "bash", "content": [
            {"type": "text", "text": "running 3 tests\n...\ntest result: ok. 3 passed"},
            {"type": "image", "mimeType": "image/png", "data": "A".repeat(4 * 12 * 1024)}]}),
    ]
}

fn header(m: &Value) -> Line<'static> {
    let role = m["role"].as_str().unwrap_or("").to_owned();
    Line::from(Span::styled(
        format!("── {role}"),
        Style::new().add_modifier(Modifier::BOLD),
    ))
}

fn lines(width: usize, color: bool) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for m in messages() {
        let blocks: Vec<Block> = render_message(&m);
        out.push(header(&m));
        out.extend(block_lines(&blocks, width, color));
        out.push(Line::default());
    }
    out
}

fn draw(w: u16, h: u16, color: bool, scroll: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            f.render_widget(
                Paragraph::new(lines(w as usize, color)).scroll((scroll, 0)),
                f.area(),
            )
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

/// The cells of the first row whose text starts with `prefix` (after spaces).
fn row_starting<'a>(b: &'a Buffer, prefix: &str) -> &'a [ratatui::buffer::Cell] {
    let w = b.area.width as usize;
    b.content
        .chunks(w)
        .find(|row| {
            let s: String = row.iter().map(|c| c.symbol()).collect();
            s.trim_start().starts_with(prefix)
        })
        .unwrap_or_else(|| panic!("no row starting {prefix:?} in\n{}", screen(b)))
}

#[test]
fn rendered_transcript_at_three_sizes() {
    for (w, h) in SIZES {
        // Scrolled so the diff and the bash call are on screen in the smaller sizes too.
        let top = draw(w, h, true, 0);
        insta::assert_snapshot!(format!("rendered_top_{w}x{h}"), screen(&top));
        let scrolled = draw(w, h, true, if h < 45 { h - 4 } else { 0 });
        insta::assert_snapshot!(format!("rendered_scrolled_{w}x{h}"), screen(&scrolled));
    }
}

#[test]
fn styles_carry_meaning_and_no_color_removes_colour() {
    let b = draw(160, 45, true, 0);
    let text = screen(&b);
    // Markdown rendered, not raw.
    assert!(!text.contains("```") && !text.contains("**"), "{text}");
    assert!(text.contains("the docs (https://docs.example/log)"));
    assert!(text.contains("[image: image/png, 36 KB]"));
    assert!(text.contains("$ cargo test -q log"));
    // The diff's lines carry their colours.
    let added = row_starting(&b, "+let code = colour(level);");
    assert!(
        added.iter().take(5).all(|c| c.fg == Color::Green),
        "{added:?}"
    );
    let removed = row_starting(&b, "-let code = \"0\";");
    assert!(removed.iter().take(5).all(|c| c.fg == Color::Red));
    // Code tokens are highlighted: `fn` is a keyword, the string a string, the comment dim.
    let code = row_starting(&b, "fn code(level: Level)");
    let start = code.iter().position(|c| c.symbol() == "f").unwrap();
    assert_eq!(code[start].fg, Color::Magenta);
    let string_row = row_starting(&b, "match level");
    let quote = string_row.iter().position(|c| c.symbol() == "\"").unwrap();
    assert_eq!(string_row[quote + 1].fg, Color::Green);
    // Heading and strong text are bold.
    let plan = row_starting(&b, "Plan");
    assert!(
        plan.iter()
            .find(|c| c.symbol() == "P")
            .unwrap()
            .modifier
            .contains(Modifier::BOLD)
    );

    // NO_COLOR: no colour anywhere, the diff and code still distinguishable by attributes.
    let mono = draw(160, 45, false, 0);
    assert_eq!(screen(&mono), text, "the same text either way");
    for c in &mono.content {
        assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset), "{c:?}");
    }
    let added = row_starting(&mono, "+let code");
    assert!(added[0].modifier.contains(Modifier::BOLD));
    let code = row_starting(&mono, "fn code(level: Level)");
    assert!(
        code.iter()
            .find(|c| c.symbol() == "f")
            .unwrap()
            .modifier
            .contains(Modifier::BOLD)
    );
}
