//! Size sweeps from fixed rounds: tables grouped by their params, the crossover sentences from
//! each size's paired interval, and the chart's lines and points.

use crate::common::fixture;
use jsoncost_engine::{Contract, Effort, ExperimentKind, MeasuredTable, Results, Row, Schedule};
use jsoncost_report::advisor::{self, AdviceKind};
use jsoncost_report::{Format, answer, sweep};

/// 20 interleaved rounds around `mean_ns`, off by a small fixed pattern (`wobble` picks it).
fn row(method: &str, effort: Effort, mean_ns: f64, wobble: f64) -> Row {
    let mut r = Row::new(method);
    r.rounds_ns = (0..20).map(|i| mean_ns * (1.0 + 0.01 * ((i as f64 * wobble).sin()))).collect();
    r.mean_ns = Some(r.rounds_ns.iter().sum::<f64>() / 20.0);
    r.error_ns = Some(mean_ns * 0.01);
    r.allocated_bytes = Some(100.0);
    r.contract = Some(if effort == Effort::Swap {
        Contract::TypedValue
    } else {
        Contract::BorrowedValue
    });
    r.effort = Some(effort);
    r
}

/// One size of the `order` deserialize sweep: serde_json's time, and sonic-rs's and the
/// borrowed form's as multiples of it.
fn size(target: u64, bytes: u64, base_ns: f64, sonic: f64, borrowed: f64) -> MeasuredTable {
    let mut exp = MeasuredTable::new(ExperimentKind::Micro, format!("order-{}KB/deserialize", target / 1024));
    for (k, v) in [
        ("shape", serde_json::json!("order")),
        ("payload_bytes", serde_json::json!(bytes)),
        ("sweep", serde_json::json!("order")),
        ("operation", serde_json::json!("deserialize")),
        ("size_target", serde_json::json!(target)),
    ] {
        exp.params.insert(k.into(), v);
    }
    exp.rows = vec![
        row("typed/serde_json", Effort::Swap, base_ns, 1.0),
        row("typed/sonic-rs", Effort::Swap, base_ns * sonic, 2.0),
        row("borrowed/serde_json", Effort::Model, base_ns * borrowed, 3.0),
    ];
    exp.rows[0].baseline = true;
    exp.schedule = Schedule::Interleaved;
    exp.finish();
    exp
}

/// sonic-rs: no difference beyond the margin at 1 KB, faster from 4 KB; the borrowed form faster
/// everywhere. The tables run largest first: the sweep orders them by size.
fn swept() -> Results {
    let mut results = fixture();
    results.experiments = vec![
        size(65_536, 66_000, 80_000.0, 0.6, 0.5),
        size(1024, 1_010, 1_500.0, 1.0, 0.8),
        size(4096, 4_148, 5_000.0, 0.7, 0.6),
    ];
    results
}

#[test]
fn crossovers_are_stated_from_each_sizes_interval() {
    let results = swept();
    let sweeps = sweep::sweeps(&results, &advisor::JUDGE);
    assert_eq!(sweeps.len(), 1);
    let s = &sweeps[0];
    assert_eq!(s.title(), "order, deserialize: 3 sizes, 1 KB to 64 KB");
    let labels: Vec<&str> = s.points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["1 KB", "4 KB", "64 KB"]);
    assert_eq!(s.rows, ["typed/sonic-rs", "borrowed/serde_json"]);
    let sentences: Vec<&str> = s.crossings.iter().map(|c| c.sentence.as_str()).collect();
    assert_eq!(
        sentences,
        [
            "typed/sonic-rs is faster than typed/serde_json from about 4 KB up (by more than 2.5%, 99% intervals at each size); at 1 KB and below no difference beyond 2.5% shown",
            "borrowed/serde_json is faster than typed/serde_json at every size measured, from 1 KB to 64 KB (by more than 2.5%, 99% intervals at each size)",
        ]
    );
    assert_eq!(s.crossings[0].changes(), [(0, 1)]);
}

