//! Strings of a line, a block of bytes at a time: where a string ends, whether its escapes
//! are valid, and its content unescaped as serde_json does.

use super::simd::{block_masks, masks16};

/// The characters that may follow a backslash, other than `u`.
const SIMPLE_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let chars = *b"\"\\/bfnrt";
    while k < chars.len() {
        t[chars[k] as usize] = true;
        k += 1;
    }
    t
};

// ---------------------------------------------------------------------------------------------
// Strings, a block of bytes at a time.
//
// A string is scanned in blocks of 64 bytes from just after its opening quote. Each block gives
// two bitmasks (bit k = byte k): its quotes and its backslashes. Which bytes are escaped (the
// byte after a backslash that is not itself escaped) follows from the backslash mask alone,
// with one bit carried into the next block ([`escaped_bytes`]); the string ends at the first
// quote that is not escaped. Every escaped byte before it must be a valid escape character:
// escaped quotes and backslashes are recognized from the masks for the whole block at once,
// the others are checked one by one in a table, `\u` needing four hex digits that do not name
// a surrogate. (A mask of `n` and `t` bytes settled those too, but cost more per block than
// the lookups it saved: pi's text has an escape or two in a block of 64.) Most strings (keys,
// ids, short values) end within 16 bytes without an escape, which one 16-byte probe settles
// first.
// Control characters need no check here: lines holding any take the full path
// ([`Cursor::new`]).

/// The end of the string whose content starts at `start` (just after its opening quote): the
/// position of its closing quote and whether it holds escapes; `None` for an invalid escape, a
/// `\u` escape of a surrogate, or no closing quote. `b` must hold no byte below 0x20
/// ([`has_control`]); such bytes are not looked at.
///
/// Inlined: most strings (keys, ids, short values; 6.5 M of them at 1k real-pi sessions) end
/// in the probe, where a call's prologue and epilogue cost about as much as the probe itself.
#[inline]
pub(super) fn string_end(b: &[u8], start: usize) -> Option<(usize, bool)> {
    if let Some(probe) = b.get(start..start + 16) {
        let m = masks16(probe.try_into().ok()?);
        let first = m.quote & m.quote.wrapping_neg();
        if first != 0 && m.backslash & (first - 1) == 0 {
            return Some((start + first.trailing_zeros() as usize, false));
        }
        if m.quote | m.backslash == 0 {
            return string_end_long(b, start + 16);
        }
    }
    string_end_blocks(b, start)
}

/// The end of a key whose content starts at `start`: the position of its closing quote, `None`
/// when a backslash comes first (keys with escapes take the full path) or nothing closes it.
/// Keys are short: one 16-byte probe settles nearly all.
#[inline]
pub(super) fn key_end(b: &[u8], start: usize) -> Option<usize> {
    let at = match b.get(start..start + 16) {
        Some(probe) => {
            let m = masks16(probe.try_into().ok()?);
            match m.quote | m.backslash {
                0 => first_stop(b, start + 16)?,
                stops => start + stops.trailing_zeros() as usize,
            }
        }
        None => first_stop(b, start)?,
    };
    (*b.get(at)? == b'"').then_some(at)
}

/// The first quote or backslash from `start`: `memchr2`, AVX2 when the CPU has it (chosen at
/// run time).
fn first_stop(b: &[u8], start: usize) -> Option<usize> {
    Some(start + memchr::memchr2(b'"', b'\\', b.get(start..)?)?)
}

/// [`string_end`] of a string whose first 16 bytes are plain, from `start` (just after them).
/// Such a string is often long and plain up to its end or its first escape (a signature, the
/// start of a tool's output): [`first_stop`] finds the first quote or backslash faster than
/// the blocks would. A quote there ends a string
/// without escapes; at a backslash the blocks take over.
#[inline(never)]
fn string_end_long(b: &[u8], start: usize) -> Option<(usize, bool)> {
    let at = first_stop(b, start)?;
    match b.get(at)? {
        b'"' => Some((at, false)),
        // Not escaped: the byte before it is plain (the first backslash from `start`).
        _ => string_end_blocks(b, at),
    }
}

