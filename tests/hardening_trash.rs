//! Deleting is undoable and never reaches outside the session roots: trash and restore, a
//! symlinked session (the link goes, the target stays), another filesystem, a trash that cannot
//! be used, and `rm --permanent` only with its explicit confirmation.
//!
//! The `trash` crate reads `XDG_DATA_HOME`/`HOME` from the process environment, so library-level
//! scenarios run in a child process (this test binary re-run with those variables pointing into
//! a temp dir); the user's real trash is never touched.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use grove::storage::roots::SessionRoot;
use grove::storage::trash::{
    TrashError, check_in_roots, delete_permanently, restore, trash_session,
};

/// Runs `scenario` in a child with a private trash under `sandbox`.
fn in_child(scenario: &str, sandbox: &Path, data_home: &Path) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_entry_point",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("GROVE_TRASH_SCENARIO", scenario)
        .env("GROVE_TRASH_SANDBOX", sandbox)
        .env("XDG_DATA_HOME", data_home)
        .env("HOME", sandbox.join("home"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scenario {scenario} failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    for l in stdout(&out).lines() {
        if l.contains("NOTICE") || l.contains("cross-filesystem") {
            eprintln!("{l}");
        }
    }
    assert!(
        stdout(&out).contains(&format!("scenario {scenario} done")),
        "scenario {scenario} did not run:\n{}",
        stdout(&out)
    );
}

fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::create_dir_all(&data).unwrap();
    fs::create_dir_all(dir.path().join("home")).unwrap();
    (dir, data)
}

#[test]
fn trash_and_restore_a_session_with_its_backups() {
    let (dir, data) = sandbox();
    in_child("roundtrip", dir.path(), &data);
}

#[test]
fn symlinked_session_trashes_the_link_never_the_target() {
    let (dir, data) = sandbox();
    in_child("symlink", dir.path(), &data);
}

#[test]
fn unusable_trash_is_reported_and_nothing_is_deleted() {
    let (dir, _) = sandbox();
    let not_a_dir = dir.path().join("data-is-a-file");
    fs::write(&not_a_dir, "x").unwrap();
    in_child("failure", dir.path(), &not_a_dir);
}

#[test]
fn session_on_another_filesystem_uses_that_filesystems_trash() {
    let (dir, data) = sandbox();
    in_child("cross_fs", dir.path(), &data);
}

#[test]
fn deletes_stay_inside_the_roots() {
    let (dir, root, folder) = session_root();
    let inside = write_file(&folder, "in.jsonl", small_session("in", "/w"));
    let outside_dir = dir.path().join("outside");
    fs::create_dir(&outside_dir).unwrap();
    let outside = write_file(&outside_dir, "out.jsonl", small_session("out", "/w"));
    let roots = [SessionRoot {
        path: root.clone(),
        agent: None,
    }];
    check_in_roots(&inside, &roots).unwrap();
    for p in [
        outside.clone(),
        folder
            .join("..")
            .join("..")
            .join("outside")
            .join("out.jsonl"),
        PathBuf::from("/etc/passwd"),
        folder.clone(),
    ] {
        let e = check_in_roots(&p, &roots).unwrap_err();
        assert!(matches!(e, TrashError::OutsideRoots { .. }), "{p:?}: {e:?}");
        assert!(e.to_string().contains("nothing was deleted"), "{e}");
    }
    // A directory named like a session is never deleted, even when asked directly.
    let fake = folder.join("dir.jsonl");
    fs::create_dir(&fake).unwrap();
    let e = delete_permanently(&fake).unwrap_err();
    assert!(e.to_string().contains("is a directory"), "{e}");
    assert!(fake.is_dir());
}

