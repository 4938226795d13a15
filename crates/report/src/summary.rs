//! A table's summary in words: the one wording every renderer prints (the numbers come from
//! the results file, computed once by the experiments library).

use jsoncost_engine::{StoreSummary, StreamSummary, Summary};

/// The summary's sentences.
pub fn sentences(summary: &Summary) -> Vec<String> {
    match summary {
        Summary::Store(s) => store(s),
        Summary::Stream(s) => stream(s),
        Summary::Sentences(lines) => lines.clone(),
        Summary::Conformance(s) => conformance_sentences(s),
    }
}

/// "JSON is X µs of a Y µs read (Z%)." (with its paired interval on an interleaved table, or
/// "within the noise" when that interval reaches 0) and what the cheapest typed path does.
fn store(s: &StoreSummary) -> Vec<String> {
    let first = match (s.json_interval, s.share_interval()) {
        (Some(i), _) if s.within_noise() => format!(
            "JSON work is within the noise of the {:.1} µs read: {} − {} per round is {:.1} µs, 99% interval {:.1} to {:.1} µs.",
            s.read_ns / 1e3,
            s.baseline,
            s.floor,
            i.estimate / 1e3,
            i.low / 1e3,
            i.high / 1e3
        ),
        (Some(i), Some((lo, hi))) => format!(
            "JSON is {:.1} µs of a {:.1} µs read ({:.0}%; 99% interval {:.1}–{:.1} µs, {:.0}–{:.0}%).",
            s.json_ns / 1e3,
            s.read_ns / 1e3,
            s.json_share * 100.0,
            i.low / 1e3,
            i.high / 1e3,
            lo * 100.0,
            hi * 100.0
        ),
        _ => format!(
            "JSON is {:.1} µs of a {:.1} µs read ({:.0}%).",
            s.json_ns / 1e3,
            s.read_ns / 1e3,
            s.json_share * 100.0
        ),
    };
    let mut lines = vec![first];
    if let Some(t) = &s.cheapest_typed {
        let alloc = match (t.baseline_allocated_bytes, t.allocated_bytes) {
            (Some(_), Some(0.0)) => "allocates nothing".to_string(),
            (Some(b), Some(a)) if b >= a => format!("allocates {:.1}× less", b / a),
            (Some(b), Some(a)) if b > 0.0 => format!("allocates {:.1}× more", a / b),
            (Some(_), Some(a)) => format!("allocates {a:.0} B per read where the baseline allocates nothing"),
            _ => "allocation not measured".to_string(),
        };
        if t.beyond_noise {
            lines.push(format!(
                "The cheapest typed path ({}) removes {:.0}% of it and {alloc}.",
                t.method,
                t.removed_share * 100.0
            ));
        } else {
            lines.push(format!(
                "No typed path is measurably faster than {} here (the cheapest, {}, is within the noise of the read); it {alloc}.",
                s.baseline, t.method
            ));
        }
    }
    lines
}

fn mib(bytes: Option<u64>) -> String {
    bytes
        .map(|b| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64))
        .unwrap_or_else(|| "-".into())
}

/// "incremental/X: Y MB/s (Z× of buffered's throughput, 99% interval A–B×, paired per round),
/// peak heap P vs Q buffered; ..." per library, or "no measurable difference" when the paired
/// interval holds 1; the aggregate's peak only where the table has that row. Without rounds
/// shared by both rows (a sequential table, an older file) only the means' quotient is known,
/// and the sentence says so.
fn stream(s: &StreamSummary) -> Vec<String> {
    s.libraries
        .iter()
        .map(|l| {
            let aggregate = l
                .aggregate_peak_bytes
                .map_or(String::new(), |b| format!("; incremental-aggregate peak heap {}", mib(Some(b))));
            let ratio = match l.throughput_ratio {
                Some(r) if r.contains(1.0) => format!(
                    "no measurable difference from buffered: {:.2}× its throughput, 99% interval {:.2}–{:.2}×, paired per round",
                    r.estimate, r.low, r.high
                ),
                Some(r) => format!(
                    "{:.2}× of buffered's throughput, 99% interval {:.2}–{:.2}×, paired per round",
                    r.estimate, r.low, r.high
                ),
                None => format!(
                    "{:.2}× of buffered, from unpaired means",
                    l.incremental_mb_per_s / l.buffered_mb_per_s
                ),
            };
            format!(
                "incremental/{}: {:.0} MB/s ({ratio}), peak heap {} vs {} buffered{aggregate}.",
                l.library,
                l.incremental_mb_per_s,
                mib(l.incremental_peak_bytes),
                mib(l.buffered_peak_bytes),
            )
        })
        .collect()
}

