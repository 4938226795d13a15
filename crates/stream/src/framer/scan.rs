//! The fast path over the target array: the batch framing of object and array elements by
//! their brackets, block by block ([`Cursor`]).

use super::cursor::{Cursor, Unfinished};
use super::{Framer, Mode, SPANS};
use crate::blocks::{self, BLOCK};
use crate::skip::is_ws;

impl Framer {
    /// The common case in one tight pass: frames, up to [`SPANS`] at a time, the object or array
    /// elements that follow one another separated by a `,` (and whitespace) and whose bytes have
    /// arrived in whole blocks, and queues their spans. Anything else (a scalar element, the
    /// array's end, a chunk boundary, a bad separator) ends the batch; [`Framer::advance`] takes
    /// over from the end of the last element queued.
    #[inline(always)]
    pub(super) fn frame_batch(&mut self) -> bool {
        let base = self.base;
        let filled = self.filled;
        let buf = &self.buf[..filled];
        let skip_ws = |mut p: usize| {
            while buf.get(p).is_some_and(|&b| is_ws(b)) {
                p += 1;
            }
            p
        };
        let mut p = (self.pos - base) as usize;
        match self.mode {
            Mode::AfterElement => {
                p = skip_ws(p);
                if buf.get(p) != Some(&b',') {
                    return false;
                }
                p = skip_ws(p + 1);
            }
            Mode::ArrayFirst | Mode::ArrayNext => p = skip_ws(p),
            _ => return false,
        }
        if !matches!(buf.get(p), Some(b'{' | b'[')) {
            return false;
        }
        let first = base + p as u64;
        let avail_end = base + filled as u64;
        let c = &mut self.cursor;
        if !(c.valid && c.start <= first && first < c.start + BLOCK as u64) {
            // Between elements, outside any string: a fresh carry is right here.
            *c = Cursor {
                start: first,
                valid: true,
                ..Cursor::default()
            };
        }
        let mut non_ascii = 0u64;
        if c.len < BLOCK {
            let at = (c.start - base) as usize;
            let Some(block) = buf.get(at..at + BLOCK) else { return false };
            let mut carry = c.carry_in;
            c.masks = blocks::classify(block.try_into().expect("64 bytes"), &mut carry);
            c.carry_out = carry;
            c.len = BLOCK;
            non_ascii = mark_non_ascii(non_ascii, c);
        }
        self.spans.clear();
        self.span_at = 0;
        let mut rel = (first - c.start) as u32;
        let mut depth = 0i64;
        let mut start = first;
        let mut last_end = 0u64;
        'blocks: loop {
            let open = c.masks.open;
            let mut bits = (open | c.masks.close) & (u64::MAX << rel);
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                let at = c.start + u64::from(i);
                if (open >> i) & 1 == 1 {
                    if depth == 0 {
                        // A new element: the first one, or one after a ',' (and whitespace).
                        if at != first && !is_separator(&buf[(last_end - base) as usize..(at - base) as usize]) {
                            break 'blocks;
                        }
                        start = at;
                    }
                    depth += 1;
                    if depth >= self.depth_limit {
                        break 'blocks; // too deep: the slow path reports it
                    }
                } else {
                    depth -= 1;
                    if depth == 0 {
                        last_end = at + 1;
                        self.spans.push((start, last_end));
                        if self.spans.len() == SPANS {
                            break 'blocks;
                        }
                    } else if depth < 0 {
                        break 'blocks; // the array's `]`, for the slow path
                    }
                }
            }
            if c.start + 2 * BLOCK as u64 > avail_end {
                break;
            }
            let at = (c.start - base) as usize + BLOCK;
            let block: &[u8; BLOCK] = buf[at..at + BLOCK].try_into().expect("a whole block is available");
            c.carry_in = c.carry_out;
            c.masks = blocks::classify(block, &mut c.carry_out);
            c.start += BLOCK as u64;
            non_ascii = mark_non_ascii(non_ascii, c);
            rel = 0;
        }
        if non_ascii != 0 {
            self.last_non_ascii = self.last_non_ascii.max(Some(non_ascii));
        }
        if self.spans.is_empty() {
            return false;
        }
        self.pos = last_end;
        self.mode = Mode::AfterElement;
        true
    }

    /// Starts the block cursor at the position unless its current block already covers it. The
    /// position is between elements, outside any string, so a fresh carry is correct there.
    #[inline(always)]
    pub(super) fn anchor_cursor(&mut self) {
        let c = &mut self.cursor;
        if !(c.valid && c.start <= self.pos && self.pos <= c.start + BLOCK as u64) {
            *c = Cursor {
                start: self.pos,
                valid: true,
                ..Cursor::default()
            };
        }
    }

    /// Classifies the cursor's block as far as bytes have arrived, moving to the next block when
    /// the position has passed this one; false when no byte at the position has arrived.
    #[inline(always)]
    fn fill_block(&mut self) -> bool {
        let end = self.avail_end();
        loop {
            let c = &mut self.cursor;
            let avail = (end - c.start).min(BLOCK as u64) as usize;
            if avail > c.len {
                let at = (c.start - self.base) as usize;
                let mut carry = c.carry_in;
                c.masks = if avail == BLOCK {
                    let block: &[u8; BLOCK] = self.buf[at..at + BLOCK].try_into().expect("a whole block is available");
                    blocks::classify(block, &mut carry)
                } else {
                    blocks::classify_partial(&self.buf[at..at + avail], carry)
                };
                c.carry_out = carry;
                c.len = avail;
                if c.masks.non_ascii != 0 {
                    self.last_non_ascii = self
                        .last_non_ascii
                        .max(Some(c.start + 63 - u64::from(c.masks.non_ascii.leading_zeros())));
                }
            }
            // Past this block (bytes up to the position have arrived, so it is complete): next.
            if self.pos >= c.start + BLOCK as u64 {
                debug_assert_eq!(c.len, BLOCK);
                c.start += BLOCK as u64;
                c.carry_in = c.carry_out;
                c.len = 0;
                continue;
            }
            return self.pos < c.start + c.len as u64;
        }
    }

    /// Follows brackets from the position to the one that closes the element; `Err` when the
    /// bytes that have arrived end first, or when the element nests as deep as the limit.
    #[inline(always)]
    pub(super) fn scan_container(&mut self, mut depth: i64) -> Result<u64, Unfinished> {
        while self.fill_block() {
            let c = &self.cursor;
            let rel = (self.pos - c.start) as u32;
            let mut bits = (c.masks.open | c.masks.close) & (u64::MAX << rel);
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                depth += if (c.masks.open >> i) & 1 == 1 { 1 } else { -1 };
                if depth >= self.depth_limit {
                    return Err(Unfinished::TooDeep(c.start + u64::from(i)));
                }
                if depth == 0 {
                    let end = c.start + u64::from(i) + 1;
                    self.pos = end;
                    return Ok(end);
                }
            }
            self.pos = c.start + c.len as u64;
        }
        Err(Unfinished::NeedMore(depth))
    }
}

/// Exactly one `,` and whitespace: what may stand between two elements.
#[inline(always)]
fn is_separator(gap: &[u8]) -> bool {
    if gap == b"," {
        return true;
    }
    let mut commas = 0;
    for &b in gap {
        if b == b',' {
            commas += 1;
        } else if !is_ws(b) {
            return false;
        }
    }
    commas == 1
}

/// The highest byte >= 0x80 seen, after classifying the cursor's block.
#[inline(always)]
fn mark_non_ascii(seen: u64, c: &Cursor) -> u64 {
    if c.masks.non_ascii == 0 {
        seen
    } else {
        seen.max(c.start + 63 - u64::from(c.masks.non_ascii.leading_zeros()))
    }
}
