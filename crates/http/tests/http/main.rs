//! The integration tests of http, one binary (one link, one build of what they share).

mod api;
mod cache;
mod common;
mod depth_guard;
mod loadgen_bounds;
mod loadgen_faults;
mod loadgen_timing;
mod slices;
mod slow_clients;
mod store_source;
