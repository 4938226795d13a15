//! `jsoncost ab --http`: answers that differ stop it before any load (exit 2, the request and
//! the JSON pointer named); a server dying, killed or stopped mid-load ends it (exit 3, results
//! written, the server named), Ctrl-C too (exit 130, both servers reaped); the servers started
//! here run on the CPUs said; the same server on both sides runs to its verdict; every
//! machine-readable format prints one document (JSON one value, JUnit one `<testsuites>`, CSV
//! one table). Loopback only, every run bounded, every server stopped by its PID.

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
    assert!(
        stdout.contains("paired slice by slice over 4 rounds of both servers, each round in a shuffled order"),
        "{stdout}"
    );
    assert!(!stdout.contains("programs"), "{stdout}");

    // `report` of the saved file prints what `ab --http` printed: one JSON document with the
    // verdicts decided again from the slices.
    let report = jsoncost().arg("report").arg(&out).args(["--format", "json"]).output().unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(
        doc["comparison"]["subject"],
        serde_json::json!({"kind": "servers", "rounds": 4}),
        "{doc}"
    );
    let summary = |text: &str| text.lines().find(|l| l.contains(" compared: ")).map(str::to_string);
    let table = jsoncost().arg("report").arg(&out).output().unwrap();
    assert_eq!(summary(&String::from_utf8_lossy(&table.stdout)), summary(&stdout));
    assert!(summary(&stdout).is_some(), "{stdout}");
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let rows = results["experiments"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["rounds_ns"].as_array().unwrap().len(), 4, "{r}");
        assert!(r["http"]["server_cpu_ns_per_req"].as_f64().is_some(), "{r}");
    }
}

