//! Commands that read saved results or run other programs, rather than measure in-process.

pub mod ab;
pub mod ab_http;
pub mod alloc;
pub mod baselines;
pub mod compare;
pub mod counts;
pub mod levers;
pub mod pairing;
pub mod report;
pub mod serve;
