//! `jsoncost store` as a user runs it: the embedded stores end to end, reuse and reload, bad
//! URLs, unreachable and dying servers, corrupt documents, and (when CI provides them) Redis,
//! Redis Cluster and PostgreSQL. Every server is on 127.0.0.1; every wait is bounded.

use crate::common;

use assert_cmd::Command;
use common::{Killed, free_port, skip, wait_bounded};
use jsoncost_engine::{ExperimentKind, MeasuredTable, Results, Status};
use jsoncost_shapes::{DEFAULT_SEED, ORDER_LINES};
use jsoncost_stores::{LoadOutcome, OpenOptions, OrderDocs, ensure_loaded, open};
use predicates::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Every strategy of the store experiment, baseline first.
const STRATEGIES: [&str; 11] = [
    "default",
    "default-dom",
    "typed/serde_json",
    "typed/sonic-rs",
    "typed/simd-json",
    "typed/facet-json",
    "borrowed/serde_json",
    "borrowed/sonic-rs",
    "borrowed/simd-json",
    "lazy/sonic-rs",
    "floor",
];

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(Duration::from_secs(120));
    c
}

/// `jsoncost store --quick --store URL --docs N --out OUT`.
fn quick_store(url: &str, docs: u64, out: &Path) -> Command {
    let mut c = jsoncost();
    c.args(["store", "--quick", "--store", url, "--docs", &docs.to_string(), "--out"])
        .arg(out);
    c
}

fn load_results(path: &Path) -> Results {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not a results file: {e}", path.display()))
}

/// The one table a store run writes.
fn only_table(path: &Path) -> MeasuredTable {
    let results = load_results(path);
    assert_eq!(results.experiments.len(), 1, "{:?}", results.experiments);
    results.experiments.into_iter().next().unwrap()
}

fn methods(e: &MeasuredTable) -> Vec<&str> {
    let mut m: Vec<&str> = e.rows.iter().map(|r| r.method.as_str()).collect();
    m.sort();
    m
}

/// Every strategy of a store table (`sqlite/order` ...): `projection/server` where the store has
/// JSON operators (SQLite, PostgreSQL), `new-client` where it has clients (Redis, PostgreSQL).
fn strategies_of(table: &str) -> Vec<&'static str> {
    let kind = table.split('/').next().unwrap_or_default();
    let mut m = STRATEGIES.to_vec();
    if kind == "sqlite" || kind.starts_with("postgres") {
        m.push("projection/server");
    }
    if kind == "redis" || kind.starts_with("postgres") {
        m.push("new-client");
    }
    m.sort();
    m
}

fn assert_all_ok(e: &MeasuredTable, table: &str, docs: u64) {
    assert_eq!(e.kind, ExperimentKind::Store);
    assert_eq!(e.table, table);
    assert_eq!(e.params["docs"], serde_json::json!(docs));
    assert_eq!(methods(e), strategies_of(table));
    for r in &e.rows {
        assert_eq!(r.status, Status::Ok, "{table} {}: {:?}", r.method, r.error_message);
        assert!(r.mean_ns.is_some_and(|m| m > 0.0), "{table} {}: no time", r.method);
    }
    assert!(
        e.rows.iter().any(|r| r.method == "default" && r.baseline),
        "default is not the baseline"
    );
    assert!(
        e.summary
            .as_ref()
            .map(jsoncost_report::summary::sentences)
            .unwrap_or_default()
            .first()
            .is_some_and(
                |s| (s.starts_with("JSON is ") && s.contains(" µs read (")) || s.starts_with("JSON work is within the noise of the ")
            ),
        "{:?}",
        e.summary
    );
}

