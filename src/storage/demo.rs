//! The bundled demo sessions, copied to a temporary folder so the originals are never written.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::roots::SessionRoot;
use crate::model::context::Dialect;

/// Where the demo set lives in the source tree.
pub fn demo_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join("demo")
}

/// Copies the demo set to a fresh temporary folder and returns its pi and Atomic roots.
pub fn demo_roots() -> io::Result<Vec<SessionRoot>> {
    let src = demo_source();
    if !src.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("demo sessions not found at {}", src.display()),
        ));
    }
    prune_stale_copies();
    let dest = demo_copy_dir(std::process::id());
    if dest.exists() {
        fs::remove_dir_all(&dest)?;
    }
    copy_dir(&src, &dest)?;
    Ok(vec![
        SessionRoot {
            path: dest.join("pi-agent").join("sessions"),
            agent: Some(Dialect::Pi),
        },
        SessionRoot {
            path: dest.join("atomic-agent").join("sessions"),
            agent: Some(Dialect::Atomic),
        },
    ])
}

/// Recursively copies regular files and folders (links are not followed).
pub fn copy_dir(src: &Path, dest: &Path) -> io::Result<()> {
    fs::create_dir_all(dest)?;
    for entry in fs::read_dir(src)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        let to = dest.join(entry.file_name());
        if ty.is_dir() {
            copy_dir(&entry.path(), &to)?;
        } else if ty.is_file() {
            fs::copy(entry.path(), &to)?;
        }
    }
    Ok(())
}

const COPY_PREFIX: &str = "grove-demo-";

fn demo_copy_dir(pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("{COPY_PREFIX}{pid}"))
}

/// Removes this process's demo copy (called when grove exits).
pub fn remove_demo_copy() {
    let _ = fs::remove_dir_all(demo_copy_dir(std::process::id()));
}

/// Removes copies left by grove processes that no longer run (e.g. killed ones). Only where
/// the OS says which processes exist (`/proc`); elsewhere copies stay until the temp dir is
/// cleaned.
fn prune_stale_copies() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(read) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(COPY_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}
