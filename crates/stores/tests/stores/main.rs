//! The integration tests of stores, one binary (one link, one build of what they share).

mod common;
mod embedded;
mod existing;
mod faults;
mod levers;
mod servers;
