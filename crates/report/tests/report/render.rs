//! Text renderers against golden files (byte for byte).

use crate::common;

use common::{fixture, golden};
use jsoncost_report::{Format, render, render_experiment};

#[test]
fn markdown_report_matches_golden() {
    golden("report.md", &render(&fixture(), Format::Markdown, false));
}

#[test]
fn csv_matches_golden() {
    golden("results.csv", &render(&fixture(), Format::Csv, false));
}

#[test]
fn console_table_matches_golden() {
    golden("report.txt", &render(&fixture(), Format::Table, false));
}

#[test]
fn json_is_the_results_file_and_reads_back_equal() {
    let results = fixture();
    let json = render(&results, Format::Json, false);
    assert!(json.ends_with("}\n"));
    let back: jsoncost_engine::Results = serde_json::from_str(&json).unwrap();
    assert_eq!(back, results);
}

#[test]
fn csv_is_one_record_per_row_with_raw_numbers() {
    let results = fixture();
    let csv = render(&results, Format::Csv, false);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let rows: usize = results.experiments.iter().map(|e| e.rows.len()).sum();
    assert_eq!(records.len(), rows);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    // The failed row keeps its multi-line message intact and has no timing.
    let failed = records.iter().find(|r| &r[col("method")] == "typed/simd-json").unwrap();
    assert_eq!(&failed[col("status")], "failed");
    assert_eq!(
        &failed[col("error_message")],
        results.experiments[0].rows[2].error_message.as_deref().unwrap()
    );
    assert_eq!(&failed[col("mean_ns")], "");
    // Fidelity: a phrase where the gate checked the row, empty where it did not (http).
    let sonic = records.iter().find(|r| &r[col("method")] == "dom/sonic-rs").unwrap();
    assert_eq!(&sonic[col("fidelity")], "exact");
    assert_eq!(
        &records[1][col("fidelity")],
        "inexact floats: 37 of 3,000 numbers 1 ulp off (serde_json without float_roundtrip)"
    );
    let stream = records.iter().find(|r| &r[col("method")] == "buffered/serde_json").unwrap();
    assert_eq!(&stream[col("mean_ns")], "521800000");
    assert_eq!(&stream[col("peak_rss_bytes")], "290000000");
    assert_eq!(&stream[col("rss_growth_bytes")], "221000000");
    let http = records.iter().find(|r| &r[col("method")] == "dom/serde_json").unwrap();
    assert_eq!(&http[col("errors")], "3");
    assert_eq!(&http[col("p999_ns")], "18200000");
}

// Colour is the `color` feature (on in the workspace: the CLI enables it).
#[cfg(feature = "color")]
#[test]
fn color_styles_the_console_table_only_when_asked() {
    let exp = &fixture().experiments[0];
    let plain = render_experiment(exp, Format::Table, false);
    let colored = render_experiment(exp, Format::Table, true);
    assert!(!plain.contains('\u{1b}'));
    assert!(colored.contains("\u{1b}[1m"), "bold header expected:\n{colored}");
    // crossterm (under comfy-table) drops foreground colours whenever NO_COLOR is set, even
    // when styling is enforced; the CLI passes color = false then anyway.
    if std::env::var_os("NO_COLOR").is_none() {
        assert!(colored.contains("\u{1b}[38;5;9m"), "red failure expected:\n{colored}");
    }
}

#[test]
fn one_experiment_renders_alone_with_its_header() {
    let exp = &fixture().experiments[2];
    let md = render_experiment(exp, Format::Markdown, false);
    assert!(
        md.starts_with("## store: redb/order (4,120 bytes)\n\nParams: payload_bytes=4120, shape=order, store=redb\n\n| Method |"),
        "{md}"
    );
    let csv = render_experiment(exp, Format::Csv, false);
    assert_eq!(csv.lines().count(), 1 + exp.rows.len());
    let json = render_experiment(exp, Format::Json, false);
    assert_eq!(serde_json::from_str::<jsoncost_engine::MeasuredTable>(&json).unwrap(), *exp);
}

#[test]
fn quick_runs_say_so_in_every_readable_format() {
    let mut results = fixture();
    assert!(!render(&results, Format::Markdown, false).contains("Quick run"));
    results.quick = true;
    let note = "Quick run (--quick): fewer, shorter iterations; the figures are rough.";
    assert!(render(&results, Format::Table, false).contains(note));
    assert!(render(&results, Format::Markdown, false).contains(&format!("> **{note}**")));
    assert!(jsoncost_report::html::render(&results).contains(&format!("<p class=\"note\">{note}</p>")));
}

#[test]
fn interrupted_runs_say_so_in_every_readable_format_and_in_json_only_when_true() {
    let mut results = fixture();
    let note = "Interrupted run: stopped early; only the tables below were measured.";
    assert!(!render(&results, Format::Markdown, false).contains(note));
    assert!(!render(&results, Format::Json, false).contains("\"interrupted\""));
    results.interrupted = true;
    assert!(render(&results, Format::Table, false).contains(note));
    assert!(render(&results, Format::Markdown, false).contains(&format!("> **{note}**")));
    assert!(jsoncost_report::html::render(&results).contains(&format!("<p class=\"note\">{note}</p>")));
    let json: serde_json::Value = serde_json::from_str(&render(&results, Format::Json, false)).unwrap();
    assert_eq!(json["interrupted"], true);
}

#[test]
fn a_table_timed_less_the_run_queue_wait_says_so_and_how_much_in_every_readable_format() {
    let mut results = fixture();
    let note = "Times leave out the measuring thread's run-queue wait (ready to run while another task held its CPU): \
                48.2% of the rounds' 62.10 s wall time.";
    assert!(!render(&results, Format::Table, false).contains("run-queue wait"));
    let stream = &mut results.experiments[3];
    assert_eq!(stream.kind, jsoncost_engine::ExperimentKind::Stream);
    stream.run_queue_wait = Some(jsoncost_engine::RunQueueWait {
        wall_ns: 62.1e9,
        waited_ns: 0.482 * 62.1e9,
    });
    let exp = stream.clone();
    assert!(render(&results, Format::Table, false).contains(note));
    assert!(render(&results, Format::Markdown, false).contains(note));
    let escaped = note.replace('\'', "&#39;");
    assert!(jsoncost_report::html::render(&results).contains(&format!("<li>{escaped}</li>")));
    let json = render_experiment(&exp, Format::Json, false);
    assert!(json.contains("\"run_queue_wait\""));
    assert_eq!(serde_json::from_str::<jsoncost_engine::MeasuredTable>(&json).unwrap(), exp);
}

#[test]
fn http_errors_show_each_failed_status_code() {
    let mut exp = jsoncost_engine::MeasuredTable::new(jsoncost_engine::ExperimentKind::Http, "item/n1000-c10");
    let mut row = jsoncost_engine::Row::new("typed/serde_json");
    row.mean_ns = Some(1_000_000.0);
    row.http = Some(jsoncost_engine::HttpFigures {
        req_per_s: Some(500.0),
        errors: jsoncost_engine::HttpErrors {
            timeout: 3,
            status: 410,
            ..Default::default()
        },
        status_codes: [(503, 410)].into(),
        ..Default::default()
    });
    exp.rows.push(row);
    exp.finish();
    let table = render_experiment(&exp, Format::Table, false);
    assert!(table.contains("413 (503×410, timeout: 3)"), "{table}");
}
