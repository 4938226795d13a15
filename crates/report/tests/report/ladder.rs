//! The verdict's ladder from fixed rounds: the cheapest rung that saves measurably comes first,
//! each higher rung only with what it saves on top of the step below, and a costlier change is
//! never advised where a cheaper one is within its interval.

use crate::common::fixture;
use jsoncost_engine::{Contract, Effort, ExperimentKind, MeasuredTable, Results, Row};
use jsoncost_report::advisor::{self, Advice, AdviceKind};
use jsoncost_report::{Format, answer};

/// A row of 20 interleaved rounds around `mean_ns`, each round off by a small fixed pattern of
/// its own (`wobble` picks it), so paired intervals have a width.
fn row(method: &str, contract: Contract, effort: Effort, mean_ns: f64, wobble: f64, alloc: f64) -> Row {
    let mut r = Row::new(method);
    r.rounds_ns = (0..20).map(|i| mean_ns * (1.0 + 0.01 * ((i as f64 * wobble).sin()))).collect();
    r.mean_ns = Some(r.rounds_ns.iter().sum::<f64>() / 20.0);
    r.error_ns = Some(mean_ns * 0.01);
    r.allocated_bytes = Some(alloc);
    r.contract = Some(contract);
    r.effort = Some(effort);
    r
}

fn table(rows: Vec<Row>) -> Results {
    let mut results = fixture();
    let mut exp = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    exp.params.insert("shape".into(), "data".into());
    exp.params.insert("operation".into(), "deserialize".into());
    exp.params.insert("payload_bytes".into(), 75.into());
    exp.rows = rows;
    exp.rows[0].baseline = true;
    exp.schedule = jsoncost_engine::Schedule::Interleaved;
    exp.finish();
    results.experiments = vec![exp];
    results
}

fn only(results: &Results) -> Advice {
    let mut advice = advisor::advise(results);
    assert_eq!(advice.len(), 1);
    advice.remove(0)
}

fn steps(a: &Advice) -> Vec<(Effort, Option<&str>)> {
    a.ladder.iter().map(|s| (s.effort, s.method.as_deref())).collect()
}

/// The data/deserialize: a hand decoder 1.7% ahead of a drop-in serde swap is not
/// advised over it; the swap is the answer, the borrowed form a further step.
fn data_table() -> Results {
    use Contract::*;
    table(vec![
        row("typed/serde_json", TypedValue, Effort::Swap, 195.0, 1.0, 5.0),
        row("typed/sonic-rs", TypedValue, Effort::Swap, 137.0, 2.0, 5.0),
        row("typed/simd-json", TypedValue, Effort::Swap, 379.0, 3.0, 1750.0),
        row("borrowed/sonic-rs", BorrowedValue, Effort::Model, 120.0, 4.0, 0.0),
        row("iterator/jiter", TypedValue, Effort::Code, 135.0, 5.0, 5.0),
        row("raw/serde_json", RawValidated, Effort::Code, 92.0, 6.0, 75.0),
        row("dom/sonic-rs", Dom, Effort::Model, 142.0, 7.0, 699.0),
    ])
}

#[test]
fn the_swap_comes_first_and_a_hand_decoder_only_as_a_further_step() {
    let a = only(&data_table());
    assert_eq!(a.kind, AdviceKind::Recommend);
    assert_eq!(a.candidate.as_deref(), Some("typed/sonic-rs"));
    assert!(a.text.starts_with("Use typed/sonic-rs instead of typed/serde_json: "), "{}", a.text);
    assert_eq!(
        steps(&a),
        [
            (Effort::Swap, Some("typed/sonic-rs")),
            (Effort::Model, Some("borrowed/sonic-rs")),
            (Effort::Code, None),
        ]
    );
    assert_eq!(a.ladder[1].over, "typed/sonic-rs");
    assert!(
        a.ladder[0].text.starts_with("typed/sonic-rs: 29.7% less time (99% interval "),
        "{}",
        a.ladder[0].text
    );
    assert!(
        a.ladder[1]
            .text
            .contains(" on top of typed/sonic-rs, 5 B (100.0%) less allocation (delivers a typed value borrowing strings from the input)"),
        "{}",
        a.ladder[1].text
    );
    assert!(
        a.ladder[2]
            .text
            .starts_with("no further saving: the best, iterator/jiter, is slower than borrowed/sonic-rs"),
        "{}",
        a.ladder[2].text
    );
    // What delivers less stays apart, and a DOM is never a step of a typed table.
    let apart: Vec<&str> = a.alternatives.iter().map(|x| x.method.as_str()).collect();
    assert_eq!(apart, ["raw/serde_json", "dom/sonic-rs"]);
}

