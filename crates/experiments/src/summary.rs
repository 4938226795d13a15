//! Table summaries, computed once from the rows (the Runner calls [`of`] for every table);
//! the report words them and the advisor reads their numbers.

use jsoncost_engine::{Experiment, ExperimentKind, Row, StoreSummary, StreamLibrary, StreamSummary, Summary, TypedPath};

/// The store experiment's baseline and no-JSON reference rows.
pub const STORE_BASELINE: &str = "default";
pub const STORE_FLOOR: &str = "floor";

/// The summary of a finished table, when its experiment has one.
pub fn of(exp: &Experiment) -> Option<Summary> {
    match exp.experiment {
        ExperimentKind::Store => store(exp).map(Summary::Store),
        ExperimentKind::Stream => stream(exp).map(Summary::Stream),
        ExperimentKind::Micro | ExperimentKind::Http | ExperimentKind::Safety => None,
    }
}

fn ok<'e>(exp: &'e Experiment, method: &str) -> Option<&'e Row> {
    exp.rows.iter().find(|r| r.method == method && r.is_ok())
}

/// JSON share of the baseline read (`default` − `floor`, never negative), and the cheapest
/// typed path; `None` without ok `default` and `floor` rows.
pub fn store(exp: &Experiment) -> Option<StoreSummary> {
    let base = ok(exp, STORE_BASELINE)?;
    let floor = ok(exp, STORE_FLOOR)?;
    let (read_ns, floor_ns) = (base.mean_ns?, floor.mean_ns?);
    let json_ns = (read_ns - floor_ns).max(0.0);
    let cheapest = exp
        .rows
        .iter()
        .filter(|r| r.is_ok() && r.mean_ns.is_some() && (r.method.starts_with("typed/") || r.method.starts_with("borrowed/")))
        .min_by(|a, b| a.mean_ns.unwrap_or(f64::MAX).total_cmp(&b.mean_ns.unwrap_or(f64::MAX)));
    let cheapest_typed = cheapest.map(|t| {
        let mean_ns = t.mean_ns.unwrap_or(read_ns);
        let upper = mean_ns + t.error_ns.unwrap_or(0.0);
        let lower = read_ns - base.error_ns.unwrap_or(0.0);
        TypedPath {
            method: t.method.clone(),
            mean_ns,
            removed_share: if json_ns > 0.0 { (read_ns - mean_ns) / json_ns } else { 0.0 },
            beyond_noise: json_ns > 0.0 && upper < lower,
            allocated_bytes: t.allocated_bytes,
            baseline_allocated_bytes: base.allocated_bytes,
        }
    });
    Some(StoreSummary {
        baseline: base.method.clone(),
        floor: floor.method.clone(),
        read_ns,
        floor_ns,
        json_ns,
        json_share: if read_ns > 0.0 { json_ns / read_ns } else { 0.0 },
        cheapest_typed,
    })
}

/// Each library's incremental parse against its buffered one; `None` when no library has both.
pub fn stream(exp: &Experiment) -> Option<StreamSummary> {
    let libraries: Vec<StreamLibrary> = ["serde_json", "sonic-rs", "simd-json"]
        .into_iter()
        .filter_map(|lib| {
            let inc = ok(exp, &format!("incremental/{lib}"))?;
            let buf = ok(exp, &format!("buffered/{lib}"))?;
            Some(StreamLibrary {
                library: lib.to_string(),
                incremental_mb_per_s: inc.mb_per_s?,
                buffered_mb_per_s: buf.mb_per_s?,
                incremental_peak_bytes: inc.peak_bytes,
                buffered_peak_bytes: buf.peak_bytes,
                aggregate_peak_bytes: ok(exp, &format!("incremental-aggregate/{lib}")).and_then(|r| r.peak_bytes),
            })
        })
        .collect();
    (!libraries.is_empty()).then_some(StreamSummary { libraries })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(method: &str, mean: f64, error: f64, alloc: f64) -> Row {
        let mut r = Row::new(method);
        r.mean_ns = Some(mean);
        r.error_ns = Some(error);
        r.allocated_bytes = Some(alloc);
        r
    }

    fn table(typed_mean: f64, typed_error: f64) -> Experiment {
        let mut e = Experiment::new(ExperimentKind::Store, "redb/order");
        e.rows = vec![
            row("default", 15_000.0, 300.0, 12_000.0),
            row("typed/sonic-rs", typed_mean, typed_error, 8_000.0),
            row("lazy/sonic-rs", 2_000.0, 10.0, 300.0),
            row("floor", 1_000.0, 50.0, 80.0),
        ];
        e
    }

    #[test]
    fn a_saving_beyond_the_noise_is_marked_with_its_numbers() {
        let s = store(&table(11_000.0, 200.0)).unwrap();
        assert_eq!((s.read_ns, s.floor_ns, s.json_ns), (15_000.0, 1_000.0, 14_000.0));
        assert_eq!(s.json_share, 14_000.0 / 15_000.0);
        let t = s.cheapest_typed.unwrap();
        assert_eq!(t.method, "typed/sonic-rs");
        assert_eq!(t.removed_share, 4_000.0 / 14_000.0);
        assert!(t.beyond_noise);
        assert_eq!((t.allocated_bytes, t.baseline_allocated_bytes), (Some(8_000.0), Some(12_000.0)));
    }

    #[test]
    fn overlapping_intervals_claim_nothing_and_no_floor_means_no_summary() {
        assert!(!store(&table(14_600.0, 200.0)).unwrap().cheapest_typed.unwrap().beyond_noise);
        let mut e = table(11_000.0, 200.0);
        e.rows.retain(|r| r.method != "floor");
        assert_eq!(of(&e), None);
    }

    #[test]
    fn a_floor_slower_than_the_read_gives_no_negative_share() {
        let mut e = table(11_000.0, 200.0);
        e.rows[3].mean_ns = Some(16_000.0);
        let s = store(&e).unwrap();
        assert_eq!((s.json_ns, s.json_share), (0.0, 0.0));
        assert!(!s.cheapest_typed.unwrap().beyond_noise);
    }
}
