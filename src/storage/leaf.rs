//! A large session's leaf branch first: the entries the session view shows when it opens (the
//! leaf and its nearest ancestors), read from the end of the file without reading the rest.
//!
//! pi and Atomic append: an entry's parent is written before it, and the leaf (the last entry
//! in the file) and its nearest ancestors are the file's last lines in the common case of a
//! session that grew along one branch. So the branch is found by reading back from the end
//! and following `parentId` links: a line whose id is the one wanted joins the branch and its
//! parent becomes the next one wanted; other lines (other branches) are skipped. It stops at
//! [`LeafOptions::entries`] entries, at a root, or after [`LeafOptions::max_bytes`] bytes.
//! The header line and the branch's lines, in file order, are then parsed as a session of
//! their own, which the view can draw at once while the whole file loads (the view replaces
//! it with the whole session when that is ready). Cost: the bytes between the oldest entry
//! kept and the end of the file, never the whole file for a large one.

use crate::storage::fsutil::read_exact_at;
use std::borrow::Cow;
use std::io;
use std::path::Path;

use serde::Deserialize;

use super::index::offsets::EntryOffsets;
use super::open::{ReadError, open_regular};
use crate::model::parse::{MAX_LINE_BYTES, ParsedSession};
use crate::model::tree::Session;

/// How much of the branch to read.
#[derive(Clone, Copy, Debug)]
pub struct LeafOptions {
    /// Entries of the branch to keep, from the leaf back.
    pub entries: usize,
    /// Bytes read back from the end at most (the branch may reach further back).
    pub max_bytes: u64,
}

impl Default for LeafOptions {
    fn default() -> Self {
        LeafOptions {
            entries: 400,
            max_bytes: 64 << 20,
        }
    }
}

/// The leaf's branch as a session of its own.
#[derive(Debug)]
pub struct LeafBranch {
    /// The header and the branch's entries (the oldest kept has a parent not among them,
    /// unless `complete`).
    pub session: Session,
    /// Whether the branch reaches its root (then it holds every entry of the branch).
    pub complete: bool,
    /// Bytes read from the file.
    pub bytes_read: u64,
}

/// Bytes read at a time going back from the end.
const STEP: u64 = 256 << 10;

/// Bytes read back past the last entry kept without finding its parent before the parent's
/// line is looked up in the index's offsets (when given) and read where it is.
const JUMP_AFTER: u64 = 1 << 20;

/// The leaf branch of the session file at `path` (see the module docs).
pub fn load_leaf_branch(path: &Path, opts: LeafOptions) -> Result<LeafBranch, ReadError> {
    load_leaf_branch_with(path, opts, None)
}

/// [`load_leaf_branch`] with the entry offsets the index keeps for the file (see
/// [`crate::storage::index::offsets`]): a parent far back (the leaf checked out from an old
/// entry) is read where it is instead of searched for.
pub fn load_leaf_branch_with(
    path: &Path,
    opts: LeafOptions,
    offsets: Option<&EntryOffsets>,
) -> Result<LeafBranch, ReadError> {
    let (file, meta) = open_regular(path)?;
    leaf_branch_from_with(
        &mut |buf, at| read_exact_at(&file, buf, at),
        meta.len(),
        opts,
        offsets,
    )
    .map_err(|e| ReadError::io(path, e))
}

/// [`load_leaf_branch`] from any positioned reader of a file of `size` bytes.
pub fn leaf_branch_from(
    read_at: &mut dyn FnMut(&mut [u8], u64) -> io::Result<()>,
    size: u64,
    opts: LeafOptions,
) -> io::Result<LeafBranch> {
    leaf_branch_from_with(read_at, size, opts, None)
}

