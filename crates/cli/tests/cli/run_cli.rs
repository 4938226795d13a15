//! `jsoncost run` as a user runs it: the files a run writes, named baselines and compare,
//! unwritable outputs, empty selections, and Ctrl-C writing what was measured.

use crate::common;

use assert_cmd::Command;
use common::Killed;
use jsoncost_engine::Results;
use predicates::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(Duration::from_secs(120));
    c
}

/// A quick run short enough for a test: the typed micro strategies and a small store, in the
/// fewest, shortest iterations (`--debug-mode`).
fn quick_run(dir: &Path) -> Command {
    let mut c = jsoncost();
    c.current_dir(dir).args([
        "run",
        "--quick",
        "--debug-mode",
        "--only",
        "micro,store",
        "--filter",
        "typed/*",
        "--docs",
        "500",
    ]);
    c.arg("--store").arg(format!("redb:{}", dir.join("s.redb").display()));
    c
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn load(path: &Path) -> Results {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not a results file: {e}", path.display()))
}

#[test]
fn a_quick_run_writes_results_and_both_reports_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let assert = quick_run(dir.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("micro: data/deserialize ("))
        .stdout(predicate::str::contains("store: redb/order"))
        // Which sentence depends on the noise of a debug-mode run: both state the JSON share.
        .stdout(predicate::str::is_match("JSON is [0-9.]+ µs of a|JSON work is within the noise of the").unwrap())
        .stdout(predicate::str::contains("What moves the number"))
        .stderr(predicate::str::contains("quick run:"))
        .stderr(predicate::str::contains(format!("report: {}", out.join("report.html").display())));
    // The answer first: the headline verdict opens stdout, before the first table; every
    // table's verdict in full closes it.
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.starts_with(jsoncost_report::answer::HEADLINE), "{stdout}");
    let first_table = stdout.find("│ Method").expect("a table");
    let headline_data = stdout.find("micro: ").unwrap();
    assert!(
        headline_data < first_table,
        "the data table's verdict is not in the headline: {stdout}"
    );
    assert!(stdout.rfind("What moves the number").unwrap() > stdout.rfind("│ Method").unwrap());
    // Exactly the three files: no temporary or probe file left behind.
    assert_eq!(names_in(&out), ["report.html", "report.md", "results.json"]);

    let results = load(&out.join("results.json"));
    assert_eq!(results.schema_version, 1);
    assert!(results.quick, "quick is not recorded");
    let tables: Vec<(&str, &str)> = results.experiments.iter().map(|e| (e.kind.as_str(), e.table.as_str())).collect();
    assert_eq!(
        tables,
        [
            ("micro", "data/deserialize"),
            ("micro", "data/serialize"),
            ("micro", "order/deserialize"),
            ("micro", "order/serialize"),
            ("store", "redb/order"),
        ]
    );
    for e in &results.experiments {
        assert!(
            e.rows.iter().all(|r| r.is_ok()),
            "{} {}: a row failed: {:?}",
            e.kind,
            e.table,
            e.rows
        );
    }
    let micro = &results.experiments[0];
    let mut methods: Vec<&str> = micro.rows.iter().map(|r| r.method.as_str()).collect();
    methods.sort();
    assert_eq!(
        methods,
        [
            "typed/facet-json",
            "typed/jiter",
            "typed/miniserde",
            "typed/nanoserde",
            "typed/serde_json",
            "typed/simd-json",
            "typed/simd-json-derive",
            "typed/sonic-rs"
        ],
        "--filter was not applied"
    );
    let store = &results.experiments[4];
    assert_eq!(store.params["docs"], serde_json::json!(500));
    assert!(store.rows.iter().any(|r| r.method == "floor"), "no floor row");

    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("redb/order") && md.contains("typed/serde_json"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.trim_end().ends_with("</html>"));
}

