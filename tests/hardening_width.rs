//! Issue 12, item 14: every character drawn measures what the terminal draws. Default-ignorable
//! and format characters (U+3164 HANGUL FILLER: 2 cells in terminals, 0 in unicode-width;
//! U+00AD SOFT HYPHEN: 1 and 0; variation selectors, tags, Cf…) are escaped (or, for the
//! emoji/text presentation selectors, removed), so no row spills out of its pane.
//!
//! The terminal model is per character (`wcwidth`, as xterm, VTE and most terminals draw):
//! a cell's symbol must measure the same by ratatui's grapheme width and by the sum of its
//! characters' widths, and no drawn character may be default-ignorable or a format character.
//! Not in the generator: emoji modifier sequences and the Arabic lam-alef ligature, whose
//! width terminals themselves disagree on (grapheme-aware ones draw 👍🏽 in 2 cells, wcwidth
//! ones in 4); grove follows ratatui's grapheme measure there.

mod common;
#[path = "picker_support/mod.rs"]
mod picker;

use std::path::PathBuf;

use common::*;
use grove::app::session_view::SessionViewState;
use grove::model::context::Dialect;
use grove::storage::read::load_session;
use grove::text::sanitize::{sanitize_line, sanitize_multiline};
use grove::ui::session_view::draw_session_view;
use grove::ui::theme::Theme;
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Unicode's Default_Ignorable_Code_Point and general category Cf (Unicode 16), from
/// DerivedCoreProperties.txt and UnicodeData.txt.
fn ignorable_or_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{0600}'..='\u{0605}' | '\u{06DD}' | '\u{070F}'
        | '\u{0890}'..='\u{0891}' | '\u{08E2}' | '\u{115F}'..='\u{1160}' | '\u{17B4}'..='\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FFF0}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Characters that broke rows, and neighbours that interact with them.
const POOL: &[char] = &[
    '\u{3164}',
    '\u{AD}',
    '\u{115F}',
    '\u{1160}',
    '\u{FFA0}',
    '\u{34F}',
    '\u{FE0F}',
    '\u{FE0E}',
    '\u{FE00}',
    '\u{E0100}',
    '\u{180E}',
    '\u{180B}',
    '\u{200B}',
    '\u{200D}',
    '\u{2065}',
    '\u{600}',
    '\u{6DD}',
    '\u{13430}',
    '\u{1D173}',
    '\u{E0001}',
    '\u{E0041}',
    '\u{FFF0}',
    '\u{1BCA0}',
    '\u{17B4}',
    '\u{1F600}',
    '\u{2764}',
    '\u{1F1FA}',
    '\u{65E5}',
    '\u{AC00}',
    '\u{301}',
    '\u{20DD}',
    '\u{1B}',
    '\u{9B}',
    '\t',
    '\n',
    'a',
    'Z',
    ' ',
    '#',
];

fn excluded(c: char) -> bool {
    matches!(c, '\u{1F3FB}'..='\u{1F3FF}' | '\u{0621}'..='\u{064A}' | '\u{20E3}')
}

fn hostile_text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        3 => any::<char>().prop_filter("sequence widths terminals disagree on", |c| !excluded(*c)),
        4 => proptest::sample::select(POOL),
        2 => proptest::char::range('a', 'z'),
    ];
    proptest::collection::vec(c, 0..60).prop_map(|v| v.into_iter().collect())
}

fn terminal_width(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Every drawn cell: measured alike by ratatui and by a per-character terminal, and never
/// an ignorable or format character.
fn assert_cells_fit(buf: &Buffer, what: &str) {
    for y in 0..buf.area.height {
        // Walk the row as a terminal draws it: a wide cell covers the cells after it.
        let (mut x, mut drawn) = (0u16, 0usize);
        while x < buf.area.width {
            let sym = buf[(x, y)].symbol();
            if let Some(bad) = sym.chars().find(|c| ignorable_or_format(*c)) {
                panic!("{what}: row {y} draws U+{:04X} in {sym:?}", bad as u32);
            }
            assert_eq!(
                sym.width(),
                terminal_width(sym),
                "{what}: row {y}, cell {x}: {sym:?} measures differently in the terminal"
            );
            let w = sym.width().max(1);
            drawn += w;
            x += w as u16;
        }
        assert!(
            drawn <= usize::from(buf.area.width),
            "{what}: row {y} spills"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sanitized_text_measures_what_the_terminal_draws(s in hostile_text()) {
        for t in [sanitize_line(&s).into_owned(), sanitize_multiline(&s, 4).into_owned()] {
            prop_assert!(!t.chars().any(ignorable_or_format), "{t:?}");
            for line in t.lines() {
                prop_assert_eq!(line.width(), terminal_width(line), "{:?}", line);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn picker_rows_fit_their_panes(names in proptest::collection::vec(hostile_text(), 1..6)) {
        let mut h = picker::Harness::new(90, 16);
        let records = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut info = picker::info(&format!("{i:08x}"), n, picker::CURRENT, 60_000 * i as i64, 3);
                info.name = Some(format!("{n}{n}"));
                picker::record(info)
            })
            .collect();
        h.load(records);
        let (w, ht) = h.state.viewport;
        let mut terminal = Terminal::new(TestBackend::new(w, ht)).unwrap();
        terminal.draw(|f| grove::ui::draw(f, &h.state, picker::NOW)).unwrap();
        assert_cells_fit(terminal.backend().buffer(), "picker");
    }

    #[test]
    fn tree_and_transcript_rows_fit_their_panes(texts in proptest::collection::vec(hostile_text(), 2..8)) {
        let dir = tempfile::tempdir().unwrap();
        let mut lines = vec![header("sess-width", "/w")];
        let mut parent: Option<String> = None;
        for (i, t) in texts.iter().enumerate() {
            let id = format!("m{i:07x}");
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            lines.push(message(&id, parent.as_deref(), role, t));
            // A label with the text on each entry (and below, a branch at the first).
            lines.push(serde_json::json!({
                "type": "label", "id": format!("l{i:07x}"), "parentId": id,
                "timestamp": "2025-01-01T00:00:02.000Z", "targetId": id, "label": t,
            }).to_string());
            parent = Some(format!("l{i:07x}"));
        }
        lines.push(message("b0000000", Some("m0000000"), "assistant", &texts[0]));
        let path = write_file(dir.path(), "w.jsonl", jsonl(&lines));
        let session = load_session(&path).unwrap();
        let (w, ht) = (90, 20);
        let state = SessionViewState::new(PathBuf::from("w.jsonl"), session, Dialect::Pi, Rect::new(0, 0, w, ht));
        let mut terminal = Terminal::new(TestBackend::new(w, ht)).unwrap();
        terminal
            .draw(|f| draw_session_view(f, f.area(), &state, &Theme::default(), &grove::app::keymap::Keymap::default()))
            .unwrap();
        assert_cells_fit(terminal.backend().buffer(), "session view");
    }
}
