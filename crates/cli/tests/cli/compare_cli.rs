//! `jsoncost compare BASE NEW` as a user runs it: verdicts and exit codes on crafted pairs of
//! results files, and clear errors (exit 2) for files that are not results.

use assert_cmd::Command;
use jsoncost_engine::{ExperimentKind, Machine, MeasuredTable, Results, Row, SCHEMA_VERSION};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(60));
    c
}

/// A timed row: `samples` iterations around `mean_ns` with standard deviation `stddev_ns`.
fn row(method: &str, mean_ns: f64, stddev_ns: f64, allocated: f64) -> Row {
    let mut r = Row::new(method);
    r.mean_ns = Some(mean_ns);
    r.error_ns = Some(stddev_ns);
    r.stddev_ns = Some(stddev_ns);
    r.median_ns = Some(mean_ns);
    r.p95_ns = Some(mean_ns + 2.0 * stddev_ns);
    r.iterations = Some(20);
    r.ops_per_iteration = Some(10_000);
    r.outliers_removed = Some(0);
    r.allocated_bytes = Some(allocated);
    r.allocs = Some(1.0);
    r
}

fn table(name: &str, rows: Vec<Row>) -> MeasuredTable {
    let mut e = MeasuredTable::new(ExperimentKind::Micro, name);
    e.params.insert("shape".into(), serde_json::json!("data"));
    e.rows = rows;
    e.finish();
    e
}

fn results(experiments: Vec<MeasuredTable>) -> Results {
    Results {
        schema_version: SCHEMA_VERSION,
        jsoncost_version: "0.1.0".into(),
        machine: Machine {
            cpu: "test cpu".into(),
            cores: 2,
            os: "linux".into(),
            rustc: "1.95.0".into(),
            target_features: vec!["avx2".into()],
            ..Machine::default()
        },
        started_at: "2026-01-01T00:00:00Z".into(),
        quick: true,
        rates: Default::default(),
        interrupted: false,
        experiments,
        allocators: Vec::new(),
    }
}

/// The base: two rows, 20 iterations each, 1% standard deviation.
fn base() -> Results {
    results(vec![table(
        "data/deserialize",
        vec![row("typed/serde_json", 150.0, 1.5, 40.0), row("typed/sonic-rs", 112.0, 1.1, 40.0)],
    )])
}

fn write(dir: &Path, name: &str, r: &Results) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(r).unwrap()).unwrap();
    path
}

fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The base with `method`'s row changed by `f`.
fn base_with(method: &str, f: impl FnOnce(&mut Row)) -> Results {
    let mut r = base();
    f(r.experiments[0].rows.iter_mut().find(|r| r.method == method).unwrap());
    r
}

#[test]
fn the_same_file_twice_is_all_within_noise_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("typed/serde_json"))
        .stdout(predicate::str::contains("typed/sonic-rs"))
        .stdout(predicate::str::contains(
            "No regression (threshold 5.0%, beyond the table's shift and what the files resolve). 2 rows compared: 0 faster, 0 slower, 2 within noise, 0 unresolvable at 5.0%; 0 not compared.",
        ))
        .stdout(predicate::str::contains("slower").count(1)) // only in the tally
        .stderr(predicate::str::is_empty());
}

#[test]
fn a_clear_time_regression_exits_1_naming_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    // +30% with a 1% standard deviation over 20 iterations: significant by far.
    let b = write(
        dir.path(),
        "b.json",
        &base_with("typed/sonic-rs", |r| {
            r.mean_ns = Some(112.0 * 1.3);
            r.median_ns = r.mean_ns;
        }),
    );
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("+30"))
        .stdout(predicate::str::contains("regression: time"))
        .stdout(predicate::str::contains("1 slower, 1 within noise"))
        // The verdict's sentence once, on stdout with the table; exit 1 says the rest.
        .stdout(
            predicate::str::contains(
                "Regression in 1 of 2 rows (threshold 5.0%, beyond the table's shift and what the files resolve): micro data/deserialize typed/sonic-rs (regression: time)",
            )
            .count(1),
        )
        .stderr(predicate::str::is_empty());
}

#[test]
fn a_regression_below_the_threshold_passes_and_a_faster_row_is_not_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    // +30% slower is within a 40% threshold.
    let slower = write(
        dir.path(),
        "slower.json",
        &base_with("typed/sonic-rs", |r| r.mean_ns = Some(112.0 * 1.3)),
    );
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&slower)
        .args(["--threshold", "40%"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 slower, 2 within noise"));
    // 30% faster: reported as faster, exit 0.
    let faster = write(
        dir.path(),
        "faster.json",
        &base_with("typed/serde_json", |r| r.mean_ns = Some(150.0 * 0.7)),
    );
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&faster)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("1 faster, 0 slower, 1 within noise"));
}