/// Quick run, all rows ok, then reuse, then --reload. The first run is a real quick
/// measurement; the reuse and reload runs, which check what is loaded and what is said, are
/// `--debug-mode` (the same pipeline with the fewest iterations).
fn embedded_end_to_end(url: &str, table: &str) {
    let dir = tempfile::tempdir().unwrap();
    let url = url.replace("{dir}", &dir.path().display().to_string());
    let out = dir.path().join("f.json");
    quick_store(&url, 200, &out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("store: {table}")))
        .stdout(predicate::str::contains("floor"))
        // Interleaved: the JSON work with its paired interval, or within the noise.
        .stdout(
            predicate::str::is_match(
                r"JSON is [0-9.]+ µs of a [0-9.]+ µs read \([0-9]+%; 99% interval [0-9.-]+–[0-9.]+ µs, [0-9]+–[0-9]+%\)\.|JSON work is within the noise of the [0-9.]+ µs read",
            )
            .unwrap(),
        )
        // Which sentence depends on the noise of the run; the wording of each is unit-tested.
        .stdout(predicate::str::is_match(r"The cheapest typed path \(|No typed path is measurably faster than default").unwrap())
        .stderr(predicate::str::contains(format!("store: loaded 200 order documents into {url}")))
        .stderr(predicate::str::contains(format!("results written to {}", out.display())));
    assert_all_ok(&only_table(&out), table, 200);

    quick_store(&url, 200, &out)
        .arg("--debug-mode")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "store: reusing 200 order documents in {url} (--reload to load again)"
        )))
        .stderr(predicate::str::contains("loaded 200").not());
    assert_all_ok(&only_table(&out), table, 200);

    quick_store(&url, 200, &out)
        .arg("--debug-mode")
        .arg("--reload")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!("store: loaded 200 order documents into {url}")))
        .stderr(predicate::str::contains("reusing").not());

    // Another document count is another data set: loaded, not reused.
    quick_store(&url, 50, &out)
        .arg("--debug-mode")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!("store: loaded 50 order documents into {url}")));
    assert_all_ok(&only_table(&out), table, 50);
}

#[test]
fn redb_quick_run_every_row_ok_then_reuse_and_reload() {
    embedded_end_to_end("redb:{dir}/s.redb", "redb/order");
}

#[test]
fn sqlite_quick_run_every_row_ok_then_reuse_and_reload() {
    embedded_end_to_end("sqlite:{dir}/s.db", "sqlite/order");
}

#[test]
fn an_unknown_scheme_is_a_usage_error_listing_the_schemes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.json");
    jsoncost()
        .args(["store", "--quick", "--store", "mongodb://x", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "unknown store URL \"mongodb://x\"; the schemes are redb:PATH, sqlite:PATH, redis://HOST:PORT, \
             redis+cluster://HOST:PORT,HOST:PORT,..., postgres://USER@HOST:PORT/DB",
        ));
    jsoncost()
        .args(["store", "--store", "redb:"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid store URL \"redb:\": expected redb:PATH"));
    jsoncost()
        .args(["store", "--docs", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--docs <DOCS>"));
    // The filter is checked before the store is opened or loaded: against a store nobody
    // listens on, the filter is still what is wrong.
    let url = format!("redis://127.0.0.1:{}", free_port());
    jsoncost()
        .args(["store", "--quick", "--docs", "20", "--store", &url, "--store-filter", "mongo/*"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--store-filter \"mongo/*\" matches no strategy; the strategies are: borrowed/serde_json, borrowed/simd-json, borrowed/sonic-rs, default, default-dom, floor",
        ));
}

#[test]
fn an_os_error_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let assert = jsoncost()
        .args(["store", "--quick", "--docs", "20", "--store"])
        .arg(format!("redb:{}", dir.path().display()))
        .assert()
        .code(3);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(stderr.matches("Is a directory (os error 21)").count(), 1, "{stderr}");
}

#[test]
fn an_unreachable_server_exits_3_within_seconds_naming_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.json");
    let url = format!("redis://127.0.0.1:{}", free_port());
    let started = Instant::now();
    quick_store(&url, 200, &out)
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!("cannot reach {url}")))
        .stderr(predicate::str::contains("check"));
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
    // Nothing measured: the results file holds no table, but it is a valid results file.
    assert!(load_results(&out).experiments.is_empty());
}

const BROKEN: &str = r#""status": oops}"#;

