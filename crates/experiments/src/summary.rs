//! Table summaries, computed once from the rows: the experiment that builds a table declares
//! its summary ([`crate::Table::summarized_by`]: [`of_store`], [`of_stream`]) and the Runner
//! computes it in [`finish`]; the report words them and the advisor reads their numbers.

use jsoncost_engine::paired::{self, PAIRED_CONFIDENCE};
use jsoncost_engine::{FLOOR, MeasuredTable, Row, StoreSummary, StreamLibrary, StreamSummary, Summary, TypedPath};

/// The store experiment's baseline row (its no-JSON reference row is [`FLOOR`]).
pub const STORE_BASELINE: &str = "default";

/// Computes a finished table's summary, declared by the experiment that builds the table
/// ([`crate::Table::summarize`]).
pub type Summarize = fn(&MeasuredTable) -> Option<Summary>;

/// Fills what a finished table's rows derive from each other (each row's time above the floor,
/// paired per round, where its kind reads rows against a floor) and its summary, computed by
/// `summarize`.
pub fn finish(exp: &mut MeasuredTable, summarize: Option<Summarize>) {
    if exp.kind.traits().floor {
        exp.fill_above_floor(FLOOR);
    }
    exp.summary = summarize.and_then(|summarize| summarize(exp));
}

/// A store table's summary ([`store`]).
pub fn of_store(exp: &MeasuredTable) -> Option<Summary> {
    store(exp).map(Summary::Store)
}

/// A stream table's summary ([`stream`]).
pub fn of_stream(exp: &MeasuredTable) -> Option<Summary> {
    stream(exp).map(Summary::Stream)
}

fn ok<'e>(exp: &'e MeasuredTable, method: &str) -> Option<&'e Row> {
    exp.rows.iter().find(|r| r.method == method && r.is_ok())
}

