//! The structural scan: classifies 64 input bytes at a time into bitmasks (bit `i` = byte `i`),
//! in the manner of simdjson's stage 1, carrying "inside a string" and "escaped by a trailing
//! backslash" from one block to the next so blocks can arrive in any chunking.
//!
//! Written here rather than taken from a crate because no crate exposes a *resumable*
//! structural index: simd-json's stage 1 needs the whole document and rejects an unterminated
//! string at the end of its input, which is exactly the state a chunk boundary leaves behind.
//! The SIMD compares come from `sonic-simd` (the portable layer sonic-rs uses: AVX2, SSE2, NEON
//! or scalar, chosen at compile time), so this file contains no `unsafe` intrinsics of its own.

use sonic_simd::{Mask, Simd, i8x64, u8x64};

/// Bytes per block.
pub(crate) const BLOCK: usize = 64;

/// What carries from the end of one block into the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Carry {
    /// All ones when the block starts inside a string, else zero.
    pub in_string: u64,
    /// 1 when the block's first byte is escaped by a backslash at the end of the previous block.
    pub escaped: u64,
}

/// The classification of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Masks {
    /// `{` and `[` outside strings.
    pub open: u64,
    /// `}` and `]` outside strings.
    pub close: u64,
    /// Bytes >= 0x80 anywhere (they call for a UTF-8 check of the element holding them).
    pub non_ascii: u64,
}

const EVEN: u64 = 0x5555_5555_5555_5555;
const ODD: u64 = !EVEN;

/// The bytes escaped by a backslash, given the backslash mask and the carry-in; updates the carry.
///
/// A maximal run of backslashes escapes the byte after it when the run is odd. Adding one at
/// a run's start carries through the run and lands on the byte after it, so (sum & !run)
/// marks run ends; doing it separately for runs starting on even and odd bits tells the run's
/// parity from the parity of its end. A run reaching bit 63 overflows; it is odd exactly when it
/// started on an odd bit, which is then the carry into the next block. A run continuing from
/// the previous block only matters through that carry: an escaped first backslash is dropped.
#[inline(always)]
pub(crate) fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    let run = backslash & !*carry;
    let starts = run & !(run << 1);
    let even_ends = run.wrapping_add(starts & EVEN) & !run;
    let (odd_sum, overflow) = run.overflowing_add(starts & ODD);
    let odd_ends = odd_sum & !run;
    let escaped = (even_ends & ODD) | (odd_ends & EVEN) | *carry;
    *carry = u64::from(overflow);
    escaped
}

/// Bit `i` = XOR of bits `0..=i`: turns unescaped quotes into "inside a string" (opening quote
/// included, closing quote excluded). Six shift-xors, portable; a carry-less multiply would be
/// one instruction but needs `pclmulqdq` and `unsafe`.
#[inline(always)]
pub(crate) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Classifies exactly 64 bytes.
#[inline(always)]
pub(crate) fn classify(block: &[u8; BLOCK], carry: &mut Carry) -> Masks {
    // SAFETY: `block` is 64 readable bytes, the width of u8x64/i8x64; the loads are unaligned.
    let (v, signed) = unsafe { (u8x64::loadu(block.as_ptr()), i8x64::loadu(block.as_ptr())) };
    let quote = v.eq(&u8x64::splat(b'"')).bitmask();
    let backslash = v.eq(&u8x64::splat(b'\\')).bitmask();
    let open = (v.eq(&u8x64::splat(b'{')) | v.eq(&u8x64::splat(b'['))).bitmask();
    let close = (v.eq(&u8x64::splat(b'}')) | v.eq(&u8x64::splat(b']'))).bitmask();
    let non_ascii = i8x64::splat(0).gt(&signed).bitmask();

    let escaped = if backslash == 0 && carry.escaped == 0 {
        0
    } else {
        escaped_bytes(backslash, &mut carry.escaped)
    };
    let in_string = prefix_xor(quote & !escaped) ^ carry.in_string;
    carry.in_string = ((in_string as i64) >> 63) as u64;
    Masks {
        open: open & !in_string,
        close: close & !in_string,
        non_ascii,
    }
}

