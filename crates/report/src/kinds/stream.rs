//! stream: one row is one whole run over the body, so there are no per-operation columns.
//! Method | Mean | Error | Median | Ratio | MB/s | Allocated | Allocs | Peak heap | RSS growth | Peak RSS

use super::{Cell, Spec, get};

pub(super) fn columns<'a>() -> Vec<Spec<'a>> {
    vec![
        Spec::new("Method", Cell::Method),
        Spec::new("Mean", Cell::Time(get(|r| r.mean_ns))),
        Spec::new("Error", Cell::Time(get(|r| r.error_ns))),
        Spec::new("Median", Cell::Time(get(|r| r.median_ns))),
        Spec::new("Ratio", Cell::Ratio(get(|r| r.ratio))),
        Spec::new("MB/s", Cell::Fixed(1, get(|r| r.mb_per_s))),
        Spec::new("Allocated", Cell::Bytes(get(|r| r.allocated_bytes))),
        Spec::new("Allocs", Cell::Count(get(|r| r.allocs))),
        Spec::new("Peak heap", Cell::Bytes(get(|r| r.peak_bytes.map(|b| b as f64)))),
        // Above the RSS the row's run started at, the heap trimmed first: the row's own.
        Spec::new("RSS growth", Cell::Bytes(get(|r| r.rss.map(|m| m.growth_bytes as f64)))),
        Spec::new("Peak RSS", Cell::Bytes(get(|r| r.rss.map(|m| m.peak_bytes as f64)))),
    ]
}
