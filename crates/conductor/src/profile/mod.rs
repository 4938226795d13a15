//! A running server's CPU profile under jsoncost's load (`http --target … --profile`,
//! `ab --http --profile`): Linux perf samples the process's on-CPU stacks with its software
//! clock event (`cpu-clock`, which needs no hardware counter, so it works on a VM), the samples
//! taken during the load are attributed (a sample is JSON work when a frame on its stack is),
//! and the share comes with its interval over time slices.
//!
//! The recording: `perf record -e cpu-clock -F HZ --call-graph dwarf -k monotonic -p PID`
//! started with its events off (`-D -1`) and a control FIFO, so [`Recording::start`] returns
//! once perf acknowledged sampling (no guess at when it attached); its samples' times are on
//! CLOCK_MONOTONIC, the clock the load's windows are read on ([`now_ns`]), so the samples of
//! each load window are told apart from those around it. [`Recording::finish`] stops perf
//! (SIGINT: it writes its file), reads it back with `perf script` and analyses it. Every wait is
//! bounded; perf is a child that dies with its parent; its files live in the private directory.
//!
//! DWARF unwinding copies each sample's user stack (`--call-graph dwarf,SIZE`) and unwinds it
//! with the binary's `.eh_frame`, which a release build has as cargo makes it: no frame pointers
//! and no debug info are needed, only the symbol table (cargo's release default keeps it).
//! Inlined frames are folded into the function they were inlined in: perf names them only
//! through addr2line, at ~30 ms a sample (`--no-inline`).

pub mod analyze;
pub mod attribute;
mod binary;
pub mod script;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jsoncost_engine::private_dir;
use jsoncost_engine::profile::{ServerProfile, Unwinding};

pub use analyze::Window;

/// What went wrong, worded for the reader; each names what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// perf is not installed or does not run here.
    #[error("{0}")]
    Perf(String),
    /// The kernel or the user's rights forbid sampling the process.
    #[error("{0}")]
    Forbidden(String),
    /// No such process, or it exited.
    #[error("{0}")]
    Process(String),
    /// The binary has no symbols to name frames with.
    #[error("{0}")]
    NoSymbols(String),
    /// Anything else about running perf (a file, a time limit).
    #[error("{0}")]
    Io(String),
}

/// How to sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileSettings {
    /// Samples per second per running thread.
    pub frequency_hz: u32,
    /// How stacks are walked.
    pub unwinding: Unwinding,
    /// Bytes of user stack copied per sample (DWARF unwinding).
    pub stack_bytes: u32,
    /// The perf program (from PATH by default).
    pub perf: PathBuf,
    /// Slices of the share's interval, for a load run of its own.
    pub slice: Duration,
}

impl Default for ProfileSettings {
    fn default() -> Self {
        ProfileSettings {
            frequency_hz: DEFAULT_FREQUENCY_HZ,
            unwinding: Unwinding::Dwarf,
            stack_bytes: 16 * 1024,
            perf: PathBuf::from("perf"),
            slice: Duration::from_millis(100),
        }
    }
}

/// Default samples per second per thread: a prime (no lockstep with timers), low enough that
/// copying 16 KiB of stack per sample costs the server little.
pub const DEFAULT_FREQUENCY_HZ: u32 = 499;

/// The longest `perf script` may take to read a recording back.
const SCRIPT_LIMIT: Duration = Duration::from_secs(300);
/// The longest perf may take to acknowledge a control command.
const ACK_LIMIT: Duration = Duration::from_secs(15);
/// The largest recording perf may write (`--max-size`): with 16 KiB of stack a sample, about
/// 65,000 samples, which `perf script` gives back as at most a few hundred MB of frames.
const MAX_RECORDING: &str = "1G";

/// CLOCK_MONOTONIC now, ns: the clock perf's samples are stamped with (`-k monotonic`).
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to fill; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Whether this process may sample the kernel's frames of another (root, or
/// `perf_event_paranoid` at most 1), or only user frames (paranoid 2), or nothing (3 and above,
/// Debian's default, or 2 for another user's process).
fn access(pid: u32) -> Result<bool, ProfileError> {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    let paranoid: i32 = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(2);
    let owner = owner_uid(pid)?;
    if euid == 0 {
        return Ok(true);
    }
    if owner != euid {
        return Err(ProfileError::Forbidden(format!(
            "process {pid} belongs to uid {owner}, not to you (uid {euid}): perf samples only your own processes unless run as root (or with CAP_PERFMON)"
        )));
    }
    match paranoid {
        p if p <= 1 => Ok(true),
        2 => Ok(false),
        p => Err(ProfileError::Forbidden(format!(
            "kernel.perf_event_paranoid is {p}: perf may not sample as an unprivileged user; set it to 2 (user-space stacks) or 1 (kernel's too): sudo sysctl kernel.perf_event_paranoid=1"
        ))),
    }
}