/// Loads the 200 default order documents into `url`, with the documents `corrupt` selects
/// replaced by invalid JSON, under the marker `jsoncost store --docs 200` looks for.
fn load_with_corrupt(url: &str, corrupt: impl Fn(u64) -> bool) {
    let docs = OrderDocs {
        count: 200,
        lines: ORDER_LINES,
        seed: DEFAULT_SEED,
    };
    let mut store = open(url, &OpenOptions::default()).unwrap_or_else(|e| panic!("opening {url}: {e}"));
    let mut index = 0;
    let documents = docs.documents().map(move |(id, body)| {
        let bad = corrupt(index);
        index += 1;
        if bad {
            let text = format!(r#"{{"id": "{id}", {BROKEN}"#);
            (id, text.into_bytes())
        } else {
            (id, body)
        }
    });
    let outcome = ensure_loaded(store.as_mut(), "order", &docs.marker(), true, || documents).unwrap();
    assert!(matches!(outcome, LoadOutcome::Loaded { docs: 200, .. }), "{outcome:?}");
}

fn corrupt_ids(corrupt: impl Fn(u64) -> bool) -> Vec<String> {
    (0..200).filter(|i| corrupt(*i)).map(OrderDocs::id).collect()
}

/// Even documents are corrupt. The gate reads the first id of the seeded sequence, which is
/// odd (order-00000109 with the default seed and 200 documents), so every strategy passes the
/// gate and meets a corrupt document while timed (`default` first meets order-00000180).
fn even(i: u64) -> bool {
    i.is_multiple_of(2)
}

fn corrupt_rows_fail_with_the_id(url_template: &str) {
    let dir = tempfile::tempdir().unwrap();
    let url = url_template.replace("{dir}", &dir.path().display().to_string());
    load_with_corrupt(&url, even);
    let bad_ids = corrupt_ids(even);
    let out = dir.path().join("f.json");
    // Every row that parses failed, only the floor read the documents: bad data (exit 2),
    // naming the first failed row's document, after the table is printed and written.
    let table_name = url.split(':').next().unwrap();
    quick_store(&url, 200, &out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("reusing 200 order documents"))
        .stderr(predicate::str::contains("panicked").not())
        .stderr(predicate::str::contains(format!(
            "error: every row of store: {table_name}/order but floor failed (default: document \"order-00000180\" in collection \"order\" \
             does not decode: expected value at line 1 column 36); see the table\n"
        )))
        .stdout(predicate::str::contains("failed"));
    let table = only_table(&out);
    assert_eq!(methods(&table), strategies_of(&table.table));
    for r in &table.rows {
        if r.method == "floor" {
            // The floor reads and discards bytes: a corrupt document costs it nothing.
            assert_eq!(r.status, Status::Ok, "floor: {:?}", r.error_message);
            continue;
        }
        assert_eq!(r.status, Status::Failed, "{} read corrupt documents without failing", r.method);
        assert!(r.mean_ns.is_none(), "{}: a failed row has no timing", r.method);
        let message = r.error_message.as_deref().unwrap_or_default();
        assert!(
            bad_ids
                .iter()
                .any(|id| message.contains(&format!("document \"{id}\" in collection \"order\" does not decode: "))),
            "{}: the message does not name a corrupt document: {message}",
            r.method
        );
        assert!(!message.contains("the baseline failed"), "{}: {message}", r.method);
    }
    // serde_json's own message, with its position.
    let default = table.rows.iter().find(|r| r.method == "default").unwrap();
    let message = default.error_message.as_deref().unwrap();
    assert!(message.contains("expected value at line 1 column 36"), "{message}");
}

#[test]
fn redb_corrupt_documents_fail_their_rows_with_the_id_and_parser_message() {
    corrupt_rows_fail_with_the_id("redb:{dir}/s.redb");
}

#[test]
fn sqlite_corrupt_documents_fail_their_rows_with_the_id_and_parser_message() {
    corrupt_rows_fail_with_the_id("sqlite:{dir}/s.db");
}

/// The document every check reads is the gate's reference: when it is corrupt the table has
/// nothing to be checked against, so the run is bad input (exit 2), not a table of failures.
#[test]
fn a_corrupt_reference_document_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("redb:{}", dir.path().join("s.redb").display());
    load_with_corrupt(&url, |_| true);
    let out = dir.path().join("f.json");
    // Every row failed on the data: exit 2, after the table is printed and written.
    quick_store(&url, 200, &out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "order document order-00000109 in {url}: the exact reference cannot read it: expected a value, found 'o' at byte 35"
        )))
        .stderr(predicate::str::contains("panicked").not());
    assert!(load_results(&out).experiments.is_empty(), "no table was measured");
}

