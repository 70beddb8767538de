//! Appending one entry to a session file: the only way grove changes an existing file.
//!
//! A write is one line, written with one `write` on an `O_APPEND` descriptor, with a fresh
//! 8-hex id and `parentId` = the id of the file's last entry (so the agent's leaf stays on its
//! branch). grove refuses to append after a torn last line (another writer may be mid-line),
//! re-reads the file when another program appended between grove's read and its write (so the
//! new line never hangs off a stale entry), verifies the line after writing, and after a short
//! write removes its own partial line when nothing else was appended meanwhile.
//!
//! The file is reached through its folder, held open and pinned ([`super::safe_fs::PinnedDir`]):
//! a folder swapped for a link or a replaced file is refused, never written. grove processes
//! take an advisory lock on the file while appending, so they never interleave. After writing,
//! grove reads back what precedes its line: when a writer that takes no lock (the agent) slipped
//! a line in between, grove's line would hide the agent's last entry from a resume (pi resumes
//! from the file's last line), so grove appends a `grove.checkout` entry hanging off the agent's
//! line, restoring the leaf the agent would have had, and says so in [`Appended::note`].

use std::collections::HashSet;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::model::entry::{JsonMap, format_iso_ms};

use super::append_scan::{AppendView, CANDIDATES, view_for_append, view_of_session};
use super::read::{ReadError, load_session};
use super::safe_fs::{Pin, PinError, PinnedDir, lock_exclusive};

/// Why an append did not happen. The file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(
        "{path}: the last line is incomplete (no trailing newline); another program may be writing it. Nothing was written."
    )]
    TornLastLine { path: PathBuf },
    #[error("{path}: not a valid session file (no header); nothing was written")]
    NoHeader { path: PathBuf },
    #[error("{path}: entry {id} not found")]
    UnknownEntry { path: PathBuf, id: String },
    #[error(
        "{path}: a version {version} session has no stable entry ids (pi assigns new ones when it upgrades the file); open it once in pi or Atomic first"
    )]
    LegacyIds { path: PathBuf, version: u32 },
    #[error("{path}: write failed: {source}; the file is unchanged")]
    Failed {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{path}: write failed: {source}; another program appended meanwhile, so grove's partial line was left in place"
    )]
    FailedNotRestored {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: the written line could not be verified")]
    Unverified { path: PathBuf },
    #[error("{path}: {detail}; nothing was written")]
    Changed { path: PathBuf, detail: String },
    #[error(transparent)]
    Pin(PinError),
    #[error("{path}: {source}; nothing was written")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl From<PinError> for WriteError {
    fn from(e: PinError) -> Self {
        match e {
            PinError::Io { path, source } => WriteError::Io { path, source },
            changed => WriteError::Pin(changed),
        }
    }
}

/// The low-level write, a seam so tests can inject disk-full or permission failures.
pub trait AppendSink {
    /// Writes `line` with a single `write` call on an `O_APPEND` file; returns bytes written.
    fn write_once(&mut self, file: &mut File, line: &[u8]) -> io::Result<usize>;
}

/// The real thing.
pub struct OsSink;

impl AppendSink for OsSink {
    fn write_once(&mut self, file: &mut File, line: &[u8]) -> io::Result<usize> {
        file.write(line)
    }
}

/// What an append wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Appended {
    pub id: String,
    pub parent_id: Option<String>,
    pub line: String,
    /// Set when another program wrote meanwhile and what grove did about it.
    pub note: Option<String>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn random_u64() -> u64 {
    // RandomState is seeded from the OS per process; mixing a counter and the clock gives
    // distinct values per call without another dependency.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

/// A fresh 8-hex id not in `taken`.
pub fn fresh_id(taken: &HashSet<&str>) -> String {
    loop {
        let id = format!("{:08x}", random_u64() as u32);
        if !taken.contains(id.as_str()) {
            return id;
        }
    }
}

/// A UUID v7 string (time-ordered, as pi and Atomic now use for session ids).
pub fn new_session_uuid(now_ms: i64) -> String {
    let r = random_u64();
    let r2 = random_u64();
    let ms = (now_ms.max(0) as u64) & 0xFFFF_FFFF_FFFF;
    let rand_a = (r & 0x0FFF) as u16;
    let rand_b = r2 & 0x3FFF_FFFF_FFFF_FFFF;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        (ms >> 16) as u32,
        (ms & 0xFFFF) as u16,
        0x7000 | rand_a,
        0x8000 | ((rand_b >> 48) as u16 & 0x3FFF),
        rand_b & 0xFFFF_FFFF_FFFF
    )
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// What to append; the writer fills in `id`, `parentId` and `timestamp`.
#[derive(Clone, Debug)]
pub enum NewEntry {
    /// Set (`Some`) or clear (`None`) the label of an entry.
    Label {
        target_id: String,
        label: Option<String>,
    },
    /// Rename the session (an empty name clears it).
    Rename { name: String },
    /// Move the leaf to an entry so that resuming continues there.
    Checkout { target_id: String },
}

/// Normalises a session name as pi 1.6.0 stores it: line breaks become spaces, trimmed.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_break = false;
    for c in name.chars() {
        if c == '\r' || c == '\n' {
            if !in_break {
                out.push(' ');
            }
            in_break = true;
        } else {
            out.push(c);
            in_break = false;
        }
    }
    out.trim().to_owned()
}

