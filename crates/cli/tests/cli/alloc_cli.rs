//! The allocator dimension as a user runs it: one jsoncost binary under each allocator
//! (JSONCOST_ALLOCATOR), recorded in results.json with the same exact allocation counts.
//! Exit codes, counts and fields are exact; nothing is timed.

use assert_cmd::Command;
use jsoncost_engine::Results;
use jsoncost_engine::alloc::Allocator;
use predicates::prelude::*;
use std::path::Path;

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("JSONCOST_ALLOCATOR")
        .timeout(std::time::Duration::from_secs(240));
    c
}

fn load(path: &Path) -> Results {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn each_allocator_is_recorded_in_results_json_and_counts_alike() {
    let dir = tempfile::tempdir().unwrap();
    for allocator in Allocator::ALL {
        let out = dir.path().join(format!("{allocator}.json"));
        jsoncost()
            .env("JSONCOST_ALLOCATOR", allocator.as_str())
            .args([
                "micro",
                "--quick",
                "--shape",
                "data",
                "--filter",
                "typed/serde_json",
                "--format",
                "json",
                "--out",
            ])
            .arg(&out)
            .assert()
            .code(0);
        let r = load(&out);
        assert_eq!(r.machine.allocator, Some(allocator));
        let counts: Vec<(&str, &str, Option<f64>, Option<f64>)> = r
            .experiments
            .iter()
            .flat_map(|e| {
                e.rows
                    .iter()
                    .map(move |row| (e.table.as_str(), row.method.as_str(), row.allocated_bytes, row.allocs))
            })
            .collect();
        // Reading the record allocates its name; writing it, the output buffer and one growth.
        assert_eq!(
            counts,
            [
                ("data/deserialize", "typed/serde_json", Some(5.0), Some(1.0)),
                ("data/serialize", "typed/serde_json", Some(162.0), Some(2.0)),
            ],
            "{allocator}"
        );
    }
    // Unset: the system allocator.
    let out = dir.path().join("unset.json");
    jsoncost()
        .args([
            "micro",
            "--quick",
            "--shape",
            "data",
            "--filter",
            "typed/serde_json",
            "--format",
            "json",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(0);
    assert_eq!(load(&out).machine.allocator, Some(Allocator::System));
}

#[test]
fn an_allocator_the_binary_does_not_know_is_bad_input() {
    jsoncost()
        .env("JSONCOST_ALLOCATOR", "tcmalloc")
        .args(["micro", "--quick", "--shape", "data"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("error: JSONCOST_ALLOCATOR=\"tcmalloc\" names no allocator; valid: system, mimalloc, jemalloc\n");
}

#[test]
fn alloc_pairs_each_allocator_with_the_first_in_lockstep_and_keeps_the_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let (out, keep, html) = (dir.path().join("r.json"), dir.path().join("keep"), dir.path().join("r.html"));
    let assert = jsoncost()
        .args([
            "alloc",
            "--allocators",
            "system,system,mimalloc,jemalloc",
            "--rounds",
            "3",
            "--threshold",
            "7%",
        ])
        .args(crate::common::JUDGE_ON_A_BUSY_MACHINE)
        .arg("--out")
        .arg(&out)
        .arg("--keep")
        .arg(&keep)
        .args(["--", "micro", "--quick", "--shape", "data", "--filter", "typed/serde_json"])
        .assert()
        .code(0);
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let r = load(&out);
    // The tables are the base allocator's; one comparison per other allocator, in order.
    assert_eq!(r.machine.allocator, Some(Allocator::System));
    assert_eq!(r.experiments.len(), 2);
    let pairs: Vec<(Allocator, Allocator)> = r.allocators.iter().map(|c| (c.base, c.allocator)).collect();
    assert_eq!(
        pairs,
        [
            (Allocator::System, Allocator::System),
            (Allocator::System, Allocator::Mimalloc),
            (Allocator::System, Allocator::Jemalloc)
        ]
    );
    for c in &r.allocators {
        assert!(c.lockstep && c.runs == 1 && c.not_compared.is_empty(), "{c:?}");
        // The threshold the rows were judged at is kept with them.
        assert_eq!(c.threshold, 0.07);
        let rows: Vec<(&str, &str)> = c.rows.iter().map(|row| (row.table.as_str(), row.method.as_str())).collect();
        assert_eq!(
            rows,
            [("data/deserialize", "typed/serde_json"), ("data/serialize", "typed/serde_json")]
        );
        for row in &c.rows {
            // Every round paired; the same exact allocation under both allocators.
            assert_eq!(row.ratio.n, 3, "{row:?}");
            assert!(row.ratio.low <= row.ratio.estimate && row.ratio.estimate <= row.ratio.high);
            assert_eq!(
                (row.base_allocated_bytes, row.base_allocs),
                (row.allocated_bytes, row.allocs),
                "{row:?}"
            );
            assert!(row.allocs.is_some());
        }
        // Each process ran the allocator it was asked for.
        let kept: Results = load(&keep.join(c.allocator.as_str()).join("run-001/n.json"));
        assert_eq!(kept.machine.allocator, Some(c.allocator));
        assert_eq!(
            load(&keep.join(c.allocator.as_str()).join("run-001/b.json")).machine.allocator,
            Some(Allocator::System)
        );
    }
    for a in ["system", "mimalloc", "jemalloc"] {
        assert!(
            stdout.contains(&format!("Allocators: {a} against system: paired in lockstep on CPU ")),
            "{stdout}"
        );
        assert!(stdout.contains(&format!("micro: data/deserialize\n  With {a}, ")), "{stdout}");
    }
    // The report of the file shows the tables and the levers in every format.
    jsoncost()
        .args(["report", "--format", "markdown", "--html"])
        .arg(&html)
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("## Allocators: mimalloc against system"))
        .stdout(predicate::str::contains("- **micro: data/deserialize**\n  - With mimalloc, "));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<section class=\"experiment allocator\" id=\"allocator-jemalloc-system\">"));
    assert!(page.contains("<li class=\"allocator\"><strong>micro: data/serialize</strong> With jemalloc, "));
}

#[test]
fn alloc_refuses_a_lone_allocator_an_unknown_one_and_the_flags_it_sets() {
    jsoncost()
        .args(["alloc", "--allocators", "system", "--", "micro", "--quick"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "only system named: name the allocators to pair with it after it (e.g. system,mimalloc), or system,system to pair it with itself",
        ));
    jsoncost()
        .args(["alloc", "--allocators", "system,tcmalloc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown allocator \"tcmalloc\"; valid: system, mimalloc, jemalloc",
        ));
    jsoncost()
        .args(["alloc", "--", "micro", "--out", "f.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out is set by alloc itself"));
}

#[test]
fn alloc_of_the_stream_pairs_its_rounds_of_whole_runs_and_shows_both_peak_rss() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args([
            "alloc",
            "--allocators",
            "system,mimalloc",
            "--max-other-cpu",
            "100000%",
            "--rounds",
            "3",
            "--format",
            "csv",
            "--out",
        ])
        .arg(&out)
        .args([
            "--",
            "stream",
            "--readings",
            "2000",
            "--stream-filter",
            "{buffered,incremental}/serde_json",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("base,allocator,experiment,table,method,"));
    let r = load(&out);
    assert_eq!(r.allocators.len(), 1);
    let c = &r.allocators[0];
    assert_eq!((c.runs, c.lockstep), (1, true));
    // A table lists its rows fastest first, which is the machine's to decide.
    let mut methods: Vec<&str> = c.rows.iter().map(|row| row.method.as_str()).collect();
    methods.sort_unstable();
    assert_eq!(methods, ["buffered/serde_json", "incremental/serde_json"]);
    for row in &c.rows {
        // Each round (a whole run of every strategy) is a pair.
        assert_eq!(row.ratio.n, 3, "{row:?}");
        assert!(row.base_peak_rss_bytes.is_some() && row.peak_rss_bytes.is_some(), "{row:?}");
        assert_eq!(
            (row.base_allocated_bytes, row.base_allocs),
            (row.allocated_bytes, row.allocs),
            "{row:?}"
        );
    }
}