/// Every experiment through `run`'s real pipeline (gate, rounds, allocation pass, reports), in
/// debug mode: each kind's tables, none of their rows failed, both reports.
#[test]
fn every_experiment_runs_within_run_and_lands_in_the_results_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let store = format!("redb:{}", dir.path().join("s.redb").display());
    jsoncost()
        .current_dir(dir.path())
        .args([
            "run",
            "--quick",
            "--debug-mode",
            "--allocator-table",
            "off",
            "--docs",
            "200",
            "--store",
            &store,
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("micro: order/deserialize"))
        .stdout(predicate::str::contains("store: redb/order"))
        .stdout(predicate::str::contains("stream: telemetry"))
        .stdout(predicate::str::contains("http: item/"))
        .stdout(predicate::str::contains("safety: serde_json"));
    assert_eq!(names_in(&out), ["report.html", "report.md", "results.json"]);
    let results = load(&out.join("results.json"));
    let kinds: std::collections::BTreeSet<&str> = results.experiments.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["http", "micro", "safety", "store", "stream"].into_iter().collect());
    for e in results.experiments.iter().filter(|e| e.kind.as_str() != "safety") {
        assert!(
            !e.rows.is_empty() && e.rows.iter().all(|r| r.is_ok()),
            "{} {}: {:?}",
            e.kind,
            e.table,
            e.rows
        );
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for heading in ["redb/order", "telemetry", "item/", "sonic-rs"] {
        assert!(md.contains(heading), "report.md lacks {heading}");
    }
}

#[test]
fn a_run_s_small_allocator_table_pairs_order_s_rows_under_mimalloc_with_the_system_s() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    jsoncost()
        .timeout(Duration::from_secs(240))
        .args([
            "run",
            "--quick",
            "--only",
            "micro",
            "--shape",
            "data",
            "--filter",
            "typed/serde_json",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Allocators: mimalloc against system: paired in lockstep"))
        .stdout(predicate::str::contains("micro: order/deserialize\n  With mimalloc, "))
        .stderr(predicate::str::contains("allocators: "));
    let results = load(&out.join("results.json"));
    // The run's own tables are as asked; the allocator table is order's, as run sets it.
    assert_eq!(results.experiments.len(), 2);
    assert_eq!(results.allocators.len(), 1);
    let c = &results.allocators[0];
    assert_eq!(
        (c.base.as_str(), c.allocator.as_str(), c.runs, c.lockstep),
        ("system", "mimalloc", 1, true)
    );
    let mut rows: Vec<(&str, &str)> = c.rows.iter().map(|r| (r.table.as_str(), r.method.as_str())).collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("order/deserialize", "dom/serde_json"),
            ("order/deserialize", "typed/serde_json"),
            ("order/serialize", "dom/serde_json"),
            ("order/serialize", "typed/serde_json"),
        ]
    );
    // 8 rounds with --quick, less the far-out pairs dropped.
    assert!(c.rows.iter().all(|r| (4..=8).contains(&r.ratio.n)), "{:?}", c.rows);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Allocators: mimalloc against system") && md.contains("With mimalloc, "),
        "{md}"
    );
}

#[test]
fn saved_baselines_compare_by_name_and_the_default_out_dir_is_used() {
    let dir = tempfile::tempdir().unwrap();
    // No --out: the run goes to ./jsoncost-results/<timestamp>/.
    quick_run(dir.path())
        .args(["--save-baseline", "a", "--format", "csv"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "baseline \"a\" saved to jsoncost-results/baselines/a.json",
        ));
    let results_dir = dir.path().join("jsoncost-results");
    let runs: Vec<String> = names_in(&results_dir).into_iter().filter(|n| n != "baselines").collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(runs[0].len() == 15 && runs[0].as_bytes()[8] == b'-', "not a timestamp: {}", runs[0]);
    assert_eq!(names_in(&results_dir.join(&runs[0])), ["report.html", "report.md", "results.json"]);

    quick_run(dir.path())
        .arg("--out")
        .arg(dir.path().join("second"))
        .args(["--save-baseline", "b", "--allocator-table", "off"])
        .assert()
        .code(0);
    assert_eq!(names_in(&results_dir.join("baselines")), ["a.json", "b.json"]);
    assert!(load(&dir.path().join("second/results.json")).allocators.is_empty());
    assert_eq!(
        load(&results_dir.join("baselines/b.json")),
        load(&dir.path().join("second/results.json")),
        "the baseline is not the run's results"
    );

    // Two runs of the same build: timing noise decides between 0 and 1, never a usage or
    // environment error.
    let out = jsoncost().current_dir(dir.path()).args(["compare", "a", "b"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("store redb/order"), "{stdout}");
    assert!(stdout.contains("rows compared"), "{stdout}");
    assert!(
        !stdout.contains("Not compared"),
        "the same tables and rows must all compare:\n{stdout}"
    );
}

/// An output that cannot be created fails with exit 3 before anything is measured.
fn assert_unwritable_out(out: &Path, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    quick_run(dir.path())
        .arg("--out")
        .arg(out)
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!(
            "cannot create the output directory {}",
            out.display()
        )))
        .stderr(predicate::str::contains(what))
        .stderr(predicate::str::contains("Method").not())
        .stderr(predicate::str::contains("store:").not());
    assert!(!dir.path().join("s.redb").exists(), "the store experiment started");
}

