//! The integration tests of codecs, one binary (one link, one build of what they share).

use jsoncost_engine::alloc::CountingAllocator;

/// Counts exactly for `streamed_bound`: it measures its own thread only (`thread_measure`), so
/// the other modules' tests running beside it are not counted.
#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

mod derived;
mod fidelity;
mod strategies;
mod streamed_bound;
