//! Shared by the hardening tests: a second file system (a tmpfs mounted for the test) and
//! re-running one test in a child process with a private trash.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted at a fresh folder; unmounted on drop.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Mounts a tmpfs of `size` (e.g. "64k", "16m") at `at` (created if missing). `None` (with a
/// notice) when mounting is impossible here; under `CI=true` that is a failure, never a skip.
pub fn mount_tmpfs_at(at: &Path, size: &str) -> Option<()> {
    fs::create_dir_all(at).unwrap();
    let out = Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size},mode=0755"),
            "tmpfs",
        ])
        .arg(at)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(()),
        other => {
            let why = match other {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "CI=true: a second file system (tmpfs) is required but cannot be mounted: {why}"
                );
            }
            eprintln!("NOTICE: cannot mount a tmpfs ({why}); second-file-system check skipped");
            None
        }
    }
}

/// A fresh tmpfs of `size`, or `None` as [`mount_tmpfs_at`].
pub fn tmpfs(size: &str) -> Option<Tmpfs> {
    let dir = tempfile::tempdir().unwrap();
    mount_tmpfs_at(dir.path(), size)?;
    Some(Tmpfs { dir })
}

/// Unmounts its path on drop, so a failed assertion does not leave a mount behind.
pub struct Unmount(pub PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        umount(&self.0);
    }
}

/// Unmounts `at` (lazily, so an open handle cannot keep it busy).
pub fn umount(at: &Path) {
    let _ = Command::new("umount").arg("-l").arg(at).status();
}

/// Runs the test `name` of this binary again in a child whose trash (XDG_DATA_HOME) and HOME
/// are under `sandbox`, with `CHILD_SCENARIO=scenario`; panics with its output on failure.
pub fn in_child(name: &str, scenario: &str, sandbox: &Path) -> String {
    let data = sandbox.join("data");
    fs::create_dir_all(&data).unwrap();
    fs::create_dir_all(sandbox.join("home")).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("CHILD_SCENARIO", scenario)
        .env("CHILD_SANDBOX", sandbox)
        .env("XDG_DATA_HOME", &data)
        .env("HOME", sandbox.join("home"))
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "scenario {scenario} failed:\n{text}");
    assert!(
        text.contains(&format!("scenario {scenario} done")),
        "scenario {scenario} did not run:\n{text}"
    );
    for l in text.lines().filter(|l| l.contains("NOTICE")) {
        eprintln!("{l}");
    }
    text
}

/// In a child started by [`in_child`]: the scenario and the sandbox.
pub fn child_scenario() -> Option<(String, PathBuf)> {
    let s = std::env::var("CHILD_SCENARIO").ok()?;
    let sandbox = PathBuf::from(std::env::var_os("CHILD_SANDBOX")?);
    Some((s, sandbox))
}
