//! `--measure counts` without Valgrind's slowness: a stand-in `valgrind` (JSONCOST_VALGRIND, a
//! shell script) that writes the dumps Callgrind would, or fails as Valgrind does, and a
//! stand-in counting build (JSONCOST_COUNTING_BINARY). What is checked: the counts reach their
//! rows beside the native run's time, and each failure's message and exit code.

use assert_cmd::Command;
use predicates::prelude::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(120));
    c
}

/// An executable shell script `name` in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A `valgrind` that writes one labelled dump (data/deserialize, typed/serde_json: 51,200
/// instructions over 100 operations) and the unlabelled one at exit, where it is told to.
const FAKE_CALLGRIND: &str = r#"for a in "$@"; do
  case "$a" in --callgrind-out-file=*) out="${a#--callgrind-out-file=}" ;; esac
done
[ "$JSONCOST_COUNT_OPS" = 100 ] || { echo "ops: $JSONCOST_COUNT_OPS" >&2; exit 9; }
f=$(echo "$out" | sed 's/%p/77/')
printf 'events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\ndesc: Trigger: Client Request: data/deserialize\ttyped/serde_json\t100\nsummary: 51200 10000 5000 100 200 0 10 0 0\n' > "$f.1"
printf 'events: Ir\ntotals: 0\n' > "$f"
"#;

