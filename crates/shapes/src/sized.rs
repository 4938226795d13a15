//! Documents at a chosen size: the `order` document grown or shrunk by its line items, the part
//! of a real order that grows, so a size sweep measures one schema at every size.

use crate::generate::Generator;
use crate::models::Order;

/// How far a generated document may be from its target: within ±10%.
pub const SIZE_TOLERANCE: f64 = 0.10;

/// The most lines a sized order gets: about 1.5 GB of JSON, far above any size worth sweeping,
/// so the search for the line count is bounded.
const MAX_LINES: usize = 1 << 23;

/// A target size the `order` document cannot reach within [`SIZE_TOLERANCE`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Below the order with no lines: its fixed fields alone are larger.
    #[error(
        "an order cannot be as small as {target} bytes: with no lines it is {smallest} bytes (its fixed fields); choose sizes from {smallest} bytes up"
    )]
    TooSmall {
        /// The size asked for, in bytes.
        target: u64,
        /// The order with no lines, in bytes.
        smallest: u64,
    },
    /// Above what `MAX_LINES` lines give.
    #[error("an order cannot be as large as {target} bytes: the largest sized order is {largest} bytes")]
    TooLarge {
        /// The size asked for, in bytes.
        target: u64,
        /// The order with the most lines, in bytes.
        largest: u64,
    },
}

/// The `order` document for `seed` whose JSON is closest to `target` bytes, with its bytes:
/// the same generator as `order` (index 1), only the number of lines chosen. The first lines
/// are the same whatever the count (they are drawn first), so a larger target extends a smaller
/// one's lines. Within ±10% of the target, or [`SizeError`].
pub fn order_of_size(seed: u64, target: u64) -> Result<(Order, Vec<u8>), SizeError> {
    let make = |lines: usize| {
        let order = Generator::new(seed).order(1, lines);
        let bytes = serde_json::to_vec(&order).expect("generated orders serialize");
        (order, bytes)
    };
    let len = |doc: &(Order, Vec<u8>)| doc.1.len() as u64;
    let none = make(0);
    let smallest = len(&none);
    if target <= smallest {
        return within(none, target, len).ok_or(SizeError::TooSmall { target, smallest });
    }
    // The size grows with the line count (each line adds ~190 bytes; the fields drawn after
    // the lines vary by a few bytes): find the first count at or above the target by doubling,
    // then bisection, and keep the closer of it and the count below.
    let mut high = 1;
    while len(&make(high)) < target {
        if high >= MAX_LINES {
            return Err(SizeError::TooLarge {
                target,
                largest: len(&make(MAX_LINES)),
            });
        }
        high = (high * 2).min(MAX_LINES);
    }
    let mut low = high / 2;
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if len(&make(mid)) < target {
            low = mid;
        } else {
            high = mid;
        }
    }
    let (above, below) = (make(high), make(low));
    let closest = if len(&above) - target <= target.saturating_sub(len(&below)) {
        above
    } else {
        below
    };
    within(closest, target, len).ok_or(SizeError::TooSmall { target, smallest })
}

fn within(doc: (Order, Vec<u8>), target: u64, len: impl Fn(&(Order, Vec<u8>)) -> u64) -> Option<(Order, Vec<u8>)> {
    let off = (len(&doc) as f64 - target as f64).abs() / target as f64;
    (off <= SIZE_TOLERANCE).then_some(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DEFAULT_SEED, ORDER_LINES};

    #[test]
    fn each_size_is_within_ten_percent_and_the_same_bytes_every_time() {
        for target in [1024u64, 4096, 65_536, 1 << 20] {
            let (order, bytes) = order_of_size(DEFAULT_SEED, target).unwrap();
            let off = (bytes.len() as f64 - target as f64).abs() / target as f64;
            assert!(off <= SIZE_TOLERANCE, "{target}: {} bytes", bytes.len());
            assert_eq!(serde_json::to_vec(&order).unwrap(), bytes);
            assert_eq!(order_of_size(DEFAULT_SEED, target).unwrap().1, bytes);
        }
    }

    #[test]
    fn the_4_kb_order_is_the_fixed_order_document() {
        let (order, _) = order_of_size(DEFAULT_SEED, 4096).unwrap();
        assert_eq!(order.lines.len(), ORDER_LINES);
        assert_eq!(order, Generator::new(DEFAULT_SEED).order(1, ORDER_LINES));
    }

    #[test]
    fn below_the_order_with_no_lines_is_refused_naming_its_size() {
        let smallest = serde_json::to_vec(&Generator::new(DEFAULT_SEED).order(1, 0)).unwrap().len();
        assert_eq!(
            order_of_size(DEFAULT_SEED, 100).unwrap_err().to_string(),
            format!(
                "an order cannot be as small as 100 bytes: with no lines it is {smallest} bytes (its fixed fields); choose sizes from {smallest} bytes up"
            )
        );
    }
}