#[test]
fn an_unwritable_out_exits_3_before_any_experiment_starts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    assert_unwritable_out(&file.join("out"), "Not a directory");
    assert_unwritable_out(&file, "File exists");
    assert_unwritable_out(Path::new("/proc/jsoncost-test-out"), "No such file or directory");
    assert_eq!(std::fs::read(&file).unwrap(), b"x", "the blocking file was changed");
}

#[test]
fn an_unwritable_baseline_dir_exits_3_before_any_experiment_starts() {
    let dir = tempfile::tempdir().unwrap();
    // ./jsoncost-results is a regular file: the baseline cannot be saved.
    std::fs::write(dir.path().join("jsoncost-results"), b"x").unwrap();
    quick_run(dir.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--save-baseline", "a"])
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("cannot create jsoncost-results/baselines"));
    assert!(!dir.path().join("s.redb").exists(), "the store experiment started");
}

#[test]
fn only_and_skip_leaving_nothing_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    // An unknown experiment is a usage error listing the experiments there are.
    let out = jsoncost()
        .current_dir(dir.path())
        .args(["run", "--only", "micro,mongo"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'mongo' for '--only"))
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    let listed = stderr
        .split_once("[possible values: ")
        .and_then(|(_, rest)| rest.split_once(']'))
        .unwrap_or_else(|| panic!("no possible values listed: {stderr}"))
        .0;
    let all: Vec<&str> = listed.split(", ").collect();
    assert!(all.starts_with(&["micro", "store"]), "{all:?}");
    let all = all.join(",");

    for args in [
        &["--only", "micro", "--skip", "micro"][..],
        &["--skip", &all][..],
        &["--only", "store", "--skip", "store,micro"][..],
    ] {
        jsoncost()
            .current_dir(dir.path())
            .arg("run")
            .args(args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("--only and --skip leave no experiment to run"));
    }
    jsoncost()
        .current_dir(dir.path())
        .args(["run", "--only", "micro", "--save-baseline", "../escape"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid baseline name \"../escape\": use letters, digits, '-', '_' and '.'",
        ));
    // Nothing was measured or written.
    assert!(names_in(dir.path()).is_empty(), "{:?}", names_in(dir.path()));
}

#[test]
fn ctrl_c_during_run_writes_what_was_measured() {
    interrupt_run_writes_what_was_measured(libc::SIGINT);
}

#[test]
fn sigterm_during_run_is_treated_as_ctrl_c() {
    interrupt_run_writes_what_was_measured(libc::SIGTERM);
}

fn interrupt_run_writes_what_was_measured(signal: libc::c_int) {
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("out");
    let stderr_path = dir.path().join("stderr.txt");
    // Not quick: four tables of three strategies take well over ten seconds.
    let mut child = Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(["run", "--only", "micro", "--filter", "typed/*", "--out"])
            .arg(&out)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&stderr_path).unwrap())
            .spawn()
            .unwrap(),
    );
    // Tables are held for the verdict: wait (at most 60 s) for stderr to say the first is done.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&stderr_path)
        .unwrap_or_default()
        .contains("micro: data/deserialize measured")
    {
        assert!(
            Instant::now() < deadline,
            "no table within 60 s; stderr so far:\n{}",
            std::fs::read_to_string(&stderr_path).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let pid = child.0.id() as libc::pid_t;
    // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);

    // It finishes the current strategy (at most ~2 s each) then writes: wait at most 30 s.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running 30 s after Ctrl-C");
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: finishing the current strategy"), "{stderr}");
    // The signal is named as it came.
    let name = if signal == libc::SIGINT { "Ctrl-C" } else { "SIGTERM" };
    assert!(stderr.contains(&format!("(got {name};")), "{stderr}");
    assert!(stderr.contains(&format!("error: interrupted by {name}\n")), "{stderr}");

    assert_eq!(names_in(&out), ["report.html", "report.md", "results.json"]);
    let results = load(&out.join("results.json"));
    assert!(!results.quick);
    assert!(results.interrupted, "results.json does not say the run was interrupted");
    assert!(
        (1..4).contains(&results.experiments.len()),
        "expected the tables measured before Ctrl-C, got {}",
        results.experiments.len()
    );
    let first = &results.experiments[0];
    assert_eq!(first.table, "data/deserialize");
    assert_eq!(first.rows.len(), 8, "the first table was complete when Ctrl-C came");
    for e in &results.experiments {
        assert!(
            !e.rows.is_empty() && e.rows.iter().all(|r| r.is_ok() && r.mean_ns.is_some()),
            "{e:?}"
        );
    }
}

#[test]
fn a_store_that_fails_inside_run_is_kept_in_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let url = format!(
        "redis://127.0.0.1:{}",
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    );
    jsoncost()
        .current_dir(dir.path())
        .args([
            "run",
            "--quick",
            "--only",
            "micro,store",
            "--shape",
            "data",
            "--filter",
            "typed/serde_json",
            "--store",
            &url,
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!("cannot reach {url}")));
    let results = load(&out.join("results.json"));
    let tables: Vec<(&str, &str)> = results.experiments.iter().map(|e| (e.kind.as_str(), e.table.as_str())).collect();
    assert_eq!(
        tables,
        [("micro", "data/deserialize"), ("micro", "data/serialize"), ("store", "error")]
    );
    let row = &results.experiments[2].rows[0];
    assert!(!row.is_ok());
    assert!(
        row.error_message.as_deref().unwrap().contains(&format!("cannot reach {url}")),
        "{row:?}"
    );
}