/// Appends an entry to the session file at `path`.
pub fn append_entry(path: &Path, entry: NewEntry) -> Result<Appended, WriteError> {
    append_entry_with(path, entry, &mut OsSink, now_ms())
}

/// How often grove re-reads a file that another program is appending to before giving up.
const ATTEMPTS: usize = 5;

/// [`append_entry`] refusing unless `path` is still the file (and folder) pinned in `pin`,
/// taken when the user saw the session.
pub fn append_entry_pinned(
    path: &Path,
    entry: NewEntry,
    pin: &Pin,
) -> Result<Appended, WriteError> {
    append_entry_full(path, entry, &mut OsSink, now_ms(), Some(pin))
}

/// [`append_entry`] with an injected sink and clock.
pub fn append_entry_with(
    path: &Path,
    entry: NewEntry,
    sink: &mut dyn AppendSink,
    now: i64,
) -> Result<Appended, WriteError> {
    append_entry_full(path, entry, sink, now, None)
}

/// The append itself: pinned folder and file, grove's lock, the line, the read-back.
pub fn append_entry_full(
    path: &Path,
    entry: NewEntry,
    sink: &mut dyn AppendSink,
    now: i64,
    pin: Option<&Pin>,
) -> Result<Appended, WriteError> {
    let io_err = |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = PinnedDir::open(path, pin)?;
    let mut file = dir.open_append()?;
    if !file.metadata().map_err(io_err)?.is_file() {
        return Err(ReadError::NotAFile {
            path: path.to_path_buf(),
        }
        .into());
    }
    // Held until `file` is dropped: another grove process waits here.
    lock_exclusive(&file).map_err(io_err)?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let last_attempt = attempt >= ATTEMPTS;
        let view = file_view(path, &entry)?;
        // What was read is what is pinned (and what `file` is).
        dir.recheck()?;
        let (map, appended) = match build_line(path, &view, entry.clone(), now) {
            // A writer may be in the middle of its line: give it a moment before refusing.
            Err(WriteError::TornLastLine { .. }) if !last_attempt => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            }
            other => other?,
        };
        let line = to_line(path, map)?;
        match write_line(path, &mut file, view.bytes, line.as_bytes(), sink) {
            Err(WriteError::Changed { .. } | WriteError::TornLastLine { .. }) if !last_attempt => {
                std::thread::sleep(std::time::Duration::from_millis(5 * attempt as u64));
            }
            Err(e) => return Err(e),
            Ok(landed) => {
                let repair = !matches!(entry, NewEntry::Checkout { .. });
                let note =
                    restore_agent_leaf(path, &mut file, &landed, &appended.id, repair, sink, now);
                return Ok(Appended {
                    line,
                    note,
                    ..appended
                });
            }
        }
    }
}

fn to_line(path: &Path, map: JsonMap) -> Result<String, WriteError> {
    let mut line = serde_json::to_string(&Value::Object(map)).map_err(|e| WriteError::Io {
        path: path.to_path_buf(),
        source: io::Error::other(e),
    })?;
    line.push('\n');
    Ok(line)
}

/// Where grove's line landed: the file from the size grove checked to its end, and the offset
/// of grove's line in it.
pub(crate) struct Landed {
    before: u64,
    tail: Vec<u8>,
    at: usize,
    len: usize,
}