/// Store documents with floats serde_json's default parser rounds 1 ulp off: every row is
/// timed; sonic-rs and simd-json are exact, the serde_json readers are annotated.
#[test]
fn inexact_floats_in_stored_documents_are_annotated_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("s.db").display());
    let docs = OrderDocs {
        count: 200,
        lines: ORDER_LINES,
        seed: DEFAULT_SEED,
    };
    let mut store = open(&url, &OpenOptions::default()).unwrap();
    // Every document's total and first line's unit price: texts whose correctly rounded value
    // serde_json (without float_roundtrip) misses by one ulp.
    let documents = docs.documents().map(|(id, body)| {
        let mut v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        v["total"] = serde_json::json!(0);
        v["lines"][0]["unit_price"] = serde_json::json!(1);
        let text = v.to_string().replacen("\"total\":0", "\"total\":43.474709000000132", 1).replacen(
            "\"unit_price\":1",
            "\"unit_price\":50.090049175062276",
            1,
        );
        (id, text.into_bytes())
    });
    ensure_loaded(store.as_mut(), "order", &docs.marker(), true, || documents).unwrap();
    drop(store);
    let out = dir.path().join("f.json");
    quick_store(&url, 200, &out).assert().code(0).stdout(predicate::str::contains(
        "Fidelity of default (the baseline: Ratio and Alloc Ratio stay relative to it): inexact floats: 2 of ",
    ));
    let table = only_table(&out);
    assert_eq!(methods(&table), strategies_of(&table.table));
    for r in &table.rows {
        assert_eq!(r.status, Status::Ok, "{}: {:?}", r.method, r.error_message);
        let f = r.fidelity.as_ref().unwrap_or_else(|| panic!("{}: no fidelity", r.method));
        let (numbers, off, cause) = match r.method.as_str() {
            // /id, /status, /total
            // Projections read three fields, one a number: the total, read exactly.
            "lazy/sonic-rs" | "projection/server" => (1, 0, None),
            "default" | "default-dom" => (f.numbers, 2, None),
            "typed/serde_json" | "borrowed/serde_json" => (f.numbers, 2, Some("serde_json without float_roundtrip")),
            _ => (f.numbers, 0, None),
        };
        assert_eq!(
            (f.numbers, f.floats_inexact, f.cause.as_deref()),
            (numbers, off, cause),
            "{}",
            r.method
        );
        assert!(
            f.numbers > 20 && f.zero_sign_lost == 0 && f.integers_changed == 0
                || ["lazy/sonic-rs", "projection/server"].contains(&r.method.as_str()),
            "{}: {f:?}",
            r.method
        );
    }
}

/// A redis-server of the test's own (see common::own_redis), with its URL.
fn own_redis(test: &str, dir: &Path) -> Option<(Killed, String)> {
    common::own_redis(test, dir).map(|(server, port)| (server, format!("redis://127.0.0.1:{port}")))
}