#[test]
fn an_interrupted_run_exits_130_even_after_a_store_failed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let url = format!(
        "redis://127.0.0.1:{}",
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    );
    // The store fails at once; the stream experiment after it runs long enough to be stopped.
    let mut child = Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(["run", "--only", "store,stream", "--readings", "300000", "--store", &url, "--out"])
            .arg(&out)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = child.0.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = Vec::new();
    while !lines.iter().any(|l: &String| l.contains(&format!("cannot reach {url}"))) {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => lines.push(line),
            Err(e) => panic!("the store did not fail within 60 s ({e}):\n{}", lines.join("\n")),
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(child.0.id() as libc::pid_t, libc::SIGINT) }, 0);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running 60 s after Ctrl-C");
        std::thread::sleep(Duration::from_millis(100));
    };
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        lines.push(line);
    }
    assert_eq!(status.code(), Some(130), "{}", lines.join("\n"));
    let results = load(&out.join("results.json"));
    assert!(results.interrupted);
    assert!(
        results
            .experiments
            .iter()
            .any(|e| e.kind == jsoncost_engine::ExperimentKind::Store && e.table == "error"),
        "{:?}",
        results.experiments
    );
}

#[test]
fn the_readme_and_the_guide_have_no_placeholder_left() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // What the README leaves out is in these: held to the same rule.
    let mut docs: Vec<PathBuf> = ["README.md", "CONTRIBUTING.md", "docs/measurements.md"]
        .iter()
        .map(|p| root.join(p))
        .collect();
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guide"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    assert!(chapters.len() >= 10, "{chapters:?}");
    docs.extend(chapters);
    let mut placeholders = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        for line in text.lines().filter(|l| l.trim().ends_with("_PLACEHOLDER")) {
            placeholders.push(format!("{}: {line}", doc.display()));
        }
    }
    assert!(placeholders.is_empty(), "{placeholders:?}");
}
