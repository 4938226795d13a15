//! Where output goes and where input comes from: stdout that fails (exit 3) or whose reader
//! left (quiet), `--out` paths that are devices, FIFOs, symlinks or directories, inputs that
//! are FIFOs with no writer (a signal still stops the command), and two signals in a row
//! (the finished tables are written). Device nodes are made in a temporary directory (mknod,
//! as root), so a broken build cannot replace the machine's /dev/null. Every wait is bounded.

#![cfg(unix)]

use crate::common;

use std::ffi::CString;
use std::os::fd::FromRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Killed, Lines, wait_bounded};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../report/tests/fixtures/results.json");
/// The quickest measuring command: one table of one strategy.
const MICRO: [&str; 6] = ["micro", "--quick", "--shape", "data", "--filter", "typed/serde_json"];

fn jsoncost() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    c.env("NO_COLOR", "1").stdin(Stdio::null());
    c
}

/// Runs `cmd` to its end (at most 60 s): exit code and stderr.
fn run(mut cmd: Command) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("stderr");
    let mut child = Killed(cmd.stderr(std::fs::File::create(&err).unwrap()).spawn().unwrap());
    let status = wait_bounded(&mut child.0, Duration::from_secs(60));
    (status.code(), std::fs::read_to_string(&err).unwrap())
}

fn to(path: &Path) -> Stdio {
    Stdio::from(std::fs::OpenOptions::new().write(true).open(path).unwrap())
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A /dev/null-like node (1, 3) or /dev/full-like one (1, 7) in `dir`, else the machine's.
fn char_device(dir: &Path, name: &str, minor: u32) -> PathBuf {
    let path = dir.join(name);
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string path.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, minor)) } == 0;
    if made { path } else { PathBuf::from(format!("/dev/{name}")) }
}

#[test]
fn stdout_that_fails_is_exit_3_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let full = char_device(dir.path(), "full", 7);
    let message = "error: cannot write the results to stdout: No space left on device (os error 28)\n";
    let mut report = jsoncost();
    report.args(["report", FIXTURE]).stdout(to(&full));
    let mut compare = jsoncost();
    compare.args(["compare", FIXTURE, FIXTURE]).stdout(to(&full));
    for cmd in [report, compare] {
        let (code, stderr) = run(cmd);
        assert_eq!(code, Some(3), "{stderr}");
        assert_eq!(stderr, message);
    }
    // A measuring command still writes its results file, then fails.
    let out = dir.path().join("r.json");
    let mut micro = jsoncost();
    micro.args(MICRO).args(["--format", "json", "--out"]).arg(&out).stdout(to(&full));
    let (code, stderr) = run(micro);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.ends_with(message), "{stderr}");
    assert_eq!(common::load_json(&out)["experiments"][0]["table"], "data/deserialize");
    assert!(std::fs::symlink_metadata(&full).unwrap().file_type().is_char_device());
}

/// A pipe whose read end is closed: every write to it fails with EPIPE.
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills `fds`; the read end is closed at once, the write end owned below.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        Stdio::from(std::fs::File::from_raw_fd(fds[1]))
    }
}

#[test]
fn a_closed_pipe_on_stdout_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = jsoncost();
    report.args(["report", FIXTURE]).stdout(closed_pipe());
    let mut compare = jsoncost();
    compare.args(["compare", FIXTURE, FIXTURE]).stdout(closed_pipe());
    for cmd in [report, compare] {
        assert_eq!(run(cmd), (Some(0), String::new()));
    }
    let out = dir.path().join("r.json");
    let mut micro = jsoncost();
    micro
        .args(MICRO)
        .args(["--format", "json", "--out"])
        .arg(&out)
        .stdout(closed_pipe());
    let (code, stderr) = run(micro);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("stdout") && !stderr.contains("panicked"), "{stderr}");
    assert!(out.is_file());
}

#[test]
fn out_writes_to_what_the_path_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A device node stays a device.
    let null = char_device(d, "null", 3);
    let mut micro = jsoncost();
    micro.args(MICRO).arg("--out").arg(&null).stdout(Stdio::null());
    let (code, stderr) = run(micro);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(std::fs::symlink_metadata(&null).unwrap().file_type().is_char_device());

    // A FIFO stays a FIFO, and its reader gets the results.
    let fifo = d.join("results.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    let mut micro = jsoncost();
    micro.args(MICRO).arg("--out").arg(&fifo).stdout(Stdio::null());
    let (code, stderr) = run(micro);
    assert_eq!(code, Some(0), "{stderr}");
    let got: serde_json::Value = serde_json::from_slice(&reader.join().unwrap()).unwrap();
    assert_eq!(got["schema_version"], 1);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

    // A symlink stays a link; its target gets the report.
    std::fs::write(d.join("target.md"), "old").unwrap();
    std::os::unix::fs::symlink("target.md", d.join("latest.md")).unwrap();
    let mut report = jsoncost();
    report
        .args(["report", FIXTURE, "--markdown"])
        .arg(d.join("latest.md"))
        .stdout(Stdio::null());
    let (code, stderr) = run(report);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(std::fs::read_link(d.join("latest.md")).unwrap(), Path::new("target.md"));
    assert!(std::fs::read_to_string(d.join("target.md")).unwrap().starts_with("# jsoncost"));

    // A directory is refused before anything is written.
    let mut report = jsoncost();
    report.args(["report", FIXTURE, "--html"]).arg(d).stdout(Stdio::null());
    let (code, stderr) = run(report);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: cannot write the HTML report to {}: it is a directory; give a file path\n",
            d.display()
        )
    );
}

