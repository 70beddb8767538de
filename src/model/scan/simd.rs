//! Bitmasks of a block's quotes and backslashes: SSE2 on x86-64 (always there,
//! through `safe_arch`'s safe wrappers), one byte at a time elsewhere.

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use safe_arch::{
    cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
};

/// Bitmasks of a block's bytes (bit k = byte k).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Masks {
    pub(super) quote: u64,
    pub(super) backslash: u64,
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn eq(v: m128i, c: u8) -> m128i {
    cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(i8::from_ne_bytes([c])))
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn mask(v: m128i) -> u64 {
    u64::from(move_mask_i8_m128i(v) as u16)
}

/// The masks of 16 bytes with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) fn masks16(b: &[u8; 16]) -> Masks {
    let v = load_unaligned_m128i(b);
    Masks {
        quote: mask(eq(v, b'"')),
        backslash: mask(eq(v, b'\\')),
    }
}

/// Elsewhere, one byte at a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) fn masks16(b: &[u8; 16]) -> Masks {
    masks16_portable(b)
}

/// [`masks16`] one byte at a time (the reference the SIMD version is tested against).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn masks16_portable(b: &[u8; 16]) -> Masks {
    let mut m = Masks::default();
    for (k, &c) in b.iter().enumerate() {
        m.quote |= u64::from(c == b'"') << k;
        m.backslash |= u64::from(c == b'\\') << k;
    }
    m
}

pub(super) fn block_masks(b: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (q, shift) in b.as_chunks::<16>().0.iter().zip([0, 16, 32, 48]) {
        let part = masks16(q);
        m.quote |= part.quote << shift;
        m.backslash |= part.backslash << shift;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_masks_match_the_portable_ones_for_every_byte_at_every_position() {
        for byte in 0..=255u8 {
            for at in 0..16 {
                let mut b = [b'a'; 16];
                b[at] = byte;
                assert_eq!(masks16(&b), masks16_portable(&b), "{byte} at {at}");
                let mut b = [byte; 16];
                b[at] = b'a';
                assert_eq!(masks16(&b), masks16_portable(&b), "{byte} not at {at}");
            }
        }
    }
}
