//! Reading a file in blocks of whole lines on one thread and parsing each block's lines (in
//! parallel when it is big), whole or slim.

use std::io::{self, Read};

use super::issue::ParseIssue;
use super::line::{LineValue, RawLine, parse_line};
use crate::model::entry::{Entry, JsonMap, LineSource};
use crate::model::lines::{LongLine, MAX_LINE_BYTES};
use crate::model::scan::skim::skim_line;

/// Lines are parsed in parallel in blocks of about this many bytes: big sessions open in a
/// fraction of the time, and only a few blocks of raw lines are held at once.
pub(super) const BLOCK_BYTES: usize = 8 << 20;

/// What a slim load needs: the file to read whole entries back from (lines are parsed slim by
/// [`skim_line`]).
#[derive(Clone, Copy)]
pub struct SlimLoad<'a> {
    pub source: &'a std::sync::Arc<dyn LineSource>,
    /// The file's size, to make room for its entries at once rather than by doubling.
    pub expected_bytes: u64,
}

/// A line's parse: an object (as an entry when it may be one), or why there is none.
pub(super) enum Parsed {
    Blank,
    Bad(ParseIssue),
    /// The first line of the file: maybe the header, kept as an object.
    First(JsonMap, Option<ParseIssue>),
    Entry(Entry, Option<ParseIssue>),
}

/// Consecutive whole lines of the file (the last block may end without a newline), or one
/// line too long to hold (`data` then empty).
pub(super) struct Block {
    pub(super) data: Vec<u8>,
    pub(super) offset: u64,
    pub(super) too_long: Option<LongLine>,
}

/// Reads `reader` in blocks of whole lines of about [`BLOCK_BYTES`] (a longer line makes a
/// longer block, up to [`MAX_LINE_BYTES`]; a line past that is read past in blocks and handed
/// on as a [`Block`] of its own, `too_long`), handing each to `f`; buffers sent back on `spare`
/// are reused, so a big file does not fault in fresh memory for every block. Returns the bytes
/// read and whether they ended with `\n`.
pub(super) fn read_blocks<R: Read>(
    mut reader: R,
    spare: &std::sync::mpsc::Receiver<Vec<u8>>,
    mut f: impl FnMut(Block),
) -> io::Result<(u64, bool)> {
    let mut carry: Vec<u8> = Vec::new();
    let mut offset = 0u64;
    let mut total = 0u64;
    let mut last_newline = true;
    loop {
        let mut data = spare.try_recv().unwrap_or_default();
        let kept = carry.len();
        // Doubling for a line longer than a block: no quadratic copying.
        let want = kept.max(BLOCK_BYTES);
        // The carried partial line, then the read into the rest. A buffer that comes back is
        // already as long (`read_to_end` would zero the whole block again before every read).
        if data.len() < kept + want {
            data.resize(kept + want, 0);
        }
        data[..kept].copy_from_slice(&carry);
        carry.clear();
        let n = read_full(&mut reader, &mut data[kept..kept + want])?;
        data.truncate(kept + n);
        let (n, want) = (n as u64, want as u64);
        total += n;
        let eof = n < want;
        if n > 0 {
            last_newline = data.last() == Some(&b'\n');
        }
        if !eof {
            match memchr::memrchr(b'\n', &data) {
                // Keep the partial last line for the next block.
                Some(end) => {
                    carry.extend_from_slice(&data[end + 1..]);
                    data.truncate(end + 1);
                }
                None if data.len() >= MAX_LINE_BYTES => {
                    let (long, rest, n, eof) = skip_long_line(&mut reader, data, offset)?;
                    total += n;
                    last_newline = rest.last().map_or(long.terminated, |&b| b == b'\n');
                    offset += long.bytes + u64::from(long.terminated);
                    f(Block {
                        data: Vec::new(),
                        offset: long.offset,
                        too_long: Some(long),
                    });
                    if eof && rest.is_empty() {
                        break;
                    }
                    carry = rest;
                    continue;
                }
                None => {
                    carry = data;
                    continue;
                }
            }
        }
        if data.is_empty() {
            break;
        }
        let block_len = data.len() as u64;
        f(Block {
            data,
            offset,
            too_long: None,
        });
        offset += block_len;
        if eof {
            break;
        }
    }
    Ok((total, last_newline))
}

/// At most this many bytes are asked of the reader at once: a cancellable load is asked
/// whether it was cancelled before every read, so it stops within a megabyte.
const READ_BYTES: usize = 1 << 20;