#[test]
fn the_sweep_is_one_verdict_beside_each_sizes_own_and_leads_the_headline() {
    let results = swept();
    let advice = advisor::advise(&results);
    // Each size keeps its table's verdict; the sweep adds one.
    assert_eq!(advice.len(), 4);
    let a = advice.iter().find(|a| a.kind == AdviceKind::SizeSweep).unwrap();
    assert_eq!(a.table, "order/deserialize");
    assert_eq!(a.crossovers.len(), 2);
    let shown: Vec<&str> = answer::headline_tables(&advice).iter().map(|a| a.table.as_str()).collect();
    assert_eq!(shown, ["order/deserialize"]);
    let text = Format::Table.exporter().headline(&advice);
    assert!(
        text.contains("sizes         typed/sonic-rs is faster than typed/serde_json from about 4 KB up"),
        "{text}"
    );
    let csv = Format::Csv.exporter().advice(&advice);
    assert!(
        csv.contains("micro,order/deserialize,size_sweep,typed/serde_json,,\"typed/sonic-rs is faster"),
        "{csv}"
    );
}

#[test]
fn markdown_holds_the_size_by_row_grid() {
    let md = jsoncost_report::render(&swept(), Format::Markdown, false);
    assert!(md.contains("## Sizes: micro: order, deserialize: 3 sizes, 1 KB to 64 KB\n"), "{md}");
    assert!(
        md.contains("| size | bytes | typed/serde_json | typed/sonic-rs | borrowed/serde_json |\n"),
        "{md}"
    );
    let line = md.lines().find(|l| l.starts_with("| 4 KB |")).unwrap();
    assert!(line.starts_with("| 4 KB | 4,148 | 5.000 µs | 3.500 µs (0.70×, "), "{line}");
}

/// A results file's names reach the markdown only escaped: no raw HTML (`<script>`) outside a
/// fenced block, no pipe that splits a table cell, in the sweep's grid and sentences as in the
/// tables and failures (a failure message is fenced, so its `<script>` stays literal text).
#[test]
fn hostile_names_reach_the_markdown_escaped() {
    const SCRIPT: &str = "<script>alert(1)</script>";
    let mut results = swept();
    for exp in &mut results.experiments {
        exp.table = format!("{}{SCRIPT}", exp.table);
        exp.params.insert("sweep".into(), serde_json::json!(format!("order{SCRIPT}")));
        let sonic = exp.rows.iter_mut().find(|r| r.method == "typed/sonic-rs").unwrap();
        sonic.method = format!("typed/sonic-rs{SCRIPT}|x");
    }
    let mut failed = Row::new(format!("typed/simd-json{SCRIPT}"));
    failed.status = jsoncost_engine::Status::Failed;
    failed.error_message = Some(format!("bad\n```\n{SCRIPT}\n~~~\n</pre>{SCRIPT}"));
    results.experiments[0].rows.push(failed);
    let md = jsoncost_report::render(&results, Format::Markdown, false);
    assert!(
        md.contains("## Sizes: micro: order&lt;script&gt;alert(1)&lt;/script&gt;, deserialize: 3 sizes"),
        "{md}"
    );
    assert!(md.contains("| typed/sonic-rs&lt;script&gt;alert(1)&lt;/script&gt;\\|x |"), "{md}");
    assert!(
        md.contains("\n````text\nbad\n```\n<script>alert(1)</script>\n~~~\n</pre><script>alert(1)</script>\n````\n"),
        "{md}"
    );
    let mut fence: Option<String> = None;
    for line in md.lines() {
        match &fence {
            Some(f) if line == f => fence = None,
            Some(_) => {}
            None if line.starts_with("```") => fence = Some(line.trim_end_matches("text").to_string()),
            None => assert!(!line.contains('<') && !line.contains('>'), "raw HTML outside a fence: {line}"),
        }
    }
    assert_eq!(fence, None, "a fence left open");
}

