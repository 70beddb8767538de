//! Why the picker's family rows are not a `tui_tree_widget::Tree` (docs/families.md): the CPU
//! time of one picker frame (160×45, preview off) over `N` sessions in families of three,
//! drawn by grove (`ui::draw`: only the rows on screen are made) and drawn as a
//! tui-tree-widget `Tree` of every session (what using the widget for the families means: the
//! widget takes the whole forest, with each item's text, and flattens it on every render; the
//! UI is a pure function of the state, so the items are made each frame).
//!
//! ```text
//! bench_families [N] [FRAMES]        (defaults 10000 and 200)
//! ```
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;

use grove::app::event::{Effect, Event, ScanUpdate};
use grove::app::keymap::Keymap;
use grove::app::record::SessionRecord;
use grove::app::state::{AppState, Options};
use grove::app::theme::Palette;
use grove::app::update::update;
use grove::model::info::SessionInfo;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::{Line, Span};
use tui_tree_widget::{Tree, TreeItem, TreeState};

/// CPU time of this process's threads so far, in ns.
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn path(i: usize) -> PathBuf {
    PathBuf::from(format!("/s/--w--/{i:06}.jsonl"))
}

fn sessions(n: usize) -> Vec<Arc<SessionRecord>> {
    (0..n)
        .map(|i| {
            let info = SessionInfo {
                path: path(i),
                id: format!("{i}"),
                cwd: "/w".into(),
                parent_session_path: (i % 3 != 0).then(|| path(i - i % 3).display().to_string()),
                modified_ms: i as i64 * 1000,
                message_count: 12,
                first_message: format!("session {i}: fix the flaky job and write it down"),
                version: 3,
                ..SessionInfo::default()
            };
            Arc::new(SessionRecord::without_fs(info, true))
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let frames: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let records = sessions(n);

    for folded in [true, false] {
        let mut state = AppState::new(Options::default(), Keymap::default(), Palette::default());
        state.viewport = (160, 45);
        state.picker.show_preview = false;
        state.picker.families.folded_by_default = folded;
        let generation = state.picker.loading.generation;
        let fx = update(
            &mut state,
            Event::ScanResult {
                generation,
                update: ScanUpdate::Sessions(records.clone()),
            },
        );
        for e in fx {
            if let Effect::BuildThreads(req) = e {
                let rows = req.build();
                update(
                    &mut state,
                    Event::ThreadsBuilt {
                        generation: req.generation,
                        rows,
                    },
                );
            }
        }
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).expect("backend");
        let start = cpu_ns();
        for _ in 0..frames {
            terminal
                .draw(|f| grove::ui::draw(f, &state, 0))
                .expect("draw");
        }
        let grove_ns = (cpu_ns() - start) / u64::from(frames);

        let start = cpu_ns();
        for _ in 0..frames {
            // The forest with every session's text, as the widget needs it.
            let mut heads: Vec<TreeItem<usize>> = Vec::with_capacity(n / 3 + 1);
            for (i, r) in records.iter().enumerate().rev() {
                let line = Line::from(vec![
                    Span::raw(r.info.title().to_owned()),
                    Span::raw(format!("   {}  1d", r.info.message_count)),
                ]);
                if i % 3 == 0 {
                    let kids = [i + 2, i + 1]
                        .into_iter()
                        .filter(|&k| k < n)
                        .map(|k| {
                            let line = Line::from(records[k].info.title().to_owned());
                            TreeItem::new_leaf(k, line)
                        })
                        .collect();
                    if let Ok(item) = TreeItem::new(i, line, kids) {
                        heads.push(item);
                    }
                }
            }
            let mut tree_state = TreeState::default();
            if !folded {
                for h in &heads {
                    tree_state.open(vec![*h.identifier()]);
                }
            }
            tree_state.select(vec![n - n % 3]);
            terminal
                .draw(|f| {
                    if let Ok(tree) = Tree::new(&heads) {
                        f.render_stateful_widget(tree, f.area(), &mut tree_state);
                    }
                })
                .expect("draw");
        }
        let tree_ns = (cpu_ns() - start) / u64::from(frames);
        println!(
            "{n} sessions, families {}: grove {:.3} ms/frame, tui-tree-widget {:.3} ms/frame ({:.0}x)",
            if folded { "folded" } else { "unfolded" },
            grove_ns as f64 / 1e6,
            tree_ns as f64 / 1e6,
            tree_ns as f64 / grove_ns.max(1) as f64
        );
    }
}