#[test]
fn a_signal_stops_a_command_waiting_for_a_fifo_input() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.fifo");
    mkfifo(&fifo);
    let micro = ["micro", "--quick", "--payload", fifo.to_str().unwrap()];
    let compare = ["compare", FIXTURE, fifo.to_str().unwrap()];
    for (args, what) in [(&micro[..], "payload"), (&compare[..], "results file")] {
        let mut child = Killed(jsoncost().args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap());
        let mut stderr = Lines::of(child.0.stderr.take().unwrap());
        // Long enough to be blocked in the read (there is no line to wait for).
        std::thread::sleep(Duration::from_millis(500));
        child.signal(libc::SIGTERM);
        let status = wait_bounded(&mut child.0, Duration::from_secs(20));
        stderr.drain();
        let text = stderr.text();
        assert_eq!(status.code(), Some(130), "{text}");
        assert!(text.contains("(got SIGTERM;"), "{text}");
        assert!(
            text.contains(&format!(
                "error: cannot read {what} {}: stopped by a signal while waiting for data",
                fifo.display()
            )),
            "{text}"
        );
    }
}

#[test]
fn two_ctrl_c_in_a_row_keep_the_finished_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // micro's two tables finish in about a second; the signals come while the stream
    // experiment (whole runs of a 20 MB body, seconds each) is being measured.
    let mut child = Killed(
        jsoncost()
            .current_dir(dir.path())
            .args(["run", "--only", "micro,stream", "--shape", "data", "--filter", "typed/serde_json"])
            .args(["--readings", "300000", "--out"])
            .arg(&out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Read, so the tables never fill the pipe.
    let _stdout = Lines::of(child.0.stdout.take().unwrap());
    let mut stderr = Lines::of(child.0.stderr.take().unwrap());
    // micro's last table is kept: the stream experiment starts.
    stderr.wait_for("micro: data/serialize measured", Duration::from_secs(120));
    child.signal(libc::SIGINT);
    // Two signals sent before the first is delivered are one (POSIX does not queue them), so
    // the second goes once the first is seen, while the current strategy still runs.
    stderr.wait_for("interrupted: finishing the current strategy", Duration::from_secs(20));
    child.signal(libc::SIGINT);
    let status = wait_bounded(&mut child.0, Duration::from_secs(30));
    stderr.drain();
    let text = stderr.text();
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(text.contains("Ctrl-C: stopping now"), "{text}");
    let results = common::load_json(&out.join("results.json"));
    assert_eq!(results["interrupted"], true);
    let tables = results["experiments"].as_array().unwrap();
    let names: Vec<_> = tables.iter().map(|t| (t["experiment"].as_str(), t["table"].as_str())).collect();
    assert_eq!(
        names,
        [(Some("micro"), Some("data/deserialize")), (Some("micro"), Some("data/serialize"))],
        "the finished tables, and not the stream table that was cut short"
    );
    for t in tables {
        let rows = t["rows"].as_array().unwrap();
        assert!(!rows.is_empty() && rows.iter().all(|r| r["mean_ns"].is_number()), "{t}");
    }
    assert!(out.join("report.md").is_file() && out.join("report.html").is_file());
}

#[test]
fn micro_names_the_signal_that_stopped_it() {
    let mut child = Killed(
        jsoncost()
            .args(["micro", "--quick", "--shape", "data"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let _stdout = Lines::of(child.0.stdout.take().unwrap());
    let mut stderr = Lines::of(child.0.stderr.take().unwrap());
    // Said once the signal handlers are installed, before the first strategy is measured; the
    // run measures every strategy of the data shape's tables after it (seconds).
    stderr.wait_for("quick run:", Duration::from_secs(120));
    child.signal(libc::SIGTERM);
    let status = wait_bounded(&mut child.0, Duration::from_secs(60));
    stderr.drain();
    let text = stderr.text();
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(text.contains("error: interrupted by SIGTERM"), "{text}");
    assert!(!text.contains("Ctrl-C"), "{text}");
}

#[test]
fn out_dash_is_refused_not_a_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = jsoncost();
    c.current_dir(dir.path()).args(MICRO).args(["--out", "-"]);
    let (code, stderr) = run(c);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.ends_with(
            "error: cannot write results to -: - is not stdout here (stdout carries the --format output); give a file path, or /dev/stdout\n"
        ),
        "{stderr}"
    );
    let mut c = jsoncost();
    c.current_dir(dir.path()).arg("report").arg(FIXTURE).args(["--html", "-"]);
    let (code, stderr) = run(c);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.ends_with("error: cannot write the HTML report to -: - is not stdout here (stdout carries the --format output); give a file path, or /dev/stdout\n"), "{stderr}");
    assert!(!dir.path().join("-").exists());
}

/// Under a file-size limit (`ulimit -f`) the results that do not fit are an error naming the
/// file (exit 3), not a silent death by SIGXFSZ, and no temporary file is left beside it.
#[test]
fn a_file_size_limit_is_an_error_and_leaves_no_temporary_file() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let mut c = jsoncost();
    c.args(MICRO).arg("--out").arg(&out);
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1024,
                rlim_max: 1024,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let (code, stderr) = run(c);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("writing {}: File too large (os error 27)", out.display())),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An abort (what a failed allocation ends in) keeps the finished tables: results.json holds
