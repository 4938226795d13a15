//! `jsoncost ab` with two tiny fake programs: shell scripts that write a fixed results.json per
//! call (the n-th call of a side writes its n-th file), so the test controls every run's
//! figures, drift included; they never join the lockstep, so they pair once per run. Exit codes
//! and the flagged row are exact; nothing is timed. Then two real jsoncost programs in
//! lockstep: the turns and the round counts are exact.

#![cfg(unix)]

use crate::common;

use assert_cmd::Command;
use common::{JUDGE_ON_A_BUSY_MACHINE, Killed, wait_bounded};
use jsoncost_engine::{ExperimentKind, Machine, MeasuredTable, Results, Row, SCHEMA_VERSION};
use predicates::prelude::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(60));
    c
}

fn results(rows: &[(&str, f64)]) -> Results {
    let mut e = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
    e.params.insert("shape".into(), serde_json::json!("data"));
    for (m, ns) in rows {
        let mut r = Row::new(*m);
        r.mean_ns = Some(*ns);
        r.allocated_bytes = Some(40.0);
        e.rows.push(r);
    }
    e.finish();
    Results {
        schema_version: SCHEMA_VERSION,
        jsoncost_version: "0.1.0".into(),
        machine: Machine {
            cpu: "test cpu".into(),
            cores: 2,
            os: "linux".into(),
            rustc: "1.95.0".into(),
            target_features: vec![],
            ..Machine::default()
        },
        started_at: "2026-01-01T00:00:00Z".into(),
        quick: true,
        interrupted: false,
        rates: Default::default(),
        experiments: vec![e],
        allocators: Vec::new(),
    }
}

/// The machine's speed in each round (shared by both programs of the round: up to ±15%).
const DRIFT: [f64; 6] = [1.0, 1.15, 0.9, 1.05, 0.88, 1.1];
/// A little noise of the new program's own.
const WOBBLE: [f64; 6] = [1.0, 1.003, 0.998, 1.002, 0.997, 1.001];

/// A fake program in `dir/name`: its n-th call copies `name/run-n.json` to the `--out` file,
/// and records its arguments. `slow` multiplies row `typed/sonic-rs` (new's deliberate
/// slowdown); `exit` makes it fail with that code instead.
fn program(dir: &Path, name: &str, slow: f64, wobble: bool, exit: Option<i32>) -> PathBuf {
    let data = dir.join(name);
    std::fs::create_dir_all(&data).unwrap();
    for (i, d) in DRIFT.iter().enumerate() {
        let w = if wobble { WOBBLE[i] } else { 1.0 };
        let r = results(&[("typed/serde_json", 150.0 * d * w), ("typed/sonic-rs", 112.0 * d * w * slow)]);
        std::fs::write(data.join(format!("run-{}.json", i + 1)), serde_json::to_vec(&r).unwrap()).unwrap();
    }
    let fail = exit.map(|c| format!("echo 'error: bad flag' >&2; exit {c}\n")).unwrap_or_default();
    let script = format!(
        "#!/bin/sh\n{fail}d='{}'\nn=$(cat \"$d/count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$d/count\"\n\
         echo \"$@\" >> \"$d/args\"\nprev=''; for a in \"$@\"; do if [ \"$prev\" = --out ]; then out=$a; fi; prev=$a; done\n\
         cp \"$d/run-$n.json\" \"$out\"\n",
        data.display()
    );
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn ab(base: &Path, new: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    jsoncost()
        .args(["ab", "--runs", "6", "--threshold", "5%"])
        .args(JUDGE_ON_A_BUSY_MACHINE)
        .arg("--base")
        .arg(base)
        .arg("--new")
        .arg(new)
        .args(extra)
        .args(["--", "micro", "--quick"])
        .assert()
}

#[test]
fn the_same_build_under_drift_passes_and_both_programs_get_the_same_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let base = program(dir.path(), "base", 1.0, false, None);
    let new = program(dir.path(), "new", 1.0, true, None);
    ab(&base, &new, &[])
        .code(0)
        .stdout(predicate::str::contains("No regression (paired over 6 ABBA runs"));
    let args = std::fs::read_to_string(dir.path().join("base/args")).unwrap();
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines.len(), 6);
    assert!(lines[0].starts_with("micro --quick --format json --out "), "{}", lines[0]);
    assert_eq!(std::fs::read_to_string(dir.path().join("new/count")).unwrap().trim(), "6");
}

