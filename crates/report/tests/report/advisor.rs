//! Advisor wording from fixed results, and the rule that only non-overlapping confidence
//! intervals earn a recommendation.

use crate::common;

use common::fixture;
use jsoncost_engine::{Contract, ExperimentKind, MeasuredTable, Results, Row, StrategyId};
use jsoncost_report::Format;
use jsoncost_report::advisor::{self, Advice, AdviceKind, Rates};

fn row(method: &str, mean: f64, error: f64, alloc: f64) -> Row {
    let mut r = Row::new(method);
    r.mean_ns = Some(mean);
    r.error_ns = Some(error);
    r.allocated_bytes = Some(alloc);
    r
}

fn table(rows: Vec<Row>) -> Results {
    let mut results = fixture();
    let mut exp = MeasuredTable::new(ExperimentKind::Micro, "t/op");
    exp.rows = rows;
    exp.rows[0].baseline = true;
    results.experiments = vec![exp];
    results
}

fn only(results: &Results) -> Advice {
    let mut advice = advisor::advise(results);
    assert_eq!(advice.len(), 1);
    advice.remove(0)
}

#[test]
fn fixture_advice_is_worded_exactly() {
    let advice = advisor::advise(&fixture());
    let got: Vec<(&str, AdviceKind, Option<&str>, &str)> = advice
        .iter()
        .map(|a| (a.table.as_str(), a.kind, a.candidate.as_deref(), a.text.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "data/deserialize",
                AdviceKind::Recommend,
                Some("dom/sonic-rs"),
                "Use dom/sonic-rs instead of typed/serde_json: 37.80 ns ± 3.06 ns (25.2%) less time and 80 B (200.0%) more \
                 allocation per operation; at 10,000 operations/s (default rate): saves 0.000378 of a core but allocates \
                 781.25 KB/s more. Fidelity: dom/sonic-rs exact; typed/serde_json inexact floats: 37 of 3,000 numbers 1 ulp off (serde_json without float_roundtrip)."
            ),
            (
                "data/serialize",
                AdviceKind::NoMeasurableDifference,
                Some("typed/sonic-rs"),
                "No measurable difference: typed/sonic-rs (63.20 ns ± 1.800 ns) and the baseline typed/serde_json (64.10 ns ± 1.500 ns) \
                 overlap at 99.9% confidence."
            ),
            (
                "redb/order",
                AdviceKind::Recommend,
                Some("typed/sonic-rs"),
                "Use typed/sonic-rs instead of default: 7.820 µs ± 0.230 µs (55.0%) less time and 7.28 KB (47.6%) less allocation \
                 per read; at 2,000 reads/s (default rate): saves 0.0156 of a core and 14.21 MB/s of allocation. JSON work above the floor: 12.39 µs of \
                 14.23 µs (87.1%) with default, 4.570 µs with typed/sonic-rs."
            ),
            (
                "telemetry/deserialize",
                AdviceKind::Recommend,
                Some("incremental/serde_json"),
                "Use incremental/serde_json instead of buffered/serde_json: 109.5 ms ± 10.1 ms (21.0%) less time and 128.75 MB \
                 (58.4%) less allocation per body; at 1 body/s (default rate): saves 0.11 of a core and 128.75 MB/s of \
                 allocation. Peak heap: \
                 181.20 MB with buffered/serde_json, 1.25 MB with incremental/serde_json."
            ),
            (
                "items/closed-n5000-c100",
                AdviceKind::Recommend,
                Some("typed/sonic-rs"),
                "Use typed/sonic-rs instead of typed/serde_json: 24,310 req/s instead of 20,420 (19.1% more); mean latency 4.890 ms → \
                 4.105 ms, p99 9.400 ms → 8.100 ms; 5.17 KB (6.6%) less allocation per request on the server; at 1,000 req/s (default \
                 rate): saves 0.0066 of a server core and 5.04 MB/s of allocation."
            ),
        ]
    );
}

