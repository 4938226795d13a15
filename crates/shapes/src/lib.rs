//! jsoncost's payload shapes: the serde models of the documents every experiment measures
//! ([`models`], [`variants`]), their seeded generators ([`generate`]: the same bytes on every
//! machine), the `order` document at a chosen size ([`sized`]) and the date-time formats they
//! are written in ([`timestamp`]); with the feature `other-derives`, [`derived`]: copies
//! deriving other libraries' traits.
//!
//! A bottom layer, beside `jsoncost-engine`: it knows serde and nothing of jsoncost's other
//! crates. Layering: cli → experiments → http → report/codecs/stream/stores → engine/shapes.

#![deny(missing_docs)]

#[cfg(feature = "other-derives")]
pub mod derived;
pub mod generate;
pub mod models;
pub mod sized;
pub mod timestamp;
pub mod variants;

pub use generate::{Generator, order_id, write_telemetry};
pub use models::*;
pub use sized::{SizeError, order_of_size};

use std::fmt;
use std::str::FromStr;

/// Lines in an `order` document (~4 KB).
pub const ORDER_LINES: usize = 20;
/// Lines in an `order-large` document (~40 KB, same schema).
pub const ORDER_LARGE_LINES: usize = 240;
/// The seed every experiment uses unless told otherwise.
pub const DEFAULT_SEED: u64 = 0x5EED_0000_1501;

/// A shape's name, as the command line and the result files spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShapeName {
    /// `data`: the 3-field record ([`Data`]).
    Data,
    /// `order`: the ~4 KB order document ([`Order`], [`ORDER_LINES`] lines).
    Order,
    /// `order-large`: the same schema at ~40 KB ([`ORDER_LARGE_LINES`] lines).
    OrderLarge,
    /// `item`: the ~1.7 KB catalog item ([`Item`]).
    Item,
    /// `items48`: a list of 48 entries ([`Items48`]).
    Items48,
    /// `telemetry`: the stream experiment's document ([`Telemetry`]).
    Telemetry,
    /// The `order` document plus a polymorphic `events` array: the model-variants table.
    OrderModel,
}

impl ShapeName {
    /// Every shape the micro experiment knows (telemetry belongs to the stream experiment).
    pub const MICRO: [ShapeName; 6] = [
        ShapeName::Data,
        ShapeName::Order,
        ShapeName::OrderLarge,
        ShapeName::Item,
        ShapeName::Items48,
        ShapeName::OrderModel,
    ];

    /// The name as the command line and the result files spell it, e.g. `order-large`.
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeName::Data => "data",
            ShapeName::Order => "order",
            ShapeName::OrderLarge => "order-large",
            ShapeName::Item => "item",
            ShapeName::Items48 => "items48",
            ShapeName::Telemetry => "telemetry",
            ShapeName::OrderModel => "order-model",
        }
    }
}

impl fmt::Display for ShapeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A shape name that is none of [`ShapeName`]'s (holds the name given).
#[derive(Debug, thiserror::Error)]
#[error("unknown shape {0:?}; valid shapes: data, order, order-large, item, items48, telemetry, order-model")]
pub struct UnknownShape(pub String);

impl FromStr for ShapeName {
    type Err = UnknownShape;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "data" => ShapeName::Data,
            "order" => ShapeName::Order,
            "order-large" => ShapeName::OrderLarge,
            "item" => ShapeName::Item,
            "items48" => ShapeName::Items48,
            "telemetry" => ShapeName::Telemetry,
            "order-model" => ShapeName::OrderModel,
            other => return Err(UnknownShape(other.to_string())),
        })
    }
}
