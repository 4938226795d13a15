//! `jsoncost http` as a user runs it: a small real matrix, --target, and exit 3 for a refused target.

use assert_cmd::Command;
use predicates::prelude::*;

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
    assert_eq!(names, ["item/n200-c8", "list/n200-c8", "telemetry/post-2000-readings"]);
    // Both POST parses answered the same summary before being timed.
    for r in tables[2]["rows"].as_array().unwrap() {
        assert_eq!(r["status"], "ok", "{r}");
    }
    for t in &tables[..2] {
        let rows = t["rows"].as_array().unwrap();
        let mut modes: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
        modes.sort();
        assert_eq!(modes, ["passthrough", "typed/serde_json", "typed/sonic-rs"]);
        for r in rows {
            assert_eq!(r["status"], "ok", "{r}");
            assert_eq!(r["extra"]["requests"], 200, "{r}");
            assert!(r["allocated_bytes"].as_f64().unwrap() > 0.0, "{r}");
            assert!(r["extra"]["server_cpu_ns_per_req"].as_f64().unwrap() > 0.0, "{r}");
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
    assert_eq!(row["extra"]["requests"], 50);
    assert!(row["allocated_bytes"].is_null());
    srv.shutdown().unwrap();
}
