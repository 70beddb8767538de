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
use super::trash::TrashError;

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
