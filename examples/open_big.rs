//! Opens one session file and reports how long each step takes and the memory it needs:
//! `cargo run --release --example open_big -- FILE`. The first figure is what a user waits
//! for: the session view ready to draw (load, tree rows, the leaf's transcript), as the app
//! builds it off the UI thread; then the same steps one by one, and the peak RSS. With
//! `--ready` only the first figure (`scripts/bench-large.sh` runs it against `cat`).
#![forbid(unsafe_code)]

use std::time::Instant;

use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::storage::read::load_session;

fn rss_kb() -> u64 {
    status_kb("VmHWM:")
}

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let ready_only = args.first().is_some_and(|a| a == "--ready");
    if ready_only {
        args.remove(0);
    }
    let leaf_first = args.first().is_some_and(|a| a == "--leaf-first");
    if leaf_first {
        args.remove(0);
    }
    let path = args
        .first()
        .ok_or("usage: open_big [--ready | --leaf-first] FILE")?
        .clone();
    let size = std::fs::metadata(&path)?.len();
    if leaf_first {
        // What the app draws first for a large session: its leaf branch, read from the end.
        let t = Instant::now();
        // With the entry offsets of the index in the cache folder, when it has current ones
        // (as the app reads them): a leaf hanging from an entry far back is read there.
        let index = grove::storage::index::Index::open(false);
        let offsets = index.entry_offsets(path.as_ref());
        let first = grove::storage::leaf::load_leaf_branch_with(
            path.as_ref(),
            grove::storage::leaf::LeafOptions::default(),
            offsets.as_ref(),
        )?;
        let read = first.bytes_read;
        let view = grove::app::session_view::SessionViewState::new(
            path.clone().into(),
            first.session,
            Dialect::Pi,
            ratatui::layout::Rect::new(0, 0, 160, 45),
        );
        println!(
            "leaf branch view ready in {} ms ({} tree rows, {} transcript lines, {} of {} bytes read, {}); peak RSS {} MB",
            t.elapsed().as_millis(),
            view.nav.rows().len(),
            view.transcript.lines.len(),
            read,
            size,
            match &offsets {
                Some(o) => format!("index offsets: {} KB", o.bytes() / 1024),
                None => "no index offsets".to_owned(),
            },
            rss_kb() / 1024
        );
        return Ok(());
    }
    let t = Instant::now();
    let view = grove::app::session_view::SessionViewState::open(
        path.as_ref(),
        Dialect::Pi,
        ratatui::layout::Rect::new(0, 0, 160, 45),
        None,
    )?;
    let ready = t.elapsed();
    println!(
        "session view ready in {} ms ({} tree rows, {} transcript lines); peak RSS {} MB",
        ready.as_millis(),
        view.nav.rows().len(),
        view.transcript.lines.len(),
        rss_kb() / 1024
    );
    if ready_only {
        // The app keeps the view it opened: freeing a large session's structure (a fifth of a
        // second for a 1 GB one) is not on the way to its first frame, so neither is it here.
        std::mem::forget(view);
        return Ok(());
    }
    drop(view);
    let t = Instant::now();
    let session = load_session(path.as_ref())?;
    let loaded = t.elapsed();
    let slim = session.entries().iter().filter(|e| e.is_slim()).count();
    println!(
        "load alone {loaded:.2?}: {slim} of {} entries slim; RSS now {} MB, peak {} MB",
        session.entries().len(),
        status_kb("VmRSS:") / 1024,
        rss_kb() / 1024
    );
    let t = Instant::now();
    let ctx = build_context(&session, LeafChoice::Current, Dialect::Pi);
    let context = t.elapsed();
    let t = Instant::now();
    let nav = grove::model::flatten::TreeNav::new(
        &session,
        session.tree.leaf,
        None,
        grove::model::flatten::FilterMode::Default,
    );
    let flattened = t.elapsed();
    let mut nav = nav;
    let t = Instant::now();
    nav.set_filter(&session, grove::model::flatten::FilterMode::NoTools);
    let refiltered = t.elapsed();
    println!(
        "{} MB, {} entries: load {:.2?}, context ({} messages) {:.2?}, tree rows {:.2?} ({} rows), filter change {:.2?}; peak RSS {} MB ({:.1}x the file)",
        size / 1_000_000,
        session.entries().len(),
        loaded,
        ctx.messages.len(),
        context,
        flattened,
        nav.rows().len(),
        refiltered,
        rss_kb() / 1024,
        rss_kb() as f64 * 1024.0 / size as f64
    );
    Ok(())
}