#[test]
fn a_change_within_what_the_runs_resolve_is_unresolvable_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    // +10% (beyond the 5% threshold) but with a 40% Error in both: the files cannot tell.
    let noisy = |mean: f64| {
        results(vec![table(
            "data/deserialize",
            vec![row("typed/serde_json", mean, mean * 0.4, 40.0)],
        )])
    };
    let a = write(dir.path(), "a.json", &noisy(150.0));
    let b = write(dir.path(), "b.json", &noisy(165.0));
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("+10"))
        .stdout(predicate::str::contains("unresolvable at 5.0%: its own intervals are ±76.1%"))
        .stdout(predicate::str::contains("0 slower, 0 within noise, 1 unresolvable at 5.0%"));
}

#[test]
fn allocation_growth_by_one_byte_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    let b = write(
        dir.path(),
        "b.json",
        &base_with("typed/serde_json", |r| r.allocated_bytes = Some(41.0)),
    );
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("regression: allocation"))
        .stdout(predicate::str::contains("+1 B"))
        .stdout(predicate::str::contains(
            "micro data/deserialize typed/serde_json (regression: allocation)",
        ));
    // Less allocation is never a regression.
    let c = write(
        dir.path(),
        "c.json",
        &base_with("typed/serde_json", |r| r.allocated_bytes = Some(39.0)),
    );
    jsoncost().arg("compare").arg(&a).arg(&c).assert().code(0);
}

#[test]
fn missing_rows_fail_the_gate_unless_allowed_and_extra_ones_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    let mut new = base();
    new.experiments[0].rows.retain(|r| r.method != "typed/sonic-rs");
    new.experiments[0].rows.push(row("typed/simd-json", 280.0, 2.8, 40.0));
    new.experiments
        .push(table("order/serialize", vec![row("typed/serde_json", 900.0, 9.0, 4096.0)]));
    let b = write(dir.path(), "b.json", &new);
    // A row ok in base and missing from new (a filtered or crashed run) is a regression.
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Not compared:"))
        .stdout(predicate::str::contains(
            "- micro data/deserialize typed/sonic-rs: only in base (missing from new) [ok in base: a regression]",
        ))
        .stdout(predicate::str::contains(
            "- micro data/deserialize typed/simd-json: only in new (unknown to base)\n",
        ))
        .stdout(predicate::str::contains(
            "- micro order/serialize (whole table): only in new (unknown to base)\n",
        ))
        .stdout(predicate::str::contains(
            "Regression (threshold 5.0%, beyond the table's shift and what the files resolve): 1 row ok in base failed or is missing in new \
             (--allow-missing accepts that): micro data/deserialize typed/sonic-rs (missing from new). \
             1 row compared: 0 faster, 0 slower, 1 within noise, 0 unresolvable at 5.0%; 3 not compared.",
        ))
        .stderr(predicate::str::is_empty());
    // --allow-missing accepts it and says so.
    jsoncost()
        .args(["compare", "--allow-missing"])
        .arg(&a)
        .arg(&b)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "No regression (threshold 5.0%, beyond the table's shift and what the files resolve). 1 row ok in base failed or is missing in new, \
             allowed by --allow-missing: micro data/deserialize typed/sonic-rs (missing from new).",
        ));
    // The other way round: the table is missing from the new file.
    jsoncost()
        .arg("compare")
        .arg(&b)
        .arg(&a)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "- micro order/serialize (whole table): only in base (missing from new) [ok in base: a regression]",
        ));
}

#[test]
fn a_row_ok_in_base_and_failed_in_new_is_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    let mut new = base();
    let broken = new.experiments[0].rows.iter_mut().find(|r| r.method == "typed/sonic-rs").unwrap();
    *broken = Row::failed("typed/sonic-rs", "decoded value differs from the baseline");
    let b = write(dir.path(), "b.json", &new);
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "- micro data/deserialize typed/sonic-rs: failed in new: decoded value differs from the baseline [ok in base: a regression]",
        ))
        .stdout(predicate::str::contains(
            "1 row ok in base failed or is missing in new (--allow-missing accepts that): micro data/deserialize typed/sonic-rs (failed in new)",
        ));
    jsoncost().args(["compare", "--allow-missing"]).arg(&a).arg(&b).assert().code(0);
}

#[test]
fn a_new_file_without_experiments_is_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    let empty = write(dir.path(), "empty.json", &results(vec![]));
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&empty)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "2 rows ok in base failed or are missing in new (--allow-missing accepts that): \
             micro data/deserialize (whole table, 2 rows ok, missing from new). 0 rows compared",
        ));
}

