//! Library-level measurements for `scripts/bench.sh` (things a CLI run cannot show).
//!
//! ```text
//! bench_scale scan  --mode fast|full ROOT...     parse every file (no cache), report MB/s
//! bench_scale frame --cache DIR ROOT...          time to a zero-row frame and to the cached rows
//! bench_scale search --cache DIR ROOT...         warm index → prepared text → query latency
//! ```
//! ROOTs are session folders; without any, grove's default roots (so with PI_CODING_AGENT_DIR and
//! ATOMIC_CODING_AGENT_DIR set, exactly what `grove list` reads). Output is `name=value`.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::time::Instant;

use grove::cli::list_query::search_fields as fields;
use grove::model::search::{PreparedText, Query};
use grove::storage::fastscan::{ParseMode, scan_info_with};
use grove::storage::index::{Index, IndexEvent, ListOptions};
use grove::storage::roots::{
    ProcessEnv, SessionRoot, custom_roots, default_roots, find_session_files,
};
use rayon::prelude::*;

fn main() {
    let start = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first().cloned() else {
        eprintln!("usage: bench_scale scan|frame|search [--mode M] [--cache DIR] ROOT...");
        std::process::exit(2);
    };
    let mut mode = ParseMode::Fast;
    let mut cache: Option<PathBuf> = None;
    let mut roots = Vec::new();
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--mode" => {
                mode = match it.next().map(String::as_str) {
                    Some("full") => ParseMode::Full,
                    _ => ParseMode::Fast,
                }
            }
            "--cache" => cache = it.next().map(PathBuf::from),
            root => roots.push(PathBuf::from(root)),
        }
    }
    // The roots `grove` itself would use: the default roots (set PI_CODING_AGENT_DIR and
    // ATOMIC_CODING_AGENT_DIR), or the folders given, with the agent guessed from the path.
    let roots: Vec<SessionRoot> = if roots.is_empty() {
        default_roots(&ProcessEnv)
    } else {
        custom_roots(&roots, None)
    };
    match cmd.as_str() {
        "scan" => scan(&roots, mode),
        "frame" => frame(&roots, cache, start),
        "search" => search(&roots, cache),
        other => {
            eprintln!("unknown command {other}");
            std::process::exit(2);
        }
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn scan(roots: &[SessionRoot], mode: ParseMode) {
    let t = Instant::now();
    let (files, _) = find_session_files(roots);
    let bytes: u64 = files
        .par_iter()
        .map(|f| scan_info_with(&f.path, f.agent, mode).map_or(0, |i| i.bytes))
        .sum();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "scan_mode={mode:?} files={} mb={:.0} ms={:.0} mb_per_s={:.0}",
        files.len(),
        bytes as f64 / 1e6,
        secs * 1000.0,
        bytes as f64 / 1e6 / secs
    );
}

/// The picker can draw its first frame (no rows) as soon as the roots are known; the cached
/// rows follow once the index is read and every file has had its one `stat`.
fn frame(roots: &[SessionRoot], cache: Option<PathBuf>, start: Instant) {
    let zero_rows = ms(start);
    let mut index = cache.map_or_else(Index::disabled, |d| Index::open_at(&d));
    let opened = ms(start);
    let mut first_rows: Option<(f64, usize)> = None;
    let listing = index.list(roots, ListOptions::default(), |e| {
        if let IndexEvent::Cached(rows) = &e {
            first_rows.get_or_insert((ms(start), rows.len()));
        }
    });
    let all = ms(start);
    let (rows_ms, rows) = first_rows.unwrap_or((all, 0));
    println!(
        "first_frame_ms={zero_rows:.2} index_open_ms={opened:.1} cached_rows_ms={rows_ms:.1} cached_rows={rows} listed_ms={all:.1} sessions={}",
        listing.sessions.len()
    );
}

fn search(roots: &[SessionRoot], cache: Option<PathBuf>) {
    let t = Instant::now();
    let mut index = cache.map_or_else(Index::disabled, |d| Index::open_at(&d));
    let listing = index.list(roots, ListOptions { with_text: true }, |_| {});
    let load_ms = ms(t);
    let text_mb: f64 = listing
        .sessions
        .iter()
        .map(|s| s.all_messages_text.len() as f64)
        .sum::<f64>()
        / 1e6;
    let t = Instant::now();
    // COMPRESSED=1: the text as the browser holds it (compressed, decompressed per search).
    let compressed = std::env::var_os("COMPRESSED").is_some_and(|v| v == "1");
    let prepared: Vec<PreparedText> = listing
        .sessions
        .par_iter()
        .map(|s| {
            if compressed {
                PreparedText::compressed(&fields(s))
            } else {
                PreparedText::new(&fields(s))
            }
        })
        .collect();
    let prepare_ms = ms(t);
    println!(
        "search_sessions={} text_mb={text_mb:.0} load_with_text_ms={load_ms:.0} prepare_ms={prepare_ms:.0} compressed={compressed}",
        listing.sessions.len()
    );
    // The picker scores the most recent sessions first (the listing is newest first), shows
    // that chunk, then completes the rest in the background.
    const FIRST_CHUNK: usize = 500;
    for q in [
        "parser",
        "screenshot",
        "fix cache bug",
        "\"render the\"",
        "re:err(or)?\\s+\\d+",
        "pibrw",
        "git status",
        "zzqxj",
    ] {
        let query = match Query::parse(q) {
            Ok(q) => q,
            Err(e) => {
                println!("query={q:?} error={e}");
                continue;
            }
        };
        let t = Instant::now();
        let n = FIRST_CHUNK.min(prepared.len());
        let first: usize = (0..n)
            .into_par_iter()
            .filter(|&i| query.score_prepared(&prepared[i]).is_some())
            .count();
        let first_ms = ms(t);
        let t = Instant::now();
        let mut hits: Vec<(usize, grove::model::search::Score)> = (0..prepared.len())
            .into_par_iter()
            .filter_map(|i| query.score_prepared(&prepared[i]).map(|s| (i, s)))
            .collect();
        hits.sort_by(|a, b| a.1.cmp_rank(&b.1).then(a.0.cmp(&b.0)));
        let full_ms = ms(t);
        println!(
            "query={q:?} first_chunk={n} first_hits={first} first_ms={first_ms:.1} hits={} full_ms={full_ms:.1}",
            hits.len()
        );
    }
    // Typing a query one key at a time: each key is a full search and sort of every session
    // (what the picker does when it cannot reuse the previous results).
    for typed in ["screenshot", "migration parser", "\"mismatched types\""] {
        let mut per_key = Vec::new();
        for end in typed.char_indices().map(|(i, c)| i + c.len_utf8()) {
            let Ok(query) = Query::parse(&typed[..end]) else {
                continue;
            };
            let t = Instant::now();
            let mut hits: Vec<(usize, grove::model::search::Score)> = (0..prepared.len())
                .into_par_iter()
                .filter_map(|i| query.score_prepared(&prepared[i]).map(|s| (i, s)))
                .collect();
            hits.sort_by(|a, b| a.1.cmp_rank(&b.1).then(a.0.cmp(&b.0)));
            per_key.push(ms(t));
        }
        per_key.sort_by(f64::total_cmp);
        let median = per_key.get(per_key.len() / 2).copied().unwrap_or(0.0);
        let max = per_key.last().copied().unwrap_or(0.0);
        println!(
            "typed={typed:?} keys={} median_key_ms={median:.1} max_key_ms={max:.1}",
            per_key.len()
        );
    }
}
