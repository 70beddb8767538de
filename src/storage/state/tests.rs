//! The state database: flags, moves, damage, bookmarks, export/import, two writers.

use std::path::Path;

use super::*;
use crate::storage::state::backup::Backup;

fn key(dir: &Path, id: &str) -> SessionKey {
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, "{}\n").unwrap();
    SessionKey::new(id, path)
}

#[test]
fn pins_and_archive_marks_persist_and_clear() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("data/state.sqlite3");
    let (a, b) = (key(dir.path(), "a"), key(dir.path(), "b"));
    {
        let mut db = StateDb::open_at(&db_path).unwrap();
        db.set_flag(&[a.clone(), b.clone()], Flag::Pinned, true)
            .unwrap();
        db.set_flag(std::slice::from_ref(&b), Flag::Archived, true)
            .unwrap();
    }
    let mut db = StateDb::open_at(&db_path).unwrap();
    let snap = db.snapshot().unwrap();
    assert_eq!(
        snap.flags("a", &a.path),
        Flags {
            pinned: true,
            archived: false
        }
    );
    assert_eq!(
        snap.flags("b", &b.path),
        Flags {
            pinned: true,
            archived: true
        }
    );
    // Another id at the same path is another session.
    assert_eq!(snap.flags("other", &a.path), Flags::default());
    db.set_flag(std::slice::from_ref(&a), Flag::Pinned, false)
        .unwrap();
    assert_eq!(
        db.session_rows().unwrap().len(),
        1,
        "an empty row is removed"
    );
}

#[test]
fn a_moved_session_is_found_by_its_id_and_the_row_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = StateDb::open_at(&dir.path().join("state.sqlite3")).unwrap();
    let old = key(dir.path(), "s1");
    db.set_flag(std::slice::from_ref(&old), Flag::Pinned, true)
        .unwrap();
    let new_path = dir.path().join("moved.jsonl");
    std::fs::rename(&old.path, &new_path).unwrap();
    let moved = SessionKey::new("s1", new_path.clone());
    assert!(db.snapshot().unwrap().flags("s1", &new_path).pinned);
    assert!(db.flags(&moved).unwrap().pinned);
    db.set_flag(std::slice::from_ref(&moved), Flag::Archived, true)
        .unwrap();
    let rows = db.session_rows().unwrap();
    assert_eq!(
        rows,
        vec![(
            moved,
            Flags {
                pinned: true,
                archived: true
            }
        )]
    );
    // While the old file exists, a copy with the same id elsewhere is not taken for it.
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&new_path, &copy).unwrap();
    assert!(!db.snapshot().unwrap().flags("s1", &copy).pinned);
}

#[test]
fn a_damaged_database_is_an_error_naming_it_and_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    let junk = b"this is not a database, but somebody's pins might be in it\n".repeat(100);
    std::fs::write(&path, &junk).unwrap();
    let err = StateDb::open_at(&path).unwrap_err();
    assert!(matches!(err, StateError::Damaged { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), junk);
}

#[test]
fn a_newer_schema_or_foreign_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("newer.sqlite3");
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
    }
    assert!(matches!(
        StateDb::open_at(&newer).unwrap_err(),
        StateError::Newer { version: 99, .. }
    ));
    let foreign = dir.path().join("foreign.sqlite3");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE t(x)").unwrap();
    }
    assert!(matches!(
        StateDb::open_at(&foreign).unwrap_err(),
        StateError::Damaged { .. }
    ));
}

#[test]
fn bookmarks_notes_and_tags() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = StateDb::open_at(&dir.path().join("state.sqlite3")).unwrap();
    let k = BookmarkKey {
        session_id: "s".into(),
        entry_id: "e1".into(),
    };
    let p = dir.path().join("s.jsonl");
    let m = db
        .edit_bookmark(
            &k,
            &p,
            &BookmarkEdit {
                note: Some("why it broke".into()),
                add_tags: vec!["ci".into(), "bug".into(), "ci".into()],
                remove_tags: vec![],
            },
        )
        .unwrap();
    assert_eq!(m.tags, vec!["bug", "ci"]);
    let m = db
        .edit_bookmark(
            &k,
            &p,
            &BookmarkEdit {
                note: None,
                add_tags: vec![],
                remove_tags: vec!["bug".into()],
            },
        )
        .unwrap();
    assert_eq!(
        (m.note.as_str(), m.tags.clone()),
        ("why it broke", vec!["ci".to_owned()])
    );
    assert_eq!(db.bookmarks().unwrap()[&k], m);
    db.edit_bookmark(
        &k,
        &p,
        &BookmarkEdit {
            note: Some(String::new()),
            add_tags: vec![],
            remove_tags: vec!["ci".into()],
        },
    )
    .unwrap();
    assert!(db.bookmarks().unwrap().is_empty());
}

#[test]
fn export_then_import_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = StateDb::open_at(&dir.path().join("a.sqlite3")).unwrap();
    let (a, b) = (key(dir.path(), "a"), key(dir.path(), "b"));
    db.set_flag(std::slice::from_ref(&a), Flag::Pinned, true)
        .unwrap();
    db.set_flag(std::slice::from_ref(&b), Flag::Archived, true)
        .unwrap();
    db.edit_bookmark(
        &BookmarkKey {
            session_id: "a".into(),
            entry_id: "e".into(),
        },
        &a.path,
        &BookmarkEdit {
            note: Some("note ✓".into()),
            add_tags: vec!["t".into()],
            remove_tags: vec![],
        },
    )
    .unwrap();
    db.set_last_opened(&b).unwrap();
    let exported = db.export().unwrap();
    let text = serde_json::to_string_pretty(&exported).unwrap();
    let back: Backup = serde_json::from_str(&text).unwrap();
    let mut other = StateDb::open_at(&dir.path().join("b.sqlite3")).unwrap();
    let n = other.import(&back).unwrap();
    assert_eq!((n.sessions, n.bookmarks), (2, 1));
    assert_eq!(other.export().unwrap(), exported);
    // Importing twice changes nothing.
    other.import(&back).unwrap();
    assert_eq!(other.export().unwrap(), exported);
}

#[test]
fn bad_imports_are_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = StateDb::open_at(&dir.path().join("a.sqlite3")).unwrap();
    let bad: Backup = serde_json::from_str(
        r#"{"groveState":1,"sessions":[{"id":"x","path":"/p","pinned":true},{"id":"","path":"/q"}]}"#,
    )
    .unwrap();
    assert!(matches!(db.import(&bad), Err(StateError::Import(_))));
    assert!(db.session_rows().unwrap().is_empty());
    assert!(serde_json::from_str::<Backup>(r#"{"groveState":1,"extra":1}"#).is_err());
    let wrong: Backup = serde_json::from_str(r#"{"groveState":2}"#).unwrap();
    assert!(db.import(&wrong).is_err());
}

/// Two connections (as two grove processes) writing at once: every write lands.
#[test]
fn two_connections_write_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    StateDb::open_at(&path).unwrap();
    let workers: Vec<_> = ["x", "y"]
        .into_iter()
        .map(|who| {
            let path = path.clone();
            let root = dir.path().to_owned();
            std::thread::spawn(move || {
                let mut db = StateDb::open_at(&path).unwrap();
                for i in 0..100 {
                    let k =
                        SessionKey::new(format!("{who}{i}"), root.join(format!("{who}{i}.jsonl")));
                    db.set_flag(&[k], Flag::Pinned, true).unwrap();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let db = StateDb::open_at(&path).unwrap();
    assert_eq!(db.session_rows().unwrap().len(), 200);
}
