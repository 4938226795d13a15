//! The harness as a team's CI runs it: test mode's exit codes and selection on libtest's
//! conventions (`--skip`, several filters, `--exact`, table names), and a type whose data some
//! libraries cannot read, declared as expected failures.

use jsoncost::{Library, Study};
use own_types::{Shipment, WEBHOOK, Webhook, shipment};

fn sample() -> Vec<u8> {
    serde_json::to_vec(&shipment(2)).unwrap()
}

/// The methods of each table test mode gated, in table order.
fn gated(results: &jsoncost::Results) -> Vec<(String, Vec<String>)> {
    results
        .experiments
        .iter()
        .map(|e| (e.table.clone(), e.rows.iter().map(|r| r.method.clone()).collect()))
        .collect()
}

#[test]
fn a_test_mode_filter_that_matches_nothing_is_exit_2_naming_it() {
    let e = Study::with_args(["nothing/*"])
        .typed::<Shipment>("shipment", sample())
        .measure()
        .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string().starts_with(
            "--filter \"nothing/*\" matches no strategy in any table; the strategies are:\n  shipment/deserialize and shipment/serialize: "
        ),
        "{e}"
    );
}

#[test]
fn several_filters_select_any_skip_leaves_out_and_libtest_s_flags_are_accepted() {
    let results = Study::with_args([
        "typed/serde_json",
        "typed/sonic-rs",
        "--skip",
        "shipment/serialize",
        "--color",
        "never",
        "--test-threads",
        "2",
        "--nocapture",
    ])
    .typed::<Shipment>("shipment", sample())
    .measure()
    .unwrap();
    assert_eq!(
        gated(&results),
        [(
            "shipment/deserialize".to_string(),
            vec!["typed/serde_json".to_string(), "typed/sonic-rs".to_string()]
        )]
    );
    let e = Study::with_args(["--color", "sometimes"])
        .typed::<Shipment>("shipment", sample())
        .measure()
        .unwrap_err();
    assert_eq!(
        (e.exit_code(), e.to_string()),
        (2, "--color: \"sometimes\" is not auto, always or never".to_string())
    );
}

#[test]
fn a_filter_names_a_table_or_a_registration_and_exact_names_one_test() {
    let two = |args: &[&str]| {
        Study::with_args(args.iter().copied())
            .typed::<Shipment>("shipment", sample())
            .typed::<Shipment>("other", sample())
            .measure()
            .unwrap()
    };
    let tables: Vec<String> = gated(&two(&["other"])).into_iter().map(|(t, _)| t).collect();
    assert_eq!(tables, ["other/deserialize", "other/serialize"]);
    let tables: Vec<String> = gated(&two(&["shipment/serialize"])).into_iter().map(|(t, _)| t).collect();
    assert_eq!(tables, ["shipment/serialize"]);
    assert_eq!(
        gated(&two(&["--exact", "other/deserialize::typed/sonic-rs", "--nocapture"])),
        [("other/deserialize".to_string(), vec!["typed/sonic-rs".to_string()])]
    );
    // `--ignored`: none of jsoncost's strategies is ignored, so nothing runs.
    assert!(two(&["--ignored"]).experiments.is_empty());
}

/// Today's data, undeclared: simd-json's parse refuses the 30-digit integer, exit 2.
#[test]
fn a_library_that_cannot_read_the_data_fails_test_mode_until_declared() {
    let e = Study::with_args(Vec::<String>::new())
        .typed::<Webhook>("webhook", WEBHOOK)
        .measure()
        .unwrap_err();
    assert_eq!(
        (e.exit_code(), e.to_string()),
        (
            2,
            "5 of 28 strategies failed the correctness gate (first: webhook/deserialize typed/simd-json); see above".to_string()
        )
    );
    // Declared: those five fail as expected, the rest pass, exit 0.
    let results = Study::with_args(Vec::<String>::new())
        .typed::<Webhook>("webhook", WEBHOOK)
        .expect_failure("webhook/deserialize::*/simd-json", "rejects 30-digit integers")
        .expect_failure("webhook/deserialize::typed/jiter", "rejects u64::MAX")
        .measure()
        .unwrap();
    let failed: Vec<&str> = results
        .experiments
        .iter()
        .flat_map(|e| e.rows.iter().filter(|r| !r.is_ok()).map(|r| r.method.as_str()))
        .collect();
    assert_eq!(
        failed,
        [
            "typed/simd-json",
            "typed-reuse/simd-json",
            "typed/jiter",
            "dom/simd-json",
            "dom-borrowed/simd-json"
        ]
    );
    // Declared too widely: simd-json writes the webhook fine, and a declared row that passes
    // is exit 2.
    let e = Study::with_args(Vec::<String>::new())
        .typed::<Webhook>("webhook", WEBHOOK)
        .expect_failure("webhook/deserialize::*/simd-json", "rejects 30-digit integers")
        .expect_failure("webhook/deserialize::typed/jiter", "rejects u64::MAX")
        .expect_failure("webhook/serialize::*/simd-json", "used to write u64::MAX as a float")
        .measure()
        .unwrap_err();
    assert_eq!(
        (e.exit_code(), e.to_string()),
        (
            2,
            "1 expected failure now passes (webhook \"webhook/serialize::*/simd-json\"): narrow or remove its .expect_failure".to_string()
        )
    );
}