/// After grove's line landed behind lines another program slipped in (it takes no lock) and is
/// the file's last line, the agent would resume from grove's line, whose parent is the entry
/// before the intruder's: its own last message would be skipped. A `grove.checkout` entry
/// hanging off the intruder's last entry puts the leaf back where the agent left it.
pub(crate) fn restore_agent_leaf(
    path: &Path,
    file: &mut File,
    landed: &Landed,
    our_id: &str,
    repair: bool,
    sink: &mut dyn AppendSink,
    now: i64,
) -> Option<String> {
    if landed.at == 0 {
        return None;
    }
    let shown = path.display();
    let between = &landed.tail[..landed.at];
    if !between.ends_with(b"\n") {
        return Some(format!(
            "{shown}: another program was writing a line when grove appended; grove's line {our_id} joined its unfinished line"
        ));
    }
    if landed.at + landed.len < landed.tail.len() {
        // More was written after grove's line: the leaf is the other writer's again.
        return None;
    }
    let their_id = between[..between.len() - 1]
        .rsplit(|b| *b == b'\n')
        .next()
        .and_then(|l| serde_json::from_slice::<Value>(l).ok())
        .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_owned))?;
    if !repair {
        return Some(format!(
            "{shown}: another program appended entry {their_id} while grove wrote; the checkout {our_id} is now the leaf"
        ));
    }
    let id = fresh_id(&[our_id, their_id.as_str()].into_iter().collect());
    let mut m = JsonMap::new();
    m.insert("type".into(), json!("custom"));
    m.insert("id".into(), json!(id));
    m.insert("parentId".into(), json!(their_id));
    m.insert("timestamp".into(), json!(format_iso_ms(now)));
    m.insert("customType".into(), json!("grove.checkout"));
    m.insert(
        "data".into(),
        json!({"targetId": their_id, "previousLeafId": our_id}),
    );
    let size = landed.before + landed.tail.len() as u64;
    let written = to_line(path, m)
        .ok()
        .map(|line| write_line(path, file, size, line.as_bytes(), sink));
    Some(match written {
        Some(Ok(_)) => format!(
            "{shown}: another program appended entry {their_id} while grove wrote {our_id}; grove added checkout {id} so the session resumes from {their_id}"
        ),
        _ => format!(
            "{shown}: another program appended entry {their_id} while grove wrote {our_id}; resuming now continues from grove's entry (check out {their_id} to go back)"
        ),
    })
}

/// What the append needs from the file, read streaming in bounded memory (see
/// [`super::append_scan`]), or from a whole load when the pass cannot tell.
fn file_view(path: &Path, entry: &NewEntry) -> Result<AppendView, WriteError> {
    let target = match entry {
        NewEntry::Label { target_id, .. } | NewEntry::Checkout { target_id } => Some(target_id),
        NewEntry::Rename { .. } => None,
    }
    .map(String::as_str);
    let mut drawn = HashSet::new();
    let candidates = [(); CANDIDATES].map(|_| {
        let id = fresh_id(&drawn.iter().map(String::as_str).collect());
        drawn.insert(id.clone());
        id
    });
    Ok(match view_for_append(path, target, candidates)? {
        Some(view) => view,
        None => view_of_session(&load_session(path)?, target, fresh_id),
    })
}

fn build_line(
    path: &Path,
    view: &AppendView,
    entry: NewEntry,
    now: i64,
) -> Result<(JsonMap, Appended), WriteError> {
    let p = || path.to_path_buf();
    let Some(version) = view.version else {
        return Err(WriteError::NoHeader { path: p() });
    };
    if view.bytes > 0 && !view.ends_with_newline {
        return Err(WriteError::TornLastLine { path: p() });
    }
    let needs_ids = !matches!(entry, NewEntry::Rename { .. });
    if needs_ids && version < 2 {
        return Err(WriteError::LegacyIds { path: p(), version });
    }
    let id = view.fresh_id.clone();
    let known = |target: &str| {
        view.target
            .as_ref()
            .ok_or_else(|| WriteError::UnknownEntry {
                path: p(),
                id: target.to_owned(),
            })
    };
    let checkout_leaf = match &entry {
        NewEntry::Label { target_id, .. } => {
            known(target_id)?;
            None
        }
        NewEntry::Rename { .. } => None,
        NewEntry::Checkout { target_id } => known(target_id)?.checkout_leaf.clone(),
    };
    let (m, parent_id) = entry_object(
        &entry,
        &id,
        view.last_id.as_deref(),
        checkout_leaf.as_deref(),
        now,
    );
    Ok((
        m,
        Appended {
            id,
            parent_id,
            line: String::new(),
            note: None,
        },
    ))
}