#[test]
fn markdown_format_suits_a_pr_comment() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    let b = write(
        dir.path(),
        "b.json",
        &base_with("typed/sonic-rs", |r| r.mean_ns = Some(112.0 * 1.3)),
    );
    let out = jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--format", "markdown"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8(out).unwrap();
    assert!(md.starts_with("### jsoncost compare: **Regression**\n"), "{md}");
    assert!(
        md.contains("| Table | Method | Base | New | Change | Beyond table | Resolves | Verdict |"),
        "{md}"
    );
    let sonic = md
        .lines()
        .find(|l| l.starts_with('|') && l.contains("typed/sonic-rs"))
        .unwrap_or_else(|| panic!("no markdown row for typed/sonic-rs:\n{md}"));
    assert!(sonic.contains("slower") && sonic.contains("regression: time"), "{sonic}");
    // No console box drawing in markdown.
    assert!(!md.contains('│') && !md.contains('─'), "{md}");

    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .args(["--format", "markdown"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("### jsoncost compare: **No regression**"));
}

/// Runs `compare GOOD BAD` and `compare BAD GOOD`: both exit 2 naming the file and `what`.
fn assert_rejected(bad: &Path, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.json", &base());
    for (x, y) in [(&good, &bad.to_path_buf()), (&bad.to_path_buf(), &good)] {
        jsoncost()
            .arg("compare")
            .arg(x)
            .arg(y)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(format!("results file {}", bad.display())))
            .stderr(predicate::str::contains(what));
    }
}

#[test]
fn a_file_of_another_schema_version_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let mut value = serde_json::to_value(base()).unwrap();
    value["schema_version"] = serde_json::json!(2);
    let bad = write_bytes(dir.path(), "v2.json", &serde_json::to_vec(&value).unwrap());
    assert_rejected(&bad, "has schema_version 2, but this build of jsoncost reads schema_version 1");
}

#[test]
fn a_truncated_file_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let full = serde_json::to_vec_pretty(&base()).unwrap();
    let bad = write_bytes(dir.path(), "cut.json", &full[..full.len() / 2]);
    assert_rejected(&bad, "is truncated: the JSON ends early at line");
}

#[test]
fn a_file_that_is_not_json_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write_bytes(dir.path(), "notes.json", b"<html>not results</html>\n");
    assert_rejected(&bad, "is not JSON: expected value at line 1, column 1");
    let empty = write_bytes(dir.path(), "empty.json", b"\n");
    assert_rejected(&empty, "is empty");
    let other = write_bytes(dir.path(), "other.json", br#"{"name": "not results"}"#);
    assert_rejected(&other, "is not a jsoncost results file: it has no top-level schema_version field");
    let mut value = serde_json::to_value(base()).unwrap();
    value.as_object_mut().unwrap().remove("experiments");
    let schema = write_bytes(dir.path(), "schema.json", &serde_json::to_vec(&value).unwrap());
    assert_rejected(&schema, "does not match the results schema: missing field `experiments`");
}