#[test]
fn a_costlier_row_within_the_interval_of_a_cheaper_one_is_no_step() {
    use Contract::*;
    // The code row beats the baseline measurably but not the swap row, which also beats it.
    let results = table(vec![
        row("typed/serde_json", TypedValue, Effort::Swap, 100.0, 1.0, 40.0),
        row("typed/sonic-rs", TypedValue, Effort::Swap, 80.0, 2.0, 40.0),
        row("iterator/jiter", TypedValue, Effort::Code, 79.9, 5.0, 40.0),
    ]);
    let a = only(&results);
    assert_eq!(steps(&a), [(Effort::Swap, Some("typed/sonic-rs")), (Effort::Code, None)]);
    assert!(
        a.ladder[1]
            .text
            .starts_with("no further saving: the best, iterator/jiter, is within the noise of typed/sonic-rs"),
        "{}",
        a.ladder[1].text
    );

    // With no measurable swap, a code row that beats the baseline measurably (it moves with
    // the baseline round by round) but not the swap row is no step either.
    let results = table(vec![
        row("typed/serde_json", TypedValue, Effort::Swap, 100.0, 1.0, 40.0),
        row("typed/sonic-rs", TypedValue, Effort::Swap, 99.9, 2.0, 40.0),
        row("iterator/jiter", TypedValue, Effort::Code, 99.8, 1.0, 40.0),
    ]);
    let a = only(&results);
    assert_eq!(steps(&a), [(Effort::Swap, None), (Effort::Code, None)]);
    assert_eq!(
        a.ladder[1].text,
        "no step: iterator/jiter is not measurably faster than typed/sonic-rs (swap)"
    );
}

#[test]
fn files_without_efforts_are_advised_as_before_with_no_ladder() {
    let mut results = data_table();
    for r in &mut results.experiments[0].rows {
        r.effort = None;
    }
    let a = only(&results);
    assert!(a.ladder.is_empty());
    // The fastest row with the baseline's contract, as before efforts were recorded.
    assert_eq!(a.candidate.as_deref(), Some("iterator/jiter"));
}

#[test]
fn the_headline_is_one_screen_with_the_title_as_a_sentence_then_one_line_per_rung() {
    let advice = advisor::advise(&data_table());
    let text = Format::Table.exporter().headline(&advice);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], answer::HEADLINE);
    assert!(
        lines[4].starts_with("micro: data (75 bytes), deserialize — baseline typed/serde_json: "),
        "{text}"
    );
    assert!(lines[5].starts_with("  swap          typed/sonic-rs: 29.7% less time"), "{text}");
    assert!(lines[6].starts_with("  model         borrowed/sonic-rs: "), "{text}");
    assert!(lines[7].starts_with("  code          no further saving"), "{text}");
    assert!(lines.len() <= 12, "{text}");
}

#[test]
fn a_large_payload_states_its_savings_at_a_rate_that_fits_it() {
    use Contract::*;
    let mut results = table(vec![
        row("typed/serde_json", TypedValue, Effort::Swap, 2e6, 1.0, 1e6),
        row("typed/sonic-rs", TypedValue, Effort::Swap, 1e6, 2.0, 1e6),
    ]);
    // A 1 MB batch: 10,000 a second would be 10 GB/s of JSON; 100 MB/s is 100 a second.
    results.experiments[0].params.insert("payload_bytes".into(), 1_000_000.into());
    let a = only(&results);
    let per_second = a.per_second.unwrap();
    assert!(
        per_second.contains("at 100 operations/s (default rate, fitted to 100 MB/s of this payload)"),
        "{per_second}"
    );
}

#[test]
fn csv_carries_a_record_per_rung() {
    let advice = advisor::advise(&data_table());
    let csv = Format::Csv.exporter().advice(&advice);
    let steps: Vec<&str> = csv.lines().filter(|l| l.contains(",step_")).collect();
    assert_eq!(steps.len(), 3, "{csv}");
    assert!(
        steps[0].starts_with("micro,data/deserialize,step_swap,typed/serde_json,typed/sonic-rs,"),
        "{csv}"
    );
    assert!(
        steps[1].starts_with("micro,data/deserialize,step_model,typed/sonic-rs,borrowed/sonic-rs,"),
        "{csv}"
    );
    assert!(
        steps[2].starts_with("micro,data/deserialize,step_code,borrowed/sonic-rs,,"),
        "{csv}"
    );
}

#[test]
fn within_a_rung_a_row_as_fast_that_allocates_less_is_the_step() {
    use Contract::*;
    // typed/simd-json is a hair faster than typed/sonic-rs, within its interval, and
    // allocates 60 KB more: the swap advised is typed/sonic-rs.
    let results = table(vec![
        row("typed/serde_json", TypedValue, Effort::Swap, 100.0, 1.0, 7_000.0),
        row("typed/simd-json", TypedValue, Effort::Swap, 77.0, 2.0, 60_000.0),
        row("typed/sonic-rs", TypedValue, Effort::Swap, 77.2, 3.0, 7_000.0),
    ]);
    let a = only(&results);
    assert_eq!(steps(&a), [(Effort::Swap, Some("typed/sonic-rs"))]);
    // Measurably faster, the fastest stays the step whatever it allocates.
    let results = table(vec![
        row("typed/serde_json", TypedValue, Effort::Swap, 100.0, 1.0, 7_000.0),
        row("typed/simd-json", TypedValue, Effort::Swap, 60.0, 2.0, 60_000.0),
        row("typed/sonic-rs", TypedValue, Effort::Swap, 77.0, 3.0, 7_000.0),
    ]);
    let a = only(&results);
    assert_eq!(steps(&a), [(Effort::Swap, Some("typed/simd-json"))]);
    assert!(a.ladder[0].text.contains("more allocation"), "{}", a.ladder[0].text);
}
