//! Building the picker's records of a listing (what the browser does between the index's rows
//! and its first rows on screen): canonical paths, the current folder and repository, the
//! prepared search fields.
//!
//! ```text
//! bench_records SESSIONS_DIR CACHE_DIR   # CACHE_DIR: a warm index of SESSIONS_DIR
//! ```
//! Prints the time to build the records of the sessions the index had cached (new or changed
//! ones are left out, and the listing brings the index up to date, as any listing does), on
//! one thread and on all cores, twice each. Use a copy of a cache, not your own.
#![forbid(unsafe_code)]

use std::time::Instant;

use grove::app::record::Canonical;
use grove::app::state::SessionRecord;
use grove::storage::index::{Index, IndexEvent, ListOptions};
use grove::storage::roots::SessionRoot;
use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(cache)) = (args.first(), args.get(1)) else {
        eprintln!("usage: bench_records SESSIONS_DIR CACHE_DIR");
        std::process::exit(2);
    };
    let roots = vec![SessionRoot {
        path: dir.into(),
        agent: None,
    }];
    let mut index = Index::open_at(std::path::Path::new(cache));
    let mut infos = Vec::new();
    index.list(&roots, ListOptions::default(), |e| {
        if let IndexEvent::Cached(rows) = e {
            infos.extend(rows.iter().cloned())
        }
    });
    let cwd = std::env::current_dir().ok();
    for all_cores in [false, true, false, true] {
        // A new cache of folders each time, as each listing has.
        let folders = Canonical::default();
        let build = |i| SessionRecord::listed(i, cwd.as_deref(), &folders);
        let t = Instant::now();
        // The records' sizes summed, so that each is built and looked at.
        let bytes: u64 = if all_cores {
            infos.par_iter().map(|i| build(i).info.bytes).sum()
        } else {
            infos.iter().map(|i| build(i).info.bytes).sum()
        };
        println!(
            "{}: {} records ({bytes} bytes) in {:.1} ms",
            if all_cores { "all cores" } else { "one thread" },
            infos.len(),
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
}
