//! `jsoncost report RESULTS.json` as a user runs it: re-renders a saved run to the console,
//! markdown and a self-contained HTML file; bad results files exit 2, unwritable outputs exit 3.

use assert_cmd::Command;
use jsoncost_engine::{ExperimentKind, Machine, MeasuredTable, Results, Row, SCHEMA_VERSION, Summary};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(60));
    c
}

fn row(method: &str, mean_ns: f64, allocated: f64) -> Row {
    let mut r = Row::new(method);
    r.mean_ns = Some(mean_ns);
    // Binary fractions, so the figures survive a JSON round trip exactly.
    r.error_ns = Some(mean_ns / 64.0);
    r.stddev_ns = Some(mean_ns / 64.0);
    r.median_ns = Some(mean_ns);
    r.p95_ns = Some(mean_ns + mean_ns / 32.0);
    r.iterations = Some(20);
    r.ops_per_iteration = Some(1000);
    r.outliers_removed = Some(0);
    r.allocated_bytes = Some(allocated);
    r.allocs = Some(allocated / 40.0);
    r.peak_bytes = Some(allocated as u64);
    r
}

/// A fixed run: one micro table and one store table with a failed row and a summary.
fn fixture() -> Results {
    let mut micro = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    micro.params.insert("shape".into(), serde_json::json!("data"));
    micro.params.insert("payload_bytes".into(), serde_json::json!(71));
    micro.rows = vec![row("typed/serde_json", 150.0, 40.0), row("dom/sonic-rs", 112.0, 120.0)];
    micro.finish();

    let mut store = MeasuredTable::new(ExperimentKind::Store, "redb/order");
    store.params.insert("shape".into(), serde_json::json!("order"));
    store.params.insert("payload_bytes".into(), serde_json::json!(4100));
    store.rows = vec![
        row("default", 20_000.0, 9000.0),
        row("typed/sonic-rs", 12_000.0, 4000.0),
        row("floor", 8_000.0, 0.0),
        Row::failed(
            "typed/simd-json",
            "document \"order-00000007\" in collection \"order\" does not decode: boom",
        ),
    ];
    store.finish();
    store.summary = Some(Summary::Sentences(vec!["JSON is 12.0 µs of a 20.0 µs read (60%).".into()]));

    Results {
        schema_version: SCHEMA_VERSION,
        jsoncost_version: "0.1.0".into(),
        machine: Machine {
            cpu: "Fixture CPU 9000".into(),
            cores: 2,
            os: "linux".into(),
            rustc: "1.95.0".into(),
            target_features: vec!["avx2".into(), "pclmulqdq".into()],
            ..Machine::default()
        },
        started_at: "2026-01-01T00:00:00Z".into(),
        quick: false,
        rates: Default::default(),
        interrupted: false,
        experiments: vec![micro, store],
        allocators: Vec::new(),
    }
}

fn write_fixture(dir: &Path) -> PathBuf {
    let path = dir.join("results.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&fixture()).unwrap()).unwrap();
    path
}

/// Every `src=` and `href=` value in `html`.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=", "href="] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            let value: String = match rest.chars().next() {
                Some(q @ ('"' | '\'')) => rest[1..].chars().take_while(|c| *c != q).collect(),
                _ => rest.chars().take_while(|c| !c.is_whitespace() && *c != '>').collect(),
            };
            out.push(value);
        }
    }
    out
}

#[test]
fn writes_self_contained_html_and_markdown_and_prints_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let results = write_fixture(dir.path());
    let html_path = dir.path().join("out.html");
    let md_path = dir.path().join("out.md");
    jsoncost()
        .arg("report")
        .arg(&results)
        .arg("--html")
        .arg(&html_path)
        .arg("--markdown")
        .arg(&md_path)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("data/deserialize"))
        .stdout(predicate::str::contains("typed/serde_json"))
        .stdout(predicate::str::contains("dom/sonic-rs"))
        .stdout(predicate::str::contains("redb/order"))
        .stdout(predicate::str::contains("JSON is 12.0 µs of a 20.0 µs read (60%)."))
        .stdout(predicate::str::contains("order-00000007"))
        .stderr(predicate::str::contains(format!("HTML report written to {}", html_path.display())))
        .stderr(predicate::str::contains(format!(
            "markdown report written to {}",
            md_path.display()
        )));

    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.trim_start().to_ascii_lowercase().starts_with("<!doctype html"),
        "{}",
        &html[..200.min(html.len())]
    );
    assert!(html.trim_end().ends_with("</html>"), "the HTML ends early");
    assert!(html.contains("<svg"), "no SVG chart in the report");
    assert!(html.contains("Fixture CPU 9000"), "the machine is not shown");
    for name in ["typed/serde_json", "dom/sonic-rs", "default", "floor", "typed/simd-json"] {
        assert!(html.contains(name), "{name} missing from the HTML");
    }
    // Self-contained: nothing is fetched from the network.
    for link in links(&html) {
        let l = link.to_ascii_lowercase();
        assert!(
            !l.starts_with("http://") && !l.starts_with("https://") && !l.starts_with("//"),
            "external link {link}"
        );
    }
    assert!(!html.contains("<script src"), "external script");
    assert!(!html.contains("@import"), "external stylesheet");

    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(md.contains("| Method |"), "{md}");
    assert!(md.contains("typed/serde_json") && md.contains("floor"), "{md}");
    assert!(md.contains("JSON is 12.0 µs of a 20.0 µs read (60%)."), "{md}");
    assert!(!md.contains('│'), "console box drawing in markdown:\n{md}");
    // No temporary files left beside the outputs.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["out.html", "out.md", "results.json"]);
}

