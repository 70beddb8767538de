//! Restoring a trashed session: moved back when the trash is on the session's file system,
//! otherwise copied, synced, verified (size and every byte) and only then given its name and
//! removed from the trash. On any failure the original location is left as it was (no empty or
//! partial file) and the error says where the session is. (The trash crate's own restore
//! creates an empty placeholder, then fails on "Invalid cross-device link" and leaves it.)

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

use super::safe_fs::{create_new_checked, rename_noreplace, same_contents, temp_name};
use super::trash_error::{TrashError, describe};

/// Where a trash item's file is: `<trash>/files/<name>` for `<trash>/info/<name>.trashinfo`.
pub fn file_in_trash(item: &trash::TrashItem) -> Option<PathBuf> {
    let info = Path::new(&item.id);
    let stem = info
        .file_name()?
        .to_str()?
        .strip_suffix(".trashinfo")?
        .to_owned();
    Some(info.parent()?.parent()?.join("files").join(stem))
}

/// Puts one trash item back where it came from.
pub fn restore_item(item: &trash::TrashItem) -> Result<(), TrashError> {
    let original = item.original_path();
    let in_trash = file_in_trash(item).ok_or_else(|| {
        TrashError::NotInTrash(format!("{}: unreadable trash entry", original.display()))
    })?;
    let failed = |reason: String| TrashError::RestoreFailed {
        path: original.clone(),
        in_trash: in_trash.clone(),
        reason,
    };
    fs::create_dir_all(&item.original_parent)
        .map_err(|e| failed(format!("{}: {e}", item.original_parent.display())))?;
    move_or_copy(&in_trash, &original).map_err(|e| failed(e.to_string()))?;
    // The session is back; a leftover info file only lists a missing item in the trash.
    let _ = fs::remove_file(Path::new(&item.id));
    Ok(())
}

fn open_dir(p: &Path) -> io::Result<std::os::fd::OwnedFd> {
    rustix::fs::open(
        p,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| io::Error::new(io::Error::from(e).kind(), format!("{}: {e}", p.display())))
}

/// Renames `from` to `to` without replacing; across file systems, copies and verifies first.
pub fn move_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    let (from_dir, from_name) = super::safe_fs::split(from)?;
    let (to_dir, to_name) = super::safe_fs::split(to)?;
    let (src_dir, dst_dir) = (open_dir(&from_dir)?, open_dir(&to_dir)?);
    match rename_noreplace(&src_dir, &from_name, &dst_dir, &to_name) {
        Ok(()) => return Ok(()),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error()) => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        // A symlinked session: the link itself comes back, pointing where it did.
        let target = fs::read_link(from)?;
        let tmp = temp_name(&to_name);
        rustix::fs::symlinkat(&target, &dst_dir, tmp.as_os_str())?;
        if let Err(e) = rename_noreplace(&dst_dir, &tmp, &dst_dir, &to_name) {
            let _ = rustix::fs::unlinkat(&dst_dir, tmp.as_os_str(), rustix::fs::AtFlags::empty());
            return Err(e);
        }
    } else {
        let mut src = File::open(from)?;
        create_new_checked(
            to,
            &mut |w| io::copy(&mut src, w).map(|_| ()),
            &mut |copy| {
                let mut again = File::open(from)?;
                if !same_contents(&mut again, copy)? {
                    return Err(io::Error::other(
                        "the copy differs from the trashed file (size or bytes)",
                    ));
                }
                // The session keeps its times and mode, so it lists where it was.
                copy.set_permissions(meta.permissions())?;
                if let Ok(m) = meta.modified() {
                    copy.set_modified(m)?;
                }
                Ok(())
            },
        )
        .map_err(|e| io::Error::new(e.source.kind(), e.to_string()))?;
    }
    // Only now, with the session verified in place, the trash copy goes (should that fail, the
    // session is back all the same and the trash keeps a duplicate).
    let _ = fs::remove_file(from);
    Ok(())
}

/// A session file in the platform trash, with the Atomic backups trashed with it.
#[derive(Clone, Debug)]
pub struct TrashedSession {
    pub item: trash::TrashItem,
    pub in_trash: Option<PathBuf>,
    pub backups: Vec<trash::TrashItem>,
}

/// How far apart (seconds) a session and its `.bak` files may have been trashed to belong
/// together (one delete trashes them within the same second or two).
const SAME_DELETE_SECS: i64 = 60;

/// The session files (`*.jsonl`) in the platform trash, most recently deleted first.
pub fn list_trashed_sessions() -> Result<Vec<TrashedSession>, TrashError> {
    let items = trash::os_limited::list().map_err(|e| TrashError::NotInTrash(describe(&e)))?;
    let mut sessions: Vec<TrashedSession> = items
        .iter()
        .filter(|i| i.name.to_string_lossy().ends_with(".jsonl"))
        .map(|s| {
            let prefix = format!("{}.", s.name.to_string_lossy());
            let backups = items
                .iter()
                .filter(|b| {
                    let n = b.name.to_string_lossy();
                    b.original_parent == s.original_parent
                        && n.starts_with(&prefix)
                        && n.ends_with(".bak")
                        && (b.time_deleted - s.time_deleted).abs() <= SAME_DELETE_SECS
                })
                .cloned()
                .collect();
            TrashedSession {
                in_trash: file_in_trash(s),
                item: s.clone(),
                backups,
            }
        })
        .collect();
    sessions.sort_by_key(|s| std::cmp::Reverse(s.item.time_deleted));
    Ok(sessions)
}

/// Restores a trashed session and its backups byte for byte (see [`restore_item`]); nothing
/// moves when any of their places is taken again. Returns the restored paths.
pub fn restore_trashed(s: &TrashedSession) -> Result<Vec<PathBuf>, TrashError> {
    let all: Vec<&trash::TrashItem> = std::iter::once(&s.item).chain(&s.backups).collect();
    for item in &all {
        let original = item.original_path();
        if fs::symlink_metadata(&original).is_ok() {
            return Err(TrashError::RestoreFailed {
                in_trash: file_in_trash(item).unwrap_or_default(),
                path: original,
                reason: "a file of that name exists again (not overwritten)".into(),
            });
        }
    }
    let mut restored = Vec::new();
    for item in all {
        restore_item(item)?;
        restored.push(item.original_path());
    }
    Ok(restored)
}