#[test]
fn overlapping_intervals_are_no_measurable_difference_however_large_the_gap_in_means() {
    // 3% faster, but [98, 102] and [101, 105] overlap.
    let a = only(&table(vec![row("base", 103.0, 2.0, 40.0), row("fast", 100.0, 2.0, 8.0)]));
    assert_eq!(a.kind, AdviceKind::NoMeasurableDifference);
    assert_eq!(
        a.text,
        "No measurable difference: fast (100.0 ns ± 2.000 ns) and the baseline base (103.0 ns ± 2.000 ns) overlap at 99.9% confidence."
    );
    // Narrower intervals, [99, 101] and [102, 104]: now it is a recommendation.
    let a = only(&table(vec![row("base", 103.0, 1.0, 40.0), row("fast", 100.0, 1.0, 8.0)]));
    assert_eq!(a.kind, AdviceKind::Recommend);
    assert_eq!(
        a.text,
        "Use fast instead of base: 3.000 ns ± 1.414 ns (2.9%) less time and 32 B (80.0%) less allocation per operation; at 10,000 \
         operations/s (default rate): saves 0.00003 of a core and 312.50 KB/s of allocation."
    );
    // Touching intervals count as overlapping.
    let a = only(&table(vec![row("base", 103.0, 1.5, 40.0), row("fast", 100.0, 1.5, 8.0)]));
    assert_eq!(a.kind, AdviceKind::NoMeasurableDifference);
}

#[test]
fn interval_comes_from_stddev_and_count_when_error_is_absent() {
    let with_sd = |method: &str, mean: f64| {
        let mut r = row(method, mean, 0.0, 40.0);
        r.error_ns = None;
        r.stddev_ns = Some(1.0);
        r.iterations = Some(15);
        r
    };
    // Half-width t(0.9995, 14) · 1 / √15 = 1.069: 100 ± 1.069 and 97 ± 1.069 do not overlap.
    let a = only(&table(vec![with_sd("base", 100.0), with_sd("fast", 97.0)]));
    assert_eq!(a.kind, AdviceKind::Recommend);
    let a = only(&table(vec![with_sd("base", 100.0), with_sd("fast", 98.0)]));
    assert_eq!(a.kind, AdviceKind::NoMeasurableDifference);
    assert_eq!(
        a.text,
        "No measurable difference: fast (98.00 ns ± 1.069 ns) and the baseline base (100.0 ns ± 1.069 ns) overlap at 99.9% confidence."
    );
    let mut bare = with_sd("fast", 50.0);
    bare.stddev_ns = None;
    let a = only(&table(vec![with_sd("base", 100.0), bare]));
    assert_eq!(a.kind, AdviceKind::NotComparable);
    assert_eq!(a.text, "Cannot tell fast from base: fast has no confidence interval recorded.");
}

#[test]
fn a_fastest_baseline_is_kept() {
    let a = only(&table(vec![row("base", 100.0, 1.0, 40.0), row("slow", 150.0, 1.0, 8.0)]));
    assert_eq!(a.kind, AdviceKind::KeepBaseline);
    assert_eq!(
        a.text,
        "Keep base: it is the fastest correct strategy; the next, slow, takes 50.00 ns (50.0%) longer."
    );
}

#[test]
fn failed_rows_are_never_recommended_and_a_failed_baseline_compares_nothing() {
    let a = only(&table(vec![row("base", 100.0, 1.0, 40.0), Row::failed("broken", "mismatch")]));
    assert_eq!(
        (a.kind, a.text.as_str()),
        (AdviceKind::NotComparable, "No other correct strategy to compare with base.")
    );
    let a = only(&table(vec![Row::failed("base", "boom"), row("other", 50.0, 1.0, 8.0)]));
    assert_eq!(
        (a.kind, a.text.as_str()),
        (
            AdviceKind::NotComparable,
            "The baseline base failed, so there is nothing to compare against."
        )
    );
}

#[test]
fn the_store_floor_is_a_reference_not_a_recommendation() {
    let mut results = fixture();
    results.experiments.retain(|e| e.kind == ExperimentKind::Store);
    // Without typed/sonic-rs and typed/serde_json only the floor beats the default.
    results.experiments[0].rows.retain(|r| r.method == "floor" || r.method == "default");
    let a = only(&results);
    assert_eq!(
        (a.kind, a.text.as_str()),
        (AdviceKind::NotComparable, "No other correct strategy to compare with default.")
    );
}

#[test]
fn per_second_figures_follow_the_stated_rate() {
    let mut results = fixture();
    results.experiments.retain(|e| e.kind == ExperimentKind::Store);
    let rates = Rates {
        reads_per_s: 500.0,
        ..Rates::default()
    };
    let a = advisor::advise_at(&results, &rates).remove(0);
    assert!(
        a.text
            .contains("at 500 reads/s (your --advice-rate): saves 0.00391 of a core and 3.55 MB/s of allocation."),
        "{}",
        a.text
    );
}