#[test]
fn the_format_flag_selects_what_stdout_carries() {
    let dir = tempfile::tempdir().unwrap();
    let results = write_fixture(dir.path());
    let out = jsoncost()
        .arg("report")
        .arg(&results)
        .args(["--format", "json"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let again: Results = serde_json::from_slice(&out).expect("--format json prints a results file");
    // Ratios are recomputed quotients; everything else is the saved run.
    let strip = |mut r: Results| {
        for row in r.experiments.iter_mut().flat_map(|e| e.rows.iter_mut()) {
            row.ratio = None;
            row.alloc_ratio = None;
        }
        r
    };
    assert_eq!(strip(again), strip(fixture()));
    jsoncost()
        .arg("report")
        .arg(&results)
        .args(["--format", "csv"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("typed/serde_json"))
        .stdout(predicate::str::contains("│").not());
}

fn assert_bad_results(bytes: &[u8], what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    std::fs::write(&path, bytes).unwrap();
    let html = dir.path().join("out.html");
    jsoncost()
        .arg("report")
        .arg(&path)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!("results file {}", path.display())))
        .stderr(predicate::str::contains(what));
    assert!(!html.exists(), "an HTML report was written from a bad results file");
}

#[test]
fn bad_results_files_exit_2_naming_the_file_and_the_problem() {
    let full = serde_json::to_vec_pretty(&fixture()).unwrap();
    assert_bad_results(&full[..full.len() - 40], "is truncated: the JSON ends early at line");
    assert_bad_results(b"<html></html>", "is not JSON: expected value at line 1, column 1");
    assert_bad_results(b"", "is empty");
    let mut v = serde_json::to_value(fixture()).unwrap();
    v["schema_version"] = serde_json::json!(0);
    assert_bad_results(
        &serde_json::to_vec(&v).unwrap(),
        "has schema_version 0, but this build of jsoncost reads schema_version 1",
    );
    let mut v = serde_json::to_value(fixture()).unwrap();
    v["experiments"][0]["rows"][0]["status"] = serde_json::json!("maybe");
    assert_bad_results(
        &serde_json::to_vec(&v).unwrap(),
        "does not match the results schema: unknown variant `maybe`",
    );
}

#[test]
fn a_missing_results_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.json");
    jsoncost()
        .arg("report")
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "cannot read results file {}: No such file or directory",
            path.display()
        )));
}

#[test]
fn an_unwritable_html_or_markdown_path_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let results = write_fixture(dir.path());
    // A directory that is a regular file: not writable even for root.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let html = blocker.join("out.html");
    jsoncost()
        .arg("report")
        .arg(&results)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!("writing {}", html.display())))
        .stderr(predicate::str::contains("Not a directory"));
    let md = blocker.join("out.md");
    jsoncost()
        .arg("report")
        .arg(&results)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!("writing {}", md.display())));
    // A missing directory.
    let missing = dir.path().join("no/such/dir/out.html");
    jsoncost()
        .arg("report")
        .arg(&results)
        .arg("--html")
        .arg(&missing)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!("writing {}", missing.display())));
}

#[test]
fn an_output_that_is_the_results_file_is_refused_and_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let results = write_fixture(dir.path());
    let before = std::fs::read(&results).unwrap();
    let alias = dir.path().join("alias.json");
    std::os::unix::fs::symlink(&results, &alias).unwrap();
    for (flag, out) in [("--html", &results), ("--markdown", &results), ("--html", &alias)] {
        jsoncost()
            .arg("report")
            .arg(&results)
            .arg(flag)
            .arg(out)
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "error: {flag} {} is the results file {}: writing it would replace an input; give another path\n",
                out.display(),
                results.display()
            ));
        assert_eq!(std::fs::read(&results).unwrap(), before);
    }
}
