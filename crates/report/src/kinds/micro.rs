//! micro: Method | Mean | Error | StdDev | Median | Ratio | RatioSD | Allocated | Allocs/op | Alloc Ratio | MB/s

use super::{Cell, Spec, get};

pub(super) fn columns<'a>() -> Vec<Spec<'a>> {
    vec![
        Spec::new("Method", Cell::Method),
        Spec::new("Mean", Cell::Time(get(|r| r.mean_ns))),
        Spec::new("Error", Cell::Time(get(|r| r.error_ns))),
        Spec::new("StdDev", Cell::Time(get(|r| r.stddev_ns))),
        Spec::new("Median", Cell::Time(get(|r| r.median_ns))),
        Spec::new("Ratio", Cell::Ratio(get(|r| r.ratio))),
        Spec::new("RatioSD", Cell::Ratio(get(|r| r.ratio_sd))),
        Spec::new("Allocated", Cell::Bytes(get(|r| r.allocated_bytes))),
        Spec::new("Allocs/op", Cell::Count(get(|r| r.allocs))),
        Spec::new("Alloc Ratio", Cell::Ratio(get(|r| r.alloc_ratio))),
        Spec::new("MB/s", Cell::Fixed(1, get(|r| r.mb_per_s))),
    ]
}