/// Library-level scenarios; a no-op unless run by [`in_child`].
#[test]
fn child_entry_point() {
    let Ok(scenario) = std::env::var("GROVE_TRASH_SCENARIO") else {
        return;
    };
    let sandbox = PathBuf::from(std::env::var_os("GROVE_TRASH_SANDBOX").unwrap());
    let data = PathBuf::from(std::env::var_os("XDG_DATA_HOME").unwrap());
    let root = sandbox.join("sessions");
    let folder = root.join("--work--");
    fs::create_dir_all(&folder).unwrap();
    match scenario.as_str() {
        "roundtrip" => {
            let s = write_file(&folder, "a.jsonl", small_session("a", "/w"));
            let bak = write_file(&folder, "a.jsonl.1700000000.bak", "backup");
            let other = write_file(&folder, "ab.jsonl", small_session("ab", "/w"));
            let before = fs::read(&s).unwrap();
            let t = trash_session(&s).unwrap();
            assert_eq!(t.paths.len(), 2, "{t:?}");
            assert!(!s.exists() && !bak.exists());
            assert!(other.exists(), "a neighbour was trashed");
            let files = data.join("Trash").join("files");
            assert!(files.join("a.jsonl").exists(), "not in the private trash");
            assert!(files.join("a.jsonl.1700000000.bak").exists());
            assert!(data.join("Trash/info/a.jsonl.trashinfo").exists());
            restore(&t).unwrap();
            assert_eq!(fs::read(&s).unwrap(), before);
            assert_eq!(fs::read(&bak).unwrap(), b"backup");
            assert!(!files.join("a.jsonl").exists());
            // Through a symlinked folder (roots may be reached that way): restore still finds
            // the item, which the trash records under the resolved folder.
            let via = sandbox.join("via-link");
            std::os::unix::fs::symlink(&folder, &via).unwrap();
            let t = trash_session(&via.join("a.jsonl")).unwrap();
            assert!(!s.exists());
            restore(&t).unwrap();
            assert_eq!(fs::read(&s).unwrap(), before);
        }
        "symlink" => {
            let elsewhere = sandbox.join("elsewhere");
            fs::create_dir_all(&elsewhere).unwrap();
            let target = write_file(&elsewhere, "real.jsonl", small_session("r", "/w"));
            let target_bak = write_file(&elsewhere, "link.jsonl.1.bak", "target's neighbour");
            let before = fs::read(&target).unwrap();
            let link = folder.join("link.jsonl");
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let t = trash_session(&link).unwrap();
            assert_eq!(
                t.paths,
                vec![fs::canonicalize(&folder).unwrap().join("link.jsonl")]
            );
            assert!(
                fs::symlink_metadata(&link).is_err(),
                "the link is still there"
            );
            assert_eq!(fs::read(&target).unwrap(), before, "the target changed");
            assert!(target_bak.exists());
            let trashed = data.join("Trash/files/link.jsonl");
            assert!(
                fs::symlink_metadata(&trashed)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            restore(&t).unwrap();
            assert_eq!(fs::read_link(&link).unwrap(), target);
            assert_eq!(fs::read(&link).unwrap(), before);
            // Permanent deletion of a link unlinks it and keeps the target.
            delete_permanently(&link).unwrap();
            assert!(fs::symlink_metadata(&link).is_err());
            assert_eq!(fs::read(&target).unwrap(), before);
        }
        "failure" => {
            let s = write_file(&folder, "f.jsonl", small_session("f", "/w"));
            let before = fs::read(&s).unwrap();
            let e = trash_session(&s).unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, TrashError::Unavailable { .. }), "{e:?}");
            assert!(text.contains("cannot move to the trash"), "{text}");
            assert!(text.contains("Not a directory"), "{text}");
            assert!(!text.contains("FileSystem {"), "debug dump: {text}");
            assert_eq!(fs::read(&s).unwrap(), before);
        }
        "cross_fs" => cross_fs(&sandbox, &data),
        other => panic!("unknown scenario {other}"),
    }
    println!("scenario {scenario} done");
}

#[cfg(unix)]
fn device_of(p: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(p).ok().map(|m| m.dev())
}

/// /dev/shm is a separate tmpfs on most Linux systems: a session there goes to that
/// filesystem's `.Trash-$uid` (or, when it cannot be created, the home trash) and comes back.
fn cross_fs(sandbox: &Path, data: &Path) {
    let shm = Path::new("/dev/shm");
    if device_of(shm).is_none() || device_of(shm) == device_of(sandbox) {
        println!("NOTICE: no second filesystem at /dev/shm; cross-filesystem trash check skipped");
        return;
    }
    let Ok(dir) = tempfile::tempdir_in(shm) else {
        println!("NOTICE: /dev/shm is not writable; cross-filesystem trash check skipped");
        return;
    };
    let uid_trash = fs::read_dir(shm)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".Trash"))
        })
        .collect::<Vec<_>>();
    let name = format!("x{}.jsonl", std::process::id());
    let s = write_file(dir.path(), &name, small_session("x", "/w"));
    let before = fs::read(&s).unwrap();
    let t = trash_session(&s).unwrap();
    assert!(!s.exists());
    // Where did it go? Either shm's own trash or the private home trash, never lost.
    let in_home = data.join("Trash/files").join(&name).exists();
    let created: Vec<PathBuf> = fs::read_dir(shm)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".Trash"))
        })
        .filter(|p| !uid_trash.contains(p))
        .collect();
    let in_volume = fs::read_dir(shm)
        .unwrap()
        .flatten()
        .any(|e| e.path().join("files").join(&name).exists());
    assert!(in_home || in_volume, "trashed file is nowhere");
    println!(
        "cross-filesystem trash went to {}",
        if in_volume {
            "the volume's trash"
        } else {
            "the home trash"
        }
    );
    restore(&t).unwrap();
    assert_eq!(fs::read(&s).unwrap(), before);
    // Leave /dev/shm as found.
    for c in created {
        let _ = fs::remove_dir_all(c);
    }
}

