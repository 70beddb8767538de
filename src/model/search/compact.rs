//! A session's prepared text as the browser holds it: LZ4-compressed (10k sessions' lowercased
//! text is ~280 MB raw, a few times less compressed), decompressed into a buffer of the
//! searching thread for each search. Short texts stay as they are.

use std::borrow::Cow;
use std::cell::RefCell;

use super::js::js_lower_into;

/// Below this many bytes a text is kept as it is.
const COMPRESS_FROM: usize = 1024;
/// A thread's buffer grown past this for one large session is given back after use.
const KEEP_BUFFER: usize = 4 << 20;

#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Compact {
    Plain(String),
    Lz4 { len: usize, bytes: Box<[u8]> },
}

impl Default for Compact {
    fn default() -> Self {
        Compact::Plain(String::new())
    }
}

impl std::fmt::Debug for Compact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Compact::Plain(s) => write!(f, "Plain({} bytes)", s.len()),
            Compact::Lz4 { len, bytes } => write!(f, "Lz4({len} bytes in {})", bytes.len()),
        }
    }
}

thread_local! {
    static TEXT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static TOOLS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

thread_local! {
    /// The lowercased text and its compression, before the result is copied out at its size.
    static SCRATCH: RefCell<(String, Vec<u8>)> = const { RefCell::new((String::new(), Vec::new())) };
}

impl Compact {
    /// `js_lower(s)`, compressed when that makes it smaller. The lowercasing and compressing
    /// happen in buffers of this thread used again for every text, and what is kept is
    /// allocated once at its size: loading 10k sessions leaves no holes of freed raw text
    /// between the kept ones (each hole stayed in the process's RSS).
    pub(crate) fn lowered(s: &str) -> Self {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                let (lower, out) = &mut *scratch;
                let c = Self::lowered_in(s, lower, out);
                if lower.capacity() > KEEP_BUFFER {
                    *lower = String::new();
                    *out = Vec::new();
                }
                c
            }
            Err(_) => Self::lowered_in(s, &mut String::new(), &mut Vec::new()),
        })
    }

    fn lowered_in(s: &str, lower: &mut String, out: &mut Vec<u8>) -> Self {
        lower.clear();
        js_lower_into(s, lower);
        if lower.len() < COMPRESS_FROM {
            return Compact::Plain(lower.as_str().to_owned());
        }
        out.clear();
        out.resize(lz4_flex::block::get_maximum_output_size(lower.len()), 0);
        match lz4_flex::block::compress_into(lower.as_bytes(), out) {
            Ok(n) if n < lower.len() => Compact::Lz4 {
                len: lower.len(),
                bytes: out[..n].into(),
            },
            _ => Compact::Plain(lower.as_str().to_owned()),
        }
    }

    /// The bytes held.
    pub(crate) fn held(&self) -> usize {
        match self {
            Compact::Plain(s) => s.capacity(),
            Compact::Lz4 { bytes, .. } => bytes.len(),
        }
    }

    /// The text (decompressed into a new string).
    pub(crate) fn text(&self) -> Cow<'_, str> {
        match self {
            Compact::Plain(s) => Cow::Borrowed(s),
            Compact::Lz4 { .. } => Cow::Owned(with(self, &TEXT, str::to_owned)),
        }
    }
}

/// Calls `f` with the message text and the tool text of a prepared session, decompressed into
/// this thread's buffers.
pub(crate) fn with_both<R>(text: &Compact, tools: &Compact, f: impl FnOnce(&str, &str) -> R) -> R {
    with(text, &TEXT, |t| with(tools, &TOOLS, |u| f(t, u)))
}

fn with<R>(
    c: &Compact,
    buffer: &'static std::thread::LocalKey<RefCell<Vec<u8>>>,
    f: impl FnOnce(&str) -> R,
) -> R {
    let (len, bytes) = match c {
        Compact::Plain(s) => return f(s),
        Compact::Lz4 { len, bytes } => (*len, bytes),
    };
    buffer.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            let r = decompressed(&mut buf, len, bytes, f);
            if buf.capacity() > KEEP_BUFFER {
                *buf = Vec::new();
            }
            r
        }
        // Used already further up this thread's stack: a buffer of its own.
        Err(_) => decompressed(&mut Vec::new(), len, bytes, f),
    })
}

fn decompressed<R>(buf: &mut Vec<u8>, len: usize, bytes: &[u8], f: impl FnOnce(&str) -> R) -> R {
    buf.clear();
    buf.resize(len, 0);
    // Compressed here from a `String`: it decompresses whole and is UTF-8 (else: no text).
    let text = match lz4_flex::block::decompress_into(bytes, buf) {
        Ok(n) if n == len => simdutf8::basic::from_utf8(buf).unwrap_or_default(),
        _ => "",
    };
    f(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_text_reads_back_whole() {
        let long = "the quick brown fox jumps over the lazy dog, ünïcode too. ".repeat(100);
        let c = Compact::lowered(&long.to_uppercase());
        assert!(matches!(c, Compact::Lz4 { .. }), "{c:?}");
        assert!(c.held() < long.len() / 4, "{c:?}");
        assert_eq!(c.text(), long);
        let tools = Compact::lowered("bash cargo TEST");
        assert!(matches!(tools, Compact::Plain(_)));
        // Both at once, and nested on the same thread.
        with_both(&c, &c, |a, b| {
            assert_eq!((a, b), (long.as_str(), long.as_str()));
            with_both(&c, &tools, |x, y| {
                assert_eq!((x, y), (long.as_str(), "bash cargo test"))
            });
        });
    }
}
