//! `jsoncost ab --http`: answers that differ stop it before any load (exit 2, the request and
//! the JSON pointer named), a server dying mid-load ends it (exit 3, results written), and the
//! same server on both sides runs to its verdict. Loopback only, every run bounded.

use assert_cmd::Command;
use predicates::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(Duration::from_secs(120));
    c
}

/// A keep-alive HTTP/1.1 server answering every GET with `body`; runs until the test ends.
fn fixed_server(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut writer = stream;
                loop {
                    let mut line = String::new();
                    // The request head, up to its blank line (GETs: no body).
                    loop {
                        line.clear();
                        match reader.read_line(&mut line) {
                            Ok(0) | Err(_) => return,
                            Ok(_) if line == "\r\n" => break,
                            Ok(_) => {}
                        }
                    }
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    );
                    if writer
                        .write_all(head.as_bytes())
                        .and_then(|_| writer.write_all(body.as_bytes()))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    url
}

/// `jsoncost ab --http` of `/items/1` in `rounds` rounds of 0.1 s slices, each server given 30 s
/// to become ready.
fn ab_http(rounds: &str) -> Command {
    let mut c = jsoncost();
    c.args([
        "ab",
        "--http",
        "--path",
        "/items/1",
        "--rounds",
        rounds,
        "--slice",
        "0.1",
        "--ready-timeout",
        "30",
    ]);
    c
}

/// `jsoncost serve` on `{port}` in `mode`, over a store of its own in `dir`.
fn serve_cmd(dir: &std::path::Path, name: &str, mode: &str) -> String {
    format!(
        "'{}' serve --addr '127.0.0.1:{{port}}' --mode {mode} --store 'redb:{}'",
        assert_cmd::cargo::cargo_bin("jsoncost").display(),
        dir.join(format!("{name}.redb")).display()
    )
}

#[test]
fn answers_that_differ_exit_2_naming_the_request_and_the_pointer() {
    let base = fixed_server(r#"{"id":1,"name":"a","tags":[1,2]}"#);
    let new = fixed_server(r#"{"id":1,"name":"a","tags":[1,3]}"#);
    jsoncost()
        .args(["ab", "--http", "--base-url", &base, "--new-url", &new, "--path", "/items/1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "request 1 (GET /items/1): the answers differ at /tags/1: expected 2, got 3; nothing was timed",
        ));
}

#[test]
fn a_server_dying_mid_load_exits_3_with_the_results_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    // The new server is stopped (SIGTERM) 6 s after it started: mid-load of 100 rounds.
    let new = format!("timeout 6 {}", serve_cmd(dir.path(), "new", "typed/serde_json"));
    let started = Instant::now();
    ab_http("100")
        .args(["--base-cmd", &serve_cmd(dir.path(), "base", "typed/serde_json"), "--new-cmd", &new])
        .arg("--out")
        .arg(&out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("the new server was lost during the load (GET /items/1)"));
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = &results["experiments"][0];
    assert_eq!(table["table"], "GET /items/1");
    let rows = table["rows"].as_array().unwrap();
    let status = |m: &str| rows.iter().find(|r| r["method"] == m).unwrap()["status"].clone();
    assert_eq!((status("base"), status("new")), ("ok".into(), "failed".into()));
}

#[test]
fn the_same_server_on_both_sides_runs_to_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let assert = ab_http("4")
        .args(["--threshold", "50%", "-c", "4"])
        .args(["--base-cmd", &serve_cmd(dir.path(), "a", "typed/serde_json")])
        .args(["--new-cmd", &serve_cmd(dir.path(), "b", "typed/serde_json")])
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "verified: each of the 1 requests answered by both servers",
        ));
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    for figure in ["time per request", "p99 latency", "server CPU per request"] {
        assert!(stdout.contains(figure), "{figure}: {stdout}");
    }
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let rows = results["experiments"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["rounds_ns"].as_array().unwrap().len(), 4, "{r}");
        assert!(r["http"]["server_cpu_ns_per_req"].as_f64().is_some(), "{r}");
    }
}