#[test]
fn a_five_percent_slower_row_is_flagged_alone_with_exit_1_and_markdown_for_a_pr() {
    let dir = tempfile::tempdir().unwrap();
    let base = program(dir.path(), "base", 1.0, false, None);
    let new = program(dir.path(), "new", 1.05, true, None);
    let out = ab(&base, &new, &["--format", "markdown"]).code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.starts_with("### jsoncost ab: **Regression**"), "{stdout}");
    let failing: Vec<&str> = stdout.lines().filter(|l| l.starts_with('|') && l.contains("FAIL")).collect();
    assert_eq!(failing.len(), 1, "{stdout}");
    assert!(
        failing[0].contains("typed/sonic-rs") && failing[0].contains("slower"),
        "{}",
        failing[0]
    );
    // The sentence once, in the PR comment; stderr does not repeat it.
    assert_eq!(stdout.matches("Regression in 1 of 2").count(), 1, "{stdout}");
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("Regression in"), "{stderr}");
}

/// `ab --runs 2` of `base` against `new` (the fake programs above): both flag typed/sonic-rs
/// 30% slower in runs 1 and 2; `new` in the confirming runs 3 and 4 costs `confirming` times
/// base's there.
fn ab_confirming(confirming: f64) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let base = program(dir.path(), "base", 1.0, false, None);
    let new = program(dir.path(), "new", 1.3, true, None);
    for run in [3, 4] {
        let d = DRIFT[run - 1];
        let r = results(&[("typed/serde_json", 150.0 * d), ("typed/sonic-rs", 112.0 * d * confirming)]);
        std::fs::write(dir.path().join(format!("new/run-{run}.json")), serde_json::to_vec(&r).unwrap()).unwrap();
    }
    let assert = jsoncost()
        .args(["ab", "--runs", "2", "--threshold", "5%"])
        .args(JUDGE_ON_A_BUSY_MACHINE)
        .arg("--base")
        .arg(&base)
        .arg("--new")
        .arg(&new)
        .args(["--", "micro", "--quick"])
        .assert();
    // Both programs ran four times: two runs, then two confirming runs.
    assert_eq!(std::fs::read_to_string(dir.path().join("new/count")).unwrap().trim(), "4");
    assert_eq!(std::fs::read_to_string(dir.path().join("base/count")).unwrap().trim(), "4");
    assert
}

#[test]
fn a_row_flagged_by_one_pair_of_processes_is_measured_again_and_counts_only_when_it_repeats() {
    let out = ab_confirming(1.0).code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("ab: 1 row called slower or faster; measuring again with a second pair of processes to confirm"),
        "{stderr}"
    );
    assert!(stderr.contains("ab: run 3/4: base and new"), "{stderr}");
    assert!(stdout.contains("No regression"), "{stdout}");
    assert!(
        stdout.contains(
            "1 row called slower or faster measured again by a second pair of processes (2 runs): 0 confirmed, not confirmed \
             (what one pair of processes differs by): micro data/deserialize typed/sonic-rs (1.30"
        ),
        "{stdout}"
    );
    let out = ab_confirming(1.3).code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("Regression in 1 of 2"), "{stdout}");
    assert!(stdout.contains("(2 runs): 1 confirmed."), "{stdout}");
}

