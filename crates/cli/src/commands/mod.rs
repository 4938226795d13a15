//! Commands that read saved results rather than measure.

pub mod ab;
pub mod baselines;
pub mod compare;
pub mod report;
pub mod serve;
