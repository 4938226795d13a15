//! The integration tests of stream, one binary (one link, one build of what they share).

#[path = "../common/mod.rs"]
mod common;
mod depth_guard;
mod equivalence;
mod errors;
