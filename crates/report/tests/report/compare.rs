//! compare: verdicts and the regression gate on crafted pairs.

use crate::common;

use common::fixture;
use jsoncost_engine::{ExperimentKind, MeasuredTable, Results, Row};
use jsoncost_report::Format;
use jsoncost_report::compare::{CompareVerdict, Limit, NotCompared, Reason, Side, compare, compare_with_runs};

const THRESHOLD: f64 = 0.05;

fn row(method: &str, mean: f64, sd: f64, n: u64, alloc: f64) -> Row {
    let mut r = Row::new(method);
    r.mean_ns = Some(mean);
    r.stddev_ns = Some(sd);
    r.iterations = Some(n);
    r.allocated_bytes = Some(alloc);
    r
}

fn results(tables: Vec<(&str, Vec<Row>)>) -> Results {
    let mut results = fixture();
    results.experiments = tables
        .into_iter()
        .map(|(name, rows)| {
            let mut e = MeasuredTable::new(ExperimentKind::Micro, name);
            e.rows = rows;
            e
        })
        .collect();
    results
}

fn one(base: Row, new: Row) -> jsoncost_report::compare::Comparison {
    compare(&results(vec![("t", vec![base])]), &results(vec![("t", vec![new])]), THRESHOLD)
}

#[test]
fn a_run_against_itself_is_all_within_noise() {
    let r = fixture();
    let c = compare(&r, &r, THRESHOLD);
    // 14 rows, one of them failed on both sides.
    assert_eq!(c.rows.len(), 13);
    assert!(
        c.rows
            .iter()
            .all(|r| r.verdict == CompareVerdict::WithinNoise && r.time_change == 0.0)
    );
    assert!(!c.has_regression());
    assert_eq!(
        c.not_compared,
        vec![NotCompared {
            experiment: ExperimentKind::Micro,
            table: "data/deserialize".into(),
            method: Some("typed/simd-json".into()),
            reason: Reason::Failed {
                side: Side::Both,
                message: "decoded value differs from the baseline | field Name:\n  expected \"Ada <Lovelace>\"\n  got      \"Ada\"".into()
            },
            lost: 0,
        }]
    );
}

#[test]
fn a_clear_slowdown_is_a_regression() {
    let c = one(row("m", 100.0, 1.0, 20, 40.0), row("m", 120.0, 1.0, 20, 40.0));
    let r = &c.rows[0];
    assert_eq!(r.verdict, CompareVerdict::Slower);
    assert!((r.time_change - 0.2).abs() < 1e-12);
    // One row: no table to shift with, no other rows to spread; its own intervals, 99.9% with
    // t(19) = 3.883 over sqrt(20), in quadrature.
    assert_eq!((r.table_shift, r.own_change), (0.0, r.time_change));
    let own = |sd: f64, mean: f64| 3.883_4 * sd / 20f64.sqrt() / mean;
    let resolution = r.resolution.unwrap();
    assert_eq!(resolution.limit, Limit::OwnIntervals);
    assert!((resolution.half_width - own(1.0, 100.0).hypot(own(1.0, 120.0)).exp_m1()).abs() < 1e-5);
    assert!(!r.allocation_grew);
    assert!(c.has_regression());
    assert!(
        c.summary().starts_with(
            "Regression in 1 of 1 row (threshold 5.0%, beyond the table's shift and what the files resolve): micro t m (regression: time)."
        ),
        "{}",
        c.summary()
    );
}

#[test]
fn a_clear_speedup_is_faster_and_passes() {
    let c = one(row("m", 100.0, 1.0, 20, 40.0), row("m", 80.0, 1.0, 20, 40.0));
    assert_eq!(c.rows[0].verdict, CompareVerdict::Faster);
    assert!(!c.has_regression());
}