fn owner_uid(pid: u32) -> Result<u32, ProfileError> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|_| ProfileError::Process(format!("no process {pid}: is the server running?")))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|u| u.parse().ok())
        .ok_or_else(|| ProfileError::Process(format!("process {pid}: /proc/{pid}/status names no user")))
}

/// perf's version line, or why perf cannot run (Debian's `perf` is a wrapper that refuses when
/// no perf matches the running kernel: its message is passed on).
fn perf_version(perf: &Path) -> Result<String, ProfileError> {
    let out = Command::new(perf).arg("--version").stdin(Stdio::null()).output().map_err(|e| {
        ProfileError::Perf(if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{} not found: install Linux perf (Debian: apt-get install linux-perf)",
                perf.display()
            )
        } else {
            format!("cannot run {}: {e}", perf.display())
        })
    })?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !text.starts_with("perf version") {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(ProfileError::Perf(format!(
            "{} does not run here: {}",
            perf.display(),
            err.lines().next().unwrap_or(text.as_str())
        )));
    }
    Ok(text)
}

/// A FIFO in the private directory, made anew.
fn fifo(dir: &Path, name: &str) -> Result<PathBuf, ProfileError> {
    let path = dir.join(name);
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| ProfileError::Io(e.to_string()))?;
    // SAFETY: a NUL-terminated path; mkfifo creates nothing when one exists.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(ProfileError::Io(format!("{}: {}", path.display(), std::io::Error::last_os_error())));
    }
    Ok(path)
}

/// A recording under way.
pub struct Recording {
    pid: u32,
    settings: ProfileSettings,
    kernel: bool,
    dir: PathBuf,
    data: PathBuf,
    perf: Option<Child>,
    control: std::fs::File,
    ack: BufReader<std::fs::File>,
    command: Option<String>,
}

/// The names of recordings' scratch directories in the private directory.
const SCRATCH_PREFIX: &str = "profile";