/// [`string_end`] past its probe: a block of 64 bytes at a time from `start`, which must not
/// be the byte after a backslash.
#[inline(never)]
fn string_end_blocks(b: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut pad = [0u8; 64];
    let mut carry = 0;
    let mut has_escape = false;
    let mut i = start;
    loop {
        let block: &[u8; 64] = match b.get(i..i + 64) {
            Some(block) => block.try_into().ok()?,
            None => {
                // The line's last bytes, padded with NULs (neither quote nor backslash): a
                // string that does not end before them runs past the line and is rejected.
                let rest = b.get(i..)?;
                pad[..rest.len()].copy_from_slice(rest);
                &pad
            }
        };
        let m = block_masks(block);
        let escaped = escaped_bytes(m.backslash, &mut carry);
        let quote = m.quote & !escaped;
        let first = quote & quote.wrapping_neg();
        // The bytes before the end (all of them when the string goes on).
        let before = first.wrapping_sub(1);
        let escapes = escaped & before;
        if escapes != 0 {
            has_escape = true;
            let mut rare = escapes & !(m.quote | m.backslash);
            while rare != 0 {
                valid_rare_escape(b, i + rare.trailing_zeros() as usize)?;
                rare &= rare - 1;
            }
        }
        if first != 0 {
            let end = i + first.trailing_zeros() as usize;
            // A quote in the padding is impossible (NULs), but keep the end inside the line.
            return (end < b.len()).then_some((end, has_escape));
        }
        i += 64;
    }
}

/// The content of a string that [`string_end`] took (every escape valid, no surrogate) with its
/// escapes replaced, as serde_json does.
pub(super) fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    unescaped_pieces(s, |piece| {
        out.push_str(piece);
        true
    })?;
    Some(out)
}

/// Hands the unescaped content of such a string to `piece` in order: runs of plain text and the
/// character of each escape. Stops early when `piece` returns false.
pub(super) fn unescaped_pieces(s: &str, mut piece: impl FnMut(&str) -> bool) -> Option<()> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', b.get(i..)?) {
        let at = i + k;
        if !piece(s.get(i..at)?) {
            return Some(());
        }
        let (c, len) = match *b.get(at + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let mut v = 0u32;
                for &h in b.get(at + 2..at + 6)? {
                    v = v * 16 + char::from(h).to_digit(16)?;
                }
                (char::from_u32(v)?, 6)
            }
            _ => return None,
        };
        if !piece(c.encode_utf8(&mut [0u8; 4])) {
            return Some(());
        }
        i = at + len;
    }
    piece(s.get(i..)?);
    Some(())
}

/// Whether the escape character at `at` (after a backslash) is one of `/ b f n r t` or a `\u`
/// with four hex digits naming no surrogate (escaped quotes and backslashes are checked
/// before).
fn valid_rare_escape(b: &[u8], at: usize) -> Option<()> {
    let c = *b.get(at)?;
    if SIMPLE_ESCAPE[usize::from(c)] {
        return Some(());
    }
    if c != b'u' {
        return None;
    }
    let mut v = 0u32;
    for &h in b.get(at + 1..at + 5)? {
        v = v * 16 + char::from(h).to_digit(16)?;
    }
    (!(0xD800..0xE000).contains(&v)).then_some(())
}

/// The bytes escaped by a backslash, given the block's backslashes and whether its first byte
/// is escaped by a backslash that ended the block before (`carry`, updated for the next one).
/// A run of backslashes escapes every second byte from its start, so it escapes the byte after
/// it when its length is odd; the subtraction finds, for each run, where it ends (as in
/// simdjson's stage 1).
fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    if backslash == 0 {
        return std::mem::take(carry);
    }
    // Backslashes that start an escape: not escaped themselves by the previous block.
    let potential = backslash & !*carry;
    let maybe_escaped = potential << 1;
    let code = (maybe_escaped | ODD_BITS).wrapping_sub(potential) ^ ODD_BITS;
    let escaped = code ^ (backslash | *carry);
    let escaping = code & backslash;
    *carry = escaping >> 63;
    escaped
}

