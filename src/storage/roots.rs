//! Where sessions live: pi's and Atomic's session roots, and the `*.jsonl` files under them.

use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::index::row::FileKey;
use crate::model::context::Dialect;

/// A folder that holds sessions: a root of per-cwd folders, or a flat folder of `.jsonl` files
/// (both are scanned the same way: `DIR/*.jsonl` and `DIR/*/*.jsonl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRoot {
    pub path: PathBuf,
    /// The agent that owns the root; `None` = decide per file.
    pub agent: Option<Dialect>,
}

/// The environment grove reads its defaults from; a seam so tests never touch the real one.
pub trait Env {
    fn var(&self, name: &str) -> Option<OsString>;
    fn home(&self) -> Option<PathBuf>;
}

/// The process environment.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name).filter(|v| !v.is_empty())
    }

    fn home(&self) -> Option<PathBuf> {
        directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
    }
}

/// Expands a leading `~` or `~/`.
pub fn expand_tilde(p: &Path, env: &dyn Env) -> PathBuf {
    let Ok(rest) = p.strip_prefix("~") else {
        return p.to_path_buf();
    };
    match env.home() {
        Some(home) => home.join(rest),
        None => p.to_path_buf(),
    }
}

fn first_var(env: &dyn Env, names: &[&str]) -> Option<PathBuf> {
    names.iter().find_map(|n| env.var(n)).map(PathBuf::from)
}

/// The agent dir of an agent: `$<APP>_CODING_AGENT_DIR` (Atomic also accepts the `PI_` alias),
/// else `~/.pi/agent` / `~/.atomic/agent`.
pub fn agent_dir(agent: Dialect, env: &dyn Env) -> Option<PathBuf> {
    let names: &[&str] = match agent {
        Dialect::Pi => &["PI_CODING_AGENT_DIR"],
        Dialect::Atomic => &["ATOMIC_CODING_AGENT_DIR", "PI_CODING_AGENT_DIR"],
    };
    if let Some(dir) = first_var(env, names) {
        return Some(expand_tilde(&dir, env));
    }
    let home = env.home()?;
    Some(match agent {
        Dialect::Pi => home.join(".pi").join("agent"),
        Dialect::Atomic => home.join(".atomic").join("agent"),
    })
}

/// The sessions root of an agent: the session-dir variable, else `sessionDir` from
/// `<agentDir>/settings.json`, else `<agentDir>/sessions`.
pub fn sessions_dir(agent: Dialect, env: &dyn Env) -> Option<PathBuf> {
    let names: &[&str] = match agent {
        Dialect::Pi => &["PI_CODING_AGENT_SESSION_DIR"],
        Dialect::Atomic => &[
            "ATOMIC_CODING_AGENT_SESSION_DIR",
            "PI_CODING_AGENT_SESSION_DIR",
        ],
    };
    if let Some(dir) = first_var(env, names) {
        return Some(expand_tilde(&dir, env));
    }
    let agent_dir = agent_dir(agent, env)?;
    if let Some(dir) = setting_session_dir(&agent_dir, env) {
        return Some(dir);
    }
    Some(agent_dir.join("sessions"))
}

fn setting_session_dir(agent_dir: &Path, env: &dyn Env) -> Option<PathBuf> {
    // Only a small regular file: a FIFO or a device here must not hang or flood every command.
    let path = agent_dir.join("settings.json");
    let text = match super::fsutil::read_regular_file_capped(&path, super::fsutil::SMALL_FILE_CAP) {
        Ok(text) => text?,
        Err(e) => {
            super::fsutil::report_problem(format!("the agent's settings are ignored: {e}"));
            return None;
        }
    };
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    let dir = v.get("sessionDir")?.as_str()?.trim();
    if dir.is_empty() {
        return None;
    }
    let dir = expand_tilde(Path::new(dir), env);
    Some(if dir.is_absolute() {
        dir
    } else {
        agent_dir.join(dir)
    })
}

/// The default roots: pi's then Atomic's (the same folder is listed once, as pi's).
pub fn default_roots(env: &dyn Env) -> Vec<SessionRoot> {
    let mut roots: Vec<SessionRoot> = Vec::new();
    for agent in [Dialect::Pi, Dialect::Atomic] {
        if let Some(path) = sessions_dir(agent, env) {
            let same = roots.iter().any(|r| same_dir(&r.path, &path));
            if !same {
                roots.push(SessionRoot {
                    path,
                    agent: Some(agent),
                });
            }
        }
    }
    roots
}

fn same_dir(a: &Path, b: &Path) -> bool {
    crate::text::paths::same_folder(&a.to_string_lossy(), b)
}

/// Roots given on the command line: the agent is `forced`, else guessed from the path.
pub fn custom_roots(dirs: &[PathBuf], forced: Option<Dialect>) -> Vec<SessionRoot> {
    dirs.iter()
        .map(|d| SessionRoot {
            path: d.clone(),
            agent: forced.or_else(|| agent_from_path(d)),
        })
        .collect()
}

