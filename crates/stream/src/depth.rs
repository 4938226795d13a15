//! The nesting-depth guard: holds sonic-rs to serde_json's limit of 128 levels. It is no
//! longer a defence of the stack: sonic-rs 0.5.12 stops its DOM and serde parses at 255 levels
//! (refusing 255, accepting 254), skips a deep unknown field and reads lazily without recursing,
//! so no nesting overflows it; serde_json stops at 128 and simd-json at 1024 (refusing 1025).
//! What the guard still gives is the same refusal for sonic-rs's rows as before 0.5.12: a
//! document nested 128 deep is refused at the bracket's byte offset, on every sonic-rs path (the
//! stream's fields, the store experiment's documents, the server's stored items, the stream
//! experiment's buffered parse), and the framer applies the same limit to the elements it
//! frames, in the bracket count it already keeps. `tests/stream/library_limits.rs` pins each
//! library's own behaviour.
//!
//! The scan is the framer's structural scan (`blocks`): 64 bytes at a time, brackets
//! outside strings counted from bitmasks, so it costs a fraction of a parse.

use crate::blocks::{self, BLOCK, Carry};
use crate::library::Library;

/// The deepest nesting accepted, as serde_json's recursion limit: a value whose arrays and
/// objects nest `MAX_DEPTH` levels deep is refused (serde_json accepts 127 and refuses 128).
pub const MAX_DEPTH: usize = 128;

/// A value nested [`MAX_DEPTH`] levels deep, refused before a guarded library (sonic-rs) saw it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{library} would accept nesting past serde_json's limit: rejected by jsoncost's depth guard at {limit} \
     (nesting reaches {limit} levels at byte {offset})"
)]
pub struct TooDeep {
    /// The library the bytes were meant for (`sonic-rs`).
    pub library: &'static str,
    /// Offset, in the bytes checked, of the bracket that opens level `limit`.
    pub offset: u64,
    /// The nesting refused (`MAX_DEPTH`).
    pub limit: usize,
}

impl Library {
    /// True for sonic-rs, whose own limits (255 levels on its DOM and serde parses, none on its
    /// lazy reads) are past serde_json's: jsoncost's guard holds it to [`MAX_DEPTH`].
    pub fn depth_guarded(self) -> bool {
        matches!(self, Library::SonicRs)
    }

    /// Checks `json` (a whole document or value, starting outside any string) before this
    /// library parses it: `Err` when it nests [`MAX_DEPTH`] levels deep and the library is
    /// [guarded](Library::depth_guarded). Bytes that are not JSON pass; the library reports them.
    pub fn guard_depth(self, json: &[u8]) -> Result<(), TooDeep> {
        let mut guard = DepthGuard::new(self);
        guard.feed(json)?;
        guard.finish()
    }
}

/// Checks `json` (a whole document or value, starting outside any string) before `library`, a
/// parser without a depth limit of its own (a registry decoder that says so), parses it: `Err`
/// when it nests [`MAX_DEPTH`] levels deep. Bytes that are not JSON pass; the library reports them.
pub fn guard_unbounded(library: &'static str, json: &[u8]) -> Result<(), TooDeep> {
    let mut guard = DepthGuard::unbounded(library);
    guard.feed(json)?;
    guard.finish()
}

/// [`Library::guard_depth`] over input that arrives in pieces (a file read a chunk at a time),
/// so a large document need not be held in memory to be checked.
#[derive(Debug, Clone)]
pub struct DepthGuard {
    /// The library's name, as errors give it.
    library: &'static str,
    /// False for a library with a limit of its own: every byte passes.
    guarded: bool,
    depth: i64,
    carry: Carry,
    /// Bytes scanned in whole blocks.
    scanned: u64,
    /// The start of a block whose end has not arrived yet.
    pending: Vec<u8>,
}

impl DepthGuard {
    /// A guard for bytes meant for `library`.
    pub fn new(library: Library) -> Self {
        DepthGuard {
            guarded: library.depth_guarded(),
            ..DepthGuard::unbounded(library.as_str())
        }
    }

    /// A guard for bytes meant for `library`, a parser without a depth limit of its own.
    pub fn unbounded(library: &'static str) -> Self {
        DepthGuard {
            library,
            guarded: true,
            depth: 0,
            carry: Carry::default(),
            scanned: 0,
            pending: Vec::with_capacity(BLOCK),
        }
    }