#[test]
fn a_row_whose_change_and_own_intervals_straddle_the_threshold_is_unresolvable_at_it() {
    // Means 1% apart with a 5% spread over 20 iterations: each mean's 99.9% interval is ±4.3%,
    // ±6.3% in quadrature (as a log ratio), so the change's band, 1% ± 6.3%, reaches past 5%.
    let c = one(row("m", 100.0, 5.0, 20, 40.0), row("m", 101.0, 5.0, 20, 40.0));
    let r = &c.rows[0];
    assert_eq!(r.verdict, CompareVerdict::Unresolvable);
    assert_eq!(r.verdict_text(THRESHOLD), "unresolvable at 5.0%: its own intervals are ±6.3%");
    assert!(!c.has_regression());
    assert!(
        c.summary().contains("0 faster, 0 slower, 0 within noise, 1 unresolvable at 5.0%"),
        "{}",
        c.summary()
    );
    // 30% slower, but three iterations 50% apart: unresolvable too, not a regression.
    let c = one(row("m", 100.0, 50.0, 3, 40.0), row("m", 130.0, 50.0, 3, 40.0));
    assert_eq!(c.rows[0].verdict, CompareVerdict::Unresolvable);
    assert!(!c.has_regression());
}

#[test]
fn a_real_change_under_the_threshold_is_within_noise() {
    let c = one(row("m", 100.0, 0.1, 100, 40.0), row("m", 103.0, 0.1, 100, 40.0));
    assert_eq!(c.rows[0].verdict, CompareVerdict::WithinNoise);
    assert!(!c.has_regression());
}

#[test]
fn one_more_byte_per_operation_is_a_regression_even_when_faster() {
    let c = one(row("m", 100.0, 1.0, 20, 40.0), row("m", 80.0, 1.0, 20, 41.0));
    let r = &c.rows[0];
    assert_eq!(r.verdict, CompareVerdict::Faster);
    assert!(r.allocation_grew);
    assert_eq!(r.allocation_change(), Some(1.0));
    assert!(c.has_regression());
    assert!(
        Format::Table.exporter().comparison(&c).contains("┆ regression: allocation │"),
        "{}",
        Format::Table.exporter().comparison(&c)
    );
    // Less allocation, or a fraction of a byte from amortising a one-time allocation, passes.
    assert!(!one(row("m", 100.0, 1.0, 20, 40.0), row("m", 100.0, 1.0, 20, 39.0)).has_regression());
    assert!(!one(row("m", 100.0, 1.0, 20, 40.0), row("m", 100.0, 1.0, 20, 40.2)).has_regression());
}

#[test]
fn missing_unknown_mismatched_and_failed_rows_are_listed_and_lost_ok_rows_regress() {
    let base = results(vec![
        (
            "kept",
            vec![
                row("a", 100.0, 1.0, 20, 8.0),
                row("gone", 100.0, 1.0, 20, 8.0),
                row("breaks", 100.0, 1.0, 20, 8.0),
            ],
        ),
        ("old-table", vec![row("a", 100.0, 1.0, 20, 8.0)]),
        ("resized", vec![row("a", 100.0, 1.0, 20, 8.0)]),
    ]);
    let mut new = results(vec![
        (
            "kept",
            vec![
                row("a", 100.0, 1.0, 20, 8.0),
                Row::failed("breaks", "line 1\nline 2"),
                row("added", 90.0, 1.0, 20, 8.0),
            ],
        ),
        ("resized", vec![row("a", 300.0, 1.0, 20, 8.0)]),
        ("new-table", vec![row("a", 100.0, 1.0, 20, 8.0)]),
    ]);
    new.experiments[1].params.insert("payload_bytes".into(), 4120.into());
    let c = compare(&base, &new, THRESHOLD);
    assert_eq!(c.rows.len(), 1);
    // gone (missing), breaks (failed) and old-table's one row were ok in base.
    assert_eq!(c.lost_rows(), 3);
    assert!(c.has_regression());
    assert_eq!(
        c.summary(),
        "Regression (threshold 5.0%, beyond the table's shift and what the files resolve): 3 rows ok in base failed or are missing in new \
         (--allow-missing accepts that): micro kept gone (missing from new); micro kept breaks (failed in new); \
         micro old-table (whole table, 1 row ok, missing from new). 1 row compared: 0 faster, 0 slower, 1 within noise, 0 unresolvable at 5.0%; 6 not compared."
    );
    let allowed = c.clone().allowing_missing(true);
    assert!(!allowed.has_regression());
    assert!(
        allowed
            .summary()
            .starts_with("No regression (threshold 5.0%, beyond the table's shift and what the files resolve). 3 rows ok in base failed or are missing in new, allowed by --allow-missing: micro kept gone"),
        "{}",
        allowed.summary()
    );
    let listed: Vec<String> = c
        .not_compared
        .iter()
        .map(|n| format!("{} {} {}: {}", n.experiment, n.table, n.method.as_deref().unwrap_or("*"), n.reason))
        .collect();
    assert_eq!(
        listed,
        vec![
            "micro kept gone: only in base (missing from new)",
            "micro kept breaks: failed in new: line 1\nline 2",
            "micro kept added: only in new (unknown to base)",
            "micro old-table *: only in base (missing from new)",
            "micro resized *: params differ: base {}; new {\"payload_bytes\":4120}",
            "micro new-table *: only in new (unknown to base)",
        ]
    );
    let md = Format::Markdown.exporter().comparison(&c);
    assert!(md.starts_with("### jsoncost compare: **Regression**"), "{md}");
    assert!(
        md.contains("- micro kept breaks: failed in new: line 1 line 2 [ok in base: a regression]\n"),
        "{md}"
    );
    assert!(md.contains("- micro kept added: only in new (unknown to base)\n"), "{md}");
    let csv = Format::Csv.exporter().comparison(&c);
    assert!(csv.contains("\nmicro,kept,breaks,,,,,,,failed_in_new,,,,,,true,,,,\n"), "{csv}");
    assert!(csv.contains("\nmicro,old-table,,,,,,,,missing_from_new,,,,,,true,,,,\n"), "{csv}");
}