/// them, marked interrupted, and the process still dies by SIGABRT.
#[test]
fn an_abort_keeps_the_finished_tables() {
    let (status, text, out) = stopped_after_micro(|child| child.signal(libc::SIGABRT), &[]);
    assert_eq!(status.signal(), Some(libc::SIGABRT), "{text}");
    assert_kept(&text, "jsoncost aborted (out of memory?)", &out);
}

/// A segmentation fault keeps the finished tables as an abort does, and still ends the
/// process by SIGSEGV (sent here by another process: the handler is the one a fault runs).
#[test]
fn a_segmentation_fault_keeps_the_finished_tables() {
    let (status, text, out) = stopped_after_micro(|child| child.signal(libc::SIGSEGV), &[]);
    assert_eq!(status.signal(), Some(libc::SIGSEGV), "{text}");
    assert_kept(&text, "jsoncost crashed (SIGSEGV)", &out);
}

/// A panic on the main thread keeps the finished tables (the panic hook writes them) and ends
/// the process with Rust's panic status, 101, its message first.
#[test]
fn a_panic_keeps_the_finished_tables() {
    let (status, text, out) = stopped_after_micro(|_| {}, &[("JSONCOST_TEST_PANIC_AFTER", "data/serialize")]);
    assert_eq!(status.code(), Some(101), "{text}");
    assert!(text.contains("panicked at"), "{text}");
    assert!(text.contains("jsoncost's own test: a panic after data/serialize"), "{text}");
    assert_kept(&text, "jsoncost panicked", &out);
}

/// `run` of micro's data tables and a long stream experiment, with `stop` applied once micro's
/// last table is kept: its exit status, stderr and `--out` directory.
fn stopped_after_micro(stop: impl FnOnce(&Killed), env: &[(&str, &str)]) -> (std::process::ExitStatus, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // As in `two_ctrl_c_in_a_row_keep_the_finished_tables`: micro's tables finish in about a
    // second, then the stream experiment takes seconds.
    let mut child = Killed(
        jsoncost()
            .current_dir(dir.path())
            .envs(env.iter().copied())
            .args(["run", "--only", "micro,stream", "--shape", "data", "--filter", "typed/serde_json"])
            .args(["--readings", "300000", "--out"])
            .arg(&out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let _stdout = Lines::of(child.0.stdout.take().unwrap());
    let mut stderr = Lines::of(child.0.stderr.take().unwrap());
    stderr.wait_for("micro: data/serialize measured", Duration::from_secs(120));
    stop(&child);
    let status = wait_bounded(&mut child.0, Duration::from_secs(30));
    stderr.drain();
    (status, stderr.text(), dir)
}

/// `text` says `cause` wrote results.json in `dir`'s `out`, which holds micro's two data tables,
/// marked interrupted, and nothing else is left there.
fn assert_kept(text: &str, cause: &str, dir: &tempfile::TempDir) {
    let out = dir.path().join("out");
    let results_json = out.join("results.json");
    let note = format!("{cause}: the finished tables were written to {}", results_json.display());
    assert!(text.lines().any(|line| line == note), "{text}");
    let results = common::load_json(&results_json);
    assert_eq!(results["interrupted"], true);
    let tables = results["experiments"].as_array().unwrap();
    let names: Vec<_> = tables.iter().map(|t| (t["experiment"].as_str(), t["table"].as_str())).collect();
    assert_eq!(
        names,
        [(Some("micro"), Some("data/deserialize")), (Some("micro"), Some("data/serialize"))]
    );
    let left: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("results.json")]);
}

/// Out of descriptors wherever it shows ("Too many open files", here reading the results file
/// under `ulimit -n 5`), the error is followed by the limit it ran into.
#[test]
fn too_many_open_files_names_the_limit() {
    use std::os::unix::process::CommandExt;
    let mut c = jsoncost();
    c.args(["report", FIXTURE]).stdout(Stdio::null());
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 5, rlim_max: 5 };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let (_, stderr) = run(c);
    assert!(
        stderr.ends_with(&format!(
            "error: cannot read results file {FIXTURE}: Too many open files (os error 24)\nnote: this process may have 5 files open at once (ulimit -n); raise the limit\n"
        )),
        "{stderr}"
    );
}