/// The conformance counts in words.
fn conformance_sentences(s: &jsoncost_engine::safety::ConformanceSummary) -> Vec<String> {
    vec![format!(
        "{}: y_ accepted {}/{}, n_ rejected {}/{}, i_ {} accepted and {} rejected; {} crashed, {} timed out; {} files disagree.",
        s.library,
        s.y_accepted,
        s.y_total,
        s.n_rejected,
        s.n_total,
        s.i_accepted,
        s.i_rejected,
        s.crashed,
        s.timed_out,
        s.disagreements.len()
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::{StreamLibrary, TypedPath};

    fn store_summary(beyond_noise: bool) -> StoreSummary {
        StoreSummary {
            baseline: "default".into(),
            floor: "floor".into(),
            read_ns: 15_000.0,
            floor_ns: 1_000.0,
            json_ns: 14_000.0,
            json_share: 14.0 / 15.0,
            json_interval: None,
            cheapest_typed: Some(TypedPath {
                method: "typed/sonic-rs".into(),
                mean_ns: 11_000.0,
                removed_share: 4.0 / 14.0,
                beyond_noise,
                allocated_bytes: Some(8_000.0),
                baseline_allocated_bytes: Some(12_000.0),
            }),
        }
    }

    #[test]
    fn the_store_summary_states_a_saving_only_beyond_the_noise() {
        assert_eq!(
            sentences(&Summary::Store(store_summary(true))),
            [
                "JSON is 14.0 µs of a 15.0 µs read (93%).",
                "The cheapest typed path (typed/sonic-rs) removes 29% of it and allocates 1.5× less."
            ]
        );
        assert_eq!(
            sentences(&Summary::Store(store_summary(false)))[1],
            "No typed path is measurably faster than default here (the cheapest, typed/sonic-rs, is within the noise of the read); it allocates 1.5× less."
        );
    }

    #[test]
    fn a_paired_store_summary_gives_its_interval_or_says_within_noise() {
        let mut s = store_summary(true);
        s.json_interval = Some(jsoncost_engine::Interval {
            estimate: 14_000.0,
            low: 13_500.0,
            high: 14_500.0,
            n: 30,
        });
        assert_eq!(
            sentences(&Summary::Store(s.clone()))[0],
            "JSON is 14.0 µs of a 15.0 µs read (93%; 99% interval 13.5–14.5 µs, 90–97%)."
        );
        s.json_ns = 300.0;
        s.json_share = 0.02;
        s.json_interval = Some(jsoncost_engine::Interval {
            estimate: 300.0,
            low: -400.0,
            high: 1_000.0,
            n: 30,
        });
        assert_eq!(
            sentences(&Summary::Store(s))[0],
            "JSON work is within the noise of the 15.0 µs read: default − floor per round is 0.3 µs, 99% interval -0.4 to 1.0 µs."
        );
    }

    fn serde_json_library(throughput_ratio: Option<jsoncost_engine::Interval>) -> StreamLibrary {
        StreamLibrary {
            library: "serde_json".into(),
            incremental_mb_per_s: 321.4,
            buffered_mb_per_s: 350.1,
            throughput_ratio,
            incremental_peak_bytes: Some(32 << 20),
            buffered_peak_bytes: Some(100 << 20),
            aggregate_peak_bytes: Some(74_000),
        }
    }

    #[test]
    fn the_stream_summary_states_the_paired_ratio_and_its_interval() {
        // The means say 0.92×; the rounds, paired, say 1.06× and that it is real.
        let paired = |estimate, low, high| Some(jsoncost_engine::Interval { estimate, low, high, n: 8 });
        let s = Summary::Stream(StreamSummary {
            libraries: vec![serde_json_library(paired(1.063, 1.021, 1.107))],
        });
        assert_eq!(
            sentences(&s),
            [
                "incremental/serde_json: 321 MB/s (1.06× of buffered's throughput, 99% interval 1.02–1.11×, paired per round), peak heap 32.0 MiB vs 100.0 MiB buffered; incremental-aggregate peak heap 0.1 MiB."
            ]
        );
        let s = Summary::Stream(StreamSummary {
            libraries: vec![serde_json_library(paired(0.99, 0.95, 1.03))],
        });
        assert_eq!(
            sentences(&s),
            [
                "incremental/serde_json: 321 MB/s (no measurable difference from buffered: 0.99× its throughput, 99% interval 0.95–1.03×, paired per round), peak heap 32.0 MiB vs 100.0 MiB buffered; incremental-aggregate peak heap 0.1 MiB."
            ]
        );
    }

    #[test]
    fn a_stream_summary_without_shared_rounds_says_its_ratio_is_of_unpaired_means() {
        let s = Summary::Stream(StreamSummary {
            libraries: vec![serde_json_library(None)],
        });
        assert_eq!(
            sentences(&s),
            [
                "incremental/serde_json: 321 MB/s (0.92× of buffered, from unpaired means), peak heap 32.0 MiB vs 100.0 MiB buffered; incremental-aggregate peak heap 0.1 MiB."
            ]
        );
    }

    #[test]
    fn a_stream_without_aggregate_rows_does_not_speak_of_them() {
        let s = Summary::Stream(StreamSummary {
            libraries: vec![StreamLibrary {
                library: "sonic-rs".into(),
                incremental_mb_per_s: 400.0,
                buffered_mb_per_s: 500.0,
                throughput_ratio: None,
                incremental_peak_bytes: Some(1 << 20),
                buffered_peak_bytes: Some(64 << 20),
                aggregate_peak_bytes: None,
            }],
        });
        assert_eq!(
            sentences(&s),
            ["incremental/sonic-rs: 400 MB/s (0.80× of buffered, from unpaired means), peak heap 1.0 MiB vs 64.0 MiB buffered."]
        );
    }
}
