//! Splitting a session file into lines in bounded memory.
//!
//! A line is held whole only while it is shorter than [`MAX_LINE_BYTES`]; a longer one (a
//! crashed disk's file of NUL bytes, a corrupt or hostile file) is read past without being kept
//! and reported as a [`LongLine`], so no file can make grove hold more than the cap plus a read
//! buffer, whatever its size.

use std::io::{self, Read};

use super::parse::issue::{IssueKind, ParseIssue};
use super::parse::line::RawLine;

/// Lines of this many bytes or more are skipped, not parsed. pi caps a tool result at 50 KB and
/// real lines stay below a few MB (base64 images); 64 MiB leaves room for any real line while
/// bounding what one line can cost.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// A line of [`MAX_LINE_BYTES`] or more, skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongLine {
    pub offset: u64,
    pub number: usize,
    /// Its length without the `\n`.
    pub bytes: u64,
    /// False for a last line without `\n`.
    pub terminated: bool,
}

impl LongLine {
    /// The issue reported for it.
    pub fn issue(&self) -> ParseIssue {
        ParseIssue {
            line: self.number,
            kind: IssueKind::LineTooLong,
            message: format!(
                "line of {} bytes, over the {} MiB limit; skipped",
                self.bytes,
                MAX_LINE_BYTES >> 20
            ),
        }
    }
}

/// One line as read: whole, or too long to hold.
pub enum Line<'a> {
    Whole(RawLine<'a>),
    TooLong(LongLine),
}

/// Calls `f` for every line of `reader`, reading into `buf` (reused across calls: grown to at
/// least `chunk` bytes, and for a long line up to [`MAX_LINE_BYTES`], never further). Returns
/// the total number of bytes read and whether the data ended with `\n` (true for empty input).
pub fn for_each_line_in<R: Read>(
    mut reader: R,
    buf: &mut Vec<u8>,
    chunk: usize,
    start_offset: u64,
    start_line: usize,
    mut f: impl FnMut(Line<'_>),
) -> io::Result<(u64, bool)> {
    if buf.len() < chunk {
        buf.resize(chunk, 0);
    }
    let (mut offset, mut number) = (start_offset, start_line);
    // `buf[..filled]` holds the start of a line whose end is not read yet.
    let mut filled = 0;
    let mut total = 0u64;
    let mut last_newline = true;
    // The bytes of a too-long line read past so far.
    let mut skipping: Option<u64> = None;
    loop {
        if skipping.is_none() && filled == buf.len() {
            if buf.len() >= MAX_LINE_BYTES {
                skipping = Some(filled as u64);
                filled = 0;
            } else {
                let grown = (buf.len() * 2).min(MAX_LINE_BYTES);
                buf.resize(grown, 0);
            }
        }
        let n = match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        last_newline = buf[filled + n - 1] == b'\n';
        // Newlines are searched from here (the carried-over bytes hold none).
        let mut search = filled;
        filled += n;
        if let Some(len) = skipping {
            match memchr::memchr(b'\n', &buf[..filled]) {
                None => {
                    skipping = Some(len + filled as u64);
                    filled = 0;
                    continue;
                }
                Some(pos) => {
                    number += 1;
                    let bytes = len + pos as u64;
                    f(Line::TooLong(LongLine {
                        offset,
                        number,
                        bytes,
                        terminated: true,
                    }));
                    offset += bytes + 1;
                    skipping = None;
                    buf.copy_within(pos + 1..filled, 0);
                    filled -= pos + 1;
                    search = 0;
                }
            }
        }
        let mut start = 0;
        while let Some(pos) = memchr::memchr(b'\n', &buf[search..filled]) {
            let end = search + pos;
            number += 1;
            f(Line::Whole(RawLine {
                offset,
                number,
                bytes: &buf[start..end],
                terminated: true,
            }));
            offset += (end - start) as u64 + 1;
            start = end + 1;
            search = start;
        }
        if start > 0 {
            buf.copy_within(start..filled, 0);
            filled -= start;
        }
    }
    if let Some(len) = skipping {
        f(Line::TooLong(LongLine {
            offset,
            number: number + 1,
            bytes: len + filled as u64,
            terminated: false,
        }));
    } else if filled > 0 {
        f(Line::Whole(RawLine {
            offset,
            number: number + 1,
            bytes: &buf[..filled],
            terminated: false,
        }));
    }
    Ok((total, last_newline))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes at a time.
    struct Pieces<'a>(&'a [u8], usize);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    type Seen = (usize, u64, Result<Vec<u8>, u64>, bool);

    fn lines(data: &[u8], step: usize) -> (Vec<Seen>, usize) {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        for_each_line_in(Pieces(data, step), &mut buf, 1024, 0, 0, |l| {
            out.push(match l {
                Line::Whole(r) => (r.number, r.offset, Ok(r.bytes.to_vec()), r.terminated),
                Line::TooLong(l) => (l.number, l.offset, Err(l.bytes), l.terminated),
            })
        })
        .unwrap();
        (out, buf.len())
    }

    #[test]
    fn a_line_past_the_cap_is_reported_not_held() {
        let long = MAX_LINE_BYTES + 12_345;
        let mut data = b"{\"a\":1}\n".to_vec();
        data.extend(std::iter::repeat_n(0u8, long));
        data.extend_from_slice(b"\nok\n");
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES - 1));
        data.push(b'\n');
        data.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES));
        for step in [1 << 20, 7 << 20, usize::MAX] {
            let (seen, buf_len) = lines(&data, step);
            assert!(buf_len <= MAX_LINE_BYTES, "{buf_len}");
            let short: Vec<_> = seen
                .iter()
                .map(|(n, o, b, t)| (*n, *o, b.as_ref().map(Vec::len).map_err(|e| *e), *t))
                .collect();
            let after = 8 + long as u64 + 1;
            assert_eq!(
                short,
                vec![
                    (1, 0, Ok(7), true),
                    (2, 8, Err(long as u64), true),
                    (3, after, Ok(2), true),
                    (4, after + 3, Ok(MAX_LINE_BYTES - 1), true),
                    (
                        5,
                        after + 3 + MAX_LINE_BYTES as u64,
                        Err(MAX_LINE_BYTES as u64),
                        false
                    ),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn short_lines_in_any_pieces() {
        let data = b"a\n\nbc\nd";
        for step in 1..5 {
            let (seen, _) = lines(data, step);
            assert_eq!(
                seen,
                vec![
                    (1, 0, Ok(b"a".to_vec()), true),
                    (2, 2, Ok(vec![]), true),
                    (3, 3, Ok(b"bc".to_vec()), true),
                    (4, 6, Ok(b"d".to_vec()), false),
                ]
            );
        }
    }
}
