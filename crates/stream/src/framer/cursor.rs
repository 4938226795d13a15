//! The structural scan's position ([`Cursor`]) and why a scan stopped short ([`Unfinished`]):
//! the state the framer keeps between chunks, advanced by `scan`.

use crate::blocks::{Carry, Masks};

/// The structural scan's position: one 64-byte block, classified as far as bytes have arrived.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Cursor {
    pub(super) start: u64,
    pub(super) len: usize,
    pub(super) carry_in: Carry,
    pub(super) carry_out: Carry,
    pub(super) masks: Masks,
    pub(super) valid: bool,
}

impl Cursor {
    /// Bytes of the block classified so far (from `start`).
    pub(super) fn classified(&self) -> usize {
        self.len
    }
}

/// Why the scan of a container (`Framer::scan_container`) found no end.
pub(super) enum Unfinished {
    /// The bytes that have arrived end inside the element, at this depth.
    NeedMore(i64),
    /// The bracket at this offset opens the level the depth guard refuses.
    TooDeep(u64),
}
