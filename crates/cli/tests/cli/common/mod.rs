//! Helpers for tests that run jsoncost as a child process next to servers of their own.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Whether tests that need a server must run (CI) rather than be skipped.
pub fn services_required() -> bool {
    std::env::var("JSONCOST_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

pub fn skip(test: &str, why: &str) {
    assert!(!services_required(), "{test}: JSONCOST_REQUIRE_SERVICES=1 but {why}");
    eprintln!("SKIPPED {test}: {why}");
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A child process killed on drop, so a failing test leaves nothing running.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

impl Killed {
    /// Sends `signal` to the child (by its pid, which is not reaped yet).
    pub fn signal(&self, signal: libc::c_int) {
        let pid = self.0.id() as libc::pid_t;
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }
}

/// Waits at most `limit` for `child` to exit.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "still running after {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `jsoncost` with `args`, stderr piped into [`Lines`], stdout to `stdout` (a file).
pub fn spawn_jsoncost(args: &[&str], stdout: &Path) -> (Killed, Lines) {
    let mut child = Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"))
            .env("NO_COLOR", "1")
            .args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(stdout).unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let lines = Lines::of(child.0.stderr.take().unwrap());
    (child, lines)
}

/// The lines a child writes to a pipe, read on a thread of their own.
pub struct Lines {
    rx: mpsc::Receiver<String>,
    pub seen: Vec<String>,
}

impl Lines {
    pub fn of(pipe: impl Read + Send + 'static) -> Lines {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                if tx.send(line.unwrap_or_default()).is_err() {
                    break;
                }
            }
        });
        Lines { rx, seen: Vec::new() }
    }

    /// Waits at most `limit` for a line containing `needle`.
    pub fn wait_for(&mut self, needle: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.seen.iter().any(|l| l.contains(needle)) {
            match self.rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => self.seen.push(line),
                Err(e) => panic!("no {needle:?} within {limit:?} ({e}); so far:\n{}", self.text()),
            }
        }
    }

    /// Collects what is left once the child has exited (bounded).
    pub fn drain(&mut self) {
        while let Ok(line) = self.rx.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
    }

    pub fn text(&self) -> String {
        self.seen.join("\n")
    }
}

/// A redis-server of the test's own on a free loopback port, killed on drop (or by the test,
/// by its pid); `None` (after saying why) when redis-server is not installed.
pub fn own_redis(test: &str, dir: &Path) -> Option<(Killed, u16)> {
    let port = free_port();
    let server = std::process::Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let server = match server {
        Ok(child) => Killed(child),
        Err(e) => {
            skip(
                test,
                &format!("redis-server cannot be started ({e}); scripts/services.sh start installs it"),
            );
            return None;
        }
    };
    // At most 50 × 100 ms for it to accept connections.
    let up = (0..50).any(|_| {
        let ok = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
        if !ok {
            std::thread::sleep(Duration::from_millis(100));
        }
        ok
    });
    assert!(up, "redis-server on 127.0.0.1:{port} did not accept connections within 5 s");
    Some((server, port))
}

/// One GET on a fresh connection, bounded: (status, body).
pub fn http_get(port: u16, path: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

pub fn load_json(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// An HTTP/1.1 target on 127.0.0.1 that answers its first `answered` requests (200, `{}`) and
/// then reads every request and never answers; its threads end on drop.
pub struct Stalling {
    pub addr: std::net::SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    accepts: Option<std::thread::JoinHandle<()>>,
}

impl Stalling {
    pub fn start(answered: u64) -> Stalling {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let count = Arc::new(AtomicU64::new(0));
        let stopping = Arc::clone(&stop);
        let accepts = std::thread::spawn(move || {
            let mut connections = Vec::new();
            // Bounded: at most 1000 connections, and the test's life.
            while !stopping.load(SeqCst) && connections.len() < 1000 {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        let (stopping, count) = (Arc::clone(&stopping), Arc::clone(&count));
                        connections.push(std::thread::spawn(move || {
                            stream.set_nonblocking(false).unwrap();
                            stream.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
                            let (mut pending, mut chunk) = (Vec::new(), [0u8; 4096]);
                            while !stopping.load(SeqCst) {
                                match stream.read(&mut chunk) {
                                    Ok(0) => return,
                                    Ok(n) => pending.extend_from_slice(&chunk[..n]),
                                    Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => continue,
                                    Err(_) => return,
                                }
                                while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                                    pending.drain(..end + 4);
                                    if count.fetch_add(1, SeqCst) < answered
                                        && stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}").is_err()
                                    {
                                        return;
                                    }
                                }
                            }
                        }));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(5)),
                    Err(_) => break,
                }
            }
            for c in connections {
                let _ = c.join();
            }
        });
        Stalling {
            addr,
            stop,
            accepts: Some(accepts),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/x", self.addr)
    }
}

impl Drop for Stalling {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(a) = self.accepts.take() {
            let _ = a.join();
        }
    }
}

/// `ab` and `alloc` judge no time when other programs used the pair's CPU past
/// `--max-other-cpu` (exit 3). The suite runs its tests side by side on two cores, so the tests
/// of the pairing itself judge time whatever else ran;
/// `other_work_on_the_pairs_cpu_past_the_limit_judges_no_time_and_exits_3` tests the limit.
pub const JUDGE_ON_A_BUSY_MACHINE: [&str; 2] = ["--max-other-cpu", "100000%"];

/// Runs `cmd`'s process under an address-space limit (RLIMIT_AS) of `bytes`, set between fork
/// and exec, so a test that could eat memory cannot take the machine with it.
pub fn limit_address_space(cmd: &mut std::process::Command, bytes: libc::rlim_t) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
