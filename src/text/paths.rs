//! Showing paths: `~` for the home folder.

use std::borrow::Cow;

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

#[cfg(test)]
mod tests {
    use super::*;

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