/// Runs `jsoncost store` (not quick: eight strategies of 0.7 to 3.5 s each) against `url`, kills
/// `server` 4 s after the documents are ready (`ready` on stderr), and checks the run stops
/// with exit 3 naming the URL, keeping what it measured. Returns the table written.
fn kill_mid_run(mut server: Killed, url: &str, docs: u64, ready: &str, dir: &Path) -> MeasuredTable {
    let out = dir.join("f.json");
    let stdout_path = dir.join("stdout.txt");
    let mut run = Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .env("NO_COLOR", "1")
            // One strategy after another, so the rows before the failure are whole; the
            // interleaved schedule's fatal stop is the Runner's test
            // (interleaved_a_fatal_failure_stops_the_rounds_and_fails_only_its_row).
            .args([
                "store",
                "--schedule",
                "sequential",
                "--store",
                url,
                "--docs",
                &docs.to_string(),
                "--out",
            ])
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout_path).unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = run.0.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    // Wait (at most 60 s) for the documents: timing starts right after.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = Vec::new();
    while !lines.iter().any(|l: &String| l.contains(ready)) {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => lines.push(line),
            Err(e) => panic!("no {ready:?} within 60 s ({e}); stderr:\n{}", lines.join("\n")),
        }
    }
    // The first strategy takes at most ~3.5 s; all eight at least ~6 s: stop the server in between.
    std::thread::sleep(Duration::from_secs(4));
    let _ = server.0.kill();
    let _ = server.0.wait();

    let status = wait_bounded(&mut run.0, Duration::from_secs(30));
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        lines.push(line);
    }
    let stderr = lines.join("\n");
    let stdout = std::fs::read_to_string(&stdout_path).unwrap();
    assert_eq!(status.code(), Some(3), "stderr:\n{stderr}\nstdout:\n{stdout}");
    assert!(stderr.contains("error: store run stopped: "), "{stderr}");
    assert!(
        stderr.contains(&format!("lost the connection to {url}")) && stderr.contains("the server may have stopped"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("results written to {}", out.display())), "{stderr}");
    // The rows measured before the failure are printed and written; the run stopped at the
    // failure, whose row says why.
    assert!(stdout.contains("store: redis/order"), "{stdout}");
    let table = only_table(&out);
    assert_eq!(table.table, "redis/order");
    assert!(
        table.rows.len() < STRATEGIES.len(),
        "the run went on after the server died: {:?}",
        methods(&table)
    );
    let lost: Vec<_> = table
        .rows
        .iter()
        .filter(|r| {
            r.error_message
                .as_deref()
                .is_some_and(|m| m.contains(&format!("lost the connection to {url}")))
        })
        .collect();
    assert_eq!(lost.len(), 1, "{:?}", table.rows);
    for r in &table.rows {
        assert!(stdout.contains(&r.method), "{} not printed:\n{stdout}", r.method);
    }
    table
}

#[test]
fn a_redis_server_that_dies_mid_run_stops_the_run_and_keeps_the_rows_measured() {
    let dir = tempfile::tempdir().unwrap();
    let Some((server, url)) = own_redis("a_redis_server_that_dies_mid_run", dir.path()) else {
        return;
    };
    let table = kill_mid_run(server, &url, 500, "store: loaded 500 order documents", dir.path());
    let ok: Vec<&str> = table.rows.iter().filter(|r| r.is_ok()).map(|r| r.method.as_str()).collect();
    assert!(ok.contains(&"default"), "no row measured before the failure: {:?}", table.rows);
    assert_eq!(ok.len(), table.rows.len() - 1, "{:?}", table.rows);
}

#[test]
fn a_redis_server_that_dies_after_corrupt_documents_still_stops_the_run() {
    // Rows already failed on a corrupt document must not hide the lost server.
    let dir = tempfile::tempdir().unwrap();
    let Some((server, url)) = own_redis("a_redis_server_that_dies_after_corrupt_documents", dir.path()) else {
        return;
    };
    load_with_corrupt(&url, even);
    kill_mid_run(server, &url, 200, "store: reusing 200 order documents", dir.path());
}

/// A quick run against a server CI started (scripts/services.sh), every row ok.
fn against_service(test: &str, var: &str, extra: &[&str], table: &str) {
    let url = match std::env::var(var) {
        Ok(url) if !url.is_empty() => url,
        _ => {
            return skip(
                test,
                &format!("{var} is not set (run scripts/services.sh start && eval \"$(scripts/services.sh env)\")"),
            );
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.json");
    quick_store(&url, 200, &out)
        .args(extra)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("store: {table}")))
        .stdout(predicate::str::is_match("JSON is |JSON work is within the noise").unwrap());
    assert_all_ok(&only_table(&out), table, 200);
    eprintln!("RAN {test} against {var}");
}

