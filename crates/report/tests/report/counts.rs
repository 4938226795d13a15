//! Counts (`--measure counts`): their own columns, `compare` gating on instructions, and the CI
//! history formats (BMF, github-action-benchmark) byte for byte on a fixed table.

use crate::common;

use common::fixture;
use jsoncost_engine::{Counts, ExperimentKind, MeasuredTable, Results, Row};
use jsoncost_report::compare::compare;
use jsoncost_report::{Format, render, render_experiment};

fn counts(instructions: f64) -> Counts {
    Counts {
        ops: 100,
        instructions,
        l1_misses: Some(1.5),
        ll_misses: Some(0.25),
        estimated_cycles: Some(instructions * 1.5),
        target_cpu: "x86-64-v3".into(),
    }
}

fn row(method: &str, mean: f64, instructions: Option<f64>) -> Row {
    let mut r = Row::new(method);
    r.mean_ns = Some(mean);
    r.error_ns = Some(2.0);
    r.stddev_ns = Some(1.0);
    r.iterations = Some(15);
    r.ops_per_iteration = Some(1000);
    r.allocated_bytes = Some(40.0);
    r.allocs = Some(2.0);
    r.counts = instructions.map(counts);
    r
}

/// data/deserialize: two counted rows, one not counted, one failed.
fn table(typed: f64, dom: f64, typed_ns: f64) -> MeasuredTable {
    let mut e = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    let mut baseline = row("typed/serde_json", typed_ns, Some(typed));
    baseline.baseline = true;
    e.rows = vec![
        baseline,
        row("dom/serde_json", 300.0, Some(dom)),
        row("typed/sonic-rs", 110.0, None),
        Row::failed("typed/simd-json", "decoded value differs"),
    ];
    e
}

fn results(e: MeasuredTable) -> Results {
    let mut r = fixture();
    r.experiments = vec![e];
    r
}

#[test]
fn counted_rows_have_their_own_columns_after_time_and_allocation() {
    let text = render_experiment(&table(1200.0, 2500.0, 150.0), Format::Markdown, false);
    let header = text.lines().find(|l| l.starts_with("| Method")).unwrap();
    assert!(
        header.ends_with("| MB/s | Instr/op | L1 miss/op | LL miss/op | Est. cycles/op |"),
        "{header}"
    );
    let typed = text.lines().find(|l| l.starts_with("| typed/serde_json")).unwrap();
    assert!(typed.ends_with("| 1,200.0 | 1.50 | 0.25 | 1,800.0 |"), "{typed}");
    let sonic = text.lines().find(|l| l.starts_with("| typed/sonic-rs")).unwrap();
    assert!(sonic.ends_with("| - | - | - | - |"), "{sonic}");
    // A table without counts keeps its columns as they were.
    let mut plain = table(1.0, 1.0, 150.0);
    plain.rows.iter_mut().for_each(|r| r.counts = None);
    let text = render_experiment(&plain, Format::Markdown, false);
    assert!(!text.contains("Instr/op"));
}

#[test]
fn csv_carries_the_counts_per_operation() {
    let csv = render_experiment(&table(1200.0, 2500.0, 150.0), Format::Csv, false);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(&records[0][col("instructions_per_op")], "1200");
    assert_eq!(&records[0][col("l1_misses_per_op")], "1.5");
    assert_eq!(&records[0][col("ll_misses_per_op")], "0.25");
    assert_eq!(&records[0][col("estimated_cycles_per_op")], "1800");
    assert_eq!(&records[2][col("instructions_per_op")], "");
}