impl Recording {
    /// Checks that `pid` can be sampled, starts perf on it and waits until it samples.
    pub fn start(pid: u32, settings: &ProfileSettings) -> Result<Recording, ProfileError> {
        perf_version(&settings.perf)?;
        let kernel = access(pid)?;
        let exe = std::fs::read_link(format!("/proc/{pid}/exe"))
            .map_err(|e| ProfileError::Process(format!("process {pid}: its program cannot be read ({e})")))?;
        let binary = binary::BinaryFacts::read(&exe);
        if binary.stripped {
            return Err(ProfileError::NoSymbols(format!(
                "no symbols: {} is stripped, so no frame can be named; build it without `strip = true` (cargo's release default, strip = \"debuginfo\", keeps them)",
                exe.display()
            )));
        }
        let command = std::fs::read(format!("/proc/{pid}/cmdline")).ok().map(|b| {
            b.split(|c| *c == 0)
                .filter(|w| !w.is_empty())
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        });
        let base = private_dir::dir().map_err(|e| ProfileError::Io(e.to_string()))?;
        private_dir::reclaim(&base, SCRATCH_PREFIX);
        let dir = private_dir::scratch_dir(&base, SCRATCH_PREFIX).map_err(|e| ProfileError::Io(format!("{}: {e}", base.display())))?;
        let cleanup = |e| {
            let _ = std::fs::remove_dir_all(&dir);
            e
        };
        let ctl = fifo(&dir, "ctl").map_err(cleanup)?;
        let ack = fifo(&dir, "ack").map_err(cleanup)?;
        let data = dir.join("perf.data");
        let event = if kernel { "cpu-clock" } else { "cpu-clock:u" };
        let call_graph = match settings.unwinding {
            Unwinding::Dwarf => format!("dwarf,{}", settings.stack_bytes),
            Unwinding::Fp => "fp".to_string(),
        };
        let mut command_line = Command::new(&settings.perf);
        crate::children::die_with_parent(&mut command_line);
        command_line
            .args(["record", "-q", "-e", event, "-F"])
            .arg(settings.frequency_hz.to_string())
            .args([
                "--call-graph",
                &call_graph,
                "-k",
                "monotonic",
                "-D",
                "-1",
                "--max-size",
                MAX_RECORDING,
            ])
            .arg(format!("--control=fifo:{},{}", ctl.display(), ack.display()))
            .arg("-o")
            .arg(&data)
            .args(["-p", &pid.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command_line
            .spawn()
            .map_err(|e| cleanup(ProfileError::Perf(format!("starting {}: {e}", settings.perf.display()))))?;
        let opened = open_control(&ctl, &ack, &mut child, pid);
        let (control, ack) = match opened {
            Ok(files) => files,
            Err(e) => {
                stop_child(&mut child);
                return Err(cleanup(e));
            }
        };
        let mut recording = Recording {
            pid,
            settings: settings.clone(),
            kernel,
            dir,
            data,
            perf: Some(child),
            control,
            ack: BufReader::new(ack),
            command,
        };
        recording.command_acked("enable")?;
        Ok(recording)
    }

    /// Sends `word` to perf's control FIFO and waits for its acknowledgement.
    fn command_acked(&mut self, word: &str) -> Result<(), ProfileError> {
        writeln!(self.control, "{word}").map_err(|e| ProfileError::Io(format!("perf's control: {e}")))?;
        let deadline = Instant::now() + ACK_LIMIT;
        let mut line = String::new();
        loop {
            match self.ack.read_line(&mut line) {
                Ok(_) if line.ends_with('\n') => return Ok(()),
                Ok(0) => {
                    if let Some(status) = self.perf.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                        let why = self.perf_stderr();
                        return Err(perf_failure(self.pid, status, &why));
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(ProfileError::Io(format!("perf's acknowledgement: {e}"))),
            }
            if Instant::now() > deadline {
                return Err(ProfileError::Perf(format!(
                    "perf did not acknowledge {word:?} within {} s",
                    ACK_LIMIT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn perf_stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(err) = self.perf.as_mut().and_then(|c| c.stderr.as_mut()) {
            let _ = err.take(64 * 1024).read_to_string(&mut text);
        }
        text
    }

    /// The process sampled.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Stops sampling and reads the samples of `windows`, batched in slices of `slice_ns`, into
    /// a profile of `requests` requests. `cpu_ns`: the server's CPU time over the windows, when
    /// known.
    pub fn finish(mut self, windows: &[Window], slice_ns: u64, requests: u64, cpu_ns: Option<u64>) -> Result<ServerProfile, ProfileError> {
        let exited = jsoncost_engine::cpu_time::has_exited(self.pid);
        // perf stops by itself when its process exits; otherwise it is told to stop.
        if !exited {
            let _ = self.command_acked("disable");
        }
        let mut child = self.perf.take().expect("perf runs until finished");
        // SAFETY: signalling our own child, not yet reaped.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        let status = wait_bounded(&mut child, Duration::from_secs(30));
        let mut err = String::new();
        if let Some(e) = child.stderr.as_mut() {
            let _ = e.take(64 * 1024).read_to_string(&mut err);
        }
        if !self.data.exists() {
            return Err(match status {
                Some(s) => perf_failure(self.pid, s, &err),
                None => ProfileError::Perf("perf did not stop within 30 s".into()),
            });
        }
        let samples = self.script()?;
        let analysis = analyze::analyze(&samples, windows, slice_ns);
        // A process that exited during the load keeps the samples taken before (the load's
        // own results say what failed); without one there is nothing to say.
        if exited && analysis.samples == 0 {
            return Err(ProfileError::Process(format!(
                "process {} exited during the load before any sample was taken",
                self.pid
            )));
        }
        let user = analysis.samples - analysis.kernel_samples;
        if user > 0 && analysis.unresolved_samples * 2 > user {
            return Err(ProfileError::NoSymbols(format!(
                "no symbols for most samples ({} of {}): the server's binary has none perf can read; build it without `strip = true`",
                analysis.unresolved_samples, analysis.samples
            )));
        }
        let mut advice = Vec::new();
        if self.settings.unwinding == Unwinding::Fp {
            advice.push("frame-pointer stacks are whole only for code built with `-C force-frame-pointers=yes`".to_string());
        }
        if !self.kernel {
            advice.push("kernel time is not sampled (perf_event_paranoid 2): the share is of the server's user-space CPU".to_string());
        }
        Ok(ServerProfile {
            pid: self.pid,
            command: self.command.clone(),
            event: if self.kernel { "cpu-clock" } else { "cpu-clock:u" }.to_string(),
            frequency_hz: self.settings.frequency_hz,
            unwinding: self.settings.unwinding,
            kernel: self.kernel,
            slice_ms: slice_ns as f64 / 1e6,
            cpu_ns_per_request: cpu_ns.filter(|_| requests > 0).map(|c| c as f64 / requests as f64),
            requests,
            advice,
            flamegraph: None,
            sampled: analysis,
        })
    }

    /// `perf script` over the recording, read as it is written, within [`SCRIPT_LIMIT`].
    fn script(&self) -> Result<Vec<script::Sample>, ProfileError> {
        let mut command = Command::new(&self.settings.perf);
        crate::children::die_with_parent(&mut command);
        let mut child = command
            // Without inlined frames: perf names them through addr2line at ~30 ms a sample.
            .args(["script", "--no-demangle", "--no-inline", "-F", script::SCRIPT_FIELDS, "--ns", "-i"])
            .arg(&self.data)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ProfileError::Perf(format!("starting perf script: {e}")))?;
        let pid = child.id();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchdog = {
            let done = done.clone();
            std::thread::spawn(move || {
                let deadline = Instant::now() + SCRIPT_LIMIT;
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    if Instant::now() > deadline {
                        // SAFETY: our child, not yet reaped (the reader waits for it below).
                        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                        return true;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                false
            })
        };
        let stdout = child.stdout.take().expect("piped");
        let samples = script::read(BufReader::new(stdout));
        let _ = child.wait();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        if watchdog.join().unwrap_or(false) {
            return Err(ProfileError::Io(format!(
                "perf script did not read the recording back within {} s",
                SCRIPT_LIMIT.as_secs()
            )));
        }
        Ok(samples)
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if let Some(mut child) = self.perf.take() {
            stop_child(&mut child);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Why perf stopped, from its status and stderr.
fn perf_failure(pid: u32, status: std::process::ExitStatus, stderr: &str) -> ProfileError {
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    if stderr.contains("No such process") || jsoncost_engine::cpu_time::has_exited(pid) {
        return ProfileError::Process(format!("process {pid} exited before it could be sampled"));
    }
    if stderr.contains("perf_event_paranoid") || stderr.contains("Permission denied") || stderr.contains("Access to performance monitoring")
    {
        return ProfileError::Forbidden(format!(
            "perf may not sample process {pid}: {first} (kernel.perf_event_paranoid, or run as the server's user)"
        ));
    }
    ProfileError::Perf(format!("perf record failed ({status}): {first}"))
}

/// Opens the control FIFO for writing and the acknowledgement FIFO for reading, both without
/// blocking on a perf that never opens its ends (it failed to start): bounded by [`ACK_LIMIT`].
fn open_control(ctl: &Path, ack: &Path, child: &mut Child, pid: u32) -> Result<(std::fs::File, std::fs::File), ProfileError> {
    // Reading end first, non-blocking: succeeds at once.
    let ack_file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(ack)
        .map_err(|e| ProfileError::Io(format!("{}: {e}", ack.display())))?;
    let deadline = Instant::now() + ACK_LIMIT;
    loop {
        // Writing end, non-blocking: ENXIO until perf opened the reading end.
        match std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(ctl) {
            Ok(f) => return Ok((f, ack_file)),
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {}
            Err(e) => return Err(ProfileError::Io(format!("{}: {e}", ctl.display()))),
        }
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            if let Some(e) = child.stderr.as_mut() {
                let _ = e.take(64 * 1024).read_to_string(&mut err);
            }
            return Err(perf_failure(pid, status, &err));
        }
        if Instant::now() > deadline {
            return Err(ProfileError::Perf(format!("perf did not start within {} s", ACK_LIMIT.as_secs())));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits for `child` up to `limit`; `None` if it is still running (then it is killed and reaped).
fn wait_bounded(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// SIGINT, then SIGKILL after 2 s; reaped.
fn stop_child(child: &mut Child) {
    // SAFETY: our own child, not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    wait_bounded(child, Duration::from_secs(2));
}