/// JSON share of the baseline read (`default` − `floor`, never negative; paired per round
/// with its interval on an interleaved table), and the cheapest typed path; `None` without ok
/// `default` and `floor` rows.
pub fn store(exp: &MeasuredTable) -> Option<StoreSummary> {
    let base = ok(exp, STORE_BASELINE)?;
    let floor = ok(exp, FLOOR)?;
    let (read_ns, floor_ns) = (base.mean_ns?, floor.mean_ns?);
    let json_interval = paired::difference(&floor.rounds_ns, &base.rounds_ns, PAIRED_CONFIDENCE);
    let json_ns = json_interval.map_or(read_ns - floor_ns, |i| i.estimate).max(0.0);
    // The typed paths: what delivers the baseline's contract (an owned typed value), other than
    // the baseline (every strategy declares its contract).
    let typed = |r: &Row| r.contract.is_some() && r.contract == base.contract && r.method != base.method;
    let cheapest = exp
        .rows
        .iter()
        .filter(|r| r.is_ok() && r.mean_ns.is_some() && typed(r))
        .min_by(|a, b| a.mean_ns.unwrap_or(f64::MAX).total_cmp(&b.mean_ns.unwrap_or(f64::MAX)));
    let cheapest_typed = cheapest.map(|t| {
        let mean_ns = t.mean_ns.unwrap_or(read_ns);
        let beyond_noise = match paired::difference(&t.rounds_ns, &base.rounds_ns, PAIRED_CONFIDENCE) {
            // The saving per round, baseline − typed.
            Some(saving) => saving.low > 0.0,
            None => mean_ns + t.error_ns.unwrap_or(0.0) < read_ns - base.error_ns.unwrap_or(0.0),
        };
        TypedPath {
            method: t.method.clone(),
            mean_ns,
            removed_share: if json_ns > 0.0 { (read_ns - mean_ns) / json_ns } else { 0.0 },
            beyond_noise: json_ns > 0.0 && beyond_noise,
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
        // Paired: the difference over the read of the same rounds (the floor's and the read's
        // means each carry their own outliers); else the means'.
        json_share: match paired::share_above(&floor.rounds_ns, &base.rounds_ns) {
            Some(share) if json_interval.is_some() => share.max(0.0),
            _ if read_ns > 0.0 => json_ns / read_ns,
            _ => 0.0,
        },
        json_interval,
        cheapest_typed,
    })
}

/// Each library's incremental parse against its buffered one (paired per round when both rows
/// share rounds), for every library the table has both rows of, in the table's order; `None`
/// when none has both.
pub fn stream(exp: &MeasuredTable) -> Option<StreamSummary> {
    let of = |style: &str, library: &str| {
        exp.rows
            .iter()
            .find(|r| r.strategy.style() == style && r.strategy.library() == Some(library) && r.is_ok())
    };
    let libraries: Vec<StreamLibrary> = exp
        .rows
        .iter()
        .filter(|r| r.strategy.style() == "incremental")
        .filter_map(|r| r.strategy.library())
        .filter_map(|lib| {
            let inc = of("incremental", lib)?;
            let buf = of("buffered", lib)?;
            Some(StreamLibrary {
                library: lib.to_string(),
                incremental_mb_per_s: inc.mb_per_s?,
                buffered_mb_per_s: buf.mb_per_s?,
                // Buffered's time over incremental's, round by round: incremental's throughput
                // over buffered's.
                throughput_ratio: buf.paired_ratio_to(inc),
                incremental_peak_bytes: inc.peak_bytes,
                buffered_peak_bytes: buf.peak_bytes,
                aggregate_peak_bytes: of("incremental-aggregate", lib).and_then(|r| r.peak_bytes),
            })
        })
        .collect();
    (!libraries.is_empty()).then_some(StreamSummary { libraries })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::ExperimentKind;

    fn row(method: &str, mean: f64, error: f64, alloc: f64) -> Row {
        let mut r = Row::new(method);
        r.mean_ns = Some(mean);
        r.error_ns = Some(error);
        r.allocated_bytes = Some(alloc);
        r
    }

    fn table(typed_mean: f64, typed_error: f64) -> MeasuredTable {
        use jsoncost_engine::Contract::*;
        let mut e = MeasuredTable::new(ExperimentKind::Store, "redb/order");
        e.rows = [
            (row("default", 15_000.0, 300.0, 12_000.0), TypedValue),
            (row("typed/sonic-rs", typed_mean, typed_error, 8_000.0), TypedValue),
            (row("lazy/sonic-rs", 2_000.0, 10.0, 300.0), Projection),
            (row(FLOOR, 1_000.0, 50.0, 80.0), Discarded),
        ]
        .map(|(mut r, contract)| {
            r.contract = Some(contract);
            r
        })
        .into();
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
        assert_eq!(of_store(&e), None);
    }

    /// An interleaved table: per-round samples, the floor's rounds drifting with the read's.
    fn paired_table(read: &[f64], floor: &[f64], typed: &[f64]) -> MeasuredTable {
        let mut e = table(11_000.0, 200.0);
        e.rows.retain(|r| r.method != "lazy/sonic-rs");
        for (r, rounds) in e.rows.iter_mut().zip([read, typed, floor]) {
            r.rounds_ns = rounds.to_vec();
            r.mean_ns = Some(rounds.iter().sum::<f64>() / rounds.len() as f64);
        }
        e
    }

    #[test]
    fn the_json_share_comes_from_per_round_differences_with_their_interval() {
        // The machine drifts from 1,000 to 1,300 ns of floor; the read stays 100..104 ns above.
        let floor = [1_000.0, 1_100.0, 1_200.0, 1_300.0];
        let read = [1_100.0, 1_202.0, 1_304.0, 1_402.0];
        let typed = [1_050.0, 1_151.0, 1_252.0, 1_351.0];
        let mut e = paired_table(&read, &floor, &typed);
        finish(&mut e, Some(of_store));
        let s = e.summary.as_ref().and_then(Summary::store).unwrap().clone();
        // Differences 100, 102, 104, 102: mean 102.
        let i = s.json_interval.unwrap();
        assert_eq!((i.estimate, i.n), (102.0, 4));
        assert!(i.low > 0.0 && !s.within_noise());
        assert_eq!(s.json_ns, 102.0);
        assert_eq!(s.json_share, 408.0 / 5_008.0);
        // Savings per round 50, 51, 52, 51: beyond the noise, though the means' intervals overlap.
        assert!(s.cheapest_typed.unwrap().beyond_noise);
        // Every row carries its own paired time above the floor.
        let typed_row = e.rows.iter().find(|r| r.method == "typed/sonic-rs").unwrap();
        assert_eq!(typed_row.above_floor_ns.unwrap().estimate, 51.0);
    }

    #[test]
    fn a_paired_difference_reaching_zero_is_within_noise_never_negative() {
        let floor = [1_000.0, 1_100.0, 1_200.0, 1_300.0];
        let read = [1_010.0, 1_090.0, 1_215.0, 1_290.0];
        let s = store(&paired_table(&read, &floor, &read)).unwrap();
        let i = s.json_interval.unwrap();
        assert!(i.low < 0.0 && i.high > 0.0);
        assert!(s.within_noise());
        assert_eq!(s.json_ns, 1.25);
        assert_eq!(s.share_interval().unwrap().0, 0.0);
        // Floor measured above the read: no JSON work, no negative share.
        let s = store(&paired_table(&floor, &read, &read)).unwrap();
        assert_eq!((s.json_ns, s.json_share), (0.0, 0.0));
        assert!(s.within_noise());
    }

    #[test]
    fn with_contracts_the_typed_path_delivers_what_the_baseline_does() {
        use jsoncost_engine::Contract;
        let mut e = table(11_000.0, 200.0);
        e.rows.push(row("borrowed/serde_json", 9_000.0, 100.0, 4_000.0));
        for (r, c) in e.rows.iter_mut().zip([
            Contract::TypedValue,
            Contract::TypedValue,
            Contract::Projection,
            Contract::Discarded,
            Contract::BorrowedValue,
        ]) {
            r.contract = Some(c);
        }
        assert_eq!(store(&e).unwrap().cheapest_typed.unwrap().method, "typed/sonic-rs");
        // A row that declares no contract is never taken for a typed path.
        e.rows.iter_mut().for_each(|r| r.contract = None);
        assert_eq!(store(&e).unwrap().cheapest_typed, None);
    }

    /// A stream table measured in rounds: per-round times (ns) and the means' throughput.
    fn stream_row(style: &'static str, library: &'static str, rounds: &[f64]) -> Row {
        let mut r = Row::new(jsoncost_engine::StrategyId::new(style, library));
        r.rounds_ns = rounds.to_vec();
        let mean = rounds.iter().sum::<f64>() / rounds.len() as f64;
        r.mean_ns = Some(mean);
        r.mb_per_s = Some(72e6 / mean * 1e3);
        r
    }

    #[test]
    fn the_stream_summary_is_the_paired_ratio_of_the_rounds_not_of_the_means() {
        // The machine drifts from round to round; in each round buffered takes 2, 2, 4 and 1
        // times incremental's time: a geometric mean of 2 with a wide interval, where the
        // means' quotient says 1.86.
        let mut e = MeasuredTable::new(ExperimentKind::Stream, "telemetry");
        e.rows = vec![
            stream_row("buffered", "serde_json", &[2e8, 4e8, 4e8, 3e8]),
            stream_row("incremental", "serde_json", &[1e8, 2e8, 1e8, 3e8]),
        ];
        let s = stream(&e).unwrap();
        let l = &s.libraries[0];
        assert!((l.incremental_mb_per_s / l.buffered_mb_per_s - 13.0 / 7.0).abs() < 1e-12);
        let r = l.throughput_ratio.unwrap();
        // ln ratios: ln2, ln2, 2 ln2, 0; mean ln2, sd ln2·sqrt(2/3); t(0.995, 3) = 5.8409.
        let ln2 = 2f64.ln();
        let half = 5.840_909 * ln2 * (2.0f64 / 3.0).sqrt() / 2.0;
        assert!((r.estimate - 2.0).abs() < 1e-12, "{r:?}");
        assert!(
            (r.low - (ln2 - half).exp()).abs() < 1e-5 && (r.high - (ln2 + half).exp()).abs() < 1e-5,
            "{r:?}"
        );
        assert_eq!(r.n, 4);
        // Rows not measured in the same rounds: no paired ratio, only the means'.
        e.rows[1].rounds_ns.clear();
        assert_eq!(stream(&e).unwrap().libraries[0].throughput_ratio, None);
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
