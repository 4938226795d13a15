//! The harness run in-process on this crate's types, and (in CI) the results file the bench
//! wrote: ok typed rows for serde_json, sonic-rs and simd-json.

use jsoncost::{Results, Row};
use own_types::{Manifest, Shipment, manifest, shipment};

#[global_allocator]
static ALLOC: jsoncost::CountingAllocator = jsoncost::CountingAllocator::system();

/// `Shipment`'s zero-copy form, as the bench registers it (a marker local to this crate).
struct ShipmentRef;

impl jsoncost::BorrowedForm<Shipment> for ShipmentRef {
    type Of<'a> = Shipment<&'a str>;
}

fn typed_rows_are_ok(results: &Results) {
    let tables: Vec<&str> = results.experiments.iter().map(|e| e.table.as_str()).collect();
    for table in [
        "shipment/deserialize",
        "shipment/serialize",
        "manifest/deserialize",
        "manifest/serialize",
    ] {
        let exp = results
            .experiments
            .iter()
            .find(|e| e.table == table)
            .unwrap_or_else(|| panic!("no {table} table in {tables:?}"));
        for lib in ["serde_json", "sonic-rs", "simd-json"] {
            let method = format!("typed/{lib}");
            let row: &Row = exp
                .rows
                .iter()
                .find(|r| r.method == method)
                .unwrap_or_else(|| panic!("{table}: no {method} row"));
            assert!(row.is_ok(), "{table} {method}: {:?}", row.error_message);
            assert!(row.mean_ns.is_some_and(|m| m > 0.0), "{table} {method}: no time");
            assert!(row.allocated_bytes.is_some(), "{table} {method}: allocation not measured");
        }
    }
}

#[test]
fn the_harness_measures_the_crate_s_own_types() {
    let dir = std::env::temp_dir().join(format!("own-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("results.json");
    let results = jsoncost::Study::with_args(
        ["--bench", "--quick", "--filter", "typed/*", "--format", "json", "--out"]
            .map(String::from)
            .into_iter()
            .chain([out.display().to_string()]),
    )
    .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(2)).unwrap())
    .borrowed_as::<ShipmentRef>()
    .lazy(&["/shipmentId", "/status"])
    .typed::<Manifest>("manifest", serde_json::to_vec(&manifest(24)).unwrap())
    .measure()
    .unwrap();
    typed_rows_are_ok(&results);
    // What it wrote is what it returned, and reads back as a results file.
    let written = jsoncost_report_load(&out);
    assert_eq!(written.experiments.len(), 4);
    typed_rows_are_ok(&written);
    assert!(dir.join("results.html").exists());
    let _ = std::fs::remove_dir_all(dir);
}

fn jsoncost_report_load(path: &std::path::Path) -> Results {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_sample_that_is_not_the_type_is_bad_input() {
    let e = jsoncost::Study::with_args(["--bench", "--quick"])
        .typed::<Shipment>("shipment", br#"{"shipmentId": "not a number"}"#)
        .measure()
        .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string()
            .starts_with("the sample of shipment is not a own_types::Shipment: invalid type: string"),
        "{e}"
    );
    let e = jsoncost::Study::with_args(["--bench", "--quick"])
        .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(1)).unwrap())
        .lazy(&["/nope"])
        .measure()
        .unwrap_err();
    assert_eq!(e.to_string(), "shipment: the sample has no field at /nope");
}

/// A body streamed with the crate's own element type: the DOM rows, the skipping rows and
/// `incremental-typed/<lib>` and `buffered-typed/<lib>` for `Shipment`, all through the gate.
#[test]
fn the_harness_streams_a_body_with_the_crate_s_element_type() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("manifest.json");
    std::fs::write(&body, serde_json::to_vec(&manifest(300)).unwrap()).unwrap();
    let results = jsoncost::Study::with_args(
        ["--bench", "--quick", "--format", "json", "--out"]
            .map(String::from)
            .into_iter()
            .chain([dir.path().join("r.json").display().to_string()]),
    )
    .stream::<Shipment>("manifest-stream", &body, "/shipments")
    .measure()
    .unwrap();
    assert_eq!(results.experiments.len(), 1);
    let exp = &results.experiments[0];
    assert_eq!(
        (exp.kind, exp.table.as_str()),
        (jsoncost::ExperimentKind::Stream, "manifest-stream")
    );
    assert_eq!(exp.params["elements"], 300);
    for lib in ["serde_json", "sonic-rs", "simd-json"] {
        for style in ["incremental-typed", "buffered-typed", "incremental", "incremental-skip", "buffered"] {
            let method = format!("{style}/{lib}");
            let row = exp
                .rows
                .iter()
                .find(|r| r.method == method)
                .unwrap_or_else(|| panic!("no {method}"));
            assert!(row.is_ok(), "{method}: {:?}", row.error_message);
        }
    }
}

