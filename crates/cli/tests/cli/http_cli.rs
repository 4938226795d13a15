//! `jsoncost http` and `jsoncost serve` as a user runs them: a small real matrix, --target,
//! exit codes for refused targets and failed runs, a Redis cache that dies mid-run, and
//! `serve --cache`.

use crate::common;

use assert_cmd::Command;
use common::{Stalling, free_port, http_get, load_json, own_redis, spawn_jsoncost, wait_bounded};
use predicates::prelude::*;
use std::time::{Duration, Instant};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(180));
    c
}

#[test]
fn a_small_matrix_has_every_mode_with_server_cost() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args([
            "http",
            "--quick",
            "-n",
            "200",
            "-c",
            "8",
            "--study-load",
            "false",
            "--post-requests",
            "2",
            "--post-readings",
            "2000",
            // Exactly -n per mode: no rounds beyond --http-rounds for precision.
            "--http-precision",
            "0%",
        ])
        .arg("--http-store")
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("Server alloc/req"));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let tables = results["experiments"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["table"].as_str().unwrap()).collect();
    // The loaded table and the one-request-at-a-time table (ab -n 1000 -c 1) per route.
    assert_eq!(
        names,
        [
            "item/n200-c8",
            "item/n1000-c1",
            "list/n200-c8",
            "list/n1000-c1",
            "telemetry/post-2000-readings-c1",
            "telemetry/post-2000-readings-c4"
        ]
    );
    // Both POST parses answered the same summary before being timed, one upload at a time and
    // four at once; the server's peak heap is filled from the counting allocator.
    for t in &tables[4..] {
        for r in t["rows"].as_array().unwrap() {
            assert_eq!(r["status"], "ok", "{r}");
            assert!(r["peak_bytes"].as_u64().is_some_and(|b| b > 0), "{r}");
        }
    }
    for t in &tables[..4] {
        let requests = if t["table"].as_str().unwrap().ends_with("-c1") { 1000 } else { 200 };
        assert_eq!(t["params"]["connections"], if requests == 1000 { 1 } else { 8 });
        let rows = t["rows"].as_array().unwrap();
        let mut modes: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
        modes.sort();
        assert_eq!(modes, ["passthrough", "typed/serde_json", "typed/simd-json", "typed/sonic-rs"]);
        for r in rows {
            assert_eq!(r["status"], "ok", "{r}");
            assert_eq!(r["http"]["requests"], requests, "{r}");
            assert!(r["allocated_bytes"].as_f64().unwrap() > 0.0, "{r}");
            assert!(r["http"]["server_cpu_ns_per_req"].as_f64().unwrap() > 0.0, "{r}");
        }
        // Passthrough sends the stored bytes: it allocates less on the server than re-serializing.
        let alloc = |m: &str| rows.iter().find(|r| r["method"] == m).unwrap()["allocated_bytes"].as_f64().unwrap();
        assert!(alloc("passthrough") < alloc("typed/serde_json"));
    }
}

#[test]
fn a_refused_target_exits_3_naming_the_url() {
    // A port nobody listens on: bind, note it, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/x");
    let started = std::time::Instant::now();
    jsoncost()
        .args(["http", "-n", "10", "-c", "2", "--study-load", "false", "--target", &url])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(url.as_str()));
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

#[test]
fn target_mode_load_tests_any_endpoint_without_server_columns() {
    let srv = jsoncost_http::server::start(jsoncost_http::ServerConfig::default()).unwrap();
    let url = srv.url(jsoncost_http::mode::HEALTH_PATH);
    let assert = jsoncost()
        .args([
            "http",
            "-n",
            "50",
            "-c",
            "2",
            "--study-load",
            "false",
            "--format",
            "json",
            "--target",
            &url,
        ])
        .assert()
        .success();
    let results: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let row = &results["experiments"][0]["rows"][0];
    assert_eq!(row["method"], "target");
    assert_eq!(row["status"], "ok");
    assert_eq!(row["http"]["requests"], 50);
    assert!(row["allocated_bytes"].is_null());
    srv.shutdown().unwrap();
}

