//! Children die with a conductor killed by SIGKILL (no handler of its runs): `ab`'s programs
//! and `ab --http`'s servers are gone within a bounded time, and the scratch directory the
//! killed `ab` left is removed by the next one. Every wait is bounded.

use crate::common::{Killed, wait_bounded};

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn jsoncost(tmpdir: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    c.env("NO_COLOR", "1")
        .env("TMPDIR", tmpdir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// A script that writes its pid to `dir/NAME.pid`, then execs `then` (keeping the pid).
fn recording_pid(dir: &Path, name: &str, then: &str) -> PathBuf {
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(&path, format!("#!/bin/sh\necho $$ > '{}/{name}.pid'\nexec {then}\n", dir.display())).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The pid a [`recording_pid`] script wrote (waits at most 60 s).
fn pid_of(dir: &Path, name: &str) -> libc::pid_t {
    let file = dir.join(format!("{name}.pid"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(pid) = std::fs::read_to_string(&file).ok().and_then(|t| t.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "{} never appeared", file.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether `pid` is gone within 10 s: no such process, or a zombie (dead, waiting for whoever
/// adopted it to reap it).
fn gone(pid: libc::pid_t) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().starts_with('Z')));
        if zombie != Some(false) {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn sigkill(child: &Killed) {
    child.signal(libc::SIGKILL);
}

#[test]
fn ab_killed_takes_its_programs_along_and_its_scratch_is_reclaimed() {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("jsoncost");
    let base = recording_pid(dir.path(), "base", "sleep 1000");
    let new = recording_pid(dir.path(), "new", &format!("'{}' \"$@\"", bin.display()));
    let mut ab = Killed(
        jsoncost(dir.path())
            .args(["ab", "--cpu", "none", "--timeout", "600", "--base"])
            .arg(&base)
            .arg("--new")
            .arg(&new)
            .args(["--", "micro", "--quick", "--shape", "data", "--filter", "typed/serde_json"])
            .spawn()
            .unwrap(),
    );
    let (b, n) = (pid_of(dir.path(), "base"), pid_of(dir.path(), "new"));
    // SAFETY: geteuid cannot fail.
    let private = dir.path().join(format!("jsoncost-{}", unsafe { libc::geteuid() }));
    let scratch = private.join(format!("ab-{}-0", ab.0.id()));
    assert!(scratch.is_dir(), "{} missing", scratch.display());
    sigkill(&ab);
    wait_bounded(&mut ab.0, Duration::from_secs(10));
    assert!(gone(b), "the base program {b} outlived its conductor");
    assert!(gone(n), "the new program {n} outlived its conductor");
    // The next `ab` (here one whose programs fail at once) removes the dead one's scratch.
    let status = jsoncost(dir.path())
        .args(["ab", "--cpu", "none", "--base", "false", "--new", "false", "--", "micro"])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(3));
    assert!(!scratch.exists(), "{} was not reclaimed", scratch.display());
    assert_eq!(std::fs::read_dir(&private).unwrap().count(), 0);
}

#[test]
fn ab_http_killed_takes_its_servers_along() {
    let dir = tempfile::tempdir().unwrap();
    let server = |name: &str| format!("sh -c 'echo $$ > {}/{name}.pid; exec sleep 1000'", dir.path().display());
    let mut ab = Killed(
        jsoncost(dir.path())
            .args(["ab", "--http", "--path", "/items/1", "--ready-timeout", "600"])
            .args(["--base-cmd", &server("base"), "--new-cmd", &server("new")])
            .spawn()
            .unwrap(),
    );
    let (b, n) = (pid_of(dir.path(), "base"), pid_of(dir.path(), "new"));
    sigkill(&ab);
    wait_bounded(&mut ab.0, Duration::from_secs(10));
    assert!(gone(b), "the base server {b} outlived its conductor");
    assert!(gone(n), "the new server {n} outlived its conductor");
}

/// The pids of `parent`'s children, read from /proc (each process's stat: ppid is its 4th
/// field, after the command name in parentheses).
fn children_of(parent: u32) -> Vec<libc::pid_t> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<libc::pid_t>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if ppid == Some(parent) {
            found.push(pid);
        }
    }
    found
}

#[test]
fn safety_killed_takes_its_children_along() {
    let dir = tempfile::tempdir().unwrap();
    let safety = Killed(jsoncost(dir.path()).arg("safety").spawn().unwrap());
    // A child runs each library's inputs of one parse path: one is there for most of the run.
    let deadline = Instant::now() + Duration::from_secs(60);
    let children = loop {
        let found = children_of(safety.0.id());
        if !found.is_empty() {
            break found;
        }
        assert!(Instant::now() < deadline, "no safety child appeared within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Stopped, a child cannot finish its inputs and exit on its own before the check below:
    // only the parent's death can end it (SIGKILL ends a stopped process too).
    for child in &children {
        // SAFETY: kill(2) on a child of the safety process, which has not exited yet.
        unsafe { libc::kill(*child, libc::SIGSTOP) };
    }
    let mut safety = safety;
    sigkill(&safety);
    wait_bounded(&mut safety.0, Duration::from_secs(10));
    let outlived: Vec<_> = children.iter().copied().filter(|c| !gone(*c)).collect();
    for child in &outlived {
        // SAFETY: kill(2) on a process this test stopped; leave nothing behind.
        unsafe { libc::kill(*child, libc::SIGKILL) };
    }
    assert!(outlived.is_empty(), "the safety children {outlived:?} outlived their parent");
}
