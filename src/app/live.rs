//! Does a session look live, i.e. is an agent still writing it? Checked before a delete so the
//! prompt can warn. Best effort: recent writes, and on Linux the processes holding it open.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Whether a session looks like an agent is still writing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Liveness {
    Checking,
    Idle,
    /// Why it looks live, e.g. "written 12s ago" or "open in pi (pid 4242)".
    Live(String),
}

/// What the delete prompt learns about a session before it can be confirmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveCheck {
    pub liveness: Liveness,
    /// The backups that move to the trash with it (Atomic's `<file>.jsonl.*.bak`).
    pub backups: Vec<PathBuf>,
}

impl From<Liveness> for LiveCheck {
    fn from(liveness: Liveness) -> Self {
        LiveCheck {
            liveness,
            backups: Vec::new(),
        }
    }
}

/// A session written this recently counts as live.
pub(crate) const RECENT: Duration = Duration::from_secs(60);

/// Checks whether the session looks live and lists the backups a delete moves with it.
pub(crate) fn check_liveness(path: &Path, now: SystemTime) -> LiveCheck {
    let backups = crate::storage::trash::files_of_session(path)
        .into_iter()
        .filter(|p| p != path)
        .collect();
    LiveCheck {
        liveness: liveness(path, now),
        backups,
    }
}

/// Checks the file's modification time and (on Linux) open file handles.
pub fn liveness(path: &Path, now: SystemTime) -> Liveness {
    if let Some(p) = open_by_process(path) {
        return Liveness::Live(p);
    }
    let modified = std::fs::metadata(path).and_then(|m| m.modified());
    if let Ok(m) = modified
        && let Ok(age) = now.duration_since(m)
        && age < RECENT
    {
        return Liveness::Live(format!("written {}s ago", age.as_secs()));
    }
    Liveness::Idle
}

/// `open in <program> (pid N)` for the first other process that holds the file open, where
/// `/proc` lets us see it.
#[cfg(target_os = "linux")]
fn open_by_process(path: &Path) -> Option<String> {
    let target = std::fs::canonicalize(path).ok()?;
    let me = std::process::id().to_string();
    for proc_entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = proc_entry.file_name();
        let Some(pid) = name.to_str() else { continue };
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(proc_entry.path().join("fd")) else {
            continue;
        };
        let holds = fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == target));
        if holds {
            let comm = std::fs::read_to_string(proc_entry.path().join("comm")).unwrap_or_default();
            let comm = crate::text::sanitize::sanitize_line(comm.trim()).into_owned();
            return Some(format!("open in {comm} (pid {pid})"));
        }
    }
    None
}

#[cfg(not(target_os = "linux"))]
fn open_by_process(_path: &Path) -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_write_is_live_old_is_idle() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.jsonl");
        std::fs::write(&f, "{}\n").unwrap();
        let now = SystemTime::now();
        assert!(matches!(
            check_liveness(&f, now).liveness,
            Liveness::Live(_)
        ));
        let later = now + Duration::from_secs(3600);
        assert_eq!(check_liveness(&f, later).liveness, Liveness::Idle);
    }
}