fn args(extra: &[&str]) -> Vec<String> {
    [
        "micro",
        "--shape",
        "data",
        "--filter",
        "typed/serde_json",
        "--quick",
        "--debug-mode",
        "--measure",
        "counts",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn counts_land_on_their_rows_beside_the_native_time() {
    let dir = tempfile::tempdir().unwrap();
    let valgrind = script(dir.path(), "valgrind", FAKE_CALLGRIND);
    let out = dir.path().join("results.json");
    jsoncost()
        .args(args(&["--out", out.to_str().unwrap(), "--format", "bmf"]))
        .env("JSONCOST_VALGRIND", &valgrind)
        .env("JSONCOST_COUNTING_BINARY", &valgrind)
        .assert()
        .success()
        .stdout(predicate::str::contains("\"micro data/deserialize typed/serde_json\": {"))
        .stdout(predicate::str::contains("\"instructions\": {\n      \"value\": 512.0\n    }"))
        .stderr(predicate::str::contains(
            "counting 100 operations per strategy under Callgrind (with the cache simulation)",
        ));
    let results: jsoncost_engine::Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = results.experiments.iter().find(|e| e.table == "data/deserialize").unwrap();
    let row = table.rows.iter().find(|r| r.method == "typed/serde_json").unwrap();
    let counts = row.counts.as_ref().unwrap();
    assert_eq!((counts.ops, counts.instructions), (100, 512.0));
    assert_eq!((counts.l1_misses, counts.ll_misses), (Some(3.0), Some(0.1)));
    // (Ir + Dr + Dw − L1 misses) + 5·(L1 − LL misses) + 35·LL misses, per operation.
    assert_eq!(counts.estimated_cycles, Some(((66_200 - 300) + 5 * 290 + 35 * 10) as f64 / 100.0));
    // The time is the native run's.
    assert!(row.mean_ns.is_some_and(|t| t > 0.0));
    // The serialize table was not counted: no counts there.
    let serialize = results.experiments.iter().find(|e| e.table == "data/serialize").unwrap();
    assert!(serialize.rows.iter().all(|r| r.counts.is_none()));
}

#[test]
fn a_missing_valgrind_or_an_undecodable_build_is_an_environment_error_before_any_timing() {
    let dir = tempfile::tempdir().unwrap();
    let binary = script(dir.path(), "jsoncost-counting", "exit 0");
    jsoncost()
        .args(args(&[]))
        .env("JSONCOST_VALGRIND", dir.path().join("no-valgrind"))
        .env("JSONCOST_COUNTING_BINARY", &binary)
        .assert()
        .code(3)
        .stdout("")
        .stderr(
            predicate::str::contains("--measure counts runs Valgrind, and ").and(predicate::str::contains(
                "no-valgrind was not found (install valgrind, e.g. `apt-get install valgrind`)",
            )),
        );
    let valgrind = script(
        dir.path(),
        "valgrind",
        "echo 'vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7C 0x48 0x10 0x4' >&2; exit 1",
    );
    jsoncost()
        .args(args(&[]))
        .env("JSONCOST_VALGRIND", &valgrind)
        .env("JSONCOST_COUNTING_BINARY", &binary)
        .assert()
        .code(3)
        .stdout("")
        .stderr(
            predicate::str::contains("Valgrind cannot decode an instruction of ").and(predicate::str::contains(
                "the counting build targets x86-64-v3): vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7C 0x48 0x10 0x4",
            )),
        );
    // A counting binary that is not there.
    jsoncost()
        .args(args(&[]))
        .env("JSONCOST_COUNTING_BINARY", dir.path().join("nothing"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("JSONCOST_COUNTING_BINARY names ").and(predicate::str::contains("which is not a file")));
}

/// The store's reads are counted as micro's operations are: the dump labelled with a store
/// table and strategy lands on that row, beside the native run's time.
#[test]
fn store_rows_are_counted_too() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FAKE_CALLGRIND.replace("data/deserialize\\ttyped/serde_json", "redb/order\\ttyped/serde_json");
    let valgrind = script(dir.path(), "valgrind", &fake);
    let out = dir.path().join("results.json");
    jsoncost()
        .args([
            "store",
            "--quick",
            "--debug-mode",
            "--store-filter",
            "typed/serde_json",
            "--measure",
            "counts",
            "--store",
        ])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .arg("--out")
        .arg(&out)
        .env("JSONCOST_VALGRIND", &valgrind)
        .env("JSONCOST_COUNTING_BINARY", &valgrind)
        .assert()
        .success();
    let results: jsoncost_engine::Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = results.experiments.iter().find(|e| e.table == "redb/order").unwrap();
    let row = table.rows.iter().find(|r| r.method == "typed/serde_json").unwrap();
    assert_eq!(row.counts.as_ref().map(|c| (c.ops, c.instructions)), Some((100, 512.0)));
    assert!(row.mean_ns.is_some_and(|t| t > 0.0));
}

/// A stream row is counted over one whole run (whatever the conductor's operation count), and
/// its columns say `/run`.
#[test]
fn a_stream_row_is_counted_over_one_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FAKE_CALLGRIND.replace("data/deserialize\\ttyped/serde_json\\t100", "telemetry\\tbuffered/serde_json\\t1");
    assert_ne!(fake, FAKE_CALLGRIND);
    let valgrind = script(dir.path(), "valgrind", &fake);
    let out = dir.path().join("results.json");
    jsoncost()
        .current_dir(dir.path())
        .args([
            "stream",
            "--quick",
            "--readings",
            "2000",
            "--debug-mode",
            "--measure",
            "counts",
            "--out",
        ])
        .arg(&out)
        .env("JSONCOST_VALGRIND", &valgrind)
        .env("JSONCOST_COUNTING_BINARY", &valgrind)
        .assert()
        .success()
        .stdout(predicate::str::contains("Instr/run"))
        .stderr(predicate::str::contains("counting one whole run per strategy"));
    let results: jsoncost_engine::Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = results.experiments.iter().find(|e| e.table == "telemetry").unwrap();
    let row = table.rows.iter().find(|r| r.method == "buffered/serde_json").unwrap();
    assert_eq!(row.counts.as_ref().map(|c| (c.ops, c.instructions)), Some((1, 51_200.0)));
    assert!(row.mean_ns.is_some_and(|t| t > 0.0));
}

#[test]
fn counts_are_micro_store_and_stream_only_and_their_flags_need_the_measure() {
    jsoncost()
        .args(["http", "--quick", "--measure", "counts"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--measure counts counts micro, store and stream tables only; http is measured by time",
        ));
    jsoncost()
        .args(["micro", "--count-ops", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--measure"));
}
