//! Issue 12, item 7: delete, label, rename and checkout act on the file the user saw. The
//! identity (device, inode) of the file and of its folder is pinned when the session is chosen
//! (Ctrl+D in the browser) and checked through an open handle of the folder at the moment of
//! the operation; a folder swapped for a symlink in between is refused, never followed.

mod common;
#[path = "hardening_support/mod.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use grove::app::event::{Effect, Event};
use grove::storage::append::{NewEntry, WriteError, append_entry_pinned};
use grove::storage::roots::SessionRoot;
use grove::storage::safe_fs::Pin;
use grove::storage::trash::{check_in_roots, delete_permanently_pinned, trash_session_pinned};
use grove::tui::run::delete_session_pinned;

struct Swapped {
    _dir: tempfile::TempDir,
    root: PathBuf,
    path: PathBuf,
    outside: PathBuf,
    before_outside: Vec<u8>,
    pin: Pin,
}

/// `sessions/--work--/s.jsonl` is pinned (Ctrl+D); then `--work--` is moved away and replaced
/// by a symlink to a folder outside the roots holding another `s.jsonl`.
fn swapped(base: Option<&Path>) -> Swapped {
    let dir = match base {
        Some(b) => tempfile::tempdir_in(b).unwrap(),
        None => tempfile::tempdir().unwrap(),
    };
    let root = dir.path().join("sessions");
    let folder = root.join("--work--");
    fs::create_dir_all(&folder).unwrap();
    let path = write_file(&folder, "s.jsonl", small_session("sess-in", "/w"));
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let outside = write_file(&elsewhere, "s.jsonl", small_session("sess-out", "/w"));
    let before_outside = fs::read(&outside).unwrap();
    let pin = Pin::of(&path).unwrap();
    // Between Ctrl+D and Enter:
    fs::rename(&folder, dir.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &folder).unwrap();
    Swapped {
        _dir: dir,
        root,
        path,
        outside,
        before_outside,
        pin,
    }
}

fn roots(root: &Path) -> Vec<SessionRoot> {
    vec![SessionRoot {
        path: root.to_path_buf(),
        agent: None,
    }]
}

#[test]
fn delete_refuses_a_folder_swapped_for_a_link() {
    let Some((scenario, sandbox)) = support::child_scenario() else {
        let sandbox = tempfile::tempdir().unwrap();
        support::in_child(
            "delete_refuses_a_folder_swapped_for_a_link",
            "swap",
            sandbox.path(),
        );
        // Only the unswapped control session reached the trash.
        assert_eq!(
            common::trashed(sandbox.path()),
            vec!["ok.jsonl".to_string()]
        );
        return;
    };
    assert_eq!(scenario, "swap");
    let s = swapped(Some(&sandbox));
    // The roots guard alone does not see it: the listing follows the link to the other file.
    check_in_roots(&s.path, &roots(&s.root)).unwrap();

    let e = trash_session_pinned(&s.path, Some(&s.pin)).unwrap_err();
    assert!(e.to_string().contains("changed since grove read it"), "{e}");
    let e = delete_permanently_pinned(&s.path, Some(&s.pin)).unwrap_err();
    assert!(e.to_string().contains("changed since grove read it"), "{e}");

    // The browser's delete (Enter after Ctrl+D): refused with an error, and not turned into
    // an offer to delete for good.
    for effect in [
        Effect::TrashSession {
            record: 0,
            path: s.path.clone(),
        },
        Effect::DeletePermanently {
            record: 0,
            path: s.path.clone(),
        },
    ] {
        let event = delete_session_pinned(&effect, &roots(&s.root), Some(&s.pin)).unwrap();
        assert!(
            matches!(&event, Event::DeletedPermanently { result: Err(e), .. } if e.contains("changed since")),
            "{event:?}"
        );
    }
    assert_eq!(fs::read(&s.outside).unwrap(), s.before_outside);
    assert!(common::trashed(&sandbox).is_empty());

    // The same session, not swapped: the pinned delete goes through.
    let dir = tempfile::tempdir_in(&sandbox).unwrap();
    let p = write_file(dir.path(), "ok.jsonl", small_session("ok", "/w"));
    let pin = Pin::of(&p).unwrap();
    trash_session_pinned(&p, Some(&pin)).unwrap();
    assert!(!p.exists());
    println!("scenario swap done");
}

#[test]
fn writes_refuse_a_folder_swapped_for_a_link() {
    for entry in [
        NewEntry::Label {
            target_id: "m0000001".into(),
            label: Some("x".into()),
        },
        NewEntry::Rename { name: "n".into() },
        NewEntry::Checkout {
            target_id: "m0000001".into(),
        },
    ] {
        let s = swapped(None);
        let e = append_entry_pinned(&s.path, entry.clone(), &s.pin).unwrap_err();
        assert!(matches!(e, WriteError::Pin(_)), "{entry:?}: {e:?}");
        assert!(e.to_string().contains("its folder changed"), "{e}");
        assert_eq!(fs::read(&s.outside).unwrap(), s.before_outside, "{entry:?}");
    }
}

#[test]
fn writes_refuse_a_replaced_file_and_accept_an_unchanged_one() {
    let (_dir, _root, folder) = session_root();
    let path = write_file(&folder, "s.jsonl", small_session("sess", "/w"));
    let pin = Pin::of(&path).unwrap();
    append_entry_pinned(&path, NewEntry::Rename { name: "a".into() }, &pin).unwrap();
    // Replaced by another file under the same name (a new inode).
    let other = write_file(&folder, "other.tmp", small_session("other", "/w"));
    fs::rename(&other, &path).unwrap();
    let before = fs::read(&path).unwrap();
    let e = append_entry_pinned(&path, NewEntry::Rename { name: "b".into() }, &pin).unwrap_err();
    assert!(e.to_string().contains("the file changed"), "{e}");
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// The browser's session view pins the file when it opens it; its label and check-out effects
/// then refuse a swapped folder.
#[test]
fn the_views_label_and_checkout_refuse_a_folder_swapped_after_opening() {
    use grove::app::session_view::{Outcome, ViewEffect, execute_pinned};
    for effect in ["label", "checkout"] {
        let s = swapped(None);
        let fx = match effect {
            "label" => ViewEffect::AppendLabel {
                path: s.path.clone(),
                target_id: "m0000001".into(),
                label: Some("x".into()),
            },
            _ => ViewEffect::Checkout {
                path: s.path.clone(),
                target_id: "m0000001".into(),
            },
        };
        let outcome = execute_pinned(&fx, Some(&s.pin)).unwrap();
        let err = match outcome {
            Outcome::Labeled(Err(e)) | Outcome::CheckedOut(Err(e)) => e,
            other => panic!("{effect}: written: {other:?}"),
        };
        assert!(err.contains("changed since grove read it"), "{err}");
        assert_eq!(fs::read(&s.outside).unwrap(), s.before_outside);
    }
}
