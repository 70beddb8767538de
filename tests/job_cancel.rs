//! A cancelled session load stops early (issue 11): the loader asks its cancel flag before
//! every read of the file, so Esc during the load of a large session stops the parse within a
//! block instead of letting it run to the end of the file.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use grove::storage::read::{SlimMode, load_session_cancellable};

#[test]
fn a_cancelled_load_stops_at_the_next_block() {
    let (_tmp, _root, folder) = common::session_root();
    // About 40 MB: many blocks of the reader.
    let mut lines = vec![common::header("big", "/w")];
    let text = "x".repeat(4000);
    let mut parent: Option<String> = None;
    for i in 0..10_000 {
        let id = format!("{i:08x}");
        lines.push(common::message(&id, parent.as_deref(), "user", &text));
        parent = Some(id);
    }
    let path = common::write_file(&folder, "big.jsonl", common::jsonl(&lines));
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 32 << 20, "{size}");

    for mode in [SlimMode::Never, SlimMode::Always] {
        // Not cancelled: the whole file is read, asking the flag for every read.
        let asked = AtomicUsize::new(0);
        let whole = load_session_cancellable(&path, mode, &|| {
            asked.fetch_add(1, Ordering::SeqCst);
            false
        })
        .unwrap();
        assert_eq!(whole.entries().len(), 10_000);
        let reads = asked.load(Ordering::SeqCst);
        assert!(reads > 8, "{reads} reads for {size} bytes");

        // Cancelled after the second read: no read after that, and an error saying why.
        let asked = AtomicUsize::new(0);
        let err =
            load_session_cancellable(&path, mode, &|| asked.fetch_add(1, Ordering::SeqCst) >= 2)
                .expect_err("a cancelled load is not a session");
        assert_eq!(
            asked.load(Ordering::SeqCst),
            3,
            "reads went on after the cancel"
        );
        assert!(err.to_string().contains("cancelled"), "{err}");
    }
}