/// Or the registration leaves the library out: only the rows of the libraries named run.
#[test]
fn a_registration_runs_only_the_libraries_and_styles_it_names() {
    let results = Study::with_args(Vec::<String>::new())
        .typed::<Webhook>("webhook", WEBHOOK)
        .libraries(&[Library::SerdeJson, Library::SonicRs])
        .styles(&["typed", "dom"])
        .measure()
        .unwrap();
    assert_eq!(
        gated(&results),
        [
            (
                "webhook/deserialize".to_string(),
                ["typed/serde_json", "typed/sonic-rs", "dom/serde_json", "dom/sonic-rs"]
                    .map(String::from)
                    .to_vec()
            ),
            (
                "webhook/serialize".to_string(),
                ["typed/serde_json", "typed/sonic-rs", "dom/serde_json", "dom/sonic-rs"]
                    .map(String::from)
                    .to_vec()
            ),
        ]
    );
}

/// A large body in test mode: only a bounded prefix of its array is gated, so `cargo test`
/// takes seconds in the debug profile; `cargo bench` streams it whole.
#[test]
fn test_mode_gates_a_bounded_prefix_of_a_large_stream() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("manifest.json");
    let manifest = own_types::manifest(4000);
    std::fs::write(&body, serde_json::to_vec(&manifest).unwrap()).unwrap();
    assert!(std::fs::metadata(&body).unwrap().len() > 2 << 20);
    let results = Study::with_args(["incremental-typed/serde_json", "incremental/serde_json"])
        .stream::<Shipment>("manifest-stream", &body, "/shipments")
        .measure()
        .unwrap();
    let exp = &results.experiments[0];
    // About 1 MiB of the 2.3 MiB: deterministic, as the manifest is.
    assert_eq!(exp.params["elements"], 1714);
    assert!(exp.rows.iter().all(|r| r.is_ok()), "{:?}", exp.rows);
}

/// A team's own decode and encode paths: rows of their tables, through the same gate, measured
/// and judged with the rest at effort `code`; one that loses a value fails the gate.
#[test]
fn a_team_s_own_decode_path_is_a_row_gated_and_measured() {
    use serde::Deserialize;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json").display().to_string();
    let results = Study::with_args([
        "--bench",
        "--quick",
        "--format",
        "json",
        "--out",
        &out,
        "typed/serde_json",
        "checked-end/serde_json",
        "pretty/serde_json",
    ])
    .typed::<Shipment>("shipment", sample())
    .custom_deserialize("checked-end/serde_json", |bytes: &[u8]| {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let s = Shipment::deserialize(&mut de)?;
        de.end().map(|()| s)
    })
    .custom_serialize("pretty/serde_json", serde_json::to_vec_pretty)
    .measure()
    .unwrap();
    for (table, custom) in [
        ("shipment/deserialize", "checked-end/serde_json"),
        ("shipment/serialize", "pretty/serde_json"),
    ] {
        let exp = results.experiments.iter().find(|e| e.table == table).unwrap();
        let row = exp.rows.iter().find(|r| r.method == custom).unwrap();
        assert!(row.is_ok(), "{custom}: {:?}", row.error_message);
        assert_eq!(row.effort, Some(jsoncost::Effort::Code));
        assert!(row.fidelity.is_some() && row.mean_ns.is_some_and(|m| m > 0.0), "{custom}");
    }
    // A path that drops a parcel: the gate says where.
    let e = Study::with_args(["checked-end/serde_json"])
        .typed::<Shipment>("shipment", sample())
        .custom_deserialize("lossy/serde_json", |bytes: &[u8]| {
            serde_json::from_slice::<Shipment>(bytes).map(|mut s| {
                s.parcels.pop();
                s
            })
        })
        .measure()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "--filter \"checked-end/serde_json\" matches no strategy in any table; the strategies are:\n  shipment/deserialize and shipment/serialize: dom-borrowed-reuse/jiter, dom-borrowed/jiter, dom-borrowed/serde_json_borrow, dom-borrowed/simd-json, dom-reuse/jiter, dom-then-typed/serde_json, dom-then-typed/sonic-rs, dom/jiter, dom/serde_json, dom/simd-json, dom/sonic-rs, lossy/serde_json, raw/serde_json, reader/serde_json, typed-reuse/simd-json, typed-writer/serde_json, typed-writer/simd-json, typed-writer/sonic-rs, typed/jiter, typed/serde_json, typed/simd-json, typed/sonic-rs"
    );
    let e = Study::with_args(["lossy/serde_json"])
        .typed::<Shipment>("shipment", sample())
        .custom_deserialize("lossy/serde_json", |bytes: &[u8]| {
            serde_json::from_slice::<Shipment>(bytes).map(|mut s| {
                s.parcels.pop();
                s
            })
        })
        .measure()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "1 of 1 strategies failed the correctness gate (first: shipment/deserialize lossy/serde_json); see above"
    );
    let e = Study::with_args(Vec::<String>::new())
        .typed::<Shipment>("shipment", sample())
        .custom_serialize("typed/serde_json", serde_json::to_vec)
        .measure()
        .unwrap_err();
    assert_eq!(e.to_string(), "shipment: the row \"typed/serde_json\" is registered already");
}