/// The crate's own documents in its own SQLite table, read as its type through each library.
#[test]
fn the_harness_reads_the_crate_s_documents_from_its_own_store_as_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shipments.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("CREATE TABLE shipments (id INTEGER PRIMARY KEY, doc TEXT)")
        .unwrap();
    for i in 0..40u64 {
        c.execute(
            "INSERT INTO shipments VALUES (?1, ?2)",
            rusqlite::params![i as i64, serde_json::to_string(&shipment(i)).unwrap()],
        )
        .unwrap();
    }
    drop(c);
    let out = dir.path().join("r.json").display().to_string();
    let results = jsoncost::Study::with_args(["--bench", "--quick", "--format", "json", "--out", &out])
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
    let exp = &results.experiments[0];
    assert_eq!(
        (exp.kind, exp.table.as_str()),
        (jsoncost::ExperimentKind::Store, "sqlite/shipments")
    );
    for method in [
        "typed/serde_json",
        "typed/sonic-rs",
        "typed/simd-json",
        "dom/serde_json",
        "raw/serde_json",
        "floor",
    ] {
        let row = exp
            .rows
            .iter()
            .find(|r| r.method == method)
            .unwrap_or_else(|| panic!("no {method}"));
        assert!(row.is_ok(), "{method}: {:?}", row.error_message);
        assert_eq!(row.baseline, method == "typed/serde_json", "{method}");
    }
}

/// A model that declares only some of the document's fields, as real ones do: its typed rows
/// are checked on the fields it holds, the DOM and raw rows on the whole document.
#[test]
fn a_type_that_declares_only_some_fields_is_checked_on_those() {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct JustTheId {
        #[serde(rename = "shipmentId")]
        id: u64,
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json").display().to_string();
    let results = jsoncost::Study::with_args(["--bench", "--quick", "--format", "json", "--out", &out])
        .typed::<JustTheId>("just-the-id", serde_json::to_vec(&shipment(3)).unwrap())
        .measure()
        .unwrap();
    let exp = results.experiments.iter().find(|e| e.table == "just-the-id/deserialize").unwrap();
    for method in [
        "typed/serde_json",
        "typed/sonic-rs",
        "typed/simd-json",
        "dom/serde_json",
        "raw/serde_json",
    ] {
        let row = exp
            .rows
            .iter()
            .find(|r| r.method == method)
            .unwrap_or_else(|| panic!("no {method}"));
        assert!(row.is_ok(), "{method}: {:?}", row.error_message);
    }
}

/// Keeps the shipment's parcels but reports one fewer: a variant that loses a value.
struct LosesAParcel;

impl jsoncost::Variant<Shipment> for LosesAParcel {
    type Decoded<'de> = Shipment;
    fn to_plain(mut s: Shipment) -> Result<Shipment, String> {
        s.parcels.pop();
        Ok(s)
    }
}

#[test]
fn a_group_of_model_variants_is_gated_and_measured() {
    use own_types::variants::{ShipmentLean, ShipmentTextDates};
    struct TextDates;
    impl jsoncost::Variant<Shipment> for TextDates {
        type Decoded<'de> = ShipmentTextDates;
        fn to_plain(s: ShipmentTextDates) -> Result<Shipment, String> {
            Shipment::try_from(s)
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let sample = serde_json::to_vec(&shipment(2)).unwrap();
    let results = jsoncost::Study::with_args(
        ["--bench", "--quick", "--format", "json", "--out"]
            .map(String::from)
            .into_iter()
            .chain([out.display().to_string()]),
    )
    .variants::<Shipment>("shipment-model", sample)
    .libraries(&[jsoncost::Library::SerdeJson, jsoncost::Library::SonicRs])
    .variant::<ShipmentLean>("ignored-parcels")
    .leaving_out(&["/parcels"])
    .variant_of::<TextDates>("datetime-string")
    .variant_of::<LosesAParcel>("loses-a-parcel")
    .on(&[jsoncost::Library::SerdeJson])
    .measure()
    .unwrap();
    assert_eq!(results.experiments.len(), 1);
    let table = &results.experiments[0];
    assert_eq!(table.table, "shipment-model/variants");
    let mut methods: Vec<&str> = table.rows.iter().map(|r| r.method.as_str()).collect();
    methods.sort();
    assert_eq!(
        methods,
        [
            "datetime-string/serde_json",
            "datetime-string/sonic-rs",
            "ignored-parcels/serde_json",
            "ignored-parcels/sonic-rs",
            "loses-a-parcel/serde_json",
            "plain/serde_json",
            "plain/sonic-rs",
        ]
    );
    for r in &table.rows {
        if r.method == "loses-a-parcel/serde_json" {
            assert!(!r.is_ok());
            // shipment(2) has 1 + 2 % 3 = 3 parcels.
            assert_eq!(
                r.error_message.as_deref(),
                Some("output differs from the exact reference at /parcels: expected 3 elements, got 2")
            );
            assert_eq!(r.mean_ns, None, "a failed variant is never timed");
        } else {
            assert!(r.is_ok(), "{}: {:?}", r.method, r.error_message);
            assert!(r.mean_ns.is_some_and(|m| m > 0.0), "{}: no time", r.method);
        }
    }
    assert!(table.rows.iter().any(|r| r.baseline && r.method == "plain/serde_json"));
}

/// Without `--bench` (`cargo test --benches`), each strategy once through the gate, untimed:
/// rows are ok or failed, none has a time, and nothing is written.
#[test]
fn without_bench_each_strategy_goes_once_through_the_gate_untimed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let results = jsoncost::Study::with_args(["--out".to_string(), out.display().to_string()])
        .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(2)).unwrap())
        .borrowed_as::<ShipmentRef>()
        .measure()
        .unwrap();
    let tables: Vec<&str> = results.experiments.iter().map(|e| e.table.as_str()).collect();
    assert_eq!(tables, ["shipment/deserialize", "shipment/serialize"]);
    let rows: Vec<_> = results.experiments.iter().flat_map(|e| &e.rows).collect();
    assert!(rows.iter().any(|r| r.method == "borrowed/serde_json"));
    for r in &rows {
        assert!(r.is_ok(), "{} {:?}", r.method, r.error_message);
        assert_eq!((r.mean_ns, r.allocated_bytes), (None, None), "{}: timed in test mode", r.method);
        assert!(r.fidelity.is_some(), "{}: not gated", r.method);
    }
    assert!(!out.exists(), "test mode wrote {}", out.display());
}

