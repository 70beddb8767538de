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

/// The bytes of the two windows [`hashes`] reads, taken from the lines a scan hands over
/// (each complete line, its offset and bytes without the `\n`), so that a file's scan from the
/// start does not open and read it again for them. A line not handed over (too long to hold)
/// leaves a gap: a window it touches is not known, and [`Windows::hashes`] gives `None`.
#[derive(Default)]
pub(crate) struct Windows {
    /// The file's bytes `[0, head.len())`, at most [`HEAD_BLOCK`] of them.
    head: Vec<u8>,
    /// The file's bytes from `tail_start` to the end of the last line handed over, kept only
    /// for lines ending after `tail_from` (once one does, every later one does), at most
    /// 2 × [`TAIL_BLOCK`] of them.
    tail: Vec<u8>,
    tail_start: u64,
    tail_from: u64,
}

impl Windows {
    /// Windows for a scan from the start of a file of `size` bytes: the tail window is kept
    /// for the lines that end in its last [`TAIL_BLOCK`] bytes (where a scan that reads to the
    /// end stops).
    pub(crate) fn new(size: u64) -> Windows {
        Windows {
            tail_from: size.saturating_sub(TAIL_BLOCK),
            ..Windows::default()
        }
    }

    /// The line of `bytes` (without its `\n`) at `at`.
    pub(crate) fn line(&mut self, at: u64, bytes: &[u8]) {
        let end = at + bytes.len() as u64 + 1;
        if at == self.head.len() as u64 && self.head.len() < HEAD_BLOCK as usize {
            let room = HEAD_BLOCK as usize - self.head.len();
            let line = bytes.get(..room).unwrap_or(bytes);
            self.head.extend_from_slice(line);
            if line.len() < room {
                self.head.push(b'\n');
            }
        }
        if end > self.tail_from {
            // Only a line's last TAIL_BLOCK bytes (with its `\n`) can be in the window of a
            // stop at or after its end: a long line is not copied whole.
            let keep_from = (bytes.len() + 1).saturating_sub(TAIL_BLOCK as usize);
            let follows = at == self.tail_start + self.tail.len() as u64;
            if !follows || self.tail.is_empty() || keep_from > 0 {
                self.tail.clear();
                self.tail_start = at + keep_from as u64;
            }
            self.tail
                .extend_from_slice(bytes.get(keep_from..).unwrap_or_default());
            self.tail.push(b'\n');
            if self.tail.len() > 2 * TAIL_BLOCK as usize {
                let old = self.tail.len() - TAIL_BLOCK as usize;
                self.tail.drain(..old);
                self.tail_start += old as u64;
            }
        }
    }

    /// What [`hashes`] would give for a scan that stopped at `offset`, if the lines handed
    /// over hold both windows.
    pub(crate) fn hashes(&self, offset: u64) -> Option<(u64, u64)> {
        // The tail ends where the last line handed over ends: a stop elsewhere (a line after
        // it not handed over) has no known tail.
        if self.tail_start + self.tail.len() as u64 != offset {
            return None;
        }
        let head = self
            .head
            .get(..usize::try_from(offset.min(HEAD_BLOCK)).ok()?)?;
        let from = offset
            .saturating_sub(TAIL_BLOCK)
            .checked_sub(self.tail_start)?;
        let tail = self.tail.get(usize::try_from(from).ok()?..)?;
        Some((hash(head), hash(tail)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines of these lengths, each ended by `\n`, and the last one without when `torn`.
    fn file_of(lens: &[usize], torn: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (i, &n) in lens.iter().enumerate() {
            bytes.extend((0..n).map(|j| b'a' + ((i * 7 + j) % 26) as u8));
            if !(torn && i + 1 == lens.len()) {
                bytes.push(b'\n');
            }
        }
        bytes
    }

    /// Feeds the complete lines of `bytes` (all but those in `skipped`, as a scan skips a line
    /// too long to hold), calling `after` after each; the offset where the scan stops.
    fn feed_checked(
        w: &mut Windows,
        bytes: &[u8],
        skipped: &[usize],
        mut after: impl FnMut(&Windows),
    ) -> u64 {
        let mut at = 0;
        for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            let Some(line) = line.strip_suffix(b"\n") else {
                break;
            };
            if !skipped.contains(&i) {
                w.line(at, line);
                after(w);
            }
            at += line.len() as u64 + 1;
        }
        at
    }

    fn feed(w: &mut Windows, bytes: &[u8], skipped: &[usize]) -> u64 {
        feed_checked(w, bytes, skipped, |_| {})
    }

    proptest! {
        /// The windows taken from the lines hash as the file's bytes read again do, and are
        /// known whenever no line was skipped.
        #[test]
        fn windows_from_the_lines_hash_as_the_file_does(
            lens in prop::collection::vec(0usize..9000, 1..12),
            torn in any::<bool>(),
            skipped in prop::collection::vec(0usize..12, 0..2),
        ) {
            let bytes = file_of(&lens, torn);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            let mut w = Windows::new(bytes.len() as u64);
            let offset = feed(&mut w, &bytes, &skipped);
            let from_file = hashes(&path, offset).ok();
            match w.hashes(offset) {
                Some(h) => prop_assert_eq!(Some(h), from_file),
                None => prop_assert!(!skipped.is_empty() || offset == 0 || torn),
            }
        }
    }

    /// A file that ends in a torn line longer than the tail window: the tail is not among the
    /// lines kept (read from the file instead), the head is.
    #[test]
    fn a_long_torn_last_line_leaves_the_tail_unknown() {
        let bytes = file_of(&[100, 200, 2 * TAIL_BLOCK as usize], true);
        let mut w = Windows::new(bytes.len() as u64);
        let offset = feed(&mut w, &bytes, &[]);
        assert_eq!(offset, 302);
        assert_eq!(w.hashes(offset), None);
        assert_eq!(w.head, bytes[..302]);
    }

    /// However long the lines near the end, the tail kept stays within two windows' bytes.
    #[test]
    fn the_tail_kept_is_bounded() {
        for lens in [&[10, 3000, 1 << 20][..], &[10, 1 << 20, 3000], &[3000; 9]] {
            let bytes = file_of(lens, false);
            let mut w = Windows::new(bytes.len() as u64);
            let at = feed_checked(&mut w, &bytes, &[], |w| {
                assert!(w.tail.len() <= 2 * TAIL_BLOCK as usize, "{}", w.tail.len());
            });
            let last = hash(&bytes[bytes.len() - TAIL_BLOCK as usize..]);
            assert_eq!(w.hashes(at).map(|h| h.1), Some(last), "{lens:?}");
        }
    }

    /// A small file's windows overlap: both are its whole content.
    #[test]
    fn a_small_file_is_both_windows() {
        let bytes = file_of(&[10, 20], false);
        let mut w = Windows::new(bytes.len() as u64);
        let offset = feed(&mut w, &bytes, &[]);
        let whole = hash(&bytes);
        assert_eq!(w.hashes(offset), Some((whole, whole)));
    }
}
