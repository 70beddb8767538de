//! Issue 12, item 6: undo after a trash across file systems. When the trash is on another
//! file system than the session (the session's own had no trash, so it went to the home
//! trash), a restore copies, syncs and verifies the copy (size and bytes) before it gets the
//! session's name, and only then removes the trash copy; `.bak` files come back with it. On
//! any failure the original location is left as it was (never an empty file) and the message
//! says where the session is.
//!
//! The second file system is a real tmpfs mounted over the session's folder after the trash
//! (this needs root; under `CI=true` a failure to mount fails the test).

mod common;
#[path = "hardening_support/mod.rs"]
mod support;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use common::*;
use grove::storage::trash::{TrashError, restore, trash_session};

fn dev(p: &Path) -> u64 {
    fs::metadata(p).unwrap().dev()
}

/// A session of about 100 KB plus one Atomic backup, trashed into the sandbox's home trash.
fn trashed_session(
    sandbox: &Path,
) -> (
    std::path::PathBuf,
    std::path::PathBuf,
    Vec<u8>,
    grove::storage::trash::Trashed,
) {
    let folder = sandbox.join("sessions/--work--");
    fs::create_dir_all(&folder).unwrap();
    let mut text = small_session("sess-x", "/w");
    for i in 0..400 {
        text.push_str(&format!(
            "{}\n",
            message(
                &format!("b{i:07x}"),
                Some("m0000003"),
                "user",
                &"y".repeat(240)
            )
        ));
    }
    let s = write_file(&folder, "a.jsonl", &text);
    let bak = write_file(&folder, "a.jsonl.1700000000.bak", "backup bytes");
    let t = trash_session(&s).unwrap();
    assert_eq!(t.paths.len(), 2);
    assert!(!s.exists() && !bak.exists());
    (s, bak, text.into_bytes(), t)
}

#[test]
fn restore_across_file_systems_copies_verifies_then_removes_the_trash_copy() {
    let Some((scenario, sandbox)) = support::child_scenario() else {
        let sandbox = tempfile::tempdir().unwrap();
        support::in_child(
            "restore_across_file_systems_copies_verifies_then_removes_the_trash_copy",
            "xdev",
            sandbox.path(),
        );
        return;
    };
    assert_eq!(scenario, "xdev");
    let (s, bak, before, t) = trashed_session(&sandbox);
    let folder = s.parent().unwrap().to_path_buf();
    let mtime = fs::metadata(sandbox.join("data/Trash/files/a.jsonl"))
        .unwrap()
        .mtime();
    if support::mount_tmpfs_at(&folder, "16m").is_none() {
        println!("scenario {scenario} done");
        return;
    }
    let guard = support::Unmount(folder.clone());
    assert_ne!(
        dev(&folder),
        dev(&sandbox.join("data")),
        "not another file system"
    );
    let result = restore(&t);
    let restored = fs::read(&s).ok();
    let restored_bak = fs::read(&bak).ok();
    let restored_mtime = fs::metadata(&s).map(|m| m.mtime()).ok();
    drop(guard);
    result.unwrap();
    assert_eq!(
        restored.as_deref(),
        Some(&before[..]),
        "the session differs"
    );
    assert_eq!(restored_bak.as_deref(), Some(&b"backup bytes"[..]));
    assert_eq!(
        restored_mtime,
        Some(mtime),
        "the modification time was not kept"
    );
    assert!(
        common::trashed(&sandbox).is_empty(),
        "the trash copy is still there"
    );
    assert_eq!(
        fs::read_dir(sandbox.join("data/Trash/info"))
            .unwrap()
            .count(),
        0,
        "trash info left"
    );
    println!("scenario {scenario} done");
}

#[test]
fn a_failed_restore_across_file_systems_leaves_the_place_empty_and_says_where_the_session_is() {
    let Some((scenario, sandbox)) = support::child_scenario() else {
        let sandbox = tempfile::tempdir().unwrap();
        support::in_child(
            "a_failed_restore_across_file_systems_leaves_the_place_empty_and_says_where_the_session_is",
            "xdev_full",
            sandbox.path(),
        );
        return;
    };
    assert_eq!(scenario, "xdev_full");
    let (s, bak, before, t) = trashed_session(&sandbox);
    let folder = s.parent().unwrap().to_path_buf();
    // Room for less than the session.
    if support::mount_tmpfs_at(&folder, "16k").is_none() {
        println!("scenario {scenario} done");
        return;
    }
    let guard = support::Unmount(folder.clone());
    let result = restore(&t);
    let left: Vec<_> = fs::read_dir(&folder).unwrap().flatten().collect();
    drop(guard);
    let e = result.unwrap_err();
    assert!(matches!(e, TrashError::RestoreFailed { .. }), "{e:?}");
    let text = e.to_string();
    let in_trash = sandbox.join("data/Trash/files/a.jsonl");
    assert!(text.contains(in_trash.to_str().unwrap()), "{text}");
    assert!(text.contains("left as it was"), "{text}");
    assert!(left.is_empty(), "left in the session's place: {left:?}");
    assert_eq!(
        fs::read(&in_trash).unwrap(),
        before,
        "the trash copy changed"
    );

    // Undo again once there is room: everything comes back.
    support::mount_tmpfs_at(&folder, "16m").unwrap();
    let guard = support::Unmount(folder.clone());
    let again = restore(&t);
    let restored = fs::read(&s).ok();
    let restored_bak = fs::read(&bak).ok();
    drop(guard);
    again.unwrap();
    assert_eq!(restored.as_deref(), Some(&before[..]));
    assert_eq!(restored_bak.as_deref(), Some(&b"backup bytes"[..]));
    println!("scenario {scenario} done");
}