/// The JSON object of a grove entry, as pi writes its own (`type`, `id`, `parentId`,
/// `timestamp`, then the kind's fields), and its `parentId`: the file's last entry, or for a
/// check-out the entry that becomes the leaf. The one place these shapes are written.
pub(crate) fn entry_object(
    entry: &NewEntry,
    id: &str,
    last_id: Option<&str>,
    checkout_leaf: Option<&str>,
    now: i64,
) -> (JsonMap, Option<String>) {
    let (kind, parent) = match entry {
        NewEntry::Label { .. } => ("label", last_id),
        NewEntry::Rename { .. } => ("session_info", last_id),
        NewEntry::Checkout { .. } => ("custom", checkout_leaf),
    };
    let mut m = JsonMap::new();
    m.insert("type".into(), json!(kind));
    m.insert("id".into(), json!(id));
    m.insert("parentId".into(), json!(parent));
    m.insert("timestamp".into(), json!(format_iso_ms(now)));
    match entry {
        NewEntry::Label { target_id, label } => {
            m.insert("targetId".into(), json!(target_id));
            if let Some(l) = label.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
                m.insert("label".into(), json!(l));
            }
        }
        NewEntry::Rename { name } => {
            m.insert("name".into(), json!(normalize_name(name)));
        }
        NewEntry::Checkout { target_id } => {
            m.insert("customType".into(), json!("grove.checkout"));
            m.insert(
                "data".into(),
                json!({"targetId": target_id, "previousLeafId": last_id}),
            );
        }
    }
    (m, parent.map(str::to_owned))
}

/// Writes `line` if the file is still exactly as read (`expected_size` bytes). If it grew, the
/// caller re-reads it: the new entry's `parentId` must be the file's actual last entry.
pub(crate) fn write_line(
    path: &Path,
    file: &mut File,
    expected_size: u64,
    line: &[u8],
    sink: &mut dyn AppendSink,
) -> Result<Landed, WriteError> {
    let io_err = |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let before = file.metadata().map_err(io_err)?.len();
    if before != expected_size {
        if before > expected_size && !ends_with_newline(file, before).map_err(io_err)? {
            return Err(WriteError::TornLastLine {
                path: path.to_path_buf(),
            });
        }
        let how = if before > expected_size {
            "another program appended to the file while grove was preparing its line (try again when it is idle)"
        } else {
            "the file became shorter while grove was preparing its line (it was truncated or replaced)"
        };
        return Err(WriteError::Changed {
            path: path.to_path_buf(),
            detail: how.into(),
        });
    }
    match sink.write_once(file, line) {
        Ok(n) if n == line.len() => {}
        Ok(n) => {
            return Err(remove_partial(
                path,
                file,
                before,
                &line[..n],
                short_write(n, line.len()),
            ));
        }
        // A failed `write` wrote nothing: never truncate, another writer's bytes may follow.
        Err(source) => {
            return Err(WriteError::Failed {
                path: path.to_path_buf(),
                source,
            });
        }
    }
    let tail = read_from(file, before).map_err(io_err)?;
    match memchr::memmem::find(&tail, line) {
        Some(at) => Ok(Landed {
            before,
            tail,
            at,
            len: line.len(),
        }),
        None => Err(WriteError::Unverified {
            path: path.to_path_buf(),
        }),
    }
}

fn short_write(n: usize, len: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::WriteZero,
        format!("short write ({n} of {len} bytes)"),
    )
}

/// After a short write, cuts the file back to `before`, but only when the file is exactly
/// what it was plus grove's `partial` bytes (a line appended by someone else is never cut).
fn remove_partial(
    path: &Path,
    file: &mut File,
    before: u64,
    partial: &[u8],
    source: io::Error,
) -> WriteError {
    fn ours_only(file: &mut File, before: u64, partial: &[u8]) -> io::Result<bool> {
        if file.metadata()?.len() != before + partial.len() as u64 {
            return Ok(false);
        }
        file.seek(SeekFrom::Start(before))?;
        let mut tail = Vec::with_capacity(partial.len());
        (&mut *file)
            .take(partial.len() as u64)
            .read_to_end(&mut tail)?;
        Ok(tail == partial)
    }
    if partial.is_empty()
        || (ours_only(file, before, partial).unwrap_or(false) && file.set_len(before).is_ok())
    {
        WriteError::Failed {
            path: path.to_path_buf(),
            source,
        }
    } else {
        WriteError::FailedNotRestored {
            path: path.to_path_buf(),
            source,
        }
    }
}

fn ends_with_newline(file: &mut File, size: u64) -> io::Result<bool> {
    if size == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(size - 1))?;
    let mut b = [0u8; 1];
    file.read_exact(&mut b)?;
    Ok(b[0] == b'\n')
}

/// The file from `from` to its end (another writer may have appended between grove's size
/// check and its write, which moves where grove's line landed).
fn read_from(file: &mut File, from: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(from))?;
    let mut rest = Vec::new();
    file.read_to_end(&mut rest)?;
    Ok(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_normalised() {
        assert_eq!(normalize_name("  a\r\nb\n\nc  "), "a b c");
        assert_eq!(normalize_name("   "), "");
    }

    #[test]
    fn uuid_shape() {
        let u = new_session_uuid(1_700_000_000_000);
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "7");
    }
}