/// Whether any byte is below 0x20 (a control character). The minimum of each byte position
/// over 16-byte blocks, looked at once at the end: two vector instructions per block.
pub(super) fn has_control(b: &[u8]) -> bool {
    let (blocks, rest) = b.as_chunks::<16>();
    let mut min = [u8::MAX; 16];
    for block in blocks {
        for (m, &c) in min.iter_mut().zip(block) {
            *m = (*m).min(c);
        }
    }
    min.iter().chain(rest).any(|&c| c < 0x20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scan::Cursor;

    /// The string rules one byte at a time: the reference for [`string_end`].
    fn string_end_reference(b: &[u8], start: usize) -> Option<(usize, bool)> {
        let mut i = start;
        let mut escaped = false;
        loop {
            match *b.get(i)? {
                b'"' => return Some((i, escaped)),
                b'\\' => {
                    escaped = true;
                    let c = *b.get(i + 1)?;
                    if matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                        i += 2;
                    } else if c == b'u' {
                        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                        if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                            return None;
                        }
                        let v = u32::from_str_radix(hex, 16).ok()?;
                        if (0xD800..0xE000).contains(&v) {
                            return None;
                        }
                        i += 6;
                    } else {
                        return None;
                    }
                }
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
    }

    /// What a string may hold, to put at every position of a block.
    const STRING_SNIPPETS: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\\\"",
        b"\\\\",
        b"\\\\\"",
        b"\\\\\\\"",
        b"\\n",
        b"\\t",
        b"\\/",
        b"\\b\\f\\r",
        b"\\u00e9",
        b"\\u00E9\\u0041",
        b"\\ud83d\\ude00",
        b"\\udfff",
        b"\\ue000",
        b"\\u12",
        b"\\u12g4",
        b"\\x",
        b"\\a",
        b"\\U0041",
        b"\\\x01",
        b"\x01",
        b"\x1f",
        b"\x00",
        b"\t",
        b"\x7f",
        b" ",
        b"\xc3\xa9",
        b"\xff",
    ];

    fn check_string_end(b: &[u8]) {
        if has_control(b) {
            // Such lines never reach the string scanner.
            assert!(Cursor::new(b).is_none());
            let clean: Vec<u8> = b.iter().map(|&c| c.max(0x20)).collect();
            return check_string_end(&clean);
        }
        for start in 0..=b.len() {
            assert_eq!(
                string_end(b, start),
                string_end_reference(b, start),
                "{:?} from {start}",
                String::from_utf8_lossy(b)
            );
        }
    }

    #[test]
    fn unescaping_matches_serde_json() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for a in STRING_SNIPPETS {
            for b in STRING_SNIPPETS {
                cases.push([&b"x"[..], a, b"yy", b, b"z"].concat());
                cases.push([*a, *b].concat());
            }
        }
        let mut taken = 0;
        for content in cases {
            let mut quoted = content.clone();
            quoted.push(b'"');
            if has_control(&quoted) {
                continue;
            }
            let Ok(text) = std::str::from_utf8(&content) else {
                continue;
            };
            let Some((end, true)) = string_end(&quoted, 0) else {
                continue;
            };
            if end != content.len() {
                continue;
            }
            let json = format!("\"{text}\"");
            let expected: String = serde_json::from_str(&json).expect(&json);
            assert_eq!(unescape(text).as_deref(), Some(expected.as_str()), "{json}");
            taken += 1;
        }
        assert!(taken > 300, "{taken}");
    }

    #[test]
    fn string_end_matches_the_reference_with_specials_at_every_offset() {
        // Before, across and after the 16-byte probe and the 64-byte blocks, with the string
        // ending right after the snippet, later, or not at all.
        for snippet in STRING_SNIPPETS {
            for at in 0..140 {
                for tail in [
                    &b""[..],
                    b"\"",
                    b"z\"",
                    b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\",1",
                ] {
                    let mut b = vec![b'a'; at];
                    b.extend_from_slice(snippet);
                    b.extend_from_slice(tail);
                    check_string_end(&b);
                }
            }
        }
    }

    #[test]
    fn key_end_is_the_first_quote_before_any_backslash_at_every_offset() {
        for special in [&b"\""[..], b"\\", b"\\\"", b"\"\\"] {
            for at in 0..40 {
                for tail in [&b""[..], b"\"", b"zz", b"zzzzzzzzzzzzzzzzzzzz\":1"] {
                    for start in 0..3 {
                        let mut b = vec![b'a'; at];
                        b.extend_from_slice(special);
                        b.extend_from_slice(tail);
                        if start > b.len() {
                            continue;
                        }
                        let first = b[start..].iter().position(|&c| c == b'"' || c == b'\\');
                        let expected = first.map(|k| start + k).filter(|&k| b[k] == b'"');
                        assert_eq!(key_end(&b, start), expected, "{b:?} from {start}");
                    }
                }
            }
        }
    }

    #[test]
    fn string_end_matches_the_reference_for_backslash_runs_across_blocks() {
        for run in 1..140 {
            for at in [0, 1, 14, 15, 16, 17, 31, 62, 63, 64, 65, 127, 128] {
                for after in [&b"\""[..], b"n\"", b"x\"", b"u0041\"", b""] {
                    let mut b = vec![b'a'; at];
                    b.extend(std::iter::repeat_n(b'\\', run));
                    b.extend_from_slice(after);
                    b.extend_from_slice(b"tail\"");
                    check_string_end(&b);
                }
            }
        }
    }

    #[test]
    fn string_end_matches_the_reference_on_random_strings() {
        // A small deterministic generator (no dependency): strings dense with specials.
        let alphabet: &[u8] = b"aaaaaaaaaaaaaaaaaaaa\"\\\\\\nntu/bfr0D8e\x01\x1f\x7f \xc3\xa9";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let len = (next() % 300) as usize;
            let b: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            check_string_end(&b);
        }
    }

    #[test]
    fn control_characters_are_found_at_every_position() {
        for len in [0, 1, 31, 32, 33, 64, 95, 100] {
            assert!(!has_control(&vec![b'a'; len]));
            for at in 0..len {
                for c in [0u8, 1, 9, 10, 13, 0x1f] {
                    let mut b = vec![0xffu8; len];
                    b[at] = c;
                    assert!(has_control(&b), "{c} at {at} of {len}");
                }
                let mut b = vec![b'a'; len];
                b[at] = 0x20;
                assert!(!has_control(&b));
            }
        }
    }

    #[test]
    fn escaped_bytes_follow_backslash_runs_across_blocks() {
        // Reference: walk the bits; a backslash that is not escaped escapes the next byte.
        let reference = |blocks: &[u64]| -> Vec<u64> {
            let mut out = vec![0u64; blocks.len()];
            let mut escape_next = false;
            for (n, &bs) in blocks.iter().enumerate() {
                for k in 0..64 {
                    if escape_next {
                        out[n] |= 1 << k;
                        escape_next = false;
                    } else if bs >> k & 1 == 1 {
                        escape_next = true;
                    }
                }
            }
            out
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut cases: Vec<Vec<u64>> = vec![
            vec![!0, !0, 0],
            vec![1 << 63, 0],
            vec![1 << 63, 1],
            vec![3 << 62, 1],
            vec![!0 >> 1, !0, 1],
        ];
        for _ in 0..5000 {
            // Dense runs: the AND/OR of random words.
            let n = 1 + (next() % 4) as usize;
            cases.push((0..n).map(|_| next() | next() | next()).collect());
            cases.push((0..n).map(|_| next() & next()).collect());
        }
        for blocks in cases {
            let mut carry = 0;
            let got: Vec<u64> = blocks
                .iter()
                .map(|&bs| escaped_bytes(bs, &mut carry))
                .collect();
            assert_eq!(got, reference(&blocks), "{blocks:x?}");
        }
    }
}
