//! jsoncost's strategies: one way to serialize or deserialize, named `style/library`
//! (the style is the API: typed, borrowed, dom, reader, raw, lazy ...), each with a correctness check. A strategy is run untimed once for the
//! correctness gate ([`gate`]), which compares its output with an exact reference parsed from
//! the source text ([`exact`]); only strategies whose output holds the reference's values are
//! handed to the engine for timing, with how exactly they hold them recorded on the row.
//!
//! Modules: [`toolkit`] (what every strategy is built from: `OpStrategy`, `Through`, the
//! outcome slot, the sonic-rs projection), [`typed`] (strategies over any serde type: typed,
//! typed-reuse, borrowed when the type has a zero-copy form, dom, dom-then-typed, reader, raw,
//! lazy when fields are given; serialize typed, typed-writer, dom; [`TypeOptions`]),
//! [`shape_model`] (a type's zero-copy form, [`BorrowedForm`]), [`document`] (any JSON
//! document, no Rust type), [`canonical`] (the common form outputs are compared in), [`member_order`] (each
//! object's keys as a text orders them), [`exact`]
//! (the reference parser), [`gate`], [`libraries`] (the libraries beside the three every build
//! has, one module each, registered in one list: with the feature `more-libraries`, jiter and
//! serde_json_borrow); with that feature also `derived` (simd-json-derive, nanoserde,
//! miniserde and facet-json on a type that derives them) and `jiter_decode` (hand decoders over jiter's pull
//! parser).
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! Above engine (the [`Contract`] and fidelity it records) and shapes; `jsoncost` builds its tables
//! from these strategies.

#![deny(missing_docs)]

pub mod build;
pub mod canonical;
pub mod decoders;
#[cfg(feature = "more-libraries")]
pub mod derived;
pub mod document;
pub mod exact;
pub mod gate;
#[cfg(feature = "more-libraries")]
pub mod jiter_decode;
pub mod libraries;
pub mod member_order;
mod pointer;
pub mod shape_model;
mod strategy;
pub mod toolkit;
pub mod typed;

pub use canonical::Canonical;
pub use jsoncost_engine::{Contract, Effort, StrategyId};
pub use shape_model::{BorrowedForm, DerivedDeserialize};
pub use strategy::{BoxedStrategy, Direction, RunFailure, Strategy, verify};
pub use typed::TypeOptions;