#[test]
fn redis_service_every_row_ok() {
    against_service("redis_service_every_row_ok", "JSONCOST_TEST_REDIS_URL", &[], "redis/order");
}

#[test]
fn redis_cluster_service_every_row_ok() {
    against_service(
        "redis_cluster_service_every_row_ok",
        "JSONCOST_TEST_REDIS_CLUSTER_URL",
        &[],
        "redis-cluster/order",
    );
}

#[test]
fn postgres_json_service_every_row_ok() {
    against_service(
        "postgres_json_service_every_row_ok",
        "JSONCOST_TEST_PG_URL",
        &["--pg-column", "json"],
        "postgres-json/order",
    );
}

#[test]
fn postgres_jsonb_service_every_row_ok() {
    against_service(
        "postgres_jsonb_service_every_row_ok",
        "JSONCOST_TEST_PG_URL",
        &["--pg-column", "jsonb"],
        "postgres-jsonb/order",
    );
}

/// A SQLite database the user already has: the strategies that need no type, gated against
/// the exact reference, `dom/serde_json` the baseline; a wrongly named table is exit 2.
#[test]
fn the_user_s_own_sqlite_table_is_read_every_way_that_needs_no_type() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("own.db");
    own_sqlite(&db);
    let out = dir.path().join("r.json");
    let run = Command::cargo_bin("jsoncost")
        .unwrap()
        .env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(120))
        .args([
            "store",
            "--quick",
            "--docs",
            "50",
            "--table",
            "orders",
            "--column",
            "body",
            "--store-field",
            "/id",
        ])
        .arg("--store")
        .arg(format!("sqlite:{}", db.display()))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let results: Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let exp = &results.experiments[0];
    assert_eq!((exp.kind, exp.table.as_str()), (ExperimentKind::Store, "sqlite/orders"));
    let methods: Vec<&str> = exp.rows.iter().map(|r| r.method.as_str()).collect();
    for m in [
        "dom/serde_json",
        "dom/sonic-rs",
        "dom/simd-json",
        "raw/serde_json",
        "lazy/sonic-rs",
        "floor",
    ] {
        let row = exp
            .rows
            .iter()
            .find(|r| r.method == m)
            .unwrap_or_else(|| panic!("no {m} in {methods:?}"));
        assert_eq!(row.status, Status::Ok, "{m}: {:?}", row.error_message);
        assert_eq!(row.baseline, m == "dom/serde_json");
    }

    let url = format!("sqlite:{}", db.display());
    let long = "t".repeat(64);
    for (args, says) in [
        (
            vec!["--table", "absent", "--column", "body"],
            format!("error: store sqlite/absent: {url}: table absent (id, body): no such table: absent\n"),
        ),
        (
            vec!["--table", "orders", "--column", "nope"],
            format!("error: store sqlite/orders: {url}: table orders (id, nope): no such column: nope\n"),
        ),
        (
            vec!["--table", "orders"],
            format!("error: store sqlite/orders: {url}: table orders: cannot be read there: --table alone is for redb\n"),
        ),
        (
            vec!["--keys", "o:*"],
            format!("error: store sqlite/o:*: {url}: keys o:*: cannot be read there: --keys PATTERN is for Redis\n"),
        ),
        (
            vec!["--table", &long, "--column", "body"],
            format!("error: store sqlite/{long}: --table {long:?}: it is 64 characters long; a SQL name has at most 63\n"),
        ),
    ] {
        let run = Command::cargo_bin("jsoncost")
            .unwrap()
            .timeout(std::time::Duration::from_secs(60))
            .args(["store", "--quick"])
            .args(&args)
            .arg("--store")
            .arg(format!("sqlite:{}", db.display()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.ends_with(&says), "{args:?}: {stderr}");
        assert!(!stderr.contains("invalid store URL"), "{args:?}: {stderr}");
    }
}

