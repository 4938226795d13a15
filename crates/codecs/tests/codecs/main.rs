//! The integration tests of codecs, one binary (one link, one build of what they share).

mod derived;
mod fidelity;
mod strategies;
