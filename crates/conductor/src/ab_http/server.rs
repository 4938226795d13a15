//! A user's server as jsoncost runs it: started from a command line (`{port}` filled with a free
//! port on 127.0.0.1), or reached at a URL; its stderr kept in the private directory for the
//! message when it fails; stopped and reaped by its process group whatever happens
//! ([`kill_started_servers`] for a process about to exit without unwinding). `ab --http` starts
//! one per build; `http --server-cmd` starts one to load and profile ([`launch`]).

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jsoncost_engine::{Placement, private_dir};
use jsoncost_http::loadgen;

use super::pin::{self, Plan};
use crate::Error;

/// How one side's server is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSpec {
    /// A command line started here (program, arguments; no shell): `{port}` in any word is
    /// replaced by a free port on 127.0.0.1, where the server is then reached.
    Command(Vec<String>),
    /// A server already running at `url` (`http://host:port`); with its `pid`, its CPU and RSS
    /// are read from /proc.
    Running {
        /// `http://host:port`.
        url: String,
        /// The server's process, for its CPU and RSS.
        pid: Option<u32>,
    },
}

/// One side's server while the A/B runs.
pub struct Server {
    pub(super) name: &'static str,
    /// `http://127.0.0.1:PORT`, without a trailing `/`.
    pub url: String,
    /// Its process, when known.
    pub pid: Option<u32>,
    /// The port on 127.0.0.1 it was started on (`{port}`); `None` for one reached by URL.
    pub port: Option<u16>,
    /// Started here: stopped and reaped at the end.
    child: Option<Child>,
    stderr: Option<PathBuf>,
    /// Its command line or URL, as the tables name it.
    pub(super) described: String,
    pub(super) placement: Placement,
}

impl Server {
    /// The last lines of its stderr (what it said before failing), or "" when it is not ours.
    pub fn stderr_tail(&self) -> String {
        let Some(path) = &self.stderr else { return String::new() };
        let Ok(mut f) = std::fs::File::open(path) else {
            return String::new();
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = f.seek(SeekFrom::Start(len.saturating_sub(2048)));
        let mut tail = String::new();
        let _ = f.read_to_string(&mut tail);
        let tail = tail.trim();
        if tail.is_empty() {
            "; its stderr is empty".to_string()
        } else {
            format!("; its stderr ends:\n{tail}")
        }
    }

    /// Exited already: how.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.as_mut()?.try_wait().ok().flatten()
    }

    /// SIGTERM to its process group, SIGKILL after 2 s, then reaped; its stderr file removed.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let group = child.id() as libc::pid_t;
            // SAFETY: signalling the process group this code created (`process_group(0)`).
            unsafe { libc::kill(-group, libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(2);
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: as above; a group already gone makes it a no-op.
            unsafe { libc::kill(-group, libc::SIGKILL) };
            let _ = child.kill();
            let _ = child.wait();
            // Reaped: no longer for a second Ctrl-C to kill (until then it still is).
            STARTED.lock().unwrap_or_else(|p| p.into_inner()).retain(|g| *g != group);
        }
        if let Some(path) = self.stderr.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The process groups of the servers started here and not yet stopped, for
/// [`kill_started_servers`].
static STARTED: std::sync::Mutex<Vec<libc::pid_t>> = std::sync::Mutex::new(Vec::new());

/// SIGKILLs the process group of every server started here and not yet stopped, and reaps
/// each (within a second): for a process about to exit without unwinding (a second Ctrl-C),
/// which would otherwise leave them running.
pub fn kill_started_servers() {
    let groups = std::mem::take(&mut *STARTED.lock().unwrap_or_else(|p| p.into_inner()));
    for group in groups {
        // SAFETY: a process group this code created; reaping only its leader, our child.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let deadline = Instant::now() + Duration::from_secs(1);
        while unsafe { libc::waitpid(group, std::ptr::null_mut(), libc::WNOHANG) } == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// A free port on 127.0.0.1 (bound, then released for the server).
fn free_port() -> Result<u16, Error> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| Error::environment(format!("finding a free port: {e}")))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| Error::environment(format!("finding a free port: {e}")))
}

/// The names of the servers' stderr files in the private directory: `ab-http-<pid>-<name>.stderr`.
const STDERR_PREFIX: &str = "ab-http";

/// Where a server's stderr goes: the per-user private directory, where no other user can plant
/// a link; files a killed conductor left there are removed first ([`private_dir::reclaim`]).
fn stderr_file(name: &str) -> Result<PathBuf, Error> {
    let dir = private_dir::dir().map_err(|e| Error::environment(e.to_string()))?;
    private_dir::reclaim(&dir, STDERR_PREFIX);
    Ok(dir.join(format!("{STDERR_PREFIX}-{}-{name}.stderr", std::process::id())))
}

/// Creates `path` anew (`O_EXCL|O_NOFOLLOW`). One already there is an earlier process's of the
/// same pid (the directory is this user's alone): it is removed and the creation tried once more.
fn create_stderr(path: &Path) -> std::io::Result<std::fs::File> {
    match private_dir::create_new(path) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            private_dir::create_new(path)
        }
        other => other,
    }
}