/// [`load_leaf_branch_with`] from any positioned reader of a file of `size` bytes.
pub fn leaf_branch_from_with(
    read_at: &mut dyn FnMut(&mut [u8], u64) -> io::Result<()>,
    size: u64,
    opts: LeafOptions,
    offsets: Option<&EntryOffsets>,
) -> io::Result<LeafBranch> {
    let mut bytes_read = 0u64;
    let mut read = |buf: &mut [u8], at: u64| {
        bytes_read += buf.len() as u64;
        read_at(buf, at)
    };
    // The header: the first line.
    let mut header = Vec::new();
    let mut header_end = None;
    while header_end.is_none() && (header.len() as u64) < size.min(MAX_LINE_BYTES as u64) {
        let at = header.len() as u64;
        let n = (size - at).min(STEP) as usize;
        header.resize(header.len() + n, 0);
        read(&mut header[at as usize..], at)?;
        if let Some(i) = memchr::memchr(b'\n', &header[at as usize..]) {
            header.truncate(at as usize + i);
            header_end = Some(at + i as u64 + 1);
        }
    }
    let stop = header_end.unwrap_or(size);
    // Back from the end: `buf` holds the bytes [pos, pos + buf.len()) not yet looked at.
    let mut pos = size;
    let mut buf: Vec<u8> = Vec::new();
    let mut branch: Vec<Vec<u8>> = Vec::new();
    let mut wanted: Option<Option<String>> = None; // None: the leaf (any entry)
    let mut complete = false;
    // Bytes read going back, where the last entry kept starts, and an id looked up in vain.
    let mut scanned = 0u64;
    let mut kept_at = size;
    let mut looked_up: Option<String> = None;
    'read: loop {
        // Complete lines at the end of `buf` (the first may be cut unless `pos` is the stop).
        loop {
            let end = buf.len();
            if end == 0 {
                break;
            }
            let body_end = if buf[end - 1] == b'\n' { end - 1 } else { end };
            let start = match memchr::memrchr(b'\n', &buf[..body_end]) {
                Some(nl) => nl + 1,
                None if pos == stop => 0,
                None => break,
            };
            let line = &buf[start..body_end];
            if let Some(link) = link_of(line) {
                let take = match &wanted {
                    None => true,
                    Some(Some(id)) => link.id.as_deref() == Some(id.as_str()),
                    Some(None) => false,
                };
                if take {
                    kept_at = pos + start as u64;
                    branch.push(line.to_vec());
                    let parent = link
                        .parent_id
                        .map(Cow::into_owned)
                        .filter(|p| Some(p.as_str()) != link.id.as_deref());
                    complete = parent.is_none();
                    wanted = Some(parent);
                    if complete || branch.len() >= opts.entries {
                        break 'read;
                    }
                }
            }
            buf.truncate(start);
        }
        if pos <= stop {
            break;
        }
        // The parent is further back than the nearest lines: read it where the index says.
        if let (Some(offsets), Some(Some(id))) = (offsets, &wanted)
            && kept_at - pos >= JUMP_AFTER
            && looked_up.as_deref() != Some(id.as_str())
        {
            looked_up = Some(id.clone());
            let at = offsets.line_of(id).filter(|&at| at >= stop && at < pos);
            if let Some(at) = at
                && let Some(line) = line_at(&mut read, at, pos)?
                && let Some(link) = link_of(&line)
                && link.id.as_deref() == Some(id.as_str())
            {
                let parent = link
                    .parent_id
                    .map(Cow::into_owned)
                    .filter(|p| Some(p.as_str()) != link.id.as_deref());
                branch.push(line);
                complete = parent.is_none();
                wanted = Some(parent);
                if complete || branch.len() >= opts.entries {
                    break 'read;
                }
                pos = at;
                kept_at = at;
                buf.clear();
                continue 'read;
            }
        }
        if scanned >= opts.max_bytes {
            break;
        }
        if buf.len() >= MAX_LINE_BYTES {
            // A line too long to hold: the whole load reports it.
            break;
        }
        let n = (pos - stop).min(STEP);
        pos -= n;
        scanned += n;
        let mut chunk = vec![0u8; n as usize];
        read(&mut chunk, pos)?;
        chunk.extend_from_slice(&buf);
        buf = chunk;
    }
    let mut bytes = header;
    bytes.push(b'\n');
    for line in branch.iter().rev() {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    let session = Session::new(ParsedSession::from_bytes(&bytes));
    Ok(LeafBranch {
        session,
        complete,
        bytes_read,
    })
}

/// The line starting at `at` (without its newline), read in blocks up to `end` (a line
/// start); `None` when no newline comes before `end` or within [`MAX_LINE_BYTES`].
fn line_at(
    read: &mut impl FnMut(&mut [u8], u64) -> io::Result<()>,
    at: u64,
    end: u64,
) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    while at + (line.len() as u64) < end && line.len() < MAX_LINE_BYTES {
        let from = line.len();
        let n = (end - at - from as u64).min(STEP) as usize;
        line.resize(from + n, 0);
        read(&mut line[from..], at + from as u64)?;
        if let Some(i) = memchr::memchr(b'\n', &line[from..]) {
            line.truncate(from + i);
            return Ok(Some(line));
        }
    }
    Ok(None)
}

/// What links a line into the tree (other fields skipped); `None` for a line that is not an
/// entry object (or is a second header).
#[derive(Deserialize)]
struct Link<'a> {
    #[serde(borrow, default, rename = "type")]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "parentId")]
    parent_id: Option<Cow<'a, str>>,
}

fn link_of(line: &[u8]) -> Option<Link<'_>> {
    let link: Link<'_> = serde_json::from_slice(line).ok()?;
    (link.ty.as_deref() != Some("session")).then_some(link)
}
