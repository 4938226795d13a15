//! jsoncost's process orchestration, apart from the library a bench links: [`ab`] runs two
//! programs in lockstep and pairs their rows (two builds for `jsoncost ab`, one binary under
//! several allocators for `jsoncost alloc`, `run`'s allocator table and a bench's
//! `--allocators`, a build lever against the default build); [`ab_http`] (feature `http`)
//! A/Bs two builds of a user's own server end to end; [`watched`] runs a child that answers a
//! line per case within a time limit and reads its death (the safety experiment's parent);
//! [`children`] makes every child a conductor spawns die with it; [`profile`] (feature `http`)
//! samples a running server's stacks with perf under the load and attributes them to JSON work.
//!
//! Layering: jsoncost (the harness, levers, safety's parent) and the CLI call it; it calls
//! engine (lockstep, private scratch), report (pairing two programs' rows), codecs (the exact
//! reference an answer is checked through) and, for `ab --http`, http's load generator.

#![deny(missing_docs)]

pub mod ab;
#[cfg(feature = "http")]
pub mod ab_http;
pub mod children;
#[cfg(feature = "http")]
pub mod profile;
pub mod watched;

pub use jsoncost_engine::error::{Error, Result};
