//! `jsoncost http --target … --profile` as a user runs it: a server jsoncost starts, sampled by
//! perf under the load, its JSON share and call sites in the verdict and results.json, its
//! flamegraph beside them; a server without JSON at 0%; and each way profiling cannot happen
//! (no perf, no such process, a stripped binary) said with its exit code, the load's own row
//! written all the same. Skipped where perf cannot sample (unless JSONCOST_REQUIRE_PERF=1).

use std::path::Path;

use assert_cmd::Command;

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(240));
    c
}

/// Whether perf can sample here: it runs, and may sample a child of ours.
fn perf_usable(test: &str) -> bool {
    let ok = std::process::Command::new("perf")
        .args(["record", "-q", "-e", "cpu-clock", "-o", "/dev/null", "--", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("JSONCOST_REQUIRE_PERF").as_deref() != Ok("1"),
            "{test}: JSONCOST_REQUIRE_PERF=1 but perf cannot sample here"
        );
        eprintln!("skipping {test}: perf cannot sample here (install linux-perf; kernel.perf_event_paranoid)");
    }
    ok
}

fn read(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The load's flags: one table, few requests.
const LOAD: [&str; 8] = ["-n", "3000", "-c", "4", "--study-load", "false", "--one-at-a-time", "false"];

/// `jsoncost http ARGS`, one small load, results to `out`.
fn http(args: &[&str], out: &Path) -> Command {
    let mut c = jsoncost();
    c.arg("http").args(args).args(LOAD).arg("--out").arg(out);
    c
}

#[test]
fn a_started_server_is_profiled_its_share_and_call_sites_named_and_its_flamegraph_written() {
    if !perf_usable("a_started_server_is_profiled") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let server = format!(
        "{} serve --addr 127.0.0.1:{{port}} --mode typed/serde_json",
        assert_cmd::cargo::cargo_bin("jsoncost").display()
    );
    let assert = jsoncost()
        .args([
            "http",
            "--target",
            "http://127.0.0.1:{port}/items?count=48",
            "--server-cmd",
            &server,
            "--profile",
        ])
        .args(LOAD)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(stdout.contains("JSON share    JSON is "), "{stdout}");
    assert!(stdout.contains("of your server's CPU"), "{stdout}");
    let results = read(&out);
    let row = &results["experiments"][0]["rows"][0];
    assert_eq!(row["status"], "ok");
    let p = &row["profile"];
    assert!(p["samples"].as_u64().unwrap() > 0, "{p}");
    assert!(p["json"]["count"].as_u64().unwrap() > 0, "{p}");
    // The list route writes 48 items: writing is among the directions, its call site under
    // the API's serde_json writer.
    let directions: Vec<&str> = p["directions"].as_array().unwrap().iter().map(|d| d[0].as_str().unwrap()).collect();
    assert!(directions.contains(&"write"), "{directions:?}");
    assert!(
        p["call_sites"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["direction"] == "write" && s["caller"].as_str().is_some_and(|c| c.contains("serde_json"))),
        "{}",
        p["call_sites"]
    );
    let svg_name = p["flamegraph"].as_str().unwrap();
    let svg = std::fs::read_to_string(dir.path().join(svg_name)).unwrap();
    assert!(svg.contains("class=\"json\""), "the flamegraph colours no JSON frame");
}

#[test]
fn a_server_without_json_work_is_zero_percent_not_an_error() {
    if !perf_usable("a_server_without_json_work") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let server = format!(
        "{} serve --addr 127.0.0.1:{{port}}",
        assert_cmd::cargo::cargo_bin("jsoncost").display()
    );
    // /health answers fixed bytes: no serde, no JSON library.
    jsoncost()
        .args([
            "http",
            "--target",
            "http://127.0.0.1:{port}/health",
            "--server-cmd",
            &server,
            "--profile",
        ])
        .args(LOAD)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let p = &read(&out)["experiments"][0]["rows"][0]["profile"];
    assert!(p["samples"].as_u64().unwrap() > 0, "{p}");
    assert_eq!(p["json"]["count"], 0, "{}", p["call_sites"]);
}

/// The in-process API's health route, for loads whose profile cannot be taken.
fn health_target() -> (jsoncost_http::server::RunningServer, String) {
    let srv = jsoncost_http::server::start(jsoncost_http::ServerConfig::default()).unwrap();
    let url = srv.url(jsoncost_http::mode::HEALTH_PATH);
    (srv, url)
}

#[test]
fn a_process_that_does_not_exist_exits_2_and_the_load_is_still_written() {
    let (srv, url) = health_target();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    // Beyond any pid_max (at most 2^22).
    let assert = http(&["--target", &url, "--profile", "999999999"], &out).assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(
        stderr.contains("http: target/n3000-c4: not profiled: no process 999999999: is the server running?"),
        "{stderr}"
    );
    let row = &read(&out)["experiments"][0]["rows"][0];
    assert_eq!(row["status"], "ok");
    assert!(row["profile"].is_null());
    srv.shutdown().unwrap();
}

#[test]
fn perf_missing_is_named_with_its_package_and_exits_3() {
    let (srv, url) = health_target();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let pid = std::process::id().to_string();
    let assert = http(&["--target", &url, "--profile", &pid], &out)
        .env("PATH", dir.path())
        .assert()
        .code(3);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(
        stderr.contains("not profiled: perf not found: install Linux perf (Debian: apt-get install linux-perf)"),
        "{stderr}"
    );
    assert_eq!(read(&out)["experiments"][0]["rows"][0]["status"], "ok");
    srv.shutdown().unwrap();
}

#[test]
fn a_stripped_binary_is_refused_naming_the_build_setting() {
    if !perf_usable("a_stripped_binary_is_refused") {
        return;
    }
    let (srv, url) = health_target();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    // Debian's shell is stripped; the loop is bounded and the process killed at the end.
    let mut shell = std::process::Command::new("/bin/sh")
        .args(["-c", "i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done"])
        .spawn()
        .unwrap();
    let assert = http(&["--target", &url, "--profile", &shell.id().to_string()], &out)
        .assert()
        .code(3);
    let _ = shell.kill();
    let _ = shell.wait();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("no symbols: /usr/bin/dash is stripped"), "{stderr}");
    assert_eq!(read(&out)["experiments"][0]["rows"][0]["status"], "ok");
    srv.shutdown().unwrap();
}

#[test]
fn profile_without_a_pid_or_a_server_command_is_a_usage_error() {
    let (srv, url) = health_target();
    // Without --out a profiled run writes into ./jsoncost-results: a directory of the test's.
    let dir = tempfile::tempdir().unwrap();
    let assert = jsoncost()
        .current_dir(dir.path())
        .args(["http", "--target", &url, "--profile"])
        .args(LOAD)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(
        stderr.contains("--profile needs the server's PID, or --server-cmd to start it"),
        "{stderr}"
    );
    let assert = jsoncost()
        .args(["http", "--target", &url, "--server-cmd", "true"])
        .args(LOAD)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("--server-cmd needs {port} in --target"), "{stderr}");
    srv.shutdown().unwrap();
}
