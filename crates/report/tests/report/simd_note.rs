//! A build without the SIMD features its CPU has says so in every table's header, the report's
//! header and results.json, with the fix.

use crate::common;

use common::fixture;
use jsoncost_engine::{ExperimentKind, Machine, MeasuredTable, Results, Row};
use jsoncost_report::{Format, html, render, render_experiment_on, simd_note};

const NOTE: &str = "Built without sse4.2, pclmulqdq, avx2, bmi2, which this CPU has: sonic-rs and simd-json choose their SIMD \
                    code at compile time, so their figures here are their portable code's. To measure this CPU, build with \
                    -C target-cpu=native: a .cargo/config.toml in your crate with [build] rustflags = [\"-C\", \"target-cpu=native\"].";

/// A default x86-64 build (SSE2 only) on a CPU with AVX2, BMI2 and PCLMUL.
fn sse2_build() -> Machine {
    Machine {
        cpu: "Fixture CPU".into(),
        cores: 2,
        os: "linux".into(),
        rustc: "1.95.0".into(),
        target_features: vec!["sse2".into()],
        cpu_simd_features: Some(vec!["sse4.2".into(), "pclmulqdq".into(), "avx2".into(), "bmi2".into()]),
        missing_target_features: vec!["sse4.2".into(), "pclmulqdq".into(), "avx2".into(), "bmi2".into()],
        target_features_complete: Some(false),
        allocator: None,
        build: None,
    }
}

fn one_table() -> MeasuredTable {
    let mut exp = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    let mut row = Row::new("typed/serde_json");
    row.baseline = true;
    row.mean_ns = Some(100.0);
    row.error_ns = Some(1.0);
    exp.rows.push(row);
    exp.finish();
    exp
}

#[test]
fn the_note_names_what_is_missing_and_the_fix() {
    assert_eq!(simd_note(&sse2_build()).as_deref(), Some(NOTE));
    let native = Machine {
        target_features: vec!["sse2".into(), "sse4.2".into(), "pclmulqdq".into(), "avx2".into(), "bmi2".into()],
        missing_target_features: vec![],
        target_features_complete: Some(true),
        ..sse2_build()
    };
    assert_eq!(simd_note(&native), None);
    // A file written before the CPU's features were recorded says nothing of them.
    assert_eq!(simd_note(&fixture().machine), None);
}

#[test]
fn every_table_header_carries_the_note() {
    let exp = one_table();
    let table = render_experiment_on(&exp, &sse2_build(), Format::Table, false);
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("micro: data/deserialize"));
    assert_eq!(lines.next(), Some(format!("Note: {NOTE}").as_str()));
    assert!(lines.next().unwrap().starts_with('┌'), "{table}");

    let md = render_experiment_on(&exp, &sse2_build(), Format::Markdown, false);
    let escaped = NOTE.replace('*', "\\*");
    assert!(
        md.starts_with(&format!("## micro: data/deserialize\n\n> **{escaped}**\n\n| Method |")),
        "{md}"
    );

    // A build with every feature: the header is the plain one.
    let native = Machine {
        missing_target_features: vec![],
        target_features_complete: Some(true),
        ..sse2_build()
    };
    assert_eq!(
        render_experiment_on(&exp, &native, Format::Table, false),
        jsoncost_report::render_experiment(&exp, Format::Table, false)
    );
}

#[test]
fn the_whole_report_says_it_in_its_header_and_each_table() {
    let mut results: Results = fixture();
    results.machine = sse2_build();
    let n = results.experiments.len();
    let text = render(&results, Format::Table, false);
    let header: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(header[2], "CPU features: sse2");
    assert_eq!(header[3], NOTE);
    assert_eq!(text.matches(&format!("Note: {NOTE}")).count(), n);
    let md = render(&results, Format::Markdown, false);
    assert_eq!(md.matches(NOTE).count(), n + 1);
    let page = html::render(&results);
    let in_html = NOTE.replace('"', "&quot;").replace('\'', "&#39;");
    assert!(page.contains(&format!("<p class=\"note simd\">{in_html}</p>")), "{page}");
}

#[test]
fn results_json_records_the_missing_features_and_reads_back() {
    let mut results = fixture();
    results.machine = sse2_build();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    jsoncost_report::files::write_results(&path, &results).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let m = &json["machine"];
    assert_eq!(m["target_features"], serde_json::json!(["sse2"]));
    assert_eq!(m["cpu_simd_features"], serde_json::json!(["sse4.2", "pclmulqdq", "avx2", "bmi2"]));
    assert_eq!(
        m["missing_target_features"],
        serde_json::json!(["sse4.2", "pclmulqdq", "avx2", "bmi2"])
    );
    assert_eq!(m["target_features_complete"], serde_json::json!(false));
    let back = jsoncost_report::files::load(&path).unwrap();
    assert_eq!(back.machine, results.machine);
    assert_eq!(back.machine.builds_for_this_cpu(), Some(false));
    // An older file, without the fields, reads as "not checked".
    assert_eq!(fixture().machine.builds_for_this_cpu(), None);
    assert_eq!(fixture().machine.missing_target_features, Vec::<String>::new());
}