#[test]
fn http_keeps_the_mode_with_the_most_requests_per_second() {
    let mut results = fixture();
    results.experiments.retain(|e| e.kind == ExperimentKind::Http);
    let exp = &mut results.experiments[0];
    exp.rows.retain(|r| r.method != "typed/sonic-rs");
    let a = only(&results);
    assert_eq!(a.kind, AdviceKind::KeepBaseline);
    assert_eq!(
        a.text,
        "Keep typed/serde_json: it serves the most requests per second (20,420 req/s); the next, dom/serde_json, serves 15,010 (26.5% fewer)."
    );
}

#[test]
fn advice_renders_in_every_format() {
    let advice = advisor::advise(&table(vec![row("base", 100.0, 1.0, 40.0), row("slow", 150.0, 1.0, 8.0)]));
    let text = "Keep base: it is the fastest correct strategy; the next, slow, takes 50.00 ns (50.0%) longer.";
    assert_eq!(
        Format::Table.exporter().advice(&advice),
        format!("What moves the number\nmicro: t/op — baseline base: 100.0 ns and 40 B allocated per operation\n  {text}\n")
    );
    assert_eq!(
        Format::Markdown.exporter().advice(&advice),
        format!("## What moves the number\n\n- **micro: t/op — baseline base: 100.0 ns and 40 B allocated per operation**\n  - {text}\n")
    );
    assert_eq!(
        Format::Csv.exporter().advice(&advice),
        format!("experiment,table,kind,baseline,candidate,text\nmicro,t/op,keep_baseline,base,slow,\"{text}\"\n")
    );
    let json: serde_json::Value = serde_json::from_str(&Format::Json.exporter().advice(&advice)).unwrap();
    assert_eq!(json[0]["kind"], "keep_baseline");
    assert_eq!(json[0]["candidate"], "slow");
    assert_eq!(
        Format::Table.exporter().advice(&[]),
        "What moves the number\nNo tables to advise on.\n"
    );
}

fn with_contract(mut r: Row, contract: Contract) -> Row {
    r.contract = Some(contract);
    r
}

#[test]
fn a_typed_table_recommends_the_fastest_typed_row_and_lists_other_contracts_apart() {
    use Contract::*;
    let results = table(vec![
        with_contract(row("typed/serde_json", 150.0, 2.0, 40.0), TypedValue),
        with_contract(row("lazy/sonic-rs", 30.0, 1.0, 0.0), Projection),
        with_contract(row("raw/serde_json", 40.0, 1.0, 80.0), RawValidated),
        with_contract(row("dom/sonic-rs", 80.0, 1.0, 120.0), Dom),
        with_contract(row("dom/serde_json", 90.0, 1.0, 400.0), Dom),
        with_contract(row("typed/sonic-rs", 110.0, 1.5, 40.0), TypedValue),
        with_contract(row("typed/simd-json", 148.0, 5.0, 40.0), TypedValue),
    ]);
    let a = only(&results);
    assert_eq!(a.kind, AdviceKind::Recommend);
    assert_eq!(a.candidate.as_deref(), Some("typed/sonic-rs"));
    assert_eq!(
        a.text,
        "Use typed/sonic-rs instead of typed/serde_json: 40.00 ns ± 2.50 ns (26.7%) less time and the same allocation (40 B) per \
         operation; at 10,000 operations/s (default rate): saves 0.0004 of a core."
    );
    let alternatives: Vec<(Contract, &str, &str)> = a
        .alternatives
        .iter()
        .map(|x| (x.contract, x.method.as_str(), x.text.as_str()))
        .collect();
    assert_eq!(
        alternatives,
        vec![
            (
                Projection,
                "lazy/sonic-rs",
                "If you only need a few named fields: lazy/sonic-rs — 120.0 ns ± 2.2 ns (80.0%) less time and 40 B (100.0%) less \
                 allocation per operation; at 10,000 operations/s (default rate): saves 0.0012 of a core and 390.62 KB/s of \
                 allocation."
            ),
            (
                RawValidated,
                "raw/serde_json",
                "If you only need the input validated and kept as bytes: raw/serde_json — 110.0 ns ± 2.2 ns (73.3%) less time and \
                 40 B (100.0%) more allocation per operation; at 10,000 operations/s (default rate): saves 0.0011 of a core but \
                 allocates 390.62 KB/s more."
            ),
            (
                Dom,
                "dom/sonic-rs",
                "If you only need a DOM: dom/sonic-rs — 70.00 ns ± 2.24 ns (46.7%) less time and 80 B (200.0%) more allocation per \
                 operation; at 10,000 operations/s (default rate): saves 0.0007 of a core but allocates 781.25 KB/s more."
            ),
        ]
    );
    // Every format shows the options apart from the recommendation.
    let text = Format::Table.exporter().advice(std::slice::from_ref(&a));
    assert!(
        text.contains(&format!(
            "  {}\n  apart         If you only need a few named fields: lazy/sonic-rs",
            a.text
        )),
        "{text}"
    );
    let csv = Format::Csv.exporter().advice(&[a]);
    assert!(
        csv.contains("\nmicro,t/op,other_contract,typed/serde_json,raw/serde_json,"),
        "{csv}"
    );
}

