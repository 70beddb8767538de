//! What the index trusts about a file it has seen, and the stored scan state.
//!
//! A row is used as is when the file's device, inode, size, mtime and ctime all equal the
//! row's. A file that only grew (same device and inode, larger) is read from where the last
//! scan stopped (the end of its last complete line) when two windows of the old bytes hash as
//! they did: the first [`HEAD_BLOCK`] bytes (the header and the first entries: cwd, first
//! message) and the [`TAIL_BLOCK`] bytes before the resume offset. Anything else is a full
//! rescan. What is trusted, exactly: that a file which grew, kept its inode, and kept both
//! windows byte for byte, did not change in between. An edit in place that also grows the file
//! and changes only bytes outside the two windows goes unseen until the file is rewritten.

use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes at the start of a file hashed for the resume check.
pub const HEAD_BLOCK: u64 = 16 << 10;
/// Bytes before the resume offset hashed for the resume check.
pub const TAIL_BLOCK: u64 = 4 << 10;

/// A stable hash (foldhash's quality hasher with a fixed seed; only ever compared with hashes
/// this build wrote: another build's differ at worst, which costs a rescan).
pub fn hash(bytes: &[u8]) -> u64 {
    foldhash::quality::FixedState::with_seed(0x0067_726f_7665).hash_one(bytes)
}

/// Hash of the file's bytes `[start, end)`.
fn hash_range(file: &mut File, start: u64, end: u64) -> io::Result<u64> {
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity((end - start) as usize);
    file.take(end - start).read_to_end(&mut buf)?;
    if (buf.len() as u64) < end - start {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(hash(&buf))
}

/// The head and tail hashes of a file whose scan stopped at `offset`.
pub fn hashes(path: &Path, offset: u64) -> io::Result<(u64, u64)> {
    let mut f = File::open(path)?;
    let head = hash_range(&mut f, 0, offset.min(HEAD_BLOCK))?;
    let tail = hash_range(&mut f, offset.saturating_sub(TAIL_BLOCK), offset)?;
    Ok((head, tail))
}

/// Stands for a non-empty stored text while a grown file is resumed: the scanner only needs
/// to know that text came before (it then puts a space before the next message's), so the
/// stored text is neither read nor rewritten; the new text is what follows this mark.
pub const TEXT_MARK: &str = "\0";
