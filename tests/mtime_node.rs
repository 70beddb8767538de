//! pi's `modified` falls back to the file's mtime (no message timestamps, no parseable header
//! time), as Node's `Stats.mtime`: `new Date(Math.round(sec * 1e3 + nsec / 1e6))`. grove gives
//! the same millisecond, through the CLI with and without the index. Each expected value is
//! what pi 1.6.0 (`SessionManager.list`, Node 24) printed for a file with that mtime (set with
//! `touch -m -d @SECONDS.NANOSECONDS`), including mtimes before 1970.

mod common;

use std::fs;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{grove, stdout};

/// (mtime in ns since the epoch, pi's `modified.getTime()`).
const PI_SAYS: &[(i128, i64)] = &[
    (1_700_000_000_123_500_600, 1_700_000_000_124), // x.5006 ms: up (truncating gave ...123)
    (1_700_000_000_123_499_400, 1_700_000_000_123), // x.4994 ms: down
    (1_700_000_000_123_500_000, 1_700_000_000_124), // a tie: up
    (1_700_000_000_123_600_000, 1_700_000_000_124),
    (1_700_000_000_123_400_000, 1_700_000_000_123),
    (1_700_000_000_999_500_600, 1_700_000_001_000), // into the next second
    (1_699_999_999_999_999_999, 1_700_000_000_000),
    (-1_500_000_000, -1_500), // before 1970: a tie rounds up (toward +infinity)
    (-86_400_000_400_000, -86_400_000), // -86400000.4 ms
    (-500_600, -1),           // -0.5006 ms
];

fn at(ns: i128) -> SystemTime {
    let d = Duration::from_nanos(ns.unsigned_abs() as u64);
    if ns >= 0 {
        UNIX_EPOCH + d
    } else {
        UNIX_EPOCH - d
    }
}

/// `modified` of the one session `grove list --json` prints, in ms.
fn modified_ms(json: &str) -> i64 {
    let v: serde_json::Value = serde_json::from_str(json).expect("list --json");
    let iso = v[0]["modified"].as_str().expect("modified").to_owned();
    grove::model::entry::parse_iso_ms(&iso).expect("an ISO time")
}

#[test]
fn the_mtime_fallback_gives_pis_millisecond() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join("a.jsonl");
    fs::write(
        &p,
        r#"{"type":"session","version":3,"id":"mmmm0000","timestamp":"not a time","cwd":"/w"}
{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi"}}
"#,
    )
    .unwrap();
    for &(ns, pi) in PI_SAYS {
        fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(at(ns))
            .unwrap();
        for args in [
            &["list", "--all", "--json", "--no-cache"][..],
            &["list", "--all", "--json"], // fills the index
            &["list", "--all", "--json"], // from the index
        ] {
            let out = grove(tmp.path(), &dir, args);
            assert!(out.status.success(), "{out:?}");
            assert_eq!(modified_ms(&stdout(&out)), pi, "mtime {ns} ns, {args:?}");
        }
    }
}