/// Reads into `buf` until it is full or the input ends, [`READ_BYTES`] at a time; returns the
/// bytes read.
fn read_full<R: Read>(reader: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let end = buf.len().min(filled + READ_BYTES);
        match reader.read(&mut buf[filled..end]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads past the rest of a line that starts at `offset` and whose first `data.len()` bytes
/// (no newline among them) are in `data`, reusing `data` as the read buffer. Returns the line,
/// the bytes read after its end (in `data`), the bytes read here and whether the input ended.
/// The line's number is left 0: lines are numbered by the parser.
fn skip_long_line<R: Read>(
    reader: &mut R,
    mut data: Vec<u8>,
    offset: u64,
) -> io::Result<(LongLine, Vec<u8>, u64, bool)> {
    let mut len = data.len() as u64;
    let mut read = 0u64;
    data.resize(BLOCK_BYTES, 0);
    loop {
        let n = match reader.read(&mut data) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        read += n as u64;
        if n == 0 {
            data.clear();
            let long = LongLine {
                offset,
                number: 0,
                bytes: len,
                terminated: false,
            };
            return Ok((long, data, read, true));
        }
        if let Some(pos) = memchr::memchr(b'\n', &data[..n]) {
            data.truncate(n);
            let rest = data.split_off(pos + 1);
            let long = LongLine {
                offset,
                number: 0,
                bytes: len + pos as u64,
                terminated: true,
            };
            return Ok((long, rest, read, false));
        }
        len += n as u64;
    }
}

/// The number of entries a file of `load.expected_bytes` holds, extrapolated from the entries
/// of its first block, plus 5%; held to one per 128 bytes in case that block is not like the
/// rest (what is reserved beyond what is used is address space, never touched).
pub(super) fn expected_entries(first: &Block, entries: usize, load: SlimLoad<'_>) -> usize {
    let bytes = first.data.len().max(1) as u64;
    let estimate = load.expected_bytes.saturating_mul(entries as u64) / bytes;
    let cap = load.expected_bytes / 128;
    estimate.saturating_add(estimate / 20).min(cap) as usize
}

impl Block {
    /// Parses every line of the block (in parallel when it is big), in file order; the first
    /// is line number `first_line`.
    pub(super) fn parse(
        &self,
        first_line: usize,
        slim: Option<SlimLoad<'_>>,
    ) -> Vec<(usize, Parsed)> {
        use rayon::prelude::*;
        if let Some(long) = self.too_long {
            let long = LongLine {
                number: first_line,
                ..long
            };
            return vec![(first_line, Parsed::Bad(long.issue()))];
        }
        let mut lines = Vec::new();
        let mut start = 0usize;
        let mut number = first_line;
        for end in memchr::memchr_iter(b'\n', &self.data) {
            lines.push((start, end, number, true));
            start = end + 1;
            number += 1;
        }
        if start < self.data.len() {
            lines.push((start, self.data.len(), number, false));
        }
        let parse = |&(start, end, number, terminated): &(usize, usize, usize, bool)| {
            if end - start >= MAX_LINE_BYTES {
                // Held only because it ended within a read: skipped all the same.
                let long = LongLine {
                    offset: self.offset + start as u64,
                    number,
                    bytes: (end - start) as u64,
                    terminated,
                };
                return (number, Parsed::Bad(long.issue()));
            }
            let line = RawLine {
                offset: self.offset + start as u64,
                number,
                bytes: &self.data[start..end],
                terminated,
            };
            (number, parse_one(&line, slim))
        };
        if self.data.len() >= 1 << 20 {
            lines.par_iter().map(parse).collect()
        } else {
            lines.iter().map(parse).collect()
        }
    }
}

/// One line: slim when a slim load takes it, else whole.
fn parse_one(line: &RawLine<'_>, slim: Option<SlimLoad<'_>>) -> Parsed {
    // The first line (the header, maybe after a byte-order mark) is always whole.
    if let Some(load) = slim
        && line.offset > 0
        && let Some(skimmed) = skim_line(line.bytes)
    {
        return Parsed::Entry(
            if skimmed.elided {
                let at = (line.offset, line.bytes.len());
                Entry::new_slim(skimmed, line.number, at, load.source.clone())
            } else {
                Entry::new(skimmed.object, line.number)
            },
            None,
        );
    }
    match parse_line(line) {
        LineValue::Blank => Parsed::Blank,
        LineValue::Bad(issue) => Parsed::Bad(issue),
        LineValue::Object(map, repaired) if line.offset == 0 => Parsed::First(map, repaired),
        LineValue::Object(map, repaired) => Parsed::Entry(Entry::new(map, line.number), repaired),
    }
}