/// stdout of `ab --http --format FORMAT` (4 rounds of 0.1 s slices, 50% threshold) over two
/// `jsoncost serve` it starts and stops itself. The same server on both sides: exit 0, or 1
/// should the machine slow one side's slices (the test is about what stdout holds).
fn ab_http_stdout(format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = ab_http("4")
        .args(["--threshold", "50%", "-c", "2", "--format", format])
        .args(["--base-cmd", &serve_cmd(dir.path(), "a", "typed/serde_json")])
        .args(["--new-cmd", &serve_cmd(dir.path(), "b", "typed/serde_json")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{:?}: {stderr}", output.status);
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn format_json_prints_one_document_with_the_results_and_the_comparison() {
    let stdout = ab_http_stdout("json");
    let values: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&stdout)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(values.len(), 1, "{stdout}");
    let doc = &values[0];
    assert_eq!(doc["results"]["experiments"][0]["experiment"], "http-ab", "{stdout}");
    assert_eq!(doc["results"]["experiments"][0]["rows"].as_array().unwrap().len(), 2);
    let figures: Vec<&str> = doc["comparison"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    // The CPU figure is judged only where both servers' slices all hold it.
    assert_eq!(figures[..2], ["time per request", "p99 latency"], "{stdout}");
}

#[test]
fn format_junit_prints_one_xml_document_and_csv_one_table() {
    use quick_xml::events::Event;
    let xml = ab_http_stdout("junit");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut roots, mut decls, mut depth) = (Vec::new(), 0, 0usize);
    loop {
        match reader.read_event().unwrap_or_else(|e| panic!("{e}: {xml}")) {
            Event::Decl(_) => decls += 1,
            Event::Start(e) => {
                if depth == 0 {
                    roots.push(e.name().as_ref().to_string());
                }
                depth += 1;
            }
            Event::Empty(e) if depth == 0 => roots.push(e.name().as_ref().to_string()),
            Event::End(_) => depth -= 1,
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!((roots, decls), (vec!["testsuites".to_string()], 1), "{xml}");
    assert!(xml.contains("<testsuite name=\"http-ab GET /items/1\""), "{xml}");
    assert!(xml.contains("<testsuite name=\"ab\""), "{xml}");

    // One header, every record as long (the csv reader refuses records of another length).
    let csv_text = ab_http_stdout("csv");
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    assert_eq!(&reader.headers().unwrap()[2], "method", "{csv_text}");
    let figures: Vec<String> = reader
        .records()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}: {csv_text}"))[2].to_string())
        .collect();
    assert_eq!(figures[..2], ["time per request", "p99 latency"], "{csv_text}");
}

/// CPU lists as the kernel writes them in /proc/PID/status (`0-1`, `1`, `1,3-5`).
fn cpu_list(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// `Cpus_allowed_list` of a /proc status text, as CPU numbers.
fn allowed_in(status: &str) -> Vec<usize> {
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("a Cpus_allowed_list line")
        .trim();
    list.split(',')
        .flat_map(|part| match part.split_once('-') {
            Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect::<Vec<usize>>(),
            None => vec![part.parse().unwrap()],
        })
        .collect()
}

/// `jsoncost serve` as `serve_cmd`, through a shell that first writes its PID (the server's, as
/// it execs it) to `DIR/NAME.pid` and the CPUs it may run on (inherited by the server) to
/// `DIR/NAME.cpus`.
fn serve_recording_cpus(dir: &std::path::Path, name: &str) -> String {
    format!(
        "sh -c 'echo $$ > {pid}; grep Cpus_allowed_list /proc/self/status > {cpus}; exec \"$0\" serve --addr 127.0.0.1:{{port}} --mode typed/serde_json --store redb:{db}' '{bin}'",
        pid = dir.join(format!("{name}.pid")).display(),
        cpus = dir.join(format!("{name}.cpus")).display(),
        db = dir.join(format!("{name}.redb")).display(),
        bin = assert_cmd::cargo::cargo_bin("jsoncost").display(),
    )
}

/// The CPUs each started server was allowed, read from what it wrote.
fn recorded_cpus(dir: &std::path::Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(format!("{name}.cpus"))).unwrap();
    cpu_list(&allowed_in(&text))
}

#[test]
fn started_servers_are_pinned_apart_from_the_load_generator_as_said() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let allowed = allowed_in(&std::fs::read_to_string("/proc/self/status").unwrap());
    let assert = ab_http("2")
        .args(["--threshold", "50%", "-c", "2"])
        .args(["--base-cmd", &serve_recording_cpus(dir.path(), "base")])
        .args(["--new-cmd", &serve_recording_cpus(dir.path(), "new")])
        .arg("--out")
        .arg(&out)
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let record = &results["experiments"][0]["http_ab"];
    assert_eq!(results["experiments"][0]["experiment"], "http-ab");
    let name = |c: &[usize]| {
        let list = c.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        if c.len() == 1 {
            format!("CPU {list}")
        } else {
            format!("CPUs {list}")
        }
    };
    if let [first, rest @ ..] = allowed.as_slice()
        && !rest.is_empty()
    {
        assert!(
            stderr.contains(&format!(
                "pinned: load generator on CPU {first}, servers started here on {}\n",
                name(rest)
            )),
            "{stderr}"
        );
        for side in ["base", "new"] {
            assert_eq!(recorded_cpus(dir.path(), side), cpu_list(rest), "{side}");
            assert_eq!(
                record[side]["placement"],
                serde_json::json!({"kind": "pinned", "cpus": rest, "load_generator": [first]})
            );
        }
    } else {
        assert!(
            stderr.contains(&format!(
                "not pinned: this process may run on one CPU only ({}): the load generator and the servers share it",
                name(&allowed)
            )),
            "{stderr}"
        );
        assert_eq!(recorded_cpus(dir.path(), "base"), cpu_list(&allowed));
    }
}

#[test]
fn no_pin_and_a_single_cpu_leave_the_servers_where_they_were_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let allowed = allowed_in(&std::fs::read_to_string("/proc/self/status").unwrap());
    ab_http("2")
        .args(["--threshold", "50%", "-c", "2", "--no-pin"])
        .args(["--base-cmd", &serve_recording_cpus(dir.path(), "base")])
        .args(["--new-cmd", &serve_recording_cpus(dir.path(), "new")])
        .assert()
        .stderr(predicate::str::contains("not pinned: --no-pin\n"));
    assert_eq!(recorded_cpus(dir.path(), "new"), cpu_list(&allowed));

    // One CPU allowed (taskset -c 0, where there is one and CPU 0 is ours).
    let taskset = std::process::Command::new("taskset").arg("-V").output();
    if taskset.is_err() || !allowed.contains(&0) {
        eprintln!("skipped the one-CPU case: no taskset, or CPU 0 is not allowed");
        return;
    }
    let one = tempfile::tempdir().unwrap();
    let mut c = Command::new("taskset");
    c.env("NO_COLOR", "1").timeout(Duration::from_secs(120));
    c.args(["-c", "0"])
        .arg(assert_cmd::cargo::cargo_bin("jsoncost"))
        .args([
            "ab",
            "--http",
            "--path",
            "/items/1",
            "--rounds",
            "2",
            "--slice",
            "0.1",
            "--ready-timeout",
            "30",
        ])
        .args(["--threshold", "50%", "-c", "2"])
        .args(["--base-cmd", &serve_recording_cpus(one.path(), "base")])
        .args(["--new-cmd", &serve_recording_cpus(one.path(), "new")])
        .assert()
        .stderr(predicate::str::contains(
            "not pinned: this process may run on one CPU only (CPU 0): the load generator and the servers share it\n",
        ));
    assert_eq!(recorded_cpus(one.path(), "base"), "0");
}

/// A `jsoncost serve` the test starts itself (so it can stop or kill it), on a free port of
/// 127.0.0.1; killed and reaped (continued first) when dropped.
struct Served {
    child: std::process::Child,
    url: String,
}

impl Served {
    fn start(dir: &std::path::Path, name: &str) -> Served {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Served::on(dir, name, &format!("http://127.0.0.1:{port}"))
    }

    /// A server on `url`'s address (`http://127.0.0.1:PORT`).
    fn on(dir: &std::path::Path, name: &str, url: &str) -> Served {
        let addr = url.strip_prefix("http://").unwrap();
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .args(["serve", "--addr", addr, "--mode", "typed/serde_json"])
            .arg("--store")
            .arg(format!("redb:{}", dir.join(format!("{name}.redb")).display()))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        Served {
            child,
            url: url.to_string(),
        }
    }

    /// Waits (at most `limit`) until it accepts a connection.
    fn wait_ready(&self, limit: Duration) {
        let addr = self.url.strip_prefix("http://").unwrap();
        let deadline = Instant::now() + limit;
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < deadline, "{} not listening within {limit:?}", self.url);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: signalling the child this test started (not yet reaped: it is reaped on drop).
        assert_eq!(unsafe { libc::kill(self.child.id() as libc::pid_t, signal) }, 0);
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: as in `signal` (SIGKILL ends a stopped process too; SIGCONT is for clarity).
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGCONT) };
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A jsoncost run whose stderr is read line by line as it comes.
struct Watched {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    stderr: String,
}