#[test]
fn a_serialize_table_does_not_swap_writing_a_value_for_writing_a_dom_already_held() {
    let results = table(vec![
        with_contract(row("typed/serde_json", 64.0, 1.0, 80.0), Contract::BytesFromTyped),
        with_contract(row("dom/simd-json", 40.0, 1.0, 80.0), Contract::BytesFromDom),
        with_contract(row("typed/sonic-rs", 70.0, 1.0, 80.0), Contract::BytesFromTyped),
    ]);
    let a = only(&results);
    assert_eq!(a.kind, AdviceKind::KeepBaseline);
    assert_eq!(a.candidate.as_deref(), Some("typed/sonic-rs"));
    assert_eq!(a.alternatives.len(), 1);
    assert!(
        a.alternatives[0]
            .text
            .starts_with("If you only need output bytes from a DOM you already hold: dom/simd-json — 24.00 ns"),
        "{}",
        a.alternatives[0].text
    );
}

#[test]
fn a_baseline_alone_in_its_contract_is_not_compared_with_other_contracts() {
    let results = table(vec![
        with_contract(row("typed/serde_json", 150.0, 2.0, 40.0), Contract::TypedValue),
        with_contract(row("raw/serde_json", 40.0, 1.0, 80.0), Contract::RawValidated),
        // Slower than the baseline: not an option worth listing.
        with_contract(row("dom/serde_json", 300.0, 1.0, 400.0), Contract::Dom),
    ]);
    let a = only(&results);
    assert_eq!(a.kind, AdviceKind::NotComparable);
    assert_eq!(
        a.text,
        "No other correct strategy delivers what typed/serde_json does (an owned typed value)."
    );
    assert_eq!(
        a.alternatives.iter().map(|x| x.method.as_str()).collect::<Vec<_>>(),
        ["raw/serde_json"]
    );
}

#[test]
fn the_rate_a_user_sets_is_read_from_the_results_and_the_core_share_is_exact() {
    // 40 ns saved per operation at 25,000 operations/s: 1 ms of CPU per second, 0.001 of a
    // core; 32 B less each: 800,000 B/s = 781.25 KB/s.
    let mut results = table(vec![row("base", 140.0, 1.0, 40.0), row("fast", 100.0, 1.0, 8.0)]);
    results.rates.operations_per_s = 25_000.0;
    let a = only(&results);
    assert!(
        a.text
            .ends_with("at 25,000 operations/s (your --advice-rate): saves 0.001 of a core and 781.25 KB/s of allocation."),
        "{}",
        a.text
    );
    // 2 ms saved per read at 350 reads/s: 0.7 of a core.
    let mut results = table(vec![row("base", 5e6, 1e4, 0.0), row("fast", 3e6, 1e4, 0.0)]);
    results.experiments[0].kind = ExperimentKind::Store;
    results.rates.reads_per_s = 350.0;
    let a = only(&results);
    assert!(
        a.text.contains("at 350 reads/s (your --advice-rate): saves 0.7 of a core"),
        "{}",
        a.text
    );
    // 100 ms saved per body at the default 1 body/s: 0.1 of a core; 20 at 200 bodies/s.
    let mut results = table(vec![row("base", 3e8, 1e6, 0.0), row("fast", 2e8, 1e6, 0.0)]);
    results.experiments[0].kind = ExperimentKind::Stream;
    assert!(only(&results).text.contains("at 1 body/s (default rate): saves 0.1 of a core"));
    results.rates.bodies_per_s = 200.0;
    assert!(only(&results).text.contains("at 200 bodies/s (your --advice-rate): saves 20 cores"));
}

