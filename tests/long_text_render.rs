//! Drawing text costs what the cells it fills cost (issue 12, item 2): a one-word title of
//! 10 MB (base64, minified code, a long URL; as the name or as the first message) is cut to
//! what can be shown before it is sanitized, measured and wrapped. Wrapping used to re-measure
//! the rest of the word for every piece: about 20 minutes per redraw at 10 MB. The deadline
//! below is a hang guard, not a benchmark.

mod picker_support;

use std::sync::mpsc;
use std::time::Duration;

use picker_support::*;
use ratatui::crossterm::event::KeyCode;

const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `f` on a thread; fails if it has not finished within [`DEADLINE`].
fn within_deadline<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|_| panic!("{what}: not done after {DEADLINE:?} (hang)"))
}

fn huge_word() -> String {
    // Base64-like: no spaces, so wrapping has to cut it hard.
    "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo"
        .chars()
        .cycle()
        .take(10 << 20)
        .collect()
}

#[test]
fn a_ten_megabyte_title_draws_promptly() {
    let word = huge_word();
    let mut named = info("aaaa1111", "short first message", CURRENT, 5 * MIN, 3);
    named.name = Some(word.clone());
    named.has_name = true;
    let unnamed = info("bbbb2222", &word, CURRENT, 10 * MIN, 3);
    let records = vec![record(named), record(unnamed)];
    let screens = within_deadline("drawing the picker, the preview and the session screen", {
        move || {
            let mut h = Harness::new(160, 45);
            h.load(records);
            let mut screens = Vec::new();
            for _ in 0..2 {
                // The picker with the preview pane, then the session screen (scrolled).
                screens.push(h.render());
                h.key(KeyCode::Enter);
                screens.push(h.render());
                h.key(KeyCode::Down);
                screens.push(h.render());
                h.key(KeyCode::Esc);
                h.key(KeyCode::Down);
            }
            screens
        }
    });
    let start: String = word.chars().take(40).collect();
    for s in &screens {
        assert!(s.contains(&start), "{s}");
        assert!(
            s.len() < 160 * 45 * 8,
            "a screen is a screen: {} bytes",
            s.len()
        );
    }
}
