//! The listing's fast line parser and the slim parser against serde_json: arbitrary lines after
//! a header give the same listing state through the fast path as through the full parse, and a
//! line the slim parser takes is one serde_json takes (whole, when nothing was left out).
#![no_main]

use grove::model::scan::skim::skim_line;
use grove::storage::fastscan::{ParseMode, scan_bytes};
use libfuzzer_sys::fuzz_target;

const HEADER: &[u8] =
    br#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;

fuzz_target!(|data: &[u8]| {
    let mut file = HEADER.to_vec();
    file.push(b'\n');
    file.extend_from_slice(data);
    file.push(b'\n');
    assert_eq!(
        scan_bytes(&file, ParseMode::Fast),
        scan_bytes(&file, ParseMode::Full),
        "the fast path differs from serde_json"
    );
    for line in data.split(|&b| b == b'\n') {
        let Some(skimmed) = skim_line(line) else {
            continue;
        };
        let whole: serde_json::Value =
            serde_json::from_slice(line).expect("the slim parser took a line serde_json refuses");
        if !skimmed.elided {
            assert_eq!(serde_json::Value::Object(skimmed.object), whole);
        }
    }
});