pub(super) fn start(name: &'static str, spec: &ServerSpec, plan: &Plan) -> Result<Server, Error> {
    let words = match spec {
        ServerSpec::Running { url, pid } => {
            return Ok(Server {
                name,
                url: url.trim_end_matches('/').to_string(),
                port: None,
                pid: *pid,
                child: None,
                stderr: None,
                described: url.clone(),
                placement: plan.placement(false),
            });
        }
        ServerSpec::Command(words) => words,
    };
    let Some((program, args)) = words.split_first() else {
        return Err(Error::usage(format!("--{name}-cmd is empty")));
    };
    let port_number = free_port()?;
    let port = port_number.to_string();
    let fill = |w: &String| w.replace("{port}", &port);
    let stderr_path = stderr_file(name)?;
    let stderr = create_stderr(&stderr_path).map_err(|e| Error::environment(format!("{}: {e}", stderr_path.display())))?;
    let mut command = Command::new(fill(program));
    // A server must not outlive a killed conductor (it would listen for ever).
    crate::children::die_with_parent(&mut command);
    command
        .args(args.iter().map(fill))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .process_group(0);
    if let Some(cpus) = plan.servers() {
        pin::pin_child(&mut command, cpus);
    }
    let child = command.spawn().map_err(|e| {
        let _ = std::fs::remove_file(&stderr_path);
        Error::environment(format!("starting the {name} server ({program}): {e}"))
    })?;
    STARTED.lock().unwrap_or_else(|p| p.into_inner()).push(child.id() as libc::pid_t);
    Ok(Server {
        name,
        url: format!("http://127.0.0.1:{port}"),
        port: Some(port_number),
        pid: Some(child.id()),
        child: Some(child),
        stderr: Some(stderr_path),
        described: words.join(" "),
        placement: plan.placement(true),
    })
}

/// Waits until `server` answers GET `path` with a 2xx, within `timeout`.
pub(super) fn ready(server: &mut Server, path: &str, timeout: Duration, rt: &tokio::runtime::Runtime) -> Result<(), Error> {
    let deadline = Instant::now() + timeout;
    let url = format!("{}{path}", server.url);
    let mut last = String::from("no answer");
    loop {
        if let Some(status) = server.exited() {
            return Err(Error::environment(format!(
                "the {} server exited ({status}) before it answered GET {path}{}",
                server.name,
                server.stderr_tail()
            )));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::environment(format!(
                "the {} server at {} did not answer GET {path} with a 2xx within {} s (last: {last}){}",
                server.name,
                server.url,
                timeout.as_secs_f64(),
                server.stderr_tail()
            )));
        }
        // The status only: a server's body is not held (one announcing an endless body
        // must not grow this process).
        match rt.block_on(loadgen::status_of(&url, left.min(Duration::from_secs(1)))) {
            Ok(status) if (200..300).contains(&status) => return Ok(()),
            Ok(status) => last = format!("status {status}"),
            Err(e) => last = e.message,
        }
        std::thread::sleep(Duration::from_millis(50).min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// Starts `words` (`{port}` in any word filled with a free port on 127.0.0.1) as `name`'s
/// server, unpinned, and waits until GET `ready_path` answers a 2xx within `timeout`.
pub fn launch(name: &'static str, words: &[String], ready_path: &str, timeout: Duration) -> Result<Server, Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::environment(format!("starting a runtime: {e}")))?;
    let plan = Plan::None("one server".to_string());
    let mut server = start(name, &ServerSpec::Command(words.to_vec()), &plan)?;
    ready(&mut server, ready_path, timeout, &rt)?;
    Ok(server)
}
