//! A bench that does not install the counting allocator: allocation is shown as not measured
//! (no number), never as 0.

use own_types::{Shipment, shipment};

#[test]
fn without_the_counting_allocator_allocation_is_not_measured_never_zero() {
    let out = std::env::temp_dir().join(format!("own-types-noalloc-{}.json", std::process::id()));
    let results = jsoncost::Study::with_args(
        ["--bench", "--quick", "--filter", "typed/serde_json", "--format", "json", "--out"]
            .map(String::from)
            .into_iter()
            .chain([out.display().to_string()]),
    )
    .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(2)).unwrap())
    .measure()
    .unwrap();
    let rows: Vec<_> = results.experiments.iter().flat_map(|e| &e.rows).collect();
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert!(r.is_ok() && r.mean_ns.is_some(), "{r:?}");
        assert_eq!((r.allocated_bytes, r.allocs, r.alloc_ratio), (None, None, None), "{}", r.method);
    }
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(out.with_extension("html"));
}