#[test]
fn a_new_file_without_experiments_fails_the_gate() {
    let mut failed = Row::failed("broken", "was already failing");
    failed.iterations = None;
    let base = results(vec![("t", vec![row("a", 100.0, 1.0, 20, 8.0), failed])]);
    let c = compare(&base, &results(vec![]), THRESHOLD);
    assert!(c.rows.is_empty());
    // The failed base row is not lost: it was never ok.
    assert_eq!(c.lost_rows(), 1);
    assert!(c.has_regression());
    assert_eq!(
        c.summary(),
        "Regression (threshold 5.0%, beyond the table's shift and what the files resolve): 1 row ok in base failed or is missing in new \
         (--allow-missing accepts that): micro t (whole table, 1 row ok, missing from new). \
         0 rows compared: 0 faster, 0 slower, 0 within noise, 0 unresolvable at 5.0%; 1 not compared."
    );
    // Nothing ok in base, nothing lost: an empty new file against it passes.
    let all_failed = results(vec![("t", vec![Row::failed("broken", "x")])]);
    assert!(!compare(&all_failed, &results(vec![]), THRESHOLD).has_regression());
}

#[test]
fn a_time_regression_and_a_lost_row_are_both_named() {
    let base = results(vec![(
        "t",
        vec![row("slow", 100.0, 1.0, 20, 8.0), row("gone", 100.0, 1.0, 20, 8.0)],
    )]);
    let new = results(vec![("t", vec![row("slow", 130.0, 1.0, 20, 8.0)])]);
    let c = compare(&base, &new, THRESHOLD);
    assert_eq!(
        c.summary(),
        "Regression in 1 of 1 row (threshold 5.0%, beyond the table's shift and what the files resolve): micro t slow (regression: time). \
         Also 1 row ok in base failed or is missing in new (--allow-missing accepts that): micro t gone (missing from new). \
         1 row compared: 0 faster, 1 slower, 0 within noise, 0 unresolvable at 5.0%; 1 not compared."
    );
    // Allowing missing rows leaves the time regression.
    assert!(c.allowing_missing(true).has_regression());
}

