//! Paths: `~` for the home folder, and the one rule for "the same folder" (the CLI's
//! `list`, the browser's current-folder scope and the session roots all use it).

use std::borrow::Cow;
use std::path::Path;

/// Replaces a leading home folder with `~`, as pi's `shortenPath` does, but only when the home
/// folder is a whole path component.
pub fn shorten_home<'a>(path: &'a str, home: Option<&str>) -> Cow<'a, str> {
    match home {
        Some(h) if !h.is_empty() && path.starts_with(h) => {
            let rest = &path[h.len()..];
            if rest.is_empty() || rest.starts_with('/') {
                Cow::Owned(format!("~{rest}"))
            } else {
                Cow::Borrowed(path)
            }
        }
        _ => Cow::Borrowed(path),
    }
}

/// Whether a session's `cwd` names the folder `dir`: literally (a trailing `/` aside), or
/// after resolving links. An empty `cwd` names no folder.
pub fn same_folder(session_cwd: &str, dir: &Path) -> bool {
    same_folder_with(session_cwd, dir, |p| std::fs::canonicalize(p).ok())
}

/// [`same_folder`] with links resolved by `canonical` (e.g. a lookup shared by many sessions).
pub fn same_folder_with(
    session_cwd: &str,
    dir: &Path,
    canonical: impl Fn(&Path) -> Option<std::path::PathBuf>,
) -> bool {
    if session_cwd.is_empty() {
        return false;
    }
    let trimmed = session_cwd.trim_end_matches('/');
    let cwd = Path::new(if trimmed.is_empty() { "/" } else { trimmed });
    if cwd == dir {
        return true;
    }
    match (canonical(cwd), canonical(dir)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_folder_literally_with_slash_or_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let real_s = real.to_string_lossy().into_owned();
        assert!(same_folder(&real_s, &real));
        assert!(same_folder(&format!("{real_s}/"), &real));
        assert!(same_folder(&link.to_string_lossy(), &real));
        assert!(same_folder(&real_s, &link));
        assert!(!same_folder("", &real));
        assert!(!same_folder(&dir.path().to_string_lossy(), &real));
        // Folders that do not exist compare literally.
        assert!(same_folder("/no/such/x/", Path::new("/no/such/x")));
        assert!(!same_folder("/no/such/x", Path::new("/no/such/y")));
        assert!(same_folder("/", Path::new("/")));
    }

    #[test]
    fn only_whole_folders_are_shortened() {
        assert_eq!(shorten_home("/home/al/x", Some("/home/al")), "~/x");
        assert_eq!(shorten_home("/home/al", Some("/home/al")), "~");
        assert_eq!(
            shorten_home("/home/alice/x", Some("/home/al")),
            "/home/alice/x"
        );
        assert_eq!(shorten_home("/srv/x", None), "/srv/x");
    }
}
