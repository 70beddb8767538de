//! Which git repository a folder lies in, read from the `.git` entries themselves (no `git`
//! process per session): the nearest `.git` folder or file (`gitdir: …`, a worktree or a
//! submodule) up from the folder, its `commondir` (worktrees share the main repository's git
//! folder), and its `HEAD` for the branch. Answers are cached per folder for the process.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The repository of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoInfo {
    /// The common git folder, canonical: equal for every worktree of one repository.
    pub common_dir: PathBuf,
    /// The top of the working tree the folder is in.
    pub worktree: PathBuf,
    /// The checked-out branch (`HEAD`'s `refs/heads/…`), else the detached commit's first 8
    /// hex digits.
    pub branch: Option<String>,
}

/// `.git` files, `commondir` and `HEAD` are a line or two; more is not a git file.
const SMALL: u64 = 64 << 10;

fn read_small(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > SMALL {
        return None;
    }
    fs::read_to_string(path).ok()
}

/// The repository `dir` lies in, read from disk (see [`repo_of`] for the cached answer).
pub fn discover(dir: &Path) -> Option<RepoInfo> {
    let start = fs::canonicalize(dir).ok()?;
    for top in start.ancestors() {
        let dot_git = top.join(".git");
        let Ok(meta) = fs::metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else if meta.is_file() {
            let text = read_small(&dot_git)?;
            let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
            top.join(target)
        } else {
            return None;
        };
        let common = match read_small(&git_dir.join("commondir")) {
            Some(c) => git_dir.join(c.trim()),
            None => git_dir.clone(),
        };
        let common_dir = fs::canonicalize(&common).ok()?;
        let branch = read_small(&git_dir.join("HEAD")).and_then(|h| {
            let h = h.trim();
            match h.strip_prefix("ref: ") {
                Some(r) => Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned()),
                None => h.get(..8).map(str::to_owned),
            }
        });
        return Some(RepoInfo {
            common_dir,
            worktree: top.to_path_buf(),
            branch,
        });
    }
    None
}

type Cache = Mutex<HashMap<String, Option<Arc<RepoInfo>>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Cache::default)
}

/// [`discover`], cached per folder string for the process (sessions share a few dozen cwds).
pub fn repo_of(dir: &str) -> Option<Arc<RepoInfo>> {
    if dir.is_empty() {
        return None;
    }
    if let Ok(c) = cache().lock()
        && let Some(hit) = c.get(dir)
    {
        return hit.clone();
    }
    let found = discover(Path::new(dir)).map(Arc::new);
    if let Ok(mut c) = cache().lock() {
        c.insert(dir.to_owned(), found.clone());
    }
    found
}

/// Whether two folders lie in the same repository (worktrees included).
pub fn same_repo(a: &str, b: &str) -> bool {
    match (repo_of(a), repo_of(b)) {
        (Some(x), Some(y)) => x.common_dir == y.common_dir,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .expect("git is installed");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    #[test]
    fn worktrees_share_the_common_dir_and_keep_their_branch() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        fs::create_dir_all(main.join("sub/deeper")).unwrap();
        git(&main, &["init", "-q", "-b", "trunk"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "x"]);
        git(&main, &["worktree", "add", "-q", "-b", "feature", "../wt"]);
        let wt = tmp.path().join("wt");
        let other = tmp.path().join("other");
        fs::create_dir_all(&other).unwrap();

        let m = discover(&main.join("sub/deeper")).expect("in the repo");
        let w = discover(&wt).expect("in the worktree");
        assert_eq!(m.common_dir, w.common_dir);
        assert_eq!(m.worktree, fs::canonicalize(&main).unwrap());
        assert_eq!(m.branch.as_deref(), Some("trunk"));
        assert_eq!(w.branch.as_deref(), Some("feature"));
        assert_eq!(w.worktree, fs::canonicalize(&wt).unwrap());
        assert!(discover(&other).is_none());
        let s = |p: &Path| p.to_string_lossy().into_owned();
        assert!(same_repo(&s(&main.join("sub")), &s(&wt)));
        assert!(!same_repo(&s(&main), &s(&other)));
        assert!(!same_repo(&s(&other), &s(&other)));
        assert!(repo_of("").is_none());
    }
}