// ---- the CLI ----

#[test]
fn cli_rm_moves_to_the_trash_only_with_yes() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "s.jsonl", small_session("sess-rm", "/w"));
    let before = fs::read(&s).unwrap();

    // Not a terminal and no --yes: refused.
    let out = grove(dir.path(), &root, &["rm", s.to_str().unwrap(), "--json"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert_eq!(fs::read(&s).unwrap(), before);

    // By id.
    let out = grove(dir.path(), &root, &["rm", "--yes", "sess-rm", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("trashed"), "{}", stdout(&out));
    assert!(!s.exists());
    assert_eq!(trashed(dir.path()), vec!["s.jsonl".to_string()]);
    assert_eq!(
        fs::read(dir.path().join("data/Trash/files/s.jsonl")).unwrap(),
        before
    );
}

#[test]
fn cli_permanent_delete_needs_the_second_confirmation() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "p.jsonl", small_session("sess-p", "/w"));
    let out = grove(
        dir.path(),
        &root,
        &["rm", "--permanent", s.to_str().unwrap(), "--json"],
    );
    assert!(!out.status.success());
    assert!(s.exists(), "deleted without --yes");
    let out = grove(
        dir.path(),
        &root,
        &["rm", "--permanent", "--yes", s.to_str().unwrap(), "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!s.exists());
    assert!(trashed(dir.path()).is_empty());
}

#[test]
fn cli_rm_never_falls_back_to_permanent_deletion() {
    let (dir, root, folder) = session_root();
    let s = write_file(&folder, "t.jsonl", small_session("sess-t", "/w"));
    let before = fs::read(&s).unwrap();
    let not_a_dir = dir.path().join("data-file");
    fs::write(&not_a_dir, "x").unwrap();
    let out = grove_cmd(dir.path())
        .env("XDG_DATA_HOME", &not_a_dir)
        .arg("--session-dir")
        .arg(&root)
        .args(["rm", "--yes", s.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("cannot move to the trash"), "{err}");
    assert!(err.contains("Nothing was deleted"), "{err}");
    assert_eq!(fs::read(&s).unwrap(), before);
}

#[test]
fn cli_rm_refuses_paths_outside_the_roots() {
    let (dir, root, folder) = session_root();
    let outside_dir = dir.path().join("outside");
    fs::create_dir(&outside_dir).unwrap();
    let outside = write_file(&outside_dir, "o.jsonl", small_session("sess-o", "/w"));
    let dotdot = folder.join("../../outside/o.jsonl");
    let not_session = write_file(&outside_dir, "notes.txt", "notes");
    for p in [&outside, &dotdot, &not_session] {
        for extra in [&[][..], &["--permanent"][..]] {
            let mut args = vec!["rm", "--yes", "--json"];
            args.extend_from_slice(extra);
            args.push(p.to_str().unwrap());
            let out = grove(dir.path(), &root, &args);
            assert!(!out.status.success(), "{p:?} {extra:?}");
            assert!(
                stderr(&out).contains("not a session file grove lists"),
                "{}",
                stderr(&out)
            );
        }
    }
    assert!(outside.exists() && not_session.exists());
    assert!(trashed(dir.path()).is_empty());
}

#[test]
fn cli_rm_of_a_symlinked_session_keeps_the_target() {
    let (dir, root, folder) = session_root();
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let target = write_file(&elsewhere, "real.jsonl", small_session("sess-l", "/w"));
    let before = fs::read(&target).unwrap();
    let link = folder.join("l.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = grove(dir.path(), &root, &["rm", "--yes", "sess-l", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::symlink_metadata(&link).is_err());
    assert_eq!(fs::read(&target).unwrap(), before);
    // And for good: still only the link.
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = grove(
        dir.path(),
        &root,
        &[
            "rm",
            "--yes",
            "--permanent",
            link.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::symlink_metadata(&link).is_err());
    assert_eq!(fs::read(&target).unwrap(), before);
}