#[test]
fn compare_gates_counted_rows_on_instructions_and_keeps_time_as_advice() {
    let base = results(table(1000.0, 2000.0, 150.0));
    // typed: 2% more instructions, same time; dom: 0.5% more, same time.
    let new = results(table(1020.0, 2010.0, 150.0));
    let c = compare(&base, &new, 0.05);
    let gates: Vec<(String, String)> = c.rows.iter().map(|r| (r.method.clone(), r.gate())).collect();
    assert_eq!(
        gates,
        [
            ("typed/serde_json".to_string(), "regression: instructions".to_string()),
            ("dom/serde_json".to_string(), "ok".to_string()),
            ("typed/sonic-rs".to_string(), "ok".to_string()),
        ]
    );
    assert!(c.has_regression());
    let change = c.rows[0].instructions.unwrap();
    assert!((change.change - 0.02).abs() < 1e-12);
    assert!(
        c.summary().starts_with(
            "Regression in 1 of 3 rows (2 rows counted: instructions/op at 1.0%, their time advice only; others: threshold 5.0%"
        )
    );
    // A threshold of 3% lets 2% through.
    assert!(!compare(&base, &new, 0.05).with_count_threshold(0.03).has_regression());
    // The same counts with the counted rows 40% slower: time is advice where counts decide.
    let slower = results(table(1000.0, 2000.0, 210.0));
    let c = compare(&base, &slower, 0.05);
    assert_eq!(c.rows[0].gate(), "ok");
    let table = render(&new, Format::Markdown, false);
    assert!(table.contains("data/deserialize"));
    let text = Format::Markdown.exporter().comparison(&compare(&base, &new, 0.05));
    assert!(text.contains("| Instr/op base | Instr/op new | Instr change | Gate |"), "{text}");
    assert!(text.contains("| 1,000.0 | 1,020.0 | +2.00% | regression: instructions |"), "{text}");
}

/// compare's CSV carries each counted row's instructions per operation in both files, their
/// change and whether it failed the count gate; rows not counted leave them empty.
#[test]
fn compare_csv_carries_the_count_columns() {
    let base = results(table(1000.0, 2000.0, 150.0));
    let new = results(table(1020.0, 2010.0, 150.0));
    let csv = Format::Csv.exporter().comparison(&compare(&base, &new, 0.05));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    assert_eq!(
        header.iter().skip(16).collect::<Vec<_>>(),
        [
            "base_instructions_per_op",
            "new_instructions_per_op",
            "instructions_change",
            "instructions_grew"
        ]
    );
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let counts = |i: usize| {
        records[i]
            .iter()
            .skip(1)
            .skip(1)
            .take(1)
            .chain(records[i].iter().skip(16))
            .collect::<Vec<_>>()
    };
    let typed_change = (1020.0f64 / 1000.0 - 1.0).to_string();
    assert_eq!(counts(0), ["typed/serde_json", "1000", "1020", typed_change.as_str(), "true"]);
    let dom_change = (2010.0f64 / 2000.0 - 1.0).to_string();
    assert_eq!(counts(1), ["dom/serde_json", "2000", "2010", dom_change.as_str(), "false"]);
    assert_eq!(counts(2), ["typed/sonic-rs", "", "", "", ""]);
    assert_eq!(&records[0][15], "true");
}

/// compare's JUnit gives a counted row's instructions per operation in its system-out, and in
/// its failure's text when the count gate failed it.
#[test]
fn compare_junit_carries_the_counts_of_counted_rows() {
    let base = results(table(1000.0, 2000.0, 150.0));
    let new = results(table(1020.0, 2010.0, 150.0));
    let xml = Format::Junit.exporter().comparison(&compare(&base, &new, 0.05));
    assert!(
        xml.contains(
            "<testcase classname=\"compare.micro data/deserialize\" name=\"typed/serde_json\">\n      <failure message=\"regression: instructions\">within noise; instructions/op 1,000.0 → 1,020.0 (+2.00%, gate at 1.0%)</failure>\n      <system-out>within noise; instructions/op 1,000.0 → 1,020.0 (+2.00%, gate at 1.0%)</system-out>"
        ),
        "{xml}"
    );
    assert!(
        xml.contains("<system-out>within noise; instructions/op 2,000.0 → 2,010.0 (+0.50%, gate at 1.0%)</system-out>"),
        "{xml}"
    );
    let sonic = xml.split("name=\"typed/sonic-rs\"").nth(1).unwrap();
    assert!(!sonic[..sonic.find("</testcase>").unwrap()].contains("instructions"), "{xml}");
}