#[test]
fn the_chart_has_one_line_per_row_and_a_point_per_size() {
    let html = jsoncost_report::render(&swept(), Format::Html, false);
    let start = html.find("data-chart=\"size-sweep\"").expect("a sweep chart");
    let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
    assert!(svg.contains("data-series=\"3\""), "{svg}");
    assert_eq!(svg.matches("<polyline class=\"line s").count(), 3);
    assert_eq!(svg.matches("<circle class=\"pt s").count(), 9);
    for m in ["typed/serde_json", "typed/sonic-rs", "borrowed/serde_json"] {
        let line = svg
            .lines()
            .find(|l| l.starts_with("<polyline") && l.contains(&format!("data-series=\"{m}\"")))
            .unwrap_or_else(|| panic!("no line for {m}"));
        let points = line.split("points=\"").nth(1).unwrap().trim_end_matches("\"/>");
        assert_eq!(points.split(' ').count(), 3, "{line}");
    }
    // sonic-rs's change between 1 KB and 4 KB is marked on its line.
    assert_eq!(svg.matches("<line class=\"crossover\" data-row=\"typed/sonic-rs\"").count(), 1);
    assert_eq!(svg.matches("class=\"crossover").count(), 2);
    assert!(svg.contains("<title>typed/sonic-rs: no difference beyond 2.5% shown at 1 KB, faster at 4 KB</title>"));
    // The headline's sweep verdict links to the sweep's section.
    assert!(
        html.contains("<section class=\"sweep\" id=\"sizes-micro-order-deserialize\">"),
        "{html}"
    );
    assert!(html.contains("<h3><a href=\"#sizes-micro-order-deserialize\">"));
}

/// A row 1.5% faster at a size is measurably faster there (its interval lies below 1), but by
/// less than the margin: that size says no difference beyond 2.5% shown, so a run where the
/// same 1.5% lands just beyond 1 or just short of it tells the same crossover.
#[test]
fn a_difference_within_the_margin_is_not_a_crossover() {
    let mut results = fixture();
    results.experiments = vec![size(1024, 1_010, 1_500.0, 0.985, 0.5), size(4096, 4_148, 5_000.0, 0.9, 0.5)];
    let sweeps = sweep::sweeps(&results, &advisor::JUDGE);
    let sonic = sweeps[0].crossings.iter().find(|c| c.method == "typed/sonic-rs").unwrap();
    let at_1kb = sweep::ratio(&results.experiments[0], "typed/serde_json", "typed/sonic-rs", &advisor::JUDGE).unwrap();
    assert!(at_1kb.high < 1.0 && at_1kb.low > 1.0 - sweep::MARGIN, "{at_1kb:?}");
    assert_eq!(sonic.verdicts, [sweep::SizeVerdict::Same, sweep::SizeVerdict::Faster]);
    assert_eq!(
        sonic.sentence,
        "typed/sonic-rs is faster than typed/serde_json from about 4 KB up (by more than 2.5%, 99% intervals at each size); at 1 KB and below no difference beyond 2.5% shown"
    );
}

/// A rung's rows within the margin of its fastest are all followed, at every size: which of two
/// rows that close is the fastest changes from run to run, and following only the fastest made
/// one run state a row's crossover and the next run not. A row of the rung slower than its
/// fastest beyond the margin at every size is not followed.
#[test]
fn a_rung_s_rows_within_the_margin_of_its_fastest_are_all_followed() {
    let with_swaps = |mut exp: MeasuredTable, close: f64, far: f64| {
        let base_ns = exp.baseline().unwrap().mean_ns.unwrap();
        exp.rows.push(row("typed/simd-json", Effort::Swap, base_ns * close, 4.0));
        exp.rows.push(row("typed/jiter", Effort::Swap, base_ns * far, 5.0));
        exp.finish();
        exp
    };
    let mut results = fixture();
    results.experiments = vec![
        with_swaps(size(1024, 1_010, 1_500.0, 0.6, 0.5), 0.61, 0.7),
        with_swaps(size(4096, 4_148, 5_000.0, 0.6, 0.5), 0.605, 0.75),
    ];
    let sweeps = sweep::sweeps(&results, &advisor::JUDGE);
    assert_eq!(sweeps[0].rows, ["typed/sonic-rs", "typed/simd-json", "borrowed/serde_json"]);
}