/// `jsoncost store --quick --store sqlite:DB --table TABLE --column COLUMN ARGS`.
fn own_table_run(db: &Path, table: &str, column: &str, args: &[&str]) -> std::process::Output {
    jsoncost()
        .args(["store", "--quick", "--table", table, "--column", column])
        .args(args)
        .arg("--store")
        .arg(format!("sqlite:{}", db.display()))
        .output()
        .unwrap()
}

/// Reading a user's database writes nothing to it: the same bytes and mtime, the same tables,
/// its journal mode as it was, no -wal or -shm file beside it.
#[test]
fn reading_a_user_s_sqlite_database_changes_nothing_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("own.db");
    own_sqlite(&db);
    let (bytes, mtime) = (std::fs::read(&db).unwrap(), std::fs::metadata(&db).unwrap().modified().unwrap());
    let out = dir.path().join("r.json");
    let run = own_table_run(&db, "orders", "body", &["--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(only_table(&out).rows.iter().all(|r| r.status == Status::Ok));
    assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), mtime);
    assert!(std::fs::read(&db).unwrap() == bytes, "the database file changed");
    let mut beside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["own.db", "r.json"]);
    let c = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(tables, ["orders"]);
    let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "delete");
}

/// One document that is not JSON among JSON ones: every JSON row reads it and fails, only the
/// floor (bytes discarded) passes; the run is bad data (exit 2) naming the document's key.
#[test]
fn a_table_whose_every_json_row_fails_exits_2_naming_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("own.db");
    own_sqlite(&db);
    let c = rusqlite::Connection::open(&db).unwrap();
    // Row 3 is not the first document read (the gate's: row 7, with the default seed).
    c.execute("UPDATE orders SET body = 'oops, not json' WHERE id = 3", []).unwrap();
    drop(c);
    let out = dir.path().join("r.json");
    let run = own_table_run(&db, "orders", "body", &["--docs", "10", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "error: every row of store: sqlite/orders but floor failed (dom/serde_json: document \"3\" in table \"orders\" does not decode: expected value at line 1 column 1)"
        ),
        "{stderr}"
    );
    let table = only_table(&out);
    for r in &table.rows {
        assert_eq!(r.status == Status::Ok, r.method == "floor", "{}: {:?}", r.method, r.error_message);
    }
}

/// A key column holding a BLOB is bad data (exit 2) naming the column, not the store's failure.
#[test]
fn a_blob_key_is_bad_data_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("own.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("CREATE TABLE docs (k, body TEXT)").unwrap();
    c.execute("INSERT INTO docs VALUES ('a', '{}')", []).unwrap();
    c.execute("INSERT INTO docs VALUES (?1, '{}')", [vec![0xffu8, 0x00]]).unwrap();
    drop(c);
    let run = own_table_run(&db, "docs", "body", &["--key-column", "k"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "error: store sqlite/docs: sqlite:{}: table docs (k, body): the key column k holds a BLOB (row 2 listed); \
             jsoncost reads rows by a text or integer key\n",
            db.display()
        )),
        "{stderr}"
    );
}

/// A stored value far larger than a request's document (a 24 MiB array of small numbers, which
/// a DOM holds ~50 times over) is refused before any parse: exit 2 naming its key and size and
/// the flag, under a 1 GiB address-space limit; `--max-doc-mib` raises the limit.
#[test]
fn a_document_over_the_size_limit_is_refused_naming_its_key_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("own.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("CREATE TABLE docs (id TEXT, body TEXT)").unwrap();
    let mut big = String::from("[0");
    big.push_str(&",0".repeat(12 << 20));
    big.push(']');
    c.execute("INSERT INTO docs VALUES ('big', ?1)", [&big]).unwrap();
    drop(c);
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args(["store", "--quick", "--table", "docs", "--column", "body", "--store"])
        .arg(format!("sqlite:{}", db.display()))
        .env("NO_COLOR", "1");
    const LIMIT: libc::rlim_t = 1 << 30;
    crate::common::limit_address_space(&mut cmd, LIMIT);
    let run = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.ends_with(
            "error: store sqlite/docs: document \"big\" of table docs (id, body) is 24.0 MiB, over the 16 MiB limit per document \
             (raise it with --max-doc-mib)\n"
        ),
        "{stderr}"
    );
    let run = own_table_run(&db, "docs", "body", &["--max-doc-mib", "8"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("is 24.0 MiB, over the 8 MiB limit per document"), "{stderr}");
}

