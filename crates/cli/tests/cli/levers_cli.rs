//! The build as users meet it: `compare` naming a build difference before drift, and
//! `jsoncost levers` refusing what it cannot build before building anything.

use assert_cmd::Command;
use jsoncost_engine::{Build, ExperimentKind, LibraryVersion, Machine, MeasuredTable, Results, Row, SCHEMA_VERSION};
use predicates::prelude::*;

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(60));
    c
}

fn results(target_features: &[&str], serde_json_features: &[&str], slower: f64) -> Results {
    let mut e = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    for (m, ns) in [("typed/serde_json", 100.0), ("typed/sonic-rs", 60.0), ("dom/serde_json", 200.0)] {
        let mut r = Row::new(m);
        r.mean_ns = Some(ns * slower);
        r.error_ns = Some(1.0);
        r.stddev_ns = Some(1.0);
        r.allocated_bytes = Some(64.0);
        r.allocs = Some(2.0);
        e.rows.push(r);
    }
    Results {
        schema_version: SCHEMA_VERSION,
        jsoncost_version: "0.1.0".into(),
        machine: Machine {
            cpu: "Fixture CPU".into(),
            cores: 2,
            os: "linux".into(),
            rustc: "1.95.0".into(),
            target_features: target_features.iter().map(|s| s.to_string()).collect(),
            build: Some(Build {
                libraries: vec![LibraryVersion {
                    name: "serde_json".into(),
                    version: "1.0.154".into(),
                }],
                serde_json_features: serde_json_features.iter().map(|s| s.to_string()).collect(),
                opt_level: Some("3".into()),
                panic: Some("unwind".into()),
                ..Build::default()
            }),
            ..Machine::default()
        },
        started_at: "2026-12-05T00:00:00Z".into(),
        quick: false,
        rates: Default::default(),
        interrupted: false,
        experiments: vec![e],
        allocators: Vec::new(),
    }
}

#[test]
fn compare_names_the_build_difference_before_the_drift() {
    let dir = tempfile::tempdir().unwrap();
    let (base, new) = (dir.path().join("base.json"), dir.path().join("new.json"));
    std::fs::write(&base, serde_json::to_vec(&results(&["sse2"], &[], 1.0)).unwrap()).unwrap();
    // Every row 8% slower: a whole table's shift, which unpaired runs put down to drift.
    std::fs::write(
        &new,
        serde_json::to_vec(&results(&["sse2", "avx2"], &["float_roundtrip"], 1.08)).unwrap(),
    )
    .unwrap();
    let out = jsoncost().arg("compare").arg(&base).arg(&new).assert().code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let build = stdout.find(
        "The two files differ in build: serde_json feature float_roundtrip (on in new); target features (avx2 only in new); \
         shifts in serde_json, sonic-rs and simd-json rows may be the build, not the code.",
    );
    let drift = stdout.find("micro data/deserialize moved +8.0% as a whole");
    assert!(build.is_some() && drift.is_some() && build < drift, "{stdout}");
}

#[test]
fn a_lever_that_is_not_one_is_refused_before_anything_is_built() {
    jsoncost()
        .args(["levers", "--lever", "lto=thin", "--", "micro", "--quick"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "\"lto=thin\" is not a lever: give crate/feature (serde_json/float_roundtrip)",
        ));
    jsoncost()
        .args(["levers", "--lever", "lto", "--", "micro", "--out", "x.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--out is set by levers itself (each run writes JSON results to its own file)",
        ));
}