#[test]
fn markdown_for_a_pr_comment() {
    let base = results(vec![(
        "t",
        vec![row("fast", 100.0, 1.0, 20, 40.0), row("slow", 1000.0, 2.0, 20, 64.0)],
    )]);
    let new = results(vec![(
        "t",
        vec![row("fast", 101.0, 1.0, 20, 40.0), row("slow", 1500.0, 2.0, 20, 65.0)],
    )]);
    let c = compare(&base, &new, THRESHOLD);
    assert_eq!(
        Format::Markdown.exporter().comparison(&c),
        "### jsoncost compare: **Regression**\n\n\
             Regression in 1 of 2 rows (threshold 5.0%, beyond the table's shift and what the files resolve): micro t slow (regression: time, allocation). \
             2 rows compared: 0 faster, 1 slower, 1 within noise, 0 unresolvable at 5.0%; 0 not compared.\n\n\
             | Table | Method | Base | New | Change | Beyond table | Resolves | Verdict | Alloc base | Alloc new | Alloc change | Gate |\n\
             | :--- | :--- | ---: | ---: | ---: | ---: | ---: | :--- | ---: | ---: | ---: | :--- |\n\
             | micro t | fast | 100.0 ns | 101.0 ns | +1.0% | +1.0% | ±1.2% | within noise | 40 B | 40 B | 0 B | ok |\n\
             | micro t | slow | 1.000 µs | 1.500 µs | +50.0% | +50.0% | ±0.2% | slower | 64 B | 65 B | +1 B | regression: time, allocation |\n\n\
             Unpaired comparison: BASE and NEW ran at different times, so whatever the machine did in between reads as change; \
             a row is judged by its change beyond its table's shift, against what the files resolve. \
             On a shared machine two runs of one build can differ by more than a few percent: measure it with --base-run \
             (more runs of the base build), or let jsoncost ab pair the builds round by round.\n"
    );
}

#[test]
fn json_and_csv_carry_the_verdicts() {
    let c = one(row("m", 100.0, 1.0, 20, 40.0), row("m", 120.0, 1.0, 20, 40.0));
    let json: serde_json::Value = serde_json::from_str(&Format::Json.exporter().comparison(&c)).unwrap();
    assert_eq!(json["rows"][0]["verdict"], "slower");
    assert_eq!(json["threshold"], 0.05);
    let csv = Format::Csv.exporter().comparison(&c);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "experiment,table,method,base_mean_ns,new_mean_ns,time_change,table_shift,own_change,resolution,verdict,base_allocated_bytes,new_allocated_bytes,base_allocs,new_allocs,allocation_grew,regression,base_instructions_per_op,new_instructions_per_op,instructions_change,instructions_grew"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("micro,t,m,100,120,0.19999999999999996,0,0.19999999999999996,0.011")
    );
}

#[test]
fn rows_without_spread_are_judged_on_the_threshold_alone() {
    let mut base = row("m", 100.0, 1.0, 20, 40.0);
    base.stddev_ns = None;
    let mut new = row("m", 110.0, 1.0, 20, 40.0);
    new.stddev_ns = None;
    let c = one(base.clone(), new);
    assert_eq!(c.rows[0].resolution, None);
    assert_eq!(c.rows[0].verdict, CompareVerdict::Slower);
    let mut near = row("m", 103.0, 1.0, 20, 40.0);
    near.stddev_ns = None;
    assert_eq!(one(base, near).rows[0].verdict, CompareVerdict::WithinNoise);
}

/// Runs of one build on a drifting VM, in `tests/fixtures/compare`: 75 rows in six interleaved
/// tables (four micro, a store, a stream). Between runs every table moves as a whole (up to
/// +38%, one CPU's speed against the other's) and each row by a noise of its own (1% micro,
/// 1.5% store, 2.5% stream; 3% on four rows that build large DOMs), while each run's own
/// intervals are tight (Error 1–5%): what made unpaired `compare` call 39 of 116 rows of the
/// same build a regression. `one-row-slower.json` is `same-build.json` with micro
/// order/deserialize typed/sonic-rs made 15% slower; `base-run.json` is a third run.
fn run_of(name: &str) -> Results {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compare")
        .join(name);
    jsoncost_report::files::load(&path).expect("the fixture loads")
}