#[test]
fn every_request_failing_exits_2_for_4xx_with_errors_by_status_code() {
    let srv = jsoncost_http::server::start(jsoncost_http::ServerConfig::default()).unwrap();
    let url = srv.url("/nope");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    // Never lost (a share of 100%): every request is made and counted.
    jsoncost()
        .args([
            "http",
            "-n",
            "1000",
            "-c",
            "10",
            "--study-load",
            "false",
            "--one-at-a-time",
            "false",
        ])
        .args(["--max-error-share", "100%", "--target", &url, "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stdout(predicate::str::contains("404×1000"))
        .stderr(predicate::str::contains(format!(
            "error: every row of http: target/n1000-c10 failed (target: no successful response from {url}: 1000 requests, 404×1000)"
        )));
    let results = load_json(&out);
    let row = &results["experiments"][0]["rows"][0];
    assert_eq!(row["status"], "failed");
    assert_eq!(row["http"]["status_codes"], serde_json::json!({"404": 1000}));
    assert_eq!(row["http"]["errors"]["status"], 1000);

    // By default the run is lost once judged, and the next table is not started: still bad input.
    let assert = jsoncost()
        .args(["http", "-n", "1000", "-c", "10", "--study-load", "false", "--target", &url, "--out"])
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("error: http run stopped: target/n1000-c10: target: lost after "),
        "{stderr}"
    );
    assert!(stderr.contains("requests failed, more than 50% (404×"), "{stderr}");
    let results = load_json(&out);
    let tables = results["experiments"].as_array().unwrap();
    let row = &tables[0]["rows"][0];
    let requests = row["http"]["requests"].as_u64().unwrap();
    assert!((20..1000).contains(&requests), "{row}");
    assert_eq!(row["http"]["status_codes"]["404"], requests);
    assert_eq!(row["http"]["lost"]["rule"], "error_share");
    assert_eq!(tables[1]["table"], "target/n1000-c1");
    assert_eq!(
        tables[1]["rows"][0]["error_message"],
        "not started: the target was lost in target/n1000-c10 (target)"
    );
    srv.shutdown().unwrap();
}

#[test]
fn a_target_that_stops_answering_ends_the_run_in_bounded_time_with_exit_3() {
    // The first table is answered; the second stops being answered after 10 requests; the third
    // is never started.
    let target = Stalling::start(60);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let started = Instant::now();
    let assert = jsoncost()
        .args(["http", "-n", "50", "-c", "2", "--timeout", "1", "--target", &target.url(), "--out"])
        .arg(&out)
        .assert()
        .code(3);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(15), "{took:?}");
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    // The bound is stated once, before the first table (each of at most 5 s to connect and 5
    // minutes of load); each table says when it starts.
    for table in ["target/n50-c2", "target/n500-c100", "target/n1000-c1"] {
        assert!(stderr.contains(&format!("http: {table}: loading")), "{stderr}");
    }
    assert_eq!(stderr.matches("ends within").count(), 1, "{stderr}");
    assert!(
        stderr.contains("http: ends within 15 min 15 s (a lost target ends it sooner)"),
        "{stderr}"
    );
    let lost = "error: http run stopped: target/n500-c100: target: lost after ";
    assert!(stderr.contains(lost), "{stderr}");
    assert!(stderr.contains(&format!("results written to {}", out.display())), "{stderr}");

    let results = load_json(&out);
    let tables = results["experiments"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["table"].as_str().unwrap()).collect();
    assert_eq!(names, ["target/n50-c2", "target/n500-c100", "target/n1000-c1"]);
    for t in tables {
        assert_eq!(t["params"]["wall_clock_bound_s"], 305.0, "{}", t["table"]);
    }
    // What was measured before is written as measured.
    let first = &tables[0]["rows"][0];
    assert_eq!(
        (&first["status"], &first["http"]["requests"]),
        (&"ok".into(), &50.into()),
        "{first}"
    );
    // The lost table's row is failed, with its errors by kind.
    let lost = &tables[1]["rows"][0];
    assert_eq!(lost["status"], "failed", "{lost}");
    let message = lost["error_message"].as_str().unwrap();
    assert!(message.starts_with("lost after ") && message.contains(&target.url()), "{message}");
    assert!(lost["http"]["errors"]["timeout"].as_u64().unwrap() > 0, "{lost}");
    assert!(lost["http"]["lost"]["rule"].is_string(), "{lost}");
    // The table after it was not started, and says why.
    let not_started = &tables[2]["rows"][0];
    assert_eq!(
        not_started["error_message"],
        "not started: the target was lost in target/n500-c100 (target)"
    );
}