#[test]
fn the_same_rows_through_unpaired_compare_cannot_tell_the_drift_from_a_change() {
    // Round 2 against round 3 of the same build: a 22% "change" that is only the machine.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, serde_json::to_vec(&results(&[("typed/serde_json", 150.0 * 1.15)])).unwrap()).unwrap();
    std::fs::write(&b, serde_json::to_vec(&results(&[("typed/serde_json", 150.0 * 0.9)])).unwrap()).unwrap();
    jsoncost()
        .arg("compare")
        .arg(&b)
        .arg(&a)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Unpaired comparison"));
    // Given the other run of the base build, compare knows runs of one build differ by that
    // much here, and says the files cannot resolve 5%.
    jsoncost()
        .arg("compare")
        .arg(&b)
        .arg(&a)
        .arg("--base-run")
        .arg(&a)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "unresolvable at 5.0%: runs of the base build differ by ±27.8% on it",
        ))
        .stdout(predicate::str::contains(
            "2 runs of the base build differ per row by a median 27.8% and up to 27.8% beyond their tables' shifts",
        ));
}

#[test]
fn a_program_that_refuses_its_arguments_is_bad_input_and_one_that_cannot_start_is_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let base = program(dir.path(), "base", 1.0, false, None);
    let refusing = program(dir.path(), "new", 1.0, false, Some(2));
    ab(&base, &refusing, &[])
        .code(2)
        .stderr(predicate::str::contains("refused the arguments (exit 2)").and(predicate::str::contains("error: bad flag")));
    let broken = program(dir.path(), "other", 1.0, false, Some(7));
    ab(&base, &broken, &[])
        .code(3)
        .stderr(predicate::str::contains("exited 7 in run 1"));
    ab(&base, &dir.path().join("missing"), &[])
        .code(3)
        .stderr(predicate::str::contains("cannot be started"));
    jsoncost()
        .args(["ab", "--base", "x", "--new", "y", "--", "micro", "--out", "f.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out is set by ab itself"));
}

/// `ab`'s summary of one run of both programs in lockstep (pinned to a CPU) that passed.
fn assert_one_run_in_lockstep_passed(stdout: &str) {
    assert!(
        stdout.contains("No regression (in lockstep on CPU ") && stdout.contains(", paired round by round over 1 run of both programs"),
        "{stdout}"
    );
}

#[test]
fn two_jsoncost_programs_take_turns_abba_and_their_rows_pair_round_by_round() {
    let dir = tempfile::tempdir().unwrap();
    // Deeper than a Unix socket's path may be: the sockets live elsewhere.
    let keep = dir.path().join("k".repeat(120));
    let out = Command::from_std(ab_in_lockstep(4, &keep, &["--threshold", "50%"]))
        .env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(240))
        .assert()
        .code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // Pinned by default to the last CPU ab may run on.
    assert_one_run_in_lockstep_passed(&stdout);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("did not join"), "{stderr}");
    // Every interleaved row ran exactly the conductor's 4 rounds, in both programs.
    for side in ["base", "new"] {
        let r: Results = serde_json::from_slice(&std::fs::read(keep.join(format!("run-001/{}.json", &side[..1]))).unwrap()).unwrap();
        let rows: Vec<&Row> = r.experiments.iter().flat_map(|e| &e.rows).filter(|r| r.is_ok()).collect();
        assert!(!rows.is_empty());
        for row in rows {
            assert_eq!(row.rounds_ns.len(), 4, "{side} {}", row.method);
        }
    }
    // The grants: pairs in ABBA order, each side asking the same sequence, every round's ask
    // answered go for rounds 0-3 and end at round 4.
    let log = std::fs::read_to_string(keep.join("run-001/lockstep.log")).unwrap();
    let lines: Vec<(&str, &str)> = log.lines().map(|l| l.split_once(' ').unwrap()).collect();
    assert!(lines.len() >= 10 && lines.len().is_multiple_of(2), "{log}");
    for (k, pair) in lines.chunks(2).enumerate() {
        let expected = if k % 2 == 0 { ["base", "new"] } else { ["new", "base"] };
        assert_eq!([pair[0].0, pair[1].0], expected, "pair {k}: {log}");
        assert_eq!(pair[0].1, pair[1].1, "pair {k}: {log}");
    }
    let ends = lines.iter().filter(|(_, what)| what.ends_with("end")).count();
    let tables = lines.iter().filter(|(_, what)| *what == "round 0 go").count();
    assert_eq!(ends, tables, "{log}");
    assert!(lines.iter().all(|(_, what)| !what.starts_with("round 5")), "{log}");
    assert!(lines.iter().any(|(_, what)| *what == "round 4 end"), "{log}");
}

