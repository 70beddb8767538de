//! One listed session with what search and threading need precomputed, and the rule for
//! whether it belongs to the current folder.

use std::path::{Path, PathBuf};

use crate::model::info::SessionInfo;
use crate::model::search::{PreparedText, SearchFields};
use crate::text::paths::same_folder;

/// One listed session, with what search and threading need precomputed (off the UI thread).
#[derive(Debug, Clone)]
pub struct SessionRecord {
    /// The listing fields; `all_messages_text` is emptied once `prepared` holds it.
    pub info: SessionInfo,
    /// The lowercased searched text, built once per session.
    pub prepared: PreparedText,
    /// Whether the session's cwd is the folder grove was started in.
    pub in_current_dir: bool,
    /// The file's canonical path, for matching forks to parents.
    pub canonical_path: Option<PathBuf>,
    /// The canonical path of `parentSession`, when it exists.
    pub canonical_parent: Option<PathBuf>,
    /// Whether the session's cwd lies in the git repository of the folder grove was started
    /// in (any of its worktrees), and the branch checked out in the session's worktree.
    pub in_current_repo: bool,
    pub branch: Option<String>,
}

impl SessionRecord {
    /// Builds a record, touching the file system to canonicalise paths. Call off the UI thread.
    pub fn new(info: SessionInfo, current_dir: Option<&Path>) -> Self {
        let in_current_dir = current_dir.is_some_and(|d| same_dir(&info.cwd, d));
        let canonical_path = std::fs::canonicalize(&info.path).ok();
        let canonical_parent = info
            .parent_session_path
            .as_deref()
            .and_then(|p| std::fs::canonicalize(p).ok());
        let repo = crate::storage::repo::repo_of(&info.cwd);
        let here = current_dir.and_then(|d| crate::storage::repo::repo_of(&d.to_string_lossy()));
        let in_current_repo =
            matches!((&repo, &here), (Some(a), Some(b)) if a.common_dir == b.common_dir);
        let mut r = Self::without_fs(info, in_current_dir);
        r.canonical_path = canonical_path;
        r.canonical_parent = canonical_parent;
        r.in_current_repo = in_current_repo;
        r.branch = repo.and_then(|r| r.branch.clone());
        r
    }

    /// Builds a record without touching the file system (tests, cached listings).
    pub fn without_fs(mut info: SessionInfo, in_current_dir: bool) -> Self {
        let prepared = PreparedText::new(&SearchFields {
            id: &info.id,
            name: info.name.as_deref(),
            summary: info.summary.as_deref(),
            text: &info.all_messages_text,
            cwd: &info.cwd,
            tools: &info.tool_text,
        });
        // The prepared copy replaces the original text; keeping both would double memory.
        info.all_messages_text = String::new();
        info.tool_text = String::new();
        SessionRecord {
            info,
            prepared,
            in_current_dir,
            canonical_path: None,
            canonical_parent: None,
            in_current_repo: false,
            branch: None,
        }
    }

    pub(crate) fn is_named(&self) -> bool {
        self.info
            .name
            .as_deref()
            .is_some_and(|n| !n.trim().is_empty())
    }
}

/// Whether a session's cwd names the folder `dir`: the one rule, [`same_folder`].
pub fn same_dir(session_cwd: &str, dir: &Path) -> bool {
    same_folder(session_cwd, dir)
}
