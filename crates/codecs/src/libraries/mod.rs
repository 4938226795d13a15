//! The JSON libraries measured beside serde_json, sonic-rs and simd-json (which every build
//! has, written in [`crate::typed`] and [`crate::document`] as the baseline's peers): one module
//! per library, each a [`LibraryStrategies`] giving the strategies it really has in each style (none
//! where it has no such API), and [`Registered`], the one list they are registered in. Adding
//! a library is its module and its entry there (and its dependency in Cargo.toml).
//!
//! Libraries that need a derive on the type itself (simd-json-derive, nanoserde, miniserde,
//! facet-json) are [`crate::derived`], chosen per type by the bench.

#[cfg(feature = "more-libraries")]
pub mod jiter;
#[cfg(feature = "more-libraries")]
pub mod serde_json_borrow;

mod strategies;

pub use strategies::{Decoder, DomDecoder, DomParse, Held, LibraryStrategies, Parse, Serialized};

/// Every registered library, in the order their rows are listed: a tuple of [`LibraryStrategies`]s,
/// nested for more than two.
#[cfg(feature = "more-libraries")]
pub type Registered = (serde_json_borrow::SerdeJsonBorrow, jiter::Jiter);
/// Every registered library: none without the feature `more-libraries`.
#[cfg(not(feature = "more-libraries"))]
pub type Registered = ();