/// The stream peers a Rust user reaches for, on the crate's own element type: serde's visitor
/// (keeping the elements, and folding them), and struson's pull reader with serde.
#[test]
fn a_stream_of_the_crate_s_type_has_the_visitor_and_struson_peers() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("manifest.json");
    std::fs::write(&body, serde_json::to_vec(&own_types::manifest(200)).unwrap()).unwrap();
    let top = dir.path().join("shipments.json");
    std::fs::write(&top, serde_json::to_vec(&own_types::manifest(50).shipments).unwrap()).unwrap();
    let out = dir.path().join("r.json").display().to_string();
    let peers = ["visitor/serde_json", "visitor-aggregate/serde_json", "struson/serde"];
    for args in [vec![], vec!["--bench", "--quick", "--format", "json", "--out", &out]] {
        let results = Study::with_args(args.into_iter().chain(peers))
            .stream::<Shipment>("manifest-stream", &body, "/shipments")
            .stream::<Shipment>("top-level", &top, "")
            .measure()
            .unwrap();
        for exp in &results.experiments {
            // Measured, a table is ordered fastest first.
            let mut methods: Vec<&str> = exp.rows.iter().map(|r| r.method.as_str()).collect();
            methods.sort();
            assert_eq!(
                methods,
                ["struson/serde", "visitor-aggregate/serde_json", "visitor/serde_json"],
                "{}",
                exp.table
            );
            for r in &exp.rows {
                assert!(r.is_ok(), "{} {}: {:?}", exp.table, r.method, r.error_message);
                assert_eq!(r.effort, Some(jsoncost::Effort::Code));
            }
        }
        assert_eq!(results.experiments.len(), 2);
    }
}

/// A run in which nothing could be measured leaves `--out` as it was: an earlier report is
/// not overwritten by an empty one.
#[test]
fn a_run_that_measures_nothing_does_not_overwrite_the_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    std::fs::write(&out, "{\"kept\": true}").unwrap();
    let e = Study::with_args(["--bench", "--quick", "--out", &out.display().to_string()])
        .stream::<Shipment>("shipments", dir.path().join("missing.json"), "")
        .measure()
        .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().starts_with("stream shipments: cannot read "), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"kept\": true}");
    assert!(!dir.path().join("r.html").exists());
}

/// `--list` names a stream's rows without reading its file (nextest lists before anything runs).
#[test]
fn list_names_a_stream_s_rows_without_reading_its_file() {
    let listed = Study::with_args(["--list", "--format", "terse"])
        .stream::<Shipment>("shipments", "/nonexistent/body.json", "/shipments")
        .measure();
    assert!(listed.is_ok(), "{:?}", listed.err());
}

/// A store's table is named `<kind>/<name>`: nextest runs its rows by that test name alone.
#[test]
fn a_store_row_runs_alone_by_its_test_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shipments.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("CREATE TABLE shipments (id INTEGER PRIMARY KEY, doc TEXT)")
        .unwrap();
    for i in 0..5u64 {
        c.execute(
            "INSERT INTO shipments VALUES (?1, ?2)",
            rusqlite::params![i as i64, serde_json::to_string(&shipment(i)).unwrap()],
        )
        .unwrap();
    }
    drop(c);
    let results = Study::with_args(["--exact", "sqlite/shipments::typed/sonic-rs", "--nocapture"])
        .store::<Shipment>(
            "shipments",
            &format!("sqlite:{}", db.display()),
            jsoncost::Existing::Rows {
                table: "shipments".into(),
                key: "id".into(),
                column: "doc".into(),
            },
        )
        .measure()
        .unwrap();
    assert_eq!(
        gated(&results),
        [("sqlite/shipments".to_string(), vec!["typed/sonic-rs".to_string()])]
    );
}