impl Watched {
    fn spawn(args: &[String]) -> Watched {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .env("NO_COLOR", "1")
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Watched {
            child,
            lines,
            stderr: String::new(),
        }
    }

    /// Waits (at most `limit`) for a stderr line starting with `start`.
    fn wait_for(&mut self, start: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            self.stderr.push_str(&line);
            self.stderr.push('\n');
            if line.starts_with(start) {
                return;
            }
        }
        panic!("no line starting with {start:?} within {limit:?}; stderr so far:\n{}", self.stderr);
    }

    /// Its exit code once it exits (within `limit`, else killed and the test fails), with all
    /// of its stderr.
    fn exit(&mut self, limit: Duration) -> (i32, Duration) {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("still running {limit:?} later; stderr:\n{}", self.stderr);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = started.elapsed();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.stderr.push_str(&line);
            self.stderr.push('\n');
        }
        (status.code().unwrap_or(-1), took)
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ab --http` of the test's own two servers by URL and PID: 200 rounds of 0.1 s slices (far
/// longer than any test waits), each request given `--request-timeout 1`.
fn ab_of(base: &Served, new: &Served, out: &std::path::Path) -> Vec<String> {
    [
        "ab",
        "--http",
        "--path",
        "/items/1",
        "--rounds",
        "200",
        "--slice",
        "0.1",
        "--ready-timeout",
        "30",
        "--request-timeout",
        "1",
        "-c",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "--base-url".into(),
        base.url.clone(),
        "--base-pid".into(),
        base.pid(),
        "--new-url".into(),
        new.url.clone(),
        "--new-pid".into(),
        new.pid(),
        "--out".into(),
        out.display().to_string(),
    ])
    .collect()
}

/// What a run stopped by the new server's fault wrote: the http A/B table, base's row ok and
/// new's failed, the servers' PIDs and placement recorded.
fn check_lost_new(out: &std::path::Path, base: &Served, new: &Served) {
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let table = &results["experiments"][0];
    assert_eq!((&table["experiment"], &table["table"]), (&"http-ab".into(), &"GET /items/1".into()));
    let rows = table["rows"].as_array().unwrap();
    let status = |m: &str| rows.iter().find(|r| r["method"] == m).unwrap()["status"].clone();
    assert_eq!((status("base"), status("new")), ("ok".into(), "failed".into()));
    let record = &table["http_ab"];
    assert_eq!(record["base"]["pid"], base.child.id());
    assert_eq!(record["new"]["pid"], new.child.id());
    assert_eq!(
        record["new"]["placement"],
        serde_json::json!({"kind": "not_pinned", "reason": "no server is started here (--base-url/--new-url servers keep their own CPUs)"})
    );
    assert!(!record["base"]["slices"].as_array().unwrap().is_empty());
}

/// Two servers this test started, and `ab --http` of them a second into its load (writing
/// `r.json` in the directory).
fn under_load() -> (tempfile::TempDir, Served, Served, Watched) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let (base, new) = (Served::start(dir.path(), "base"), Served::start(dir.path(), "new"));
    let mut ab = Watched::spawn(&ab_of(&base, &new, &out));
    ab.wait_for("load ends within", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(1));
    (dir, base, new, ab)
}

#[test]
fn a_server_stopped_mid_load_exits_3_within_its_bound_naming_it() {
    let (dir, base, new, mut ab) = under_load();
    let out = dir.path().join("r.json");
    new.signal(libc::SIGSTOP);
    // Lost once it has had no success for twice --request-timeout (2 s) after its slice
    // begins (a slice of 0.1 s away at most); the rest is slack for a loaded machine.
    let (code, took) = ab.exit(Duration::from_secs(30));
    assert_eq!(code, 3, "{}", ab.stderr);
    assert!(took < Duration::from_secs(15), "{took:?}: {}", ab.stderr);
    assert!(
        ab.stderr.contains("the new server was lost during the load (GET /items/1): "),
        "{}",
        ab.stderr
    );
    check_lost_new(&out, &base, &new);
}

#[test]
fn a_server_killed_mid_load_exits_3_with_the_results_written() {
    let (dir, base, mut new, mut ab) = under_load();
    let out = dir.path().join("r.json");
    new.signal(libc::SIGKILL);
    let _ = new.child.wait();
    let (code, _) = ab.exit(Duration::from_secs(30));
    assert_eq!(code, 3, "{}", ab.stderr);
    assert!(
        ab.stderr.contains("the new server was lost during the load (GET /items/1): "),
        "{}",
        ab.stderr
    );
    check_lost_new(&out, &base, &new);
}

#[test]
fn a_killed_server_whose_port_another_server_takes_is_lost_not_measured() {
    // Under a busy test run another test's server can bind the port a killed server freed; the
    // load must not go on measuring that stranger as the new build.
    let (dir, base, mut new, mut ab) = under_load();
    let out = dir.path().join("r.json");
    // Frozen, ab sees neither the kill nor a refused connection before the port is taken.
    // SAFETY: signalling the ab process this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(ab.child.id() as libc::pid_t, libc::SIGSTOP) }, 0);
    let killed = new.child.id();
    new.signal(libc::SIGKILL);
    let _ = new.child.wait();
    let stranger = Served::on(dir.path(), "stranger", &new.url);
    stranger.wait_ready(Duration::from_secs(60));
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(ab.child.id() as libc::pid_t, libc::SIGCONT) }, 0);
    let (code, took) = ab.exit(Duration::from_secs(30));
    assert_eq!(code, 3, "{}", ab.stderr);
    assert!(took < Duration::from_secs(15), "{took:?}: {}", ab.stderr);
    assert!(
        ab.stderr.contains(&format!(
            "the new server was lost during the load (GET /items/1): its process (PID {killed}) exited"
        )),
        "{}",
        ab.stderr
    );
    check_lost_new(&out, &base, &new);
}

/// `ab --http` of two servers it starts (200 rounds of 0.1 s slices, far longer than the test
/// waits), sent SIGINT `signals` times mid-load: it exits 130 and both servers, whose PIDs
/// their shells wrote, are gone (stopped and reaped: not even a zombie left). The results
/// file, when written.
fn interrupted_mid_load(signals: usize) -> Option<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let mut args: Vec<String> = [
        "ab",
        "--http",
        "--path",
        "/items/1",
        "--rounds",
        "200",
        "--slice",
        "0.1",
        "--ready-timeout",
        "30",
        "-c",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend([
        "--base-cmd".into(),
        serve_recording_cpus(dir.path(), "base"),
        "--new-cmd".into(),
        serve_recording_cpus(dir.path(), "new"),
        "--out".into(),
        out.display().to_string(),
    ]);
    let mut ab = Watched::spawn(&args);
    ab.wait_for("load ends within", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(2));
    for _ in 0..signals {
        // SAFETY: signalling the jsoncost process this test started.
        assert_eq!(unsafe { libc::kill(ab.child.id() as libc::pid_t, libc::SIGINT) }, 0);
        std::thread::sleep(Duration::from_millis(50));
    }
    let (code, _) = ab.exit(Duration::from_secs(30));
    assert_eq!(code, 130, "{}", ab.stderr);
    for side in ["base", "new"] {
        let pid = std::fs::read_to_string(dir.path().join(format!("{side}.pid"))).unwrap();
        let pid = pid.trim();
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "{side} server {pid} is still there"
        );
    }
    std::fs::read(&out).ok().map(|b| serde_json::from_slice(&b).unwrap())
}

#[test]
fn ctrl_c_mid_load_exits_130_with_both_servers_reaped_and_the_measured_written() {
    let results = interrupted_mid_load(1).expect("results written");
    assert_eq!(results["interrupted"], true);
    let record = &results["experiments"][0]["http_ab"];
    for side in ["base", "new"] {
        assert!(record[side]["pid"].as_u64().is_some(), "{side}: {record}");
        assert!(!record[side]["slices"].as_array().unwrap().is_empty(), "{side}: {record}");
    }
}

#[test]
fn a_second_ctrl_c_exits_at_once_and_still_reaps_both_servers() {
    interrupted_mid_load(2);
}

/// Without `--rounds`, the rounds go on from 150 until every request's time and server CPU per
/// request are known within `--precision` (here 50%, which 150 rounds of one server against
/// itself reach), said on stderr and recorded with the table; `--rounds` and `--precision`
/// together are a usage error.
#[test]
fn without_rounds_the_load_goes_on_until_the_precision_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let serve = serve_cmd(dir.path(), "base", "typed/serde_json");
    let output = jsoncost()
        .args([
            "ab",
            "--http",
            "--path",
            "/items/1",
            "--slice-requests",
            "10",
            "-c",
            "1",
            "--precision",
            "50%",
            "--threshold",
            "50%",
            "--ready-timeout",
            "30",
            "--base-cmd",
            &serve,
            "--new-cmd",
            &serve_cmd(dir.path(), "new", "typed/serde_json"),
            "--out",
        ])
        .arg(&out)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("150 rounds: every request's time and server CPU per request known within ±50.0%"),
        "{stderr}"
    );
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = &results["experiments"][0];
    assert_eq!(table["http_ab"]["rounds"], 150);
    assert_eq!(
        (
            &table["params"]["min_rounds"],
            &table["params"]["max_rounds"],
            &table["params"]["precision"]
        ),
        (&serde_json::json!(150), &serde_json::json!(600), &serde_json::json!(0.5))
    );
    jsoncost()
        .args([
            "ab",
            "--http",
            "--rounds",
            "4",
            "--precision",
            "1%",
            "--base-url",
            "http://127.0.0.1:9",
            "--new-url",
        ])
        .arg("http://127.0.0.1:9")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the argument '--rounds <ROUNDS>' cannot be used with '--precision <SHARE>'",
        ));
}

/// A server announcing a body of 1e11 bytes and dribbling it (a byte every 10 ms, each
/// connection for at most 10 s): the readiness probe reads its status only, and the check of
/// its answers refuses the body from its head, so `ab --http` ends at once holding none of it.
#[test]
fn an_endless_body_is_not_held_by_the_probe_or_the_check() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(16) {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                let mut stream = stream;
                if stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000000\r\n\r\n")
                    .is_err()
                {
                    return;
                }
                for _ in 0..1000 {
                    if stream.write_all(b"x").is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            });
        }
    });
    let started = Instant::now();
    jsoncost()
        .args(["ab", "--http", "--base-url", &url, "--new-url", &url, "--path", "/items/1"])
        .args(["--ready-timeout", "30"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "failed: the body is 100000000000 bytes (Content-Length), over the 67108864 bytes an answer checked whole may hold",
        ));
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
}
