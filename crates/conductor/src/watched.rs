//! A child that answers a line per case, watched: started so it dies with its conductor, its
//! stdout read a line at a time from a thread, its stderr kept (the first 64 KiB) to say why it
//! died, killed by its own handle (its PID) when it overruns, and its death read as a crash
//! (`SIGABRT (stack overflow)`, `SIGABRT (out of memory: …)`, a panic's line, a signal, an
//! exit code). The safety experiment's parent runs every hostile case in such a child; what a
//! line means is the caller's.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jsoncost_engine::safety::CrashCause;

use crate::children::die_with_parent;

/// Bytes of a child's stderr kept to tell why it died.
const STDERR_KEPT: u64 = 64 * 1024;
/// How long a child that closed its stdout may take to exit before it is killed.
pub const EXIT_GRACE: Duration = Duration::from_secs(5);

/// A running child, its stdout as lines and its stderr kept.
pub struct Watched {
    process: Child,
    lines: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
}

/// What waiting for the child's next line gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// A line it wrote.
    Line(String),
    /// Nothing within the wait: it is still working (or stuck).
    Quiet,
    /// Its stdout closed: it ended, or is ending.
    Closed,
}

impl Watched {
    /// Starts `command` with stdin closed and stdout and stderr piped, to die with this
    /// process's thread (see [`die_with_parent`]).
    pub fn spawn(mut command: Command) -> std::io::Result<Watched> {
        die_with_parent(&mut command);
        let mut process = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let lines = read_lines(&mut process);
        let stderr = read_stderr(&mut process);
        Ok(Watched { process, lines, stderr })
    }

    /// Its next line, waiting at most `wait`.
    pub fn next(&self, wait: Duration) -> Next {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Next::Line(line),
            Err(mpsc::RecvTimeoutError::Timeout) => Next::Quiet,
            Err(mpsc::RecvTimeoutError::Disconnected) => Next::Closed,
        }
    }

    /// Kills it (SIGKILL to its own PID) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }

    /// Its exit status, waiting at most [`EXIT_GRACE`] (then it is killed).
    pub fn wait_bounded(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            match self.process.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => {
                    self.kill();
                    return self.process.try_wait().ok().flatten();
                }
            }
        }
    }

    /// What it wrote on stderr (its first 64 KiB), once that closes, waiting at most
    /// [`EXIT_GRACE`]; empty if it does not close by then.
    pub fn stderr(&self) -> String {
        self.stderr.recv_timeout(EXIT_GRACE).unwrap_or_default()
    }

    /// Why it died: its status read after its stdout closed, with its stderr.
    pub fn crash(&mut self) -> (Option<ExitStatus>, String, (String, CrashCause)) {
        let status = self.wait_bounded();
        let stderr = self.stderr();
        let crash = crash(status, &stderr);
        (status, stderr, crash)
    }
}

/// The child's stdout, a line at a time, from a thread (ends when the child's stdout closes).
fn read_lines(process: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stdout = process.stdout.take().expect("stdout was piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The child's stderr (its first 64 KiB), once it closes; what is past the bound is drained so
/// the child never blocks on a full pipe.
fn read_stderr(process: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stderr = process.stderr.take().expect("stderr was piped");
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut stderr = stderr;
        let _ = (&mut stderr).take(STDERR_KEPT).read_to_end(&mut kept);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
    });
    rx
}

/// Why a child died, from its status and what it printed: the message (`SIGABRT (stack
/// overflow)`, `SIGABRT (out of memory: …)`, `SIGSEGV`, a panic's line, or its exit code) and
/// the cause as data.
pub fn crash(status: Option<ExitStatus>, stderr: &str) -> (String, CrashCause) {
    let printed = if stderr.contains("has overflowed its stack") {
        Some(("stack overflow".to_string(), CrashCause::StackOverflow))
    } else if let Some(line) = stderr.lines().find(|l| l.contains("memory allocation of")) {
        Some((format!("out of memory under the limit: {}", line.trim()), CrashCause::OutOfMemory))
    } else {
        stderr
            .lines()
            .find(|l| l.contains("panicked"))
            .map(|l| (shorten(l.trim()), CrashCause::Panic))
    };
    let (how, status_cause) = match status.map(|s| (s.signal(), s.code())) {
        Some((Some(sig), _)) => (signal_name(sig), CrashCause::Signal(signal_name(sig))),
        Some((None, Some(code))) => (format!("exit code {code}"), CrashCause::Exit(code)),
        Some((None, None)) | None => ("no exit status".to_string(), CrashCause::Unknown),
    };
    match printed {
        Some((what, cause)) => (format!("{how} ({what})"), cause),
        None => (how, status_cause),
    }
}

fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGFPE => "SIGFPE".into(),
        other => format!("signal {other}"),
    }
}

/// A message on one line, at most 160 characters (an ellipsis ends a longer one): a table
/// cell's worth, as a library may quote a whole 64 MiB string.
pub fn shorten(message: &str) -> String {
    const MAX: usize = 160;
    let one_line = message.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= MAX {
        return one_line;
    }
    let head: String = one_line.chars().take(MAX - 1).collect();
    format!("{head}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Watched {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        Watched::spawn(command).unwrap()
    }

    #[test]
    fn lines_come_as_written_then_a_death_is_read_from_the_status_and_stderr() {
        let mut child = sh("echo one; echo two; echo \"thread 'main' panicked at x.rs:1:1\" >&2; exit 101");
        assert_eq!(child.next(Duration::from_secs(5)), Next::Line("one".into()));
        assert_eq!(child.next(Duration::from_secs(5)), Next::Line("two".into()));
        assert_eq!(child.next(Duration::from_secs(5)), Next::Closed);
        let (status, _, (message, cause)) = child.crash();
        assert_eq!(status.and_then(|s| s.code()), Some(101));
        assert_eq!(message, "exit code 101 (thread 'main' panicked at x.rs:1:1)");
        assert_eq!(cause, CrashCause::Panic);
    }

    #[test]
    fn a_quiet_child_is_killed_by_its_pid_and_its_signal_named() {
        let mut child = sh("sleep 30");
        assert_eq!(child.next(Duration::from_millis(50)), Next::Quiet);
        child.kill();
        let (message, cause) = crash(child.process.try_wait().ok().flatten(), "");
        assert_eq!((message.as_str(), cause), ("SIGKILL", CrashCause::Signal("SIGKILL".into())));
    }

    #[test]
    fn a_long_message_is_one_line_of_at_most_160_characters() {
        assert_eq!(shorten("a\nb"), "a b");
        let long = shorten(&"x".repeat(500));
        assert_eq!((long.chars().count(), long.ends_with('…')), (160, true));
    }
}