#[test]
fn two_runs_of_one_build_on_a_drifting_machine_are_no_regression() {
    let (base, same) = (run_of("base.json"), run_of("same-build.json"));
    let c = compare(&base, &same, THRESHOLD);
    assert_eq!(c.rows.len(), 75);
    // Their means alone: 35 rows more than 5% slower, one 40.5%.
    assert_eq!(c.rows.iter().filter(|r| r.time_change > THRESHOLD).count(), 35);
    let largest = c.rows.iter().map(|r| r.time_change).fold(0.0, f64::max);
    assert!((largest - 0.405).abs() < 0.001, "{largest}");
    assert!(!c.has_regression(), "{}", Format::Table.exporter().comparison(&c));
    assert!(
        c.rows
            .iter()
            .all(|r| !matches!(r.verdict, CompareVerdict::Slower | CompareVerdict::Faster)),
        "{}",
        Format::Table.exporter().comparison(&c)
    );
    // The tables that moved as a whole are named, not flagged.
    let shifted: Vec<(&str, String)> = c
        .table_shifts
        .iter()
        .map(|t| (t.table.as_str(), format!("{:.2}", t.shift)))
        .collect();
    assert_eq!(
        shifted,
        [
            ("data/deserialize", "0.38".to_string()),
            ("data/serialize", "0.06".to_string()),
            ("order/deserialize", "-0.05".to_string()),
            ("order/serialize", "0.09".to_string()),
            ("redb/order", "0.11".to_string()),
            ("telemetry", "-0.06".to_string())
        ]
    );
}

#[test]
fn one_row_made_15_percent_slower_is_the_one_regression() {
    let (base, slower) = (run_of("base.json"), run_of("one-row-slower.json"));
    for c in [
        compare(&base, &slower, THRESHOLD),
        compare_with_runs(&base, &slower, &[&run_of("base-run.json")], THRESHOLD),
    ] {
        let flagged: Vec<String> = c
            .regressions()
            .map(|r| format!("{} {} {}", r.experiment, r.table, r.method))
            .collect();
        assert_eq!(
            flagged,
            ["micro order/deserialize typed/sonic-rs"],
            "{}",
            Format::Table.exporter().comparison(&c)
        );
        assert!(c.has_regression());
    }
}

#[test]
fn runs_of_the_base_build_say_how_far_runs_move_and_keep_the_same_build_quiet() {
    let (base, same) = (run_of("base.json"), run_of("same-build.json"));
    let c = compare_with_runs(&base, &same, &[&run_of("base-run.json")], THRESHOLD);
    assert!(!c.has_regression(), "{}", Format::Table.exporter().comparison(&c));
    let drift = c.drift.unwrap();
    assert_eq!((drift.runs, drift.rows), (2, 75));
    assert!(
        c.unpaired_note().contains("2 runs of the base build differ per row by a median"),
        "{}",
        c.unpaired_note()
    );
}

#[test]
fn nearly_any_one_micro_row_made_15_percent_slower_is_caught_and_alone() {
    let (base, same) = (run_of("base.json"), run_of("same-build.json"));
    let micro: Vec<(usize, usize)> = same
        .experiments
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == ExperimentKind::Micro)
        .flat_map(|(i, e)| (0..e.rows.len()).map(move |j| (i, j)))
        .collect();
    let mut caught = Vec::new();
    for &(i, j) in &micro {
        let mut slower = same.clone();
        let name = format!("{} {}", same.experiments[i].table, same.experiments[i].rows[j].method);
        let row = &mut slower.experiments[i].rows[j];
        row.mean_ns = row.mean_ns.map(|m| m * 1.15);
        if let Some(r) = &mut row.ratio_interval {
            (r.estimate, r.low, r.high) = (r.estimate * 1.15, r.low * 1.15, r.high * 1.15);
        }
        let flagged: Vec<String> = compare(&base, &slower, THRESHOLD)
            .regressions()
            .map(|r| format!("{} {}", r.table, r.method))
            .collect();
        // Never another row.
        assert!(flagged.is_empty() || flagged == [name.clone()], "{name}: {flagged:?}");
        if !flagged.is_empty() {
            caught.push(name);
        }
    }
    // The two missed moved the other way by their own noise in this pair of runs (-3.4% and
    // -9.4%, the second a row that builds large DOMs), so that 15% was not beyond the
    // threshold by more than the runs' own spread (±5.8%).
    let missed: Vec<String> = micro
        .iter()
        .map(|&(i, j)| format!("{} {}", same.experiments[i].table, same.experiments[i].rows[j].method))
        .filter(|n| !caught.contains(n))
        .collect();
    assert_eq!(
        missed,
        ["order/deserialize dom-then-typed/sonic-rs", "order/serialize dom/simd-json"]
    );
}