/// Classifies the first `bytes.len()` (< 64) bytes of a block, padding with spaces. Bits past the
/// end are zero; the returned carry is only meaningful if the block is later completed, so the
/// caller keeps the carry-in and classifies again when more bytes arrive.
pub(crate) fn classify_partial(bytes: &[u8], carry: Carry) -> Masks {
    debug_assert!(bytes.len() < BLOCK);
    let mut block = [b' '; BLOCK];
    block[..bytes.len()].copy_from_slice(bytes);
    let mut scratch = carry;
    classify(&block, &mut scratch)
}

/// The same classification byte by byte: the reference the SIMD version is tested against.
#[cfg(test)]
pub(crate) fn classify_scalar(block: &[u8], carry: &mut Carry) -> Masks {
    let mut masks = Masks::default();
    let mut in_string = carry.in_string != 0;
    let mut escaped = carry.escaped != 0;
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        if b >= 0x80 {
            masks.non_ascii |= bit;
        }
        // Like the SIMD version, an escape only changes what a quote or a backslash means
        // (outside strings a backslash is invalid JSON; the parser reports it).
        if escaped {
            escaped = false;
            if matches!(b, b'"' | b'\\') {
                continue;
            }
        }
        match b {
            b'\\' => escaped = true,
            b'"' => in_string = !in_string,
            b'{' | b'[' if !in_string => masks.open |= bit,
            b'}' | b']' if !in_string => masks.close |= bit,
            _ => {}
        }
    }
    *carry = Carry {
        in_string: if in_string { u64::MAX } else { 0 },
        escaped: u64::from(escaped),
    };
    masks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run_simd(input: &[u8]) -> Vec<(Masks, Carry)> {
        let mut carry = Carry::default();
        input
            .chunks(BLOCK)
            .map(|c| {
                let masks = if c.len() == BLOCK {
                    classify(c.try_into().expect("64 bytes"), &mut carry)
                } else {
                    let m = classify_partial(c, carry);
                    let mut padded = [b' '; BLOCK];
                    padded[..c.len()].copy_from_slice(c);
                    classify(&padded, &mut carry);
                    m
                };
                (masks, carry)
            })
            .collect()
    }

    fn run_scalar(input: &[u8]) -> Vec<(Masks, Carry)> {
        let mut carry = Carry::default();
        input
            .chunks(BLOCK)
            .map(|c| {
                let mut padded = c.to_vec();
                padded.resize(BLOCK, b' ');
                (classify_scalar(&padded, &mut carry), carry)
            })
            .collect()
    }

    #[test]
    fn escaped_quote_after_odd_backslash_run_crossing_blocks() {
        // 63 filler bytes, then 3 backslashes (1 in block 0, 2 in block 1), then a quote: the
        // run is odd, so the quote is escaped and the brackets after it are still in the string.
        let mut input = vec![b'"'];
        input.extend(std::iter::repeat_n(b'a', 62));
        input.extend_from_slice(br#"\\\"{}""#);
        let got = run_simd(&input);
        assert_eq!(got, run_scalar(&input));
        assert_eq!(got[1].0.open, 0, "the brace sits inside the string");
    }

    #[test]
    fn even_backslash_run_leaves_quote_unescaped() {
        let input = br#"["a\\",{}]"#;
        let (m, c) = run_simd(input)[0];
        assert_eq!(m.open, 1 | 1 << 7);
        assert_eq!(m.close, 1 << 8 | 1 << 9);
        assert_eq!(c, Carry::default());
    }

    #[test]
    fn non_ascii_bytes_are_marked() {
        let input = "[\"é\"]".as_bytes();
        assert_eq!(run_simd(input)[0].0.non_ascii, 0b0000_1100);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn simd_matches_scalar(input in proptest::collection::vec(
            prop::sample::select(vec![b'"', b'\\', b'{', b'}', b'[', b']', b'a', b',', 0xC3, 0xA9]), 0..400)) {
            prop_assert_eq!(run_simd(&input), run_scalar(&input));
        }
    }
}
