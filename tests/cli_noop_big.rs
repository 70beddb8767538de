//! Issue 13: a check-out to where the session already resumes and `label --clear` of an entry
//! without a label write nothing and say so, on a big session too (over the 4 MiB up to which
//! grove used to load the file to tell, appending a meaningless line above it), with the index
//! warm and without it. The pass that tells streams the file: see tests/cli_write_memory.rs
//! for its memory.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;

/// A session of just over `mb` MiB: a linear conversation `m0000000`, `m0000001`, … whose leaf is an
/// assistant message. Returns its path and the leaf's id.
fn big_session(folder: &Path, mb: usize) -> (PathBuf, String) {
    let mut s = header("sess-big", "/w");
    s.push('\n');
    let mut n = 0usize;
    let mut parent: Option<String> = None;
    let pad = "x".repeat(400);
    // Until the last entry is an assistant message (odd).
    while s.len() < (mb << 20) + (64 << 10) || !n.is_multiple_of(2) {
        let id = format!("m{n:07x}");
        let role = if n.is_multiple_of(2) {
            "user"
        } else {
            "assistant"
        };
        s.push_str(&message(
            &id,
            parent.as_deref(),
            role,
            &format!("{n} {pad}"),
        ));
        s.push('\n');
        parent = Some(id);
        n += 1;
    }
    let path = write_file(folder, "big.jsonl", s);
    (path, parent.unwrap_or_default())
}

fn nothing_written(sandbox: &Path, root: &Path, path: &Path, args: &[&str]) {
    let before = fs::read(path).unwrap();
    let out = grove(sandbox, root, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Nothing written: "),
        "{args:?}: {}",
        stdout(&out)
    );
    assert!(fs::read(path).unwrap() == before, "{args:?} wrote");
}

fn written(sandbox: &Path, root: &Path, path: &Path, args: &[&str]) {
    let before = fs::metadata(path).unwrap().len();
    let out = grove(sandbox, root, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    assert!(
        !stdout(&out).starts_with("Nothing written"),
        "{args:?}: {}",
        stdout(&out)
    );
    assert!(fs::metadata(path).unwrap().len() > before, "{args:?}");
}

#[test]
fn no_op_writes_on_a_big_session_write_nothing() {
    for cache in [false, true] {
        let (dir, root, folder) = session_root();
        let (path, leaf) = big_session(&folder, 4);
        assert!(fs::metadata(&path).unwrap().len() > 4 << 20);
        let p = path.to_str().unwrap();
        let run = |args: &[&str], expect_nothing: bool| {
            let mut full = if cache { vec![] } else { vec!["--no-cache"] };
            full.extend_from_slice(args);
            if expect_nothing {
                nothing_written(dir.path(), &root, &path, &full);
            } else {
                written(dir.path(), &root, &path, &full);
            }
        };
        if cache {
            // Warm the index.
            let out = grove(dir.path(), &root, &["list", "--json"]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let checkout_leaf = ["checkout", p, leaf.as_str()];
        run(&checkout_leaf, true);
        run(&["label", p, "m0000001", "--clear"], true);
        // Labelled, the label goes; cleared, clearing again writes nothing. The session still
        // resumes from its leaf, above the labels.
        // A label set (at the end of the file) leaves the session resuming from its leaf.
        run(&["label", p, "m0000001", "here"], false);
        run(&checkout_leaf, true);
        // A real check-out writes; checking out the user message after it (which resumes at
        // its parent) then changes nothing.
        run(&["checkout", p, "m0000003"], false);
        run(&["checkout", p, "m0000004"], true);
    }
}