#[test]
fn a_variants_table_recommends_only_the_plain_model_and_lists_model_changes_apart() {
    use Contract::*;
    let results = table(vec![
        with_contract(row("plain/serde_json", 10_000.0, 100.0, 9_000.0), TypedValue),
        with_contract(row("deny-unknown-fields/sonic-rs", 5_000.0, 100.0, 9_000.0), OtherModel),
        with_contract(row("plain/sonic-rs", 6_000.0, 100.0, 9_000.0), TypedValue),
        with_contract(row("flatten/serde_json", 12_000.0, 100.0, 12_000.0), OtherModel),
    ]);
    let a = only(&results);
    assert_eq!(a.candidate.as_deref(), Some("plain/sonic-rs"));
    let alternatives: Vec<(Contract, &str)> = a.alternatives.iter().map(|x| (x.contract, x.method.as_str())).collect();
    assert_eq!(alternatives, vec![(OtherModel, "deny-unknown-fields/sonic-rs")]);
    assert!(
        a.alternatives[0]
            .text
            .starts_with("If you only need the values through another model of your type: deny-unknown-fields/sonic-rs — "),
        "{}",
        a.alternatives[0].text
    );
}

fn paired(mut r: Row, estimate: f64, low: f64, high: f64) -> Row {
    r.ratio_interval = Some(jsoncost_engine::Interval {
        estimate,
        low,
        high,
        n: 30,
    });
    r
}

#[test]
fn a_saving_decided_on_the_paired_ratio_is_printed_with_that_interval() {
    // Unpaired, the saving's interval (±13.5 µs) is wider than the saving itself; the paired
    // per-round ratio, 0.823 (0.790–0.856), decided, and is what the advice prints.
    let a = only(&table(vec![
        row("base", 30_770.0, 9_000.0, 40.0),
        paired(row("fast", 25_324.0, 10_000.0, 8.0), 0.823, 0.790, 0.856),
    ]));
    assert_eq!(a.kind, AdviceKind::Recommend);
    assert_eq!(
        a.text,
        "Use fast instead of base: 5.446 µs (17.7%; 99% interval 4.431 µs to 6.462 µs, paired per round) less time and 32 B (80.0%) \
         less allocation per operation; at 10,000 operations/s (default rate): saves 0.0545 of a core and 312.50 KB/s of allocation."
    );
    assert!(!a.text.contains('±'), "{}", a.text);
}

/// A stream row of `style` and `library`, as the Runner records it.
fn stream_row((style, library): (&'static str, &'static str), contract: Contract, mean_ms: f64, error_ms: f64, peak: u64) -> Row {
    let mut r = Row::new(StrategyId::new(style, library));
    r.mean_ns = Some(mean_ms * 1e6);
    r.error_ns = Some(error_ms * 1e6);
    r.allocated_bytes = Some(peak as f64 * 2.0);
    r.peak_bytes = Some(peak);
    with_contract(r, contract)
}

fn stream_table(rows: Vec<Row>) -> Results {
    let mut results = table(rows);
    results.experiments[0].kind = ExperimentKind::Stream;
    results.experiments[0].table = "events/items".into();
    results
}

