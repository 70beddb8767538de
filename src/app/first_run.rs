//! What grove says when it finds no session at all: the folders it searched (and which of
//! them do not exist), and how to get sessions on screen (`--demo`, `--session-dir`). The
//! browser's empty picker and the CLI's empty `list` and "no session matches" say the same.

use crate::model::context::Dialect;
use crate::storage::roots::SessionRoot;
use crate::text::paths::shorten_home;
use crate::text::sanitize::sanitize_path;

/// One line per searched folder: `~/.pi/agent/sessions (pi)`, with `, not there` for a
/// folder that does not exist. Sanitized.
pub fn searched_folders(roots: &[SessionRoot], home: Option<&str>) -> Vec<String> {
    roots
        .iter()
        .map(|r| {
            let path = r.path.to_string_lossy();
            let shown = sanitize_path(&shorten_home(&path, home)).into_owned();
            let mut notes = Vec::new();
            match r.agent {
                Some(Dialect::Pi) => notes.push("pi"),
                Some(Dialect::Atomic) => notes.push("Atomic"),
                None => {}
            }
            if !r.path.is_dir() {
                notes.push("not there");
            }
            if notes.is_empty() {
                shown
            } else {
                format!("{shown} ({})", notes.join(", "))
            }
        })
        .collect()
}

/// The searched folders on one line: `a (pi), b (Atomic, not there)`; `no folder` for none.
pub fn searched_summary(roots: &[SessionRoot], home: Option<&str>) -> String {
    let folders = searched_folders(roots, home);
    if folders.is_empty() {
        "no folder".to_owned()
    } else {
        folders.join(", ")
    }
}

/// How to see sessions when there are none: the demo, or a folder given on the command line.
pub const TRY_DEMO_OR_DIR: &str = "Try `grove --demo` for the bundled demo sessions, or `grove --session-dir DIR` for sessions kept elsewhere.";

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn folders_are_named_with_their_agent_and_whether_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_string_lossy().into_owned();
        let roots = vec![
            SessionRoot {
                path: dir.path().to_path_buf(),
                agent: Some(Dialect::Pi),
            },
            SessionRoot {
                path: dir.path().join("nope"),
                agent: Some(Dialect::Atomic),
            },
            SessionRoot {
                path: PathBuf::from("/no/such/grove/dir"),
                agent: None,
            },
        ];
        assert_eq!(
            searched_folders(&roots, Some(&home)),
            vec![
                "~ (pi)".to_owned(),
                "~/nope (Atomic, not there)".to_owned(),
                "/no/such/grove/dir (not there)".to_owned(),
            ]
        );
        assert_eq!(searched_summary(&[], None), "no folder");
    }
}
