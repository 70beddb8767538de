//! A picker keystroke end to end, in process, the way the browser runs it: the key goes through
//! `update`, the search it asks for runs (`execute_search`, the worker's function), its result
//! goes through `update` (rows rebuilt and ranked, the selected row's match explained for the
//! preview's top), and a frame is drawn (160×45, preview pane on). Reported per key: wall time
//! and CPU time (the process's threads, from `/proc/self/task/*/schedstat`, so it is honest on
//! a loaded machine). Also the off-thread work the preview's hits ask for (reading the selected
//! session back), which is not on the keystroke's path.
//!
//! ```text
//! bench_keystroke --cache DIR ROOT...
//! ```
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use grove::app::event::{Effect, Event, ScanUpdate};
use grove::app::keymap::Keymap;
use grove::app::matcher::execute_search;
use grove::app::state::{AppState, Options, Scope, SessionRecord};
use grove::app::theme::Palette;
use grove::app::update::{start, update};
use grove::storage::index::{Index, ListOptions};
use grove::storage::roots::custom_roots;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rayon::prelude::*;

/// CPU time of every thread of this process so far, in ns.
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cache: Option<PathBuf> = None;
    let mut roots = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cache" => cache = it.next().map(PathBuf::from),
            root => roots.push(PathBuf::from(root)),
        }
    }
    let roots = custom_roots(&roots, None);
    let mut index = cache.map_or_else(Index::disabled, |d| Index::open_at(&d));
    let listing = index.list(&roots, ListOptions { with_text: true }, |_| {});
    let records: Vec<Arc<SessionRecord>> = listing
        .sessions
        .into_par_iter()
        .map(|info| Arc::new(SessionRecord::without_fs(info, false)))
        .collect();
    println!("sessions={}", records.len());

    for typed in [
        "screenshot",
        "migration parser",
        "\"mismatched types\"",
        "git status",
        "pibrw",
    ] {
        let mut state = AppState::new(Options::default(), Keymap::default(), Palette::default());
        state.viewport = (160, 45);
        let generation = state.picker.loading.generation + 1;
        let _ = start(&mut state);
        for update_event in [
            ScanUpdate::Found(records.len()),
            ScanUpdate::Sessions(records.clone()),
            ScanUpdate::Done,
        ] {
            let _ = update(
                &mut state,
                Event::ScanResult {
                    generation,
                    update: update_event,
                },
            );
        }
        // Every session listed (the Tab key: the All scope).
        let _ = update(
            &mut state,
            Event::Key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)),
        );
        assert_eq!(state.picker.scope, Scope::All);
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).expect("backend");
        let mut keys = Vec::new();
        let mut last_fx = Vec::new();
        for c in typed.chars() {
            let (t, cpu) = (Instant::now(), cpu_ns());
            let mut fx = update(
                &mut state,
                Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
            );
            while let Some(pos) = fx.iter().position(|e| matches!(e, Effect::RunSearch(_))) {
                let Effect::RunSearch(req) = fx.remove(pos) else {
                    unreachable!()
                };
                let matches = execute_search(&req, &|| false).unwrap_or_default();
                fx.extend(update(
                    &mut state,
                    Event::SearchResult {
                        generation: req.generation,
                        matches,
                    },
                ));
            }
            terminal
                .draw(|f| grove::ui::draw(f, &state, 0))
                .expect("draw");
            keys.push((
                t.elapsed().as_secs_f64() * 1e3,
                (cpu_ns() - cpu) as f64 / 1e6,
            ));
            last_fx = fx;
        }
        // The preview's hits, found off the UI thread for the selected row.
        let hits_ms = last_fx
            .iter()
            .find_map(|e| match e {
                Effect::FindHits { path, query } => {
                    let t = Instant::now();
                    let n = grove::app::preview_hits::find_preview_hits(path, query, &|| false)
                        .map_or(0, |h| h.len());
                    Some(format!("{:.1}ms/{n}hits", t.elapsed().as_secs_f64() * 1e3))
                }
                _ => None,
            })
            .unwrap_or_else(|| "-".into());
        let mut wall: Vec<f64> = keys.iter().map(|k| k.0).collect();
        let mut cpu: Vec<f64> = keys.iter().map(|k| k.1).collect();
        wall.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        let med = |v: &[f64]| v[v.len() / 2];
        println!(
            "typed={typed:?} keys={} matches={} wall_median_ms={:.1} wall_max_ms={:.1} cpu_median_ms={:.1} cpu_max_ms={:.1} preview_hits={hits_ms}",
            keys.len(),
            state.picker.rows.len(),
            med(&wall),
            wall[wall.len() - 1],
            med(&cpu),
            cpu[cpu.len() - 1],
        );
    }
}