/// A Redis value over the per-document limit is refused from its length (STRLEN), before any
/// GET: Redis's command statistics show no GET at all, and the refusal names the key, its size
/// and the flag (exit 2).
#[test]
fn a_redis_value_over_the_size_limit_is_refused_before_it_is_fetched() {
    let dir = tempfile::tempdir().unwrap();
    let Some((_server, url)) = own_redis("a_redis_value_over_the_size_limit_is_refused_before_it_is_fetched", dir.path()) else {
        return;
    };
    let port = url.rsplit(':').next().unwrap().to_string();
    let cli = |args: &[&str]| {
        let out = std::process::Command::new("redis-cli")
            .args(["-p", &port])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // 32 MiB (the last byte set, the rest zeros): twice the default 16 MiB limit.
    cli(&["SETRANGE", "d:big", &((32 << 20) - 1).to_string(), "x"]);
    cli(&["CONFIG", "RESETSTAT"]);
    let run = jsoncost()
        .args(["store", "--quick", "--keys", "d:*", "--store", &url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.ends_with(
            "error: store redis/d:*: document \"d:big\" of keys d:* is 32.0 MiB, over the 16 MiB limit per document \
             (raise it with --max-doc-mib)\n"
        ),
        "{stderr}"
    );
    let stats = cli(&["INFO", "commandstats"]);
    assert!(stats.contains("cmdstat_strlen:"), "{stats}");
    assert!(!stats.contains("cmdstat_get:"), "{stats}");
}

/// Creates `orders(id INTEGER PRIMARY KEY, body TEXT)` with 60 documents: a user's database.
fn own_sqlite(db: &std::path::Path) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, body TEXT)").unwrap();
    for i in 0..60i64 {
        let body = format!(r#"{{"id":{i},"lines":[{{"sku":"s{i}","price":{i}.25}}],"note":"it's {i}"}}"#);
        c.execute("INSERT INTO orders VALUES (?1, ?2)", rusqlite::params![i, body]).unwrap();
    }
}

/// `--store-sizes`: one collection and one table per size, each carrying the sweep as params,
/// every row gated and timed; the large size loads fewer documents (64 MB at most per size).
#[test]
fn a_store_size_sweep_is_a_table_per_size_with_typed_params() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("redb:{}/s.redb", dir.path().display());
    let out = dir.path().join("f.json");
    quick_store(&url, 20, &out)
        .args(["--debug-mode", "--store-sizes", "4KB,1KB"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!("store: loaded 20 order-1KB documents into {url}")))
        .stderr(predicate::str::contains(format!("store: loaded 20 order-4KB documents into {url}")));
    let results = load_results(&out);
    let tables: Vec<&str> = results.experiments.iter().map(|e| e.table.as_str()).collect();
    assert_eq!(tables, ["redb/order-1KB", "redb/order-4KB"]);
    for e in &results.experiments {
        assert_eq!(methods(e), strategies_of("redb/order"));
        assert!(e.rows.iter().all(|r| r.status == Status::Ok), "{:?}", e.rows);
        assert_eq!(e.params["sweep"], "redb/order");
        assert_eq!(e.params["operation"], "read");
    }
    assert_eq!(results.experiments[1].params["size_target"], 4096);
    assert_eq!(results.experiments[1].params["payload_bytes"], 4148);
    let sweeps = jsoncost_report::sweep::sweeps(&results, &jsoncost_report::advisor::JUDGE);
    assert_eq!(sweeps.len(), 1);
    assert_eq!(sweeps[0].title(), "redb/order, read: 2 sizes, 1 KB to 4 KB");

    jsoncost()
        .args(["store", "--store", &url, "--store-sizes", "100B"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--store-sizes 100B: an order cannot be as small as 100 bytes",
        ));
}