#[test]
fn the_open_model_against_a_target_that_never_answers_ends_within_its_bound() {
    let target = Stalling::start(0);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let started = Instant::now();
    let assert = jsoncost()
        .args([
            "http",
            "--rate",
            "1e15",
            "--duration",
            "1",
            "--timeout",
            "1",
            "--target",
            &target.url(),
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(3);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    // 5 s to connect, 1 s of sending, 1 s for the requests in flight.
    assert!(stderr.contains("http: ends within 7 s (a lost target ends it sooner)"), "{stderr}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let results = load_json(&out);
    let table = &results["experiments"][0];
    assert_eq!(table["params"]["wall_clock_bound_s"], 7.0);
    let row = &table["rows"][0];
    assert_eq!(row["status"], "failed", "{row}");
    assert!(row["http"]["errors"]["timeout"].as_u64().unwrap() > 0, "{row}");
}

#[test]
fn the_open_model_stops_at_the_end_of_its_duration_and_counts_what_it_did_not_send() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h.json");
    let started = Instant::now();
    let assert = jsoncost()
        .args([
            "http",
            "--rate",
            "1e15",
            "--duration",
            "1",
            "-c",
            "4",
            "--http-filter",
            "passthrough",
        ])
        .args(["--post-requests", "0", "--timeout", "2", "--http-store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(took < Duration::from_secs(20), "{took:?}");
    let results = load_json(&out);
    let tables = results["experiments"].as_array().unwrap();
    assert_eq!(tables.len(), 2, "{results}");
    for t in tables {
        let row = &t["rows"][0];
        assert_eq!((&row["method"], &row["status"]), (&"passthrough".into(), &"ok".into()), "{row}");
        let (sent, unsent) = (row["http"]["requests"].as_u64().unwrap(), row["http"]["unsent"].as_u64().unwrap());
        assert_eq!(sent + unsent, 1_000_000_000_000_000, "{row}");
        let table = t["table"].as_str().unwrap();
        assert!(
            stderr.contains(&format!(
                "http: {table}: passthrough: {unsent} of 1000000000000000 scheduled requests not sent: every connection was still busy when the 1 s ended (its latencies are those of the {sent} sent)"
            )),
            "{stderr}"
        );
    }
}

/// How a test's Redis cache fails mid-run.
enum RedisFailure {
    /// Killed: every request finds the connection refused and is answered 503 at once.
    Killed,
    /// SIGSTOP: Redis keeps its connections and answers nothing; each request waits for the
    /// cache's 2 s bound and is answered 503.
    Stopped,
}

/// Runs `http` over a Redis cache of its own with `requests` GETs at 10 connections, makes the
/// cache fail 1.5 s into the first table, and checks that the run ends at the first 503: within
/// `limit` of the failure, exit 3, the row that met it failed with its errors by kind, the rows
/// after it not started, everything written.
fn a_redis_cache_fails_mid_run(test: &str, failure: RedisFailure, requests: u64, limit: Duration) {
    let dir = tempfile::tempdir().unwrap();
    let Some((mut redis, port)) = own_redis(test, dir.path()) else {
        return;
    };
    let out = dir.path().join("h.json");
    let store = format!("redb:{}", dir.path().join("s.redb").display());
    let cache = format!("redis://127.0.0.1:{port}");
    let (out_arg, requests_arg) = (out.display().to_string(), requests.to_string());
    let table = format!("item/n{requests}-c10");
    let (mut run, mut stderr) = spawn_jsoncost(
        &[
            "http",
            "--cache",
            &cache,
            "--http-store",
            &store,
            "-n",
            &requests_arg,
            "-c",
            "10",
            "--study-load",
            "false",
            "--post-requests",
            "0",
            "--out",
            &out_arg,
        ],
        &dir.path().join("stdout.txt"),
    );
    stderr.wait_for(&format!("http: {table}: loading"), Duration::from_secs(120));
    std::thread::sleep(Duration::from_millis(1500));
    match failure {
        RedisFailure::Killed => {
            redis.0.kill().unwrap();
            redis.0.wait().unwrap();
        }
        RedisFailure::Stopped => redis.signal(libc::SIGSTOP),
    }
    let failed = Instant::now();
    let status = wait_bounded(&mut run.0, limit);
    let took = failed.elapsed();
    if let RedisFailure::Stopped = failure {
        redis.signal(libc::SIGCONT);
    }
    stderr.drain();
    let text = stderr.text();
    assert_eq!(status.code(), Some(3), "{text}");
    assert!(took < limit, "{took:?}");
    assert!(text.contains(&format!("error: http run stopped: {table}: ")), "{text}");
    assert!(text.contains("the reference API failed") && text.contains("503×"), "{text}");
    assert!(text.contains(&format!("results written to {}", out.display())), "{text}");

    let results = load_json(&out);
    let tables = results["experiments"].as_array().unwrap();
    assert_eq!(tables[0]["table"], table);
    let rows: Vec<&serde_json::Value> = tables.iter().flat_map(|t| t["rows"].as_array().unwrap()).collect();
    let hit: Vec<&&serde_json::Value> = rows
        .iter()
        .filter(|r| r["http"]["status_codes"]["503"].as_u64().is_some_and(|n| n > 0))
        .collect();
    assert_eq!(hit.len(), 1, "{rows:?}");
    // Its latencies mix 503s with answers: failed, saying why, not timed.
    assert_eq!(hit[0]["status"], "failed", "{}", hit[0]);
    assert!(hit[0]["mean_ns"].is_null(), "{}", hit[0]);
    assert!(
        hit[0]["error_message"].as_str().unwrap().starts_with("the reference API failed "),
        "{}",
        hit[0]
    );
    let errors = &hit[0]["http"]["errors"];
    assert_eq!(errors["status"], hit[0]["http"]["status_codes"]["503"], "{errors}");
    assert!(hit[0]["http"]["requests"].as_u64().unwrap() < requests, "{}", hit[0]);
    assert_eq!(hit[0]["http"]["lost"]["rule"], "server_error", "{}", hit[0]);
    // The modes of its table were loaded with it, in slices: they keep the rounds they
    // completed, and none of them met a 503 (the load stopped at the first). Nothing was
    // loaded after it: every row of a later table says where the server was lost.
    let method = hit[0]["method"].as_str().unwrap();
    let hit_table = tables
        .iter()
        .position(|t| {
            t["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["method"] == method && r["http"]["status_codes"]["503"].as_u64().is_some_and(|n| n > 0))
        })
        .unwrap();
    let after: Vec<_> = tables[hit_table + 1..].iter().flat_map(|t| t["rows"].as_array().unwrap()).collect();
    assert!(!after.is_empty(), "{rows:?}");
    for r in after {
        assert_eq!(
            r["error_message"],
            format!("not started: the target was lost in {table} ({method})"),
            "{r}"
        );
    }
}

#[test]
fn a_redis_cache_killed_mid_run_ends_the_run_at_its_first_503() {
    a_redis_cache_fails_mid_run(
        "a_redis_cache_killed_mid_run",
        RedisFailure::Killed,
        30_000,
        Duration::from_secs(60),
    );
}

#[test]
fn a_redis_cache_that_stalls_mid_run_ends_the_run_at_its_first_503() {
    // Without the first 503 ending it, a million requests would crawl at 5 a second per
    // connection to each table's 5-minute cap.
    a_redis_cache_fails_mid_run(
        "a_redis_cache_that_stalls_mid_run",
        RedisFailure::Stopped,
        1_000_000,
        Duration::from_secs(15),
    );
}

#[test]
fn serve_reads_items_through_a_redis_cache_and_answers_503_when_it_dies() {
    let test = "serve_reads_items_through_a_redis_cache";
    let dir = tempfile::tempdir().unwrap();
    let Some((mut redis, redis_port)) = own_redis(test, dir.path()) else {
        return;
    };
    let port = free_port();
    let store = format!("redb:{}", dir.path().join("s.redb").display());
    let cache = format!("redis://127.0.0.1:{redis_port}");
    let addr = format!("127.0.0.1:{port}");
    let (mut serve, mut stderr) = spawn_jsoncost(
        &["serve", "--addr", &addr, "--store", &store, "--cache", &cache],
        &dir.path().join("stdout.txt"),
    );
    stderr.wait_for("serving on", Duration::from_secs(120));
    assert!(stderr.text().contains(&format!("cache {cache})")), "{}", stderr.text());

    let (status, body) = http_get(port, "/passthrough/items/1");
    assert_eq!(status, 200, "{body}");
    // The item went through Redis: it is stored there now.
    let exists = std::process::Command::new("redis-cli")
        .args(["-p", &redis_port.to_string(), "exists", "jsoncost:http:item:1"])
        .output();
    match exists {
        Ok(o) => assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1", "{o:?}"),
        Err(e) => common::skip(test, &format!("redis-cli cannot be run ({e})")),
    }

    // Redis gone: 503 naming the cache, not a stall, and the other routes still answer.
    redis.0.kill().unwrap();
    redis.0.wait().unwrap();
    let (status, body) = http_get(port, "/passthrough/items/2");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("cache_unavailable") && body.contains(&cache), "{body}");
    assert_eq!(http_get(port, "/health").0, 200);

    // Ctrl-C stops it, saying so (it measures nothing, so it writes nothing).
    serve.signal(libc::SIGINT);
    let status = wait_bounded(&mut serve.0, Duration::from_secs(30));
    stderr.drain();
    let text = stderr.text();
    assert_eq!(status.code(), Some(0), "{text}");
    assert!(text.contains("interrupted: stopping the server"), "{text}");
    assert!(!text.contains("writing what was measured"), "{text}");
}

#[test]
fn serve_with_an_unreachable_cache_exits_3_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let cache = format!("redis://127.0.0.1:{}", free_port());
    let started = Instant::now();
    jsoncost()
        .timeout(Duration::from_secs(60))
        .args(["serve", "--addr", "127.0.0.1:0", "--cache", &cache, "--store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!("cannot connect to the cache at {cache}")));
    assert!(started.elapsed() < Duration::from_secs(60));
    jsoncost()
        .args(["serve", "--addr", "127.0.0.1:0", "--cache", "redis://127.0.0.1:notaport", "--store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid cache URL"));
}

#[test]
fn serve_refuses_a_body_limit_whose_bytes_do_not_fit() {
    jsoncost()
        .timeout(Duration::from_secs(30))
        .args(["serve", "--addr", "127.0.0.1:0", "--body-limit-mib", "17592186044416"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value '17592186044416' for '--body-limit-mib <MIB>': 17592186044416 MiB is more bytes than a 64-bit size holds",
        ));
}

#[test]
fn a_busy_address_is_said_once_and_exits_3() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let assert = jsoncost()
        .args(["serve", "--addr", &addr, "--store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .assert()
        .code(3);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(stderr.matches("Address already in use").count(), 1, "{stderr}");
}

#[test]
fn durations_and_rates_that_cannot_be_used_are_usage_errors_not_panics() {
    let url = format!("http://127.0.0.1:{}/x", free_port());
    for (args, expected) in [
        (&["--timeout", "inf"][..], "invalid value 'inf' for '--timeout <SECONDS>'"),
        (
            &["--rate", "1", "--duration", "1e30"][..],
            "1e30 seconds is longer than a day (86400 s), the most a flag takes",
        ),
        // A deadline this far off would overflow the clock when the load starts.
        (&["--timeout", "1e19"][..], "1e19 seconds is longer than a day"),
        (
            &["--rate", "NaN", "--duration", "1"][..],
            "is not a rate of at least one request a minute",
        ),
        (
            &["--rate", "1e-300", "--duration", "1"][..],
            "is not a rate of at least one request a minute",
        ),
    ] {
        jsoncost()
            .args(["http", "-n", "1", "--target", &url])
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(expected))
            .stderr(predicate::str::contains("panicked").not());
    }
    jsoncost()
        .args(["http", "--http-filter", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--http-filter \"nope\" matches no strategy"));
}

/// `cmd` under an open-file limit of `n` (soft and hard, as `ulimit -n n`).
fn with_open_files(cmd: &mut std::process::Command, n: libc::rlim_t) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: n, rlim_max: n };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Under `ulimit -n 64`, `http` says before loading anything that its connections need more
/// open files than the limit, naming it (exit 3), instead of failing a table as a lost server.
#[test]
fn http_under_a_low_open_file_limit_says_so_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args(["http", "--quick", "--debug-mode", "--http-store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .env("NO_COLOR", "1");
    with_open_files(&mut cmd, 64);
    let run = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: http: 4 modes × 100 connections, both ends in this process: about "),
        "{stderr}"
    );
    assert!(
        last.contains(" open files at once, over this process's limit of 64 (ulimit -n); raise the limit or lower -c"),
        "{stderr}"
    );
    assert!(!stderr.contains("store is gone"), "{stderr}");
}

/// Under `ulimit -n 64`, `serve` caps its connections to what the limit leaves and says so
/// naming the limit, then serves; under `ulimit -n 12` it cannot start and says why (exit 3).
#[test]
fn serve_under_a_low_open_file_limit_caps_its_connections_naming_the_limit() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let store = format!("redb:{}", dir.path().join("s.redb").display());
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args(["serve", "--addr", "127.0.0.1:0", "--store", &store])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    with_open_files(&mut cmd, 64);
    let mut child = common::Killed(cmd.spawn().unwrap());
    let mut lines = BufReader::new(child.0.stderr.take().unwrap()).lines();
    let first = lines.next().map(|l| l.unwrap()).unwrap_or_default();
    let (head, tail) = first.split_once(" connections at once").unwrap_or_else(|| panic!("{first:?}"));
    let cap: u64 = head
        .strip_prefix("serve: the open-file limit is 64 (ulimit -n): serving at most ")
        .unwrap_or_else(|| panic!("{first:?}"))
        .parse()
        .unwrap();
    assert!((1..64).contains(&cap), "{first:?}");
    assert_eq!(tail, ", not 10000 (--max-connections)");
    let second = lines.next().map(|l| l.unwrap()).unwrap_or_default();
    let url = second.strip_prefix("serving on ").unwrap_or_else(|| panic!("{second:?}"));
    let port: u16 = url.split(' ').next().unwrap().rsplit(':').next().unwrap().parse().unwrap();
    std::thread::spawn(move || lines.for_each(drop));
    // More clients than the cap: those past it wait in the backlog, and a request once they
    // leave is answered.
    let held: Vec<_> = (0..cap + 8)
        .map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    drop(held);
    assert_eq!(http_get(port, "/health").0, 200);
    child.signal(libc::SIGTERM);
    wait_bounded(&mut child.0, Duration::from_secs(20));

    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args(["serve", "--addr", "127.0.0.1:0", "--store", &store]).stdin(Stdio::null());
    with_open_files(&mut cmd, 12);
    let run = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: serve: the open-file limit is 12 (ulimit -n): too few to serve one connection (about "),
        "{stderr}"
    );
    assert!(last.ends_with(" open files needed); raise it"), "{stderr}");
}

/// Under a 1 GiB address-space limit (`prlimit --as`), the http experiment completes: the
/// system allocator keeps no more arenas than the limit has room for (each reserves 64 MiB;
/// 16 of them on 2 cores took the whole GiB with ~50 MB resident), and says so.
#[test]
fn http_completes_under_a_1_gib_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args(["http", "--quick", "--debug-mode", "--http-store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .arg("--out")
        .arg(&out)
        .env("NO_COLOR", "1")
        .env_remove("JSONCOST_ALLOCATOR");
    const LIMIT: libc::rlim_t = 1 << 30;
    crate::common::limit_address_space(&mut cmd, LIMIT);
    let run = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "note: address space limited to 1.0 GiB (ulimit -v): the system allocator keeps at most 4 arenas (64 MiB of address space each)\n"
        ),
        "{stderr}"
    );
    let results = load_json(&out);
    assert_eq!(results.get("interrupted"), None);
    assert_eq!(results["experiments"].as_array().unwrap().len(), 6);
}

/// `--list-sizes`: the list route at each count of items per response, a table each carrying
/// the sweep's params (the response's bytes among them), so the report states the crossovers
/// and draws the sweep as it does micro's.
#[test]
fn list_sizes_sweep_the_items_per_response() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["http", "--quick", "--debug-mode", "--study-load", "false", "--post-requests", "0"])
        .args(["--list-sizes", "1,48,400", "--http-store"])
        .arg(format!("redb:{}", dir.path().join("s.redb").display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let results: jsoncost_engine::Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let names: Vec<&str> = results.experiments.iter().map(|e| e.table.as_str()).collect();
    assert_eq!(names, ["item/n100-c4", "list-1/n100-c4", "list-48/n100-c4", "list-400/n100-c4"]);
    let mut bytes = Vec::new();
    for (exp, items) in results.experiments[1..].iter().zip([1u64, 48, 400]) {
        assert_eq!(exp.params["sweep"], "list n100-c4", "{:?}", exp.params);
        assert_eq!(exp.params["operation"], "GET");
        assert_eq!(exp.params["items"], items);
        bytes.push(exp.params["payload_bytes"].as_u64().unwrap());
    }
    assert!(bytes.windows(2).all(|w| w[0] < w[1]), "{bytes:?}");
    let sweeps = jsoncost_report::sweep::sweeps(&results, &jsoncost_report::advisor::JUDGE);
    assert_eq!(sweeps.len(), 1);
    assert!(
        sweeps[0].title().starts_with("list n100-c4, GET: 3 sizes, "),
        "{}",
        sweeps[0].title()
    );
    let md = jsoncost_report::render(&results, jsoncost_report::Format::Markdown, false);
    assert!(md.contains("## Sizes: http: list n100-c4, GET: 3 sizes, "), "{md}");
}