/// A failing gate in test mode is exit 2, naming the strategy.
#[test]
fn test_mode_fails_with_exit_2_when_a_strategy_fails_the_gate() {
    struct Lossy;
    impl jsoncost::Variant<Shipment> for Lossy {
        type Decoded<'de> = Shipment;
        fn to_plain(mut s: Shipment) -> Result<Shipment, String> {
            s.parcels.pop();
            Ok(s)
        }
    }
    let e = jsoncost::Study::with_args(Vec::<String>::new())
        .variants::<Shipment>("shipment-model", serde_json::to_vec(&shipment(2)).unwrap())
        .variant_of::<Lossy>("lossy")
        .on(&[jsoncost::Library::SerdeJson])
        .measure()
        .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert_eq!(
        e.to_string(),
        "1 of 4 strategies failed the correctness gate (first: shipment-model/variants lossy/serde_json); see above"
    );
}

/// `--filter` per table: a table none of whose strategies match is skipped, the others run;
/// nothing matching anywhere is exit 2 listing every table's strategies.
#[test]
fn the_filter_skips_tables_it_does_not_match_and_fails_only_when_none_match() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("manifest.json");
    std::fs::write(&body, serde_json::to_vec(&manifest(50)).unwrap()).unwrap();
    // Test mode (no --bench) for the first, measuring for the second: both filter alike.
    let args = |filter: &str, mode: &str| {
        [mode, "--quick", "--filter", filter, "--format", "json", "--out"]
            .map(String::from)
            .into_iter()
            .chain([dir.path().join("r.json").display().to_string()])
            .collect::<Vec<_>>()
    };
    // Stream-only rows: the micro tables are skipped, the stream table is gated.
    let results = jsoncost::Study::with_args(args("incremental-typed/*", "--quick"))
        .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(2)).unwrap())
        .stream::<Shipment>("manifest-stream", &body, "/shipments")
        .measure()
        .unwrap();
    let tables: Vec<&str> = results.experiments.iter().map(|e| e.table.as_str()).collect();
    assert_eq!(tables, ["manifest-stream"]);
    assert!(
        results.experiments[0]
            .rows
            .iter()
            .all(|r| r.method.starts_with("incremental-typed/"))
    );
    // Nothing anywhere: exit 2, every table's strategies listed.
    let e = jsoncost::Study::with_args(args("nothing/*", "--bench"))
        .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(2)).unwrap())
        .stream::<Shipment>("manifest-stream", &body, "/shipments")
        .measure()
        .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    let text = e.to_string();
    assert!(
        text.starts_with(
            "--filter \"nothing/*\" matches no strategy in any table; the strategies are:\n  shipment/deserialize and shipment/serialize: "
        ),
        "{text}"
    );
    assert!(text.contains("\n  stream manifest-stream: buffered-typed/serde_json, "), "{text}");
}