    /// Scans the next bytes of the input.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<(), TooDeep> {
        if !self.guarded {
            return Ok(());
        }
        if !self.pending.is_empty() {
            let take = (BLOCK - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() < BLOCK {
                return Ok(());
            }
            let block: [u8; BLOCK] = self.pending[..].try_into().expect("a whole block");
            self.pending.clear();
            self.block(&block)?;
        }
        let mut blocks = bytes.chunks_exact(BLOCK);
        for block in &mut blocks {
            self.block(block.try_into().expect("a whole block"))?;
        }
        self.pending.extend_from_slice(blocks.remainder());
        Ok(())
    }

    /// Scans what is left once the input has ended.
    pub fn finish(mut self) -> Result<(), TooDeep> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let masks = blocks::classify_partial(&self.pending, self.carry);
        self.masks(masks.open, masks.close)
    }

    fn block(&mut self, block: &[u8; BLOCK]) -> Result<(), TooDeep> {
        let masks = blocks::classify(block, &mut self.carry);
        self.masks(masks.open, masks.close)?;
        self.scanned += BLOCK as u64;
        Ok(())
    }

    /// Counts one block's brackets (outside strings); an unbalanced `]` lowers the count (the
    /// parser rejects such input anyway).
    #[inline(always)]
    fn masks(&mut self, open: u64, close: u64) -> Result<(), TooDeep> {
        let limit = MAX_DEPTH as i64;
        // Most blocks cannot reach the limit even if every bracket in them opened first.
        if self.depth + i64::from(open.count_ones()) < limit {
            self.depth += i64::from(open.count_ones()) - i64::from(close.count_ones());
            return Ok(());
        }
        let mut bits = open | close;
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            if (open >> bit) & 1 == 0 {
                self.depth -= 1;
                continue;
            }
            self.depth += 1;
            if self.depth >= limit {
                return Err(TooDeep {
                    library: self.library,
                    offset: self.scanned + u64::from(bit),
                    limit: MAX_DEPTH,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> Vec<u8> {
        let mut v = vec![b'['; depth];
        v.extend(std::iter::repeat_n(b']', depth));
        v
    }

    #[test]
    fn the_limit_is_serde_json_s() {
        for depth in [1, 100, 127, 128, 129, 1000] {
            let doc = nested(depth);
            let serde_ok = serde_json::from_slice::<serde_json::Value>(&doc).is_ok();
            let guard_ok = Library::SonicRs.guard_depth(&doc).is_ok();
            assert_eq!(guard_ok, serde_ok, "depth {depth}");
        }
    }

    #[test]
    fn names_the_library_the_limit_and_the_offset() {
        let mut doc = br#"{"a": "[[[[", "b": "#.to_vec();
        let prefix = doc.len() as u64;
        doc.extend(nested(100_000));
        doc.push(b'}');
        let e = Library::SonicRs.guard_depth(&doc).unwrap_err();
        // The object is level 1, so the bracket at `prefix + 126` opens level 128; the brackets
        // in the string do not count.
        assert_eq!(
            e,
            TooDeep {
                library: "sonic-rs",
                offset: prefix + 126,
                limit: 128
            }
        );
        assert_eq!(
            e.to_string(),
            format!(
                "sonic-rs would accept nesting past serde_json's limit: rejected by jsoncost's depth guard at 128 \
                 (nesting reaches 128 levels at byte {})",
                prefix + 126
            )
        );
        assert!(Library::SerdeJson.guard_depth(&doc).is_ok(), "serde_json has its own limit");
        assert!(Library::SimdJson.guard_depth(&doc).is_ok(), "simd-json has its own limit");
    }

    #[test]
    fn depth_falls_again_and_any_block_split_counts_alike() {
        // Many shallow values side by side are not deep, wherever the blocks cut them.
        let mut doc = vec![b'['];
        for _ in 0..500 {
            doc.extend(nested(120));
            doc.push(b',');
        }
        doc.extend(b"1]");
        assert_eq!(Library::SonicRs.guard_depth(&doc), Ok(()));
        for pad in 0..70 {
            let mut padded = vec![b' '; pad];
            padded.extend(nested(200));
            let offset = pad as u64 + 127;
            assert_eq!(
                Library::SonicRs.guard_depth(&padded).map_err(|e| e.offset),
                Err(offset),
                "pad {pad}"
            );
            // Fed in pieces of any size, the guard finds the same bracket.
            for piece in [1, 7, 64, 100] {
                let mut guard = DepthGuard::new(Library::SonicRs);
                let found = padded.chunks(piece).try_for_each(|p| guard.feed(p)).and_then(|()| guard.finish());
                assert_eq!(found.map_err(|e| e.offset), Err(offset), "pad {pad}, pieces of {piece}");
            }
        }
    }
}
