//! A brand-new index database written aside and put in place whole.
//!
//! A listing that fills an empty cache writes every page of the database. In place, in WAL
//! mode, each page is written twice (into the WAL, then copied into the database by the
//! checkpoint, which reads it back first): on the real-pi 1k corpus that was a third of the
//! filling listing's wall time (docs/bench.md, "Storage, round seven"). When there is no
//! database yet, a one-shot listing (the CLI's) writes a new one under a name of its own in the
//! cache folder instead, with the journal in memory and no syncs, and once its last commit is
//! in, syncs it and links it to `index.sqlite3` only if nothing is there yet (a hard link
//! fails rather than replace: a database another process made meanwhile, and the WAL that
//! belongs to it, stay untouched). Then it is opened in place, in WAL mode, as always.
//!
//! A process killed before that leaves its aside file, never a half database in place: the
//! next listing starts over and removes aside files not written to for [`STALE`]. The
//! browser does not write aside: it commits the rows it shows as it goes, so that a browser
//! killed while listing keeps them.

use std::fs::{self, File, OpenOptions};
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::{AsideFile, DB_FILE, Db, with_suffix};

/// An aside file not modified for this long belongs to a process that is gone.
const STALE: Duration = Duration::from_secs(15 * 60);

/// The aside file's name starts with this.
fn aside_prefix() -> String {
    format!("{DB_FILE}.aside-")
}

/// Syncs the aside file and links it in place unless a database (or its WAL) is there;
/// whether it was put there.
fn put_in_place(aside: &AsideFile) -> bool {
    let synced = File::open(&aside.file).and_then(|f| f.sync_all());
    if synced.is_err() || with_suffix(&aside.place, "-wal").exists() {
        return false;
    }
    fs::hard_link(&aside.file, &aside.place).is_ok()
}

impl Db {
    /// A new database written aside in `dir`, when there is none in place yet (`None`
    /// otherwise, or when the aside file cannot be made: the caller opens in place).
    pub fn open_aside(dir: &Path) -> Option<Db> {
        let place = dir.join(DB_FILE);
        if place.exists() || with_suffix(&place, "-wal").exists() {
            return None;
        }
        let _ = fs::create_dir_all(dir);
        remove_stale(dir);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let file = dir.join(format!(
            "{}{}-{nanos:08x}",
            aside_prefix(),
            std::process::id()
        ));
        // Reserved first: the name is this process's alone.
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
            .ok()?;
        let aside = AsideFile { file, place };
        let mut db = Db::open_aside_file(&aside.file)?;
        db.aside = Some(aside);
        Some(db)
    }

    /// Whether this database is written aside (not yet in place).
    pub fn is_aside(&self) -> bool {
        self.aside.is_some()
    }

    /// Puts a database written aside in place (see the module docs) and opens the database in
    /// place: this one if it was put there, else the one that was there first. A database in
    /// place is returned as it is.
    pub fn publish(mut self) -> Option<Db> {
        let Some(aside) = self.aside.take() else {
            return Some(self);
        };
        let dir = aside.place.parent()?.to_path_buf();
        // Closed before it is synced and linked.
        drop(self);
        if put_in_place(&aside) {
            Db::remove_old_files(&dir);
        }
        drop(aside);
        Db::open(&dir)
    }
}

/// Removes the aside files of processes that are gone (not modified for [`STALE`]).
fn remove_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = aside_prefix();
    for e in entries.flatten() {
        let stale = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE);
        if stale && e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aside_files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&aside_prefix()))
            .collect();
        v.sort();
        v
    }

    fn tables(db: &Db) -> i64 {
        db.conn()
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap()
    }

    /// Written aside, invisible in place until published; then in place, in WAL mode, and
    /// the aside name is gone.
    #[test]
    fn an_aside_database_appears_in_place_whole_when_published() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_aside(dir.path()).expect("aside");
        assert!(db.is_aside());
        db.conn()
            .execute_batch("CREATE TABLE marker(x); INSERT INTO marker VALUES (7);")
            .unwrap();
        assert!(!dir.path().join(DB_FILE).exists(), "nothing in place yet");
        assert_eq!(aside_files(dir.path()).len(), 1);
        let db = db.publish().expect("opened in place");
        assert!(!db.is_aside());
        assert_eq!(db.path, dir.path().join(DB_FILE));
        let x: i64 = db
            .conn()
            .query_row("SELECT x FROM marker", [], |r| r.get(0))
            .unwrap();
        assert_eq!(x, 7);
        let mode: String = db
            .conn()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert!(aside_files(dir.path()).is_empty());
        // With a database in place, nothing is written aside.
        assert!(Db::open_aside(dir.path()).is_none());
    }

    /// A database another process put in place meanwhile is kept, not replaced.
    #[test]
    fn a_database_made_meanwhile_in_place_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let aside = Db::open_aside(dir.path()).expect("aside");
        aside.conn().execute_batch("CREATE TABLE mine(x);").unwrap();
        let other = Db::open(dir.path()).expect("in place");
        other
            .conn()
            .execute_batch("CREATE TABLE theirs(x); INSERT INTO theirs VALUES (1);")
            .unwrap();
        let db = aside.publish().expect("opened in place");
        let n: i64 = db
            .conn()
            .query_row("SELECT count(*) FROM theirs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert!(db.conn().prepare("SELECT x FROM mine").is_err());
        assert!(aside_files(dir.path()).is_empty());
        drop(other);
    }

    /// Dropped unpublished (a failed listing), the aside file is removed; one left by a
    /// killed process is removed by a later build once stale, and a recent one is not.
    #[test]
    fn aside_files_do_not_outlive_their_process() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_aside(dir.path()).expect("aside");
        assert!(tables(&db) > 0, "the schema is made");
        drop(db);
        assert!(aside_files(dir.path()).is_empty());
        assert!(!dir.path().join(DB_FILE).exists());
        let old = dir.path().join(format!("{}1-0", aside_prefix()));
        let recent = dir.path().join(format!("{}2-0", aside_prefix()));
        fs::write(&old, b"left by a killed process").unwrap();
        fs::write(&recent, b"another process, still writing").unwrap();
        let long_ago = SystemTime::now() - STALE - Duration::from_secs(60);
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        let db = Db::open_aside(dir.path()).expect("aside");
        let left = aside_files(dir.path());
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(!old.exists() && recent.exists());
        drop(db);
    }
}