#[test]
fn a_user_element_type_is_advised_against_its_buffered_typed_row() {
    use Contract::*;
    let results = stream_table(vec![
        stream_row(("buffered", "serde_json"), Dom, 200.0, 5.0, 100 << 20),
        stream_row(("incremental", "serde_json"), Dom, 180.0, 5.0, 1 << 20),
        stream_row(("incremental-skip", "serde_json"), Aggregate, 90.0, 2.0, 64 << 10),
        stream_row(("buffered-typed", "serde_json"), TypedValue, 120.0, 4.0, 60 << 20),
        stream_row(("incremental-typed", "serde_json"), TypedValue, 110.0, 4.0, 512 << 10),
        stream_row(("incremental-typed", "sonic-rs"), TypedValue, 80.0, 3.0, 512 << 10),
    ]);
    let advice = advisor::advise(&results);
    let got: Vec<(&str, AdviceKind, Option<&str>, &str)> = advice
        .iter()
        .map(|a| (a.baseline.as_str(), a.kind, a.candidate.as_deref(), a.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "buffered/serde_json",
                AdviceKind::Recommend,
                Some("incremental/serde_json"),
                "Use incremental/serde_json instead of buffered/serde_json: 20.00 ms ± 7.07 ms (10.0%) less time and 198.00 MB \
                 (99.0%) less allocation per body; at 1 body/s (default rate): saves 0.02 of a core and 198.00 MB/s of \
                 allocation. Peak heap: 100.00 MB with buffered/serde_json, 1.00 MB with incremental/serde_json."
            ),
            (
                "buffered-typed/serde_json",
                AdviceKind::Recommend,
                Some("incremental-typed/sonic-rs"),
                "Use incremental-typed/sonic-rs instead of buffered-typed/serde_json: 40.00 ms ± 5.00 ms (33.3%) less time and \
                 119.00 MB (99.2%) less allocation per body; at 1 body/s (default rate): saves 0.04 of a core and 119.00 MB/s \
                 of allocation. Peak heap: 60.00 MB with buffered-typed/serde_json, 512.00 KB with incremental-typed/sonic-rs."
            ),
        ]
    );
    // The typed rows are advised on their own, not listed as another contract of the DOM rows.
    let alternatives: Vec<&str> = advice[0].alternatives.iter().map(|a| a.method.as_str()).collect();
    assert_eq!(alternatives, ["incremental-skip/serde_json"]);

    // Without a buffered typed row there is one advice, and the typed rows stay another
    // contract of the table's baseline.
    let mut without = results.clone();
    without.experiments[0].rows.retain(|r| r.method != "buffered-typed/serde_json");
    let advice = advisor::advise(&without);
    assert_eq!(advice.len(), 1);
    let alternatives: Vec<&str> = advice[0].alternatives.iter().map(|a| a.method.as_str()).collect();
    assert_eq!(alternatives, ["incremental-typed/sonic-rs", "incremental-skip/serde_json"]);
}

#[test]
fn typed_stream_rows_measured_in_the_same_rounds_pair_against_the_buffered_typed_row() {
    use Contract::*;
    let rounds = |base: f64, k: f64| -> Vec<f64> { (0..10).map(|i| base * (1.0 + 0.01 * (i % 3) as f64) * k).collect() };
    let mut buffered = stream_row(("buffered-typed", "serde_json"), TypedValue, 120.0, 60.0, 60 << 20);
    buffered.rounds_ns = rounds(120e6, 1.0);
    // Unpaired, the intervals overlap (±60 ms and ±50 ms); paired, every round is 0.75×.
    let mut sonic = stream_row(("incremental-typed", "sonic-rs"), TypedValue, 90.0, 50.0, 512 << 10);
    sonic.rounds_ns = rounds(120e6, 0.75);
    let mut base = stream_row(("buffered", "serde_json"), Dom, 200.0, 5.0, 100 << 20);
    base.rounds_ns = rounds(200e6, 1.0);
    let advice = advisor::advise(&stream_table(vec![base, buffered, sonic]));
    let typed = advice.iter().find(|a| a.baseline == "buffered-typed/serde_json").unwrap();
    assert_eq!(typed.kind, AdviceKind::Recommend);
    assert!(
        typed.text.starts_with(
            "Use incremental-typed/sonic-rs instead of buffered-typed/serde_json: 30.00 ms (25.0%; 99% interval 30.00 ms to 30.00 ms, paired per round) less time"
        ),
        "{}",
        typed.text
    );
}

#[test]
fn the_telemetry_table_whose_baseline_delivers_typed_values_is_advised_once() {
    use Contract::*;
    // The stream experiment's own table: its baseline, buffered/serde_json, is already the
    // buffered typed row; there is no `buffered-typed/*` row to advise against apart.
    let results = stream_table(vec![
        stream_row(("buffered", "serde_json"), TypedValue, 200.0, 5.0, 160 << 20),
        stream_row(("buffered", "sonic-rs"), TypedValue, 180.0, 5.0, 160 << 20),
        stream_row(("incremental", "sonic-rs"), TypedValue, 150.0, 5.0, 32 << 20),
        stream_row(("incremental-aggregate", "sonic-rs"), Aggregate, 140.0, 5.0, 1 << 16),
    ]);
    let advice = advisor::advise(&results);
    assert_eq!(advice.len(), 1, "{advice:#?}");
    assert_eq!(
        (advice[0].baseline.as_str(), advice[0].candidate.as_deref()),
        ("buffered/serde_json", Some("incremental/sonic-rs"))
    );
}
