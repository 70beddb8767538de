//! The bundled demo sessions, embedded in the binary (an installed grove has no source tree
//! to read them from) and written to a temporary folder at each run, so they can be labelled,
//! renamed and deleted freely.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::roots::SessionRoot;
use crate::model::context::Dialect;

/// The demo sessions: their path under `assets/demo` and their bytes, embedded at build time.
/// A test checks that this is every `.jsonl` file of `assets/demo`, byte for byte.
macro_rules! embedded {
    ($($path:literal,)*) => {
        &[$(($path, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/", $path)))),*]
    };
}
pub const DEMO_FILES: &[(&str, &[u8])] = embedded![
    "atomic-agent/sessions/--home-demo-code-ledger-sync--/2026-11-03T09-15-06-402Z_01a1a0b0-d722-79e4-b941-50e9605a8281.jsonl",
    "atomic-agent/sessions/--home-demo-code-ledger-sync--/2026-11-20T22-00-04-117Z_01a1faf9-4b15-7e44-8482-a9e48822e3c4.jsonl",
    "atomic-agent/sessions/--home-demo-code-ledger-sync--/2026-11-20T22-03-41-560Z_01a1fafc-9c78-7edf-b00a-e1607da3040c.jsonl",
    "atomic-agent/sessions/--home-demo-code-shelfie--/2026-11-25T19-40-33-908Z_01a21439-5ef4-7cb5-8e6e-467add82f03b.jsonl",
    "atomic-agent/sessions/--home-demo-code-tern--/2026-11-10T12-08-19-644Z_01a1c55b-f1bc-7b0a-b4b2-2704dd7911f1.jsonl",
    "pi-agent/sessions/--home-demo-code-dotfiles--/2026-11-30T09-48-51-337Z_01a22bdb-7109-7eef-a88d-22c2ec63b69c.jsonl",
    "pi-agent/sessions/--home-demo-code-shelfie--/2026-10-09T17-32-09-011Z_01a121b8-e9b3-7384-bda9-672fc401322e.jsonl",
    "pi-agent/sessions/--home-demo-code-shelfie--/2026-10-21T10-02-55-407Z_01a15de9-f22f-7ed2-ad1a-aed386720e5e.jsonl",
    "pi-agent/sessions/--home-demo-code-shelfie--/2026-11-12T14-47-30-882Z_01a1d03a-6742-785f-935a-8d155767c3db.jsonl",
    "pi-agent/sessions/--home-demo-code-shelfie--/2026-11-29T21-14-02-640Z_01a22928-6410-79dd-90fc-6f898117cc90.jsonl",
    "pi-agent/sessions/--home-demo-code-tern--/2026-10-06T08-41-12-304Z_01a1105f-bd70-7257-8b13-49f961e8d840.jsonl",
    "pi-agent/sessions/--home-demo-code-tern--/2026-10-14T13-05-47-918Z_01a13a84-db8e-7aa3-9beb-5076223abfe4.jsonl",
    "pi-agent/sessions/--home-demo-code-tern--/2026-10-15T09-12-03-551Z_01a13ed5-38df-78bf-9b9f-9eae26f22062.jsonl",
    "pi-agent/sessions/--home-demo-code-tern--/2026-11-27T15-20-44-120Z_01a21d98-3558-789c-8860-4837bc638672.jsonl",
    "pi-agent/sessions/--home-demo-code-tidewater--/2026-10-27T07-55-18-230Z_01a17c5b-4356-7e96-99eb-f6dfb6c37f2f.jsonl",
    "pi-agent/sessions/--home-demo-code-tidewater--/2026-11-04T11-26-40-775Z_01a1a64f-a887-726b-9d1c-7b88cd9d3d51.jsonl",
    "pi-agent/sessions/--home-demo-code-tidewater--/2026-11-18T16-03-27-019Z_01a1ef66-14ab-745e-abfc-91a9ccf04356.jsonl",
];

/// Where the demo set lives in the source tree (for tests and tools that run from it; the
/// binary uses [`DEMO_FILES`]).
pub fn demo_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join("demo")
}

/// Writes the demo set to a fresh temporary folder and returns its pi and Atomic roots.
pub fn demo_roots() -> io::Result<Vec<SessionRoot>> {
    prune_stale_copies();
    let dest = demo_copy_dir(std::process::id());
    if dest.exists() {
        fs::remove_dir_all(&dest)?;
    }
    write_demo(&dest)?;
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

/// Writes the embedded demo sessions under `dest` (`dest/pi-agent/sessions/…`, …). The
/// folder is private to the user (the temp dir may be shared).
pub fn write_demo(dest: &Path) -> io::Result<()> {
    create_private_dir(dest)?;
    for (rel, bytes) in DEMO_FILES {
        let to = dest.join(rel);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&to, bytes)?;
    }
    Ok(())
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .mode(0o700)
        .recursive(true)
        .create(dir)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn jsonl_under(dir: &Path, base: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                jsonl_under(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }

    #[test]
    fn the_embedded_set_is_every_demo_file_byte_for_byte_and_is_written_whole() {
        let mut on_disk = Vec::new();
        jsonl_under(&demo_source(), &demo_source(), &mut on_disk);
        on_disk.sort();
        let mut embedded: Vec<(String, Vec<u8>)> = DEMO_FILES
            .iter()
            .map(|(p, b)| ((*p).to_owned(), b.to_vec()))
            .collect();
        embedded.sort();
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&embedded), names(&on_disk), "update DEMO_FILES");
        assert!(
            embedded == on_disk,
            "an embedded demo file differs from assets/demo"
        );

        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("copy");
        write_demo(&dest).unwrap();
        let mut written = Vec::new();
        jsonl_under(&dest, &dest, &mut written);
        written.sort();
        assert!(written == on_disk);
    }
}