#[test]
fn bmf_has_one_benchmark_per_measured_row_and_a_measure_per_figure() {
    let bmf = render(&results(table(1200.0, 2500.0, 150.0)), Format::Bmf, false);
    // serde_json's map: keys in order, so the document is the same every run.
    let expected = r#"{
  "micro data/deserialize dom/serde_json": {
    "allocated-bytes": {
      "value": 40.0
    },
    "allocations": {
      "value": 2.0
    },
    "estimated-cycles": {
      "value": 3750.0
    },
    "instructions": {
      "value": 2500.0
    },
    "l1-misses": {
      "value": 1.5
    },
    "latency": {
      "lower_value": 298.0,
      "upper_value": 302.0,
      "value": 300.0
    },
    "ll-misses": {
      "value": 0.25
    }
  },
  "micro data/deserialize typed/serde_json": {
    "allocated-bytes": {
      "value": 40.0
    },
    "allocations": {
      "value": 2.0
    },
    "estimated-cycles": {
      "value": 1800.0
    },
    "instructions": {
      "value": 1200.0
    },
    "l1-misses": {
      "value": 1.5
    },
    "latency": {
      "lower_value": 148.0,
      "upper_value": 152.0,
      "value": 150.0
    },
    "ll-misses": {
      "value": 0.25
    }
  },
  "micro data/deserialize typed/sonic-rs": {
    "allocated-bytes": {
      "value": 40.0
    },
    "allocations": {
      "value": 2.0
    },
    "latency": {
      "lower_value": 108.0,
      "upper_value": 112.0,
      "value": 110.0
    }
  }
}
"#;
    assert_eq!(bmf, expected);
}

#[test]
fn github_action_benchmark_has_an_entry_per_row_and_figure() {
    let mut e = table(1200.0, 2500.0, 150.0);
    e.rows.truncate(1);
    let out = render(&results(e), Format::GithubActionBenchmark, false);
    let expected = r#"[
  {
    "name": "micro data/deserialize typed/serde_json - time",
    "unit": "ns",
    "value": 150.0,
    "range": "± 2",
    "extra": "15 iterations of 1000 operations"
  },
  {
    "name": "micro data/deserialize typed/serde_json - instructions",
    "unit": "instructions/op",
    "value": 1200.0,
    "extra": "100 operations under Callgrind, x86-64-v3"
  },
  {
    "name": "micro data/deserialize typed/serde_json - estimated cycles",
    "unit": "cycles/op",
    "value": 1800.0
  },
  {
    "name": "micro data/deserialize typed/serde_json - allocated",
    "unit": "bytes/op",
    "value": 40.0
  }
]
"#;
    assert_eq!(out, expected);
}

#[test]
fn ab_shows_both_programs_counts_beside_the_time_and_fails_on_more_instructions() {
    use jsoncost_report::ab::{Run, ab};
    let with_rounds = |instructions: f64| {
        let mut e = table(instructions, 2000.0, 150.0);
        e.rows.truncate(2);
        for r in e.rows.iter_mut() {
            r.rounds_ns = vec![150.0, 151.0, 149.0, 150.0, 152.0];
        }
        results(e)
    };
    let run = Run {
        base: with_rounds(1000.0),
        new: with_rounds(1020.0),
        lockstep: true,
        other_cpu: None,
    };
    let c = ab(&[run], 0.05);
    let typed = c.rows.iter().find(|r| r.method == "typed/serde_json").unwrap();
    assert_eq!(typed.instructions.map(|i| (i.base, i.new, i.grew)), Some((1000.0, 1020.0, true)));
    assert!(typed.regression());
    let text = Format::Markdown.exporter().ab(&c);
    assert!(text.contains("| Instr/op base | Instr/op new | Instr change | Gate |"), "{text}");
    assert!(text.contains("| 1,000.0 | 1,020.0 | +2.00% | FAIL (instructions) |"), "{text}");
    assert!(text.contains("| 2,000.0 | 2,000.0 | 0.00% | ok |"), "{text}");
}
