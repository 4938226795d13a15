//! The JSON libraries, one module each: serde_json (the baseline), sonic-rs and simd-json in
//! every build, and the libraries of the feature `more-libraries`. Each module is a
//! [`LibraryStrategies`] giving the strategies the library really has in each style (none where
//! it has no such API); [`All`] is the one list every experiment asks. Adding a library is its
//! module and its entry in [`Registered`] (and its dependency in Cargo.toml).
//!
//! Libraries that need a derive on the type itself (simd-json-derive, nanoserde, miniserde,
//! facet-json) are [`crate::derived`], chosen per type by the bench.

#[cfg(feature = "more-libraries")]
pub mod jiter;
pub mod serde_json;
#[cfg(feature = "more-libraries")]
pub mod serde_json_borrow;
pub mod simd_json;
pub mod sonic_rs;

mod strategies;
pub mod symbols;

pub use strategies::{BorrowedDecoder, Decoder, DomDecoder, DomParse, Encoder, Held, LibraryStrategies, Parse, Serialized};

/// The libraries every build has, the baseline first: serde_json, sonic-rs, simd-json.
pub type Builtin = (serde_json::SerdeJson, (sonic_rs::SonicRs, simd_json::SimdJson));

/// Every library added beside the built-in ones, in the order their rows are listed: a tuple
/// of [`LibraryStrategies`]s, nested for more than two.
#[cfg(feature = "more-libraries")]
pub type Registered = (serde_json_borrow::SerdeJsonBorrow, jiter::Jiter);
/// Every library added beside the built-in ones: none without the feature `more-libraries`.
#[cfg(not(feature = "more-libraries"))]
pub type Registered = ();

/// Every library, the built-in ones first.
pub type All = (Builtin, Registered);
