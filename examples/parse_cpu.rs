//! CPU time of the listing's line parser alone: a sample of a corpus's files is read into memory
//! first, then parsed on one thread (no I/O, no cache), best of several rounds.
//!
//! ```text
//! cargo run --release --example parse_cpu -- DIR [EVERY_NTH_FILE=10] [ROUNDS=5]
//! FULL=1 cargo run --release --example parse_cpu -- DIR     # the full serde_json parse
//! ```
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::time::Instant;

use grove::storage::fastscan::{ParseMode, scan_bytes};

fn jsonl_files(dir: PathBuf, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_files(p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: parse_cpu DIR [EVERY_NTH_FILE] [ROUNDS]");
        std::process::exit(2);
    };
    let nth: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let mode = if std::env::var_os("FULL").is_some() {
        ParseMode::Full
    } else {
        ParseMode::Fast
    };
    let mut files = Vec::new();
    jsonl_files(PathBuf::from(dir), &mut files);
    files.sort();
    let data: Vec<Vec<u8>> = files
        .iter()
        .step_by(nth.max(1))
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    let bytes: usize = data.iter().map(Vec::len).sum();
    // Time on the CPU (Linux: /proc/thread-self/schedstat, in ns), which other processes on a
    // shared machine do not inflate as much as wall time; wall time elsewhere.
    let on_cpu = || {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
    };
    let mut best = f64::MAX;
    let mut text_bytes = 0;
    for _ in 0..rounds {
        let (t, c) = (Instant::now(), on_cpu());
        text_bytes = 0;
        for d in &data {
            text_bytes += scan_bytes(d, mode).builder_text().len();
        }
        let secs = match (c, on_cpu()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => t.elapsed().as_secs_f64(),
        };
        best = best.min(secs);
    }
    println!(
        "mode={mode:?} files={} mb={:.0} best_ms={:.0} mb_per_s={:.0} text_bytes={text_bytes}",
        data.len(),
        bytes as f64 / 1e6,
        best * 1e3,
        bytes as f64 / 1e6 / best
    );
}
