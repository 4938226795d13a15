//! The integration tests of stream, one binary (one link, one build of what they share).

use jsoncost_engine::alloc::CountingAllocator;

/// Counts exactly for the bound modules (`memory_bound`, `outside_bound`): they measure their
/// own thread only (`thread_measure`), so the other modules' tests running beside them are
/// not counted.
#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

#[path = "../common/mod.rs"]
mod common;
mod depth_guard;
mod equivalence;
mod errors;
mod library_limits;
mod memory_bound;
mod outside_bound;