#[test]
fn a_program_that_never_joins_runs_alone_and_its_rows_pair_once_per_run() {
    // The script (a build without the lockstep) finishes first while the real program waits
    // for its first turn; the run is not a lockstep run, whatever the order of events.
    let dir = tempfile::tempdir().unwrap();
    let script = program(dir.path(), "base", 1.0, false, None);
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let out = jsoncost()
        .timeout(std::time::Duration::from_secs(240))
        .args(["ab", "--rounds", "3"])
        .args(JUDGE_ON_A_BUSY_MACHINE)
        .arg("--base")
        .arg(&script)
        .arg("--new")
        .arg(&bin)
        .args(["--", "micro", "--quick", "--shape", "data", "--filter", "typed/serde_json"])
        .assert();
    let output = out.get_output();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(stderr.contains("the base program did not join the lockstep"), "{stderr}");
    assert!(!stderr.contains("the new program did not join"), "{stderr}");
    assert!(
        !stdout.contains("in lockstep") && !stderr.contains("in lockstep,"),
        "{stdout}{stderr}"
    );
}

/// `jsoncost ab --rounds 3` of the jsoncost under test against itself on `experiment`: one run
/// of both programs answers, every row paired over the conductor's 3 rounds, `compared` rows
/// in all. Returns both sides' results.
fn one_run_answers(experiment: &[&str], compared: usize) -> [Results; 2] {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep");
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let out = jsoncost()
        .timeout(std::time::Duration::from_secs(240))
        .args(["ab", "--rounds", "3", "--threshold", "50%"])
        .args(JUDGE_ON_A_BUSY_MACHINE)
        .arg("--keep")
        .arg(&keep)
        .arg("--base")
        .arg(&bin)
        .arg("--new")
        .arg(&bin)
        .arg("--")
        .args(experiment)
        .assert()
        .code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_one_run_in_lockstep_passed(&stdout);
    assert!(!stdout.contains("pair only") && !stdout.contains("Not compared"), "{stdout}");
    assert!(stdout.contains(&format!("{compared} compared:")), "{stdout}");
    ["b", "n"].map(|side| {
        let r: Results = serde_json::from_slice(&std::fs::read(keep.join(format!("run-001/{side}.json"))).unwrap()).unwrap();
        for table in &r.experiments {
            for row in &table.rows {
                assert_eq!(row.rounds_ns.len(), 3, "{side} {} {}", table.table, row.method);
            }
        }
        r
    })
}

#[test]
fn stream_tables_pair_round_by_round_in_lockstep_so_one_run_answers() {
    let stream = ["stream", "--quick", "--readings", "500", "--runs", "5"];
    let filter = ["--stream-filter", "{buffered,incremental}/{serde_json,sonic-rs}"];
    for r in one_run_answers(&[&stream[..], &filter[..]].concat(), 4) {
        let table = &r.experiments[0];
        assert_eq!((table.kind, table.rows.len()), (ExperimentKind::Stream, 4));
    }
}

#[test]
fn http_tables_pair_slice_by_slice_in_lockstep_so_one_run_answers() {
    // Each round is one slice of load per mode; item and list tables alike.
    let http = ["http", "--quick", "-n", "120", "-c", "2", "--study-load", "false"];
    let only = ["--one-at-a-time", "false", "--post-requests", "0"];
    for r in one_run_answers(&[&http[..], &only[..]].concat(), 8) {
        assert_eq!(r.experiments.len(), 2);
        for table in &r.experiments {
            assert_eq!((table.kind, table.rows.len()), (ExperimentKind::Http, 4));
        }
    }
}

/// `jsoncost ab` of the jsoncost under test against itself, in lockstep, for `rounds` rounds
/// of the micro serde_json rows, keeping its files in `keep`.
fn ab_in_lockstep(rounds: u32, keep: &Path, extra: &[&str]) -> std::process::Command {
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let mut c = std::process::Command::new(&bin);
    c.args(["ab", "--rounds", &rounds.to_string()])
        .args(JUDGE_ON_A_BUSY_MACHINE)
        .arg("--keep")
        .arg(keep)
        .args(extra)
        .arg("--base")
        .arg(&bin)
        .arg("--new")
        .arg(&bin)
        .args(["--", "micro", "--quick", "--shape", "data", "--filter", "typed/serde_json*"]);
    c
}