/// Atomic when the path runs through a `.atomic` folder.
pub fn agent_from_path(p: &Path) -> Option<Dialect> {
    let abs = fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    abs.components()
        .any(|c| matches!(c, Component::Normal(n) if n == ".atomic"))
        .then_some(Dialect::Atomic)
}

pub use super::walk::{FoundFile, Skipped};

/// Lists `ROOT/*.jsonl` and `ROOT/*/*.jsonl`, following symlinked folders (broken links are
/// skipped). Only regular files (or links to them) are returned: a directory or FIFO named
/// `.jsonl` is reported, never opened. Sorted by path within each folder, a folder's files
/// where the folder is among its root's entries.
pub fn find_session_files(roots: &[SessionRoot]) -> (Vec<FoundFile>, Vec<Skipped>) {
    let (files, skipped) = find_session_files_keyed(roots);
    (files.into_iter().map(|(f, _)| f).collect(), skipped)
}

/// [`find_session_files`] with each file's freshness key (from the one `stat` an index needs,
/// a link's target's): see [`super::walk`].
pub fn find_session_files_keyed(
    roots: &[SessionRoot],
) -> (Vec<(FoundFile, FileKey)>, Vec<Skipped>) {
    let roots: Vec<(&Path, Option<Dialect>)> = roots
        .iter()
        .map(|r| {
            (
                r.path.as_path(),
                r.agent.or_else(|| agent_from_path(&r.path)),
            )
        })
        .collect();
    super::walk::find(&roots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct FakeEnv(HashMap<&'static str, &'static str>);
    impl Env for FakeEnv {
        fn var(&self, name: &str) -> Option<OsString> {
            self.0.get(name).map(OsString::from)
        }
        fn home(&self) -> Option<PathBuf> {
            Some(PathBuf::from("/home/u"))
        }
    }

    #[cfg(unix)]
    #[test]
    fn discovery_follows_links_and_sorts_by_path() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let (root, elsewhere) = (tmp.path().join("root"), tmp.path().join("elsewhere"));
        for d in ["root/a", "root/a-b", "elsewhere/linked"] {
            fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        for f in [
            "root/top.jsonl",
            "root/a/2.jsonl",
            "root/a/1.jsonl",
            "root/a/notes.txt",
            "root/a-b/x.jsonl",
            "elsewhere/file.jsonl",
            "elsewhere/linked/in.jsonl",
        ] {
            fs::write(tmp.path().join(f), "{}\n").unwrap();
        }
        fs::create_dir(root.join("a/dir.jsonl")).unwrap();
        symlink(elsewhere.join("file.jsonl"), root.join("a/link.jsonl")).unwrap();
        symlink(elsewhere.join("linked"), root.join("l")).unwrap();
        symlink(elsewhere.join("missing.jsonl"), root.join("a/broken.jsonl")).unwrap();
        let roots = [SessionRoot {
            path: root.clone(),
            agent: None,
        }];
        let (files, skipped) = find_session_files_keyed(&roots);
        let names: Vec<_> = files
            .iter()
            .map(|(f, key)| {
                assert_eq!(*key, FileKey::of(&fs::metadata(&f.path).unwrap()));
                f.path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "a/1.jsonl",
                "a/2.jsonl",
                "a/link.jsonl",
                "a-b/x.jsonl",
                "l/in.jsonl",
                "top.jsonl"
            ]
        );
        let reasons: Vec<_> = skipped
            .iter()
            .map(|s| {
                let name = s.path.strip_prefix(&root).unwrap().to_string_lossy();
                format!("{name}: {}", s.reason.split(':').next().unwrap_or_default())
            })
            .collect();
        assert_eq!(
            reasons,
            ["a/broken.jsonl: cannot stat", "a/dir.jsonl: is a directory"]
        );
    }

    #[test]
    fn defaults_and_overrides() {
        let env = FakeEnv(HashMap::new());
        let roots = default_roots(&env);
        assert_eq!(roots[0].path, PathBuf::from("/home/u/.pi/agent/sessions"));
        assert_eq!(
            roots[1].path,
            PathBuf::from("/home/u/.atomic/agent/sessions")
        );
        let env = FakeEnv(HashMap::from([("PI_CODING_AGENT_DIR", "~/x")]));
        // Atomic accepts the PI_ alias, so both point at the same folder: listed once.
        let roots = default_roots(&env);
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0].path, PathBuf::from("/home/u/x/sessions"));
        let env = FakeEnv(HashMap::from([
            ("PI_CODING_AGENT_DIR", "/p"),
            ("ATOMIC_CODING_AGENT_SESSION_DIR", "/a/s"),
        ]));
        let roots = default_roots(&env);
        assert_eq!(roots[1].path, PathBuf::from("/a/s"));
        assert_eq!(roots[1].agent, Some(Dialect::Atomic));
    }
}