#[test]
fn a_name_that_is_neither_a_file_nor_a_baseline_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    jsoncost()
        .current_dir(dir.path())
        .arg("compare")
        .arg(&a)
        .arg("nightly")
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "\"nightly\" is neither a results file nor a saved baseline (no baselines are saved in jsoncost-results/baselines)",
        ));
    // With baselines saved, the message lists them, sorted, and nothing else of the directory.
    let saved = dir.path().join("jsoncost-results/baselines");
    std::fs::create_dir_all(&saved).unwrap();
    write(&saved, "zeta.json", &base());
    write(&saved, "main.json", &base());
    write_bytes(&saved, "notes.txt", b"not a baseline");
    write_bytes(&saved, ".jsoncost-Ab12.tmp", b"{");
    jsoncost()
        .current_dir(dir.path())
        .args(["compare", "main", "nightly"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "\"nightly\" is neither a results file nor a saved baseline (saved baselines: main, zeta in jsoncost-results/baselines)",
        ));
    // And a saved baseline is found by name.
    jsoncost()
        .current_dir(dir.path())
        .args(["compare", "main", "main"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 within noise"));
    // A directory of the baseline's name, without results.json, does not hide the baseline;
    // a run's output directory is read through its results.json.
    std::fs::create_dir_all(dir.path().join("main")).unwrap();
    let run = dir.path().join("jsoncost-results/20261204-120000");
    std::fs::create_dir_all(&run).unwrap();
    write(&run, "results.json", &base());
    jsoncost()
        .current_dir(dir.path())
        .args(["compare", "main", "jsoncost-results/20261204-120000"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 within noise"));
    jsoncost()
        .current_dir(dir.path())
        .args(["compare", "main", "jsoncost-results"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "\"jsoncost-results\" is a directory without results.json, and not a saved baseline (saved baselines: main, zeta in jsoncost-results/baselines)",
        ));
}

#[test]
fn a_bad_threshold_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .args(["--threshold", "five"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"five\" is not a threshold like 5% or 0.05"));
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .args(["--threshold", "150%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("threshold \"150%\" must be between 0% and 100%"));
}

#[test]
fn two_runs_with_nothing_timed_are_bad_input_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.json", &results(vec![]));
    let mut failed = base();
    for r in &mut failed.experiments[0].rows {
        *r = Row::failed(r.method.clone(), "gate: differs at /id");
    }
    let failed = write(dir.path(), "failed.json", &failed);
    for (a, b) in [(&empty, &empty), (&failed, &failed)] {
        jsoncost()
            .arg("compare")
            .arg(a)
            .arg(b)
            .assert()
            .code(2)
            .stderr(predicate::str::ends_with(format!(
                "error: nothing to compare: no row was timed in both {} and {}\n",
                a.display(),
                b.display()
            )));
    }
}

#[test]
fn a_negative_time_or_a_duplicate_row_is_refused_naming_the_file_and_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    let negative = write(
        dir.path(),
        "negative.json",
        &base_with("typed/sonic-rs", |r| r.mean_ns = Some(-5.0)),
    );
    jsoncost()
        .arg("compare")
        .arg(&a)
        .arg(&negative)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(format!(
            "error: results file {}: micro table data/deserialize, row typed/sonic-rs: mean_ns is -5, below 0\n",
            negative.display()
        ));
    let mut twice = base();
    let copy = twice.experiments[0].rows[0].clone();
    assert_eq!(copy.method, "typed/sonic-rs");
    twice.experiments[0].rows.push(copy);
    let twice = write(dir.path(), "twice.json", &twice);
    jsoncost().arg("compare").arg(&twice).arg(&a).assert().code(2).stderr(format!(
        "error: results file {}: micro table data/deserialize, row typed/sonic-rs: the row appears twice\n",
        twice.display()
    ));
}

#[test]
fn an_ok_row_without_a_time_is_refused_naming_the_file_and_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &base());
    for (name, mean, why) in [
        ("null.json", None, "it is ok but its mean_ns is null"),
        ("zero.json", Some(0.0), "it is ok but its mean_ns is 0"),
    ] {
        let bad = write(dir.path(), name, &base_with("typed/sonic-rs", |r| r.mean_ns = mean));
        jsoncost()
            .arg("compare")
            .arg(&a)
            .arg(&bad)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(format!(
                "error: results file {}: micro table data/deserialize, row typed/sonic-rs: {why}\n",
                bad.display()
            ));
    }
}

/// Results files of runs of one build on a drifting machine (see crates/report/tests/report/compare.rs:
/// every table moved as a whole, up to +38%; each row by 1–3% of its own).
fn run_of(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/fixtures/compare")
        .join(name)
}

#[test]
fn two_runs_of_one_build_pass_and_one_row_made_15_percent_slower_fails_alone() {
    let same = jsoncost()
        .arg("compare")
        .arg(run_of("base.json"))
        .arg(run_of("same-build.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("No regression (threshold 5.0%, beyond the table's shift and what the files resolve)."))
        .stdout(predicate::str::contains(
            "micro data/deserialize moved +37.9% as a whole (the median of its 14 rows): unpaired runs cannot tell that from the machine's drift",
        ));
    let stdout = String::from_utf8(same.get_output().stdout.clone()).unwrap();
    assert!(!stdout.contains("┆ slower") && !stdout.contains("┆ faster"), "{stdout}");
    let slower = jsoncost()
        .arg("compare")
        .arg(run_of("base.json"))
        .arg(run_of("one-row-slower.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "Regression in 1 of 75 rows (threshold 5.0%, beyond the table's shift and what the files resolve): \
             micro order/deserialize typed/sonic-rs (regression: time).",
        ));
    let stdout = String::from_utf8(slower.get_output().stdout.clone()).unwrap();
    let flagged: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("│") && l.contains("regression: time"))
        .collect();
    assert_eq!(flagged.len(), 1, "{stdout}");
    assert!(
        flagged[0].contains("typed/sonic-rs") && flagged[0].contains("+12.1%"),
        "{}",
        flagged[0]
    );
    // With a third run of the base build: still quiet on the same build, still that row.
    jsoncost()
        .arg("compare")
        .arg(run_of("base.json"))
        .arg(run_of("same-build.json"))
        .arg("--base-run")
        .arg(run_of("base-run.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 runs of the base build differ per row by a median"));
    jsoncost()
        .arg("compare")
        .arg(run_of("base.json"))
        .arg(run_of("one-row-slower.json"))
        .arg("--base-run")
        .arg(run_of("base-run.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Regression in 1 of 75 rows").count(1));
}