/// A thread of this process spinning on one CPU until dropped, or for 240 s at most.
struct Spinner(std::sync::Arc<std::sync::atomic::AtomicBool>, Option<std::thread::JoinHandle<()>>);

impl Spinner {
    fn on(cpu: usize) -> Spinner {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            // SAFETY: CPU_SET writes inside the zeroed set we own; sched_setaffinity(0) pins
            // this thread only.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                assert_eq!(libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set), 0);
            }
            let t0 = std::time::Instant::now();
            while !stopped.load(std::sync::atomic::Ordering::Relaxed) && t0.elapsed() < std::time::Duration::from_secs(240) {
                std::hint::spin_loop();
            }
        });
        Spinner(stop, Some(thread))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.1.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn other_work_on_the_pairs_cpu_past_the_limit_judges_no_time_and_exits_3() {
    // A busy loop pinned to the pair's CPU takes about as much of it as the pair does (the
    // suite's other tests running beside only add to that).
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let allowed = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap().trim();
    let cpu: String = allowed.chars().take_while(char::is_ascii_digit).collect();
    let _spinner = Spinner::on(cpu.parse().unwrap());
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let out = jsoncost()
        .timeout(std::time::Duration::from_secs(240))
        .args(["ab", "--rounds", "3", "--max-other-cpu", "20%", "--cpu", &cpu, "--base"])
        .arg(&bin)
        .arg("--new")
        .arg(&bin)
        .args(["--", "micro", "--quick", "--shape", "data", "--filter", "typed/serde_json*"])
        .assert()
        .code(3);
    let output = out.get_output();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("busy: not judged"), "{stdout}");
    assert!(
        stderr.contains("time not judged: the machine was busy: in run 1 other programs used the CPU the two ran on for ")
            && stderr.contains(" of the time the two did, over the 20.0% a pairing holds to"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_to_ab_alone_stops_both_programs_in_lockstep_with_exit_130() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep");
    // Far more rounds than can finish before the signal.
    let mut ab = Killed(
        ab_in_lockstep(10_000, &keep, &[])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Waits (bounded) until both programs have started, then a little into their turns.
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60)
        && !["b", "n"]
            .iter()
            .all(|side| std::fs::read_to_string(keep.join(format!("run-001/{side}.stderr"))).is_ok_and(|t| t.contains("quick run")))
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // Only ab gets the signal (not its process group): it must pass it on.
    ab.signal(libc::SIGINT);
    let status = wait_bounded(&mut ab.0, std::time::Duration::from_secs(60));
    let mut stderr = String::new();
    std::io::Read::read_to_string(ab.0.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
}

/// A program that records its pid in `dir/NAME.pid` and then runs `then` (a shell command
/// line) in its place (exec keeps the pid): `sleep 1000` never joins nor exits; the jsoncost
/// under test, given the arguments (`"$@"`), joins.
fn recording_pid(dir: &Path, name: &str, then: &str) -> PathBuf {
    let path = dir.join(format!("{name}.sh"));
    let script = format!("#!/bin/sh\necho $$ > '{}/{name}.pid'\nexec {then}\n", dir.display());
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The pid a [`recording_pid`] program wrote (waits at most 60 s for it).
fn pid_of(dir: &Path, name: &str) -> libc::pid_t {
    let file = dir.join(format!("{name}.pid"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Some(pid) = std::fs::read_to_string(&file).ok().and_then(|t| t.trim().parse().ok()) {
            return pid;
        }
        assert!(std::time::Instant::now() < deadline, "{} never appeared", file.display());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether `pid` is gone (after ab exited, its children are reaped or reparented and reaped).
fn gone(pid: libc::pid_t) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        // SAFETY: kill(2) with signal 0 only checks the pid.
        if unsafe { libc::kill(pid, 0) } != 0 {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn ab_with(dir: &Path, base: &Path, new: &Path, extra: &[&str]) -> Killed {
    Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .args(["ab", "--rounds", "10000", "--cpu", "none"])
            .args(JUDGE_ON_A_BUSY_MACHINE)
            .args(extra)
            .arg("--base")
            .arg(base)
            .arg("--new")
            .arg(new)
            .args(["--", "micro", "--quick", "--shape", "data", "--filter", "typed/serde_json*"])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

fn stderr_of(ab: &mut Killed) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(ab.0.stderr.as_mut().unwrap(), &mut text).unwrap();
    text
}

#[test]
fn a_program_that_never_joins_nor_exits_is_given_up_after_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let base = recording_pid(dir.path(), "base", "sleep 1000");
    let new = recording_pid(dir.path(), "new", &format!("'{}' \"$@\"", bin.display()));
    let mut ab = ab_with(dir.path(), &base, &new, &["--timeout", "3"]);
    let status = wait_bounded(&mut ab.0, std::time::Duration::from_secs(60));
    let stderr = stderr_of(&mut ab);
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "error: run 1: the base program neither joined the lockstep nor exited within 3 s (--timeout); both programs were stopped"
        ),
        "{stderr}"
    );
    assert!(gone(pid_of(dir.path(), "base")) && gone(pid_of(dir.path(), "new")));
}

#[test]
fn a_program_stopped_by_sigstop_is_named_and_both_are_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let jsoncost = format!("'{}' \"$@\"", bin.display());
    let base = recording_pid(dir.path(), "base", &jsoncost);
    let new = recording_pid(dir.path(), "new", &jsoncost);
    let mut ab = ab_with(dir.path(), &base, &new, &[]);
    let (b, n) = (pid_of(dir.path(), "base"), pid_of(dir.path(), "new"));
    // Into the lockstep's rounds (10,000 of them: far more than can finish).
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: kill(2) on ab's child, alive (ab has not finished: it has thousands of rounds).
    assert_eq!(unsafe { libc::kill(n, libc::SIGSTOP) }, 0);
    let status = wait_bounded(&mut ab.0, std::time::Duration::from_secs(60));
    let stderr = stderr_of(&mut ab);
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("error: run 1: the new program was stopped (SIGSTOP or SIGTSTP) for 5 s; both programs were stopped"),
        "{stderr}"
    );
    assert!(gone(b) && gone(n));
}

/// Under a lockstep a program works only in its turns, from before its first work: a stream's
/// check of its body is work (seconds on a 72 MB body), and the two programs of a pair doing it
/// at once on one CPU each wait for it (measured: `alloc -- stream` judged busy, each process
/// waiting for the CPU 30–60% of its time, on a quiet machine). So the first ask comes before
/// the program reads its input: here it asks, waits for the grant, then fails on the body.
#[test]
fn under_a_lockstep_a_program_asks_for_its_turn_before_any_work() {
    use jsoncost_engine::lockstep::{Ask, ENV, Grant};
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, "[1, 2,").unwrap();
    let socket = dir.path().join("lockstep.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut program = Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .args(["stream", "--file"])
            .arg(&body)
            .env(ENV, &socket)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let conn = loop {
        match listener.accept() {
            Ok((conn, _)) => break conn,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let exited = program.0.try_wait().unwrap();
                assert!(exited.is_none(), "exited ({exited:?}) without asking for a turn");
                assert!(Instant::now() < deadline, "no ask within 30 s");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    };
    conn.set_nonblocking(false).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut line = String::new();
    BufReader::new(&conn).read_line(&mut line).unwrap();
    assert_eq!(Ask::parse(&line), Some(Ask::Turn), "{line:?}");
    // Holding the grant: the program waits, its input unread.
    std::thread::sleep(Duration::from_millis(300));
    assert!(program.0.try_wait().unwrap().is_none());
    (&conn).write_all(Grant::Go.line().as_bytes()).unwrap();
    let status = wait_bounded(&mut program.0, Duration::from_secs(60));
    let mut stderr = String::new();
    std::io::Read::read_to_string(program.0.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("body.json"), "{stderr}");
}
