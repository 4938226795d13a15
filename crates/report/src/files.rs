//! Reading and writing results files. Load errors name the file and what was wrong with it.
//! Writes go to what the path is ([`write_output`]): a regular file (or a new path) gets a
//! temporary file in its directory renamed over it, so an interrupted run never leaves half a
//! file; a device, a FIFO or `/dev/stdout` is opened and written; a symlink is written
//! through (its target replaced, the link kept); a directory is refused. Reads of anything
//! but a regular file wait a bounded time for data and give up on a signal, so a FIFO with no
//! writer never hangs a command.

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use jsoncost_engine::{Results, SCHEMA_VERSION};
use serde_json::Value;
use serde_json::error::Category;

use crate::error::ReportError;
use crate::format::json::pretty;

/// Largest results file [`load`] reads: far above any run's (a whole `jsoncost run` writes a
/// few MB), and a bound for a path that names a device or a pipe.
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// Reads and checks a results file.
pub fn load(path: &Path) -> Result<Results, ReportError> {
    let bytes = read_limited(path, MAX_RESULTS_BYTES).map_err(|e| match e {
        ReadError::Io(cause) => ReportError::Io {
            path: path.to_path_buf(),
            cause,
        },
        ReadError::TooLarge { limit } => ReportError::TooLarge {
            path: path.to_path_buf(),
            limit,
        },
    })?;
    parse(path, &bytes)
}

/// Why [`read_limited`] returned no bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Reading failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// The source holds more than the limit.
    #[error("it holds more than {limit} bytes")]
    TooLarge {
        /// The limit, bytes.
        limit: u64,
    },
}

/// How long a read of a FIFO, a socket or a device waits for its next bytes before it gives
/// up (a FIFO nobody writes to, a writer that stalled).
pub const READ_IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a write to a FIFO waits for a reader to open it.
pub const WRITE_READER_TIMEOUT: Duration = Duration::from_secs(10);

/// How often a waiting read or write looks at the stop check.
const WAIT_SLICE: Duration = Duration::from_millis(50);

static STOP_CHECK: OnceLock<fn() -> bool> = OnceLock::new();

/// Makes every wait of this module (a read for a FIFO's data, a write for its reader) end
/// once `stop` returns true: the CLI passes its signal flag. A process-wide hook because the
/// reads happen deep inside library calls (`micro --payload`, `compare`) that carry no cancel
/// flag; the first call wins.
pub fn stop_waiting_when(stop: fn() -> bool) {
    let _ = STOP_CHECK.set(stop);
}

fn should_stop() -> bool {
    STOP_CHECK.get().is_some_and(|stop| stop())
}

/// Reads a whole file, at most `limit` bytes. The bound holds while reading, not from the
/// file's size, so a device (/dev/zero) or a pipe that never ends is refused after `limit`
/// bytes instead of filling memory. Opening never blocks (a FIFO with no writer), and a file
/// that is not regular is read waiting at most [`READ_IDLE_TIMEOUT`] for each next bytes.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_limited_within(path, limit, READ_IDLE_TIMEOUT)
}

/// [`read_limited`] with `idle` as the longest wait for a non-regular file's next bytes.
pub fn read_limited_within(path: &Path, limit: u64, idle: Duration) -> Result<Vec<u8>, ReadError> {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait (in the kernel, deaf to the
    // signal flag) until some process opens it for writing.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(ReadError::Io)?;
    let kind = file.metadata().map_err(ReadError::Io)?.file_type();
    let mut bytes = Vec::new();
    let cap = limit.saturating_add(1);
    if kind.is_file() || kind.is_dir() {
        // A regular file never blocks; a directory fails its read with EISDIR.
        (&file).take(cap).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    } else {
        read_waiting(&file, cap, idle, &mut bytes)?;
    }
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// Reads `file` (non-blocking) to its end or `cap` bytes, waiting with poll(2) at most `idle`
/// for each next bytes and stopping when [`should_stop`] says so. Poll comes first: a FIFO no
/// writer has opened yet reads as its end, but polls as nothing yet (Linux reports its hang-up
/// only once a writer has come and gone).
fn read_waiting(file: &std::fs::File, cap: u64, idle: Duration, bytes: &mut Vec<u8>) -> Result<(), ReadError> {
    use std::os::fd::AsRawFd;
    let mut buf = vec![0u8; 1 << 16];
    let mut waiting_since = Instant::now();
    while (bytes.len() as u64) < cap {
        let mut fd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        let ready = unsafe { libc::poll(&mut fd, 1, WAIT_SLICE.as_millis() as libc::c_int) };
        if ready <= 0 {
            // A timeout, or EINTR: look at the flag and the clock, then wait again.
            if should_stop() {
                return Err(ReadError::Io(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    "stopped by a signal while waiting for data",
                )));
            }
            if waiting_since.elapsed() >= idle {
                let what = if bytes.is_empty() {
                    "nothing arrived"
                } else {
                    "no more data arrived"
                };
                return Err(ReadError::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "{what} for {} s (not a regular file: a FIFO with no writer, or a writer that stalled)",
                        idle.as_secs_f64()
                    ),
                )));
            }
            continue;
        }
        let want = buf.len().min((cap - bytes.len() as u64) as usize);
        match (&*file).read(&mut buf[..want]) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                bytes.extend_from_slice(&buf[..n]);
                waiting_since = Instant::now();
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock) => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
    Ok(())
}

/// Checks and decodes the bytes of a results file; `path` is only used in errors.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Results, ReportError> {
    let path_buf = || path.to_path_buf();
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReportError::Empty { path: path_buf() });
    }
    // First as plain JSON, so syntax errors and the schema version are reported before any
    // complaint about fields a newer or older schema names differently.
    let value: Value = serde_json::from_slice(bytes).map_err(|e| syntax_error(path, &e))?;
    let Some(version) = value.as_object().and_then(|o| o.get("schema_version")) else {
        return Err(ReportError::NotResults {
            path: path_buf(),
            message: "it has no top-level schema_version field".to_string(),
        });
    };
    if version.as_u64() != Some(u64::from(SCHEMA_VERSION)) {
        return Err(ReportError::SchemaVersion {
            path: path_buf(),
            found: version.to_string(),
            supported: SCHEMA_VERSION,
        });
    }
    // Again from the bytes rather than the Value, so a schema error keeps its line and column.
    let mut results: Results = serde_json::from_slice(bytes).map_err(|e| ReportError::Schema {
        path: path_buf(),
        line: e.line(),
        column: e.column(),
        message: bare_message(&e),
    })?;
    if has_control_escapes(bytes) {
        results = printable(results);
    }
    Ok(results)
}

/// Whether a results file's strings may hold control characters: JSON escapes them (`\u001b`)
/// in C0 and DEL, and C1 (U+0080 to U+009F, e.g. the 8-bit CSI) is raw UTF-8 `C2 80..9F`. jsoncost
/// writes none but in `\n`/`\t`; the check only spares the common file the round trip below.
fn has_control_escapes(bytes: &[u8]) -> bool {
    bytes.windows(4).any(|w| w.eq_ignore_ascii_case(b"\\u00"))
        || bytes.windows(2).any(|w| w[0] == 0xC2 && (0x80..=0x9F).contains(&w[1]))
        || bytes.contains(&0x7F)
}

/// `results` with every control character but newline and tab in its strings (names, params,
/// error messages, machine facts) written out as `\u{1b}`: a results file is input, and its
/// text is printed to a terminal (an escape sequence could recolour, retitle or rewrite the
/// screen) and into reports. Through `serde_json::Value`, which keeps every number exactly.
fn printable(results: Results) -> Results {
    fn clean(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if c.is_control() && c != '\n' && c != '\t' {
                out.extend(c.escape_unicode());
            } else {
                out.push(c);
            }
        }
        out
    }
    fn walk(v: &mut Value) {
        match v {
            Value::String(s) if s.chars().any(char::is_control) => *s = clean(s),
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Object(map) => {
                let taken = std::mem::take(map);
                for (k, mut item) in taken {
                    walk(&mut item);
                    map.insert(clean(&k), item);
                }
            }
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(&results) else {
        return results;
    };
    walk(&mut value);
    serde_json::from_value::<Results>(value).unwrap_or(results)
}

fn syntax_error(path: &Path, e: &serde_json::Error) -> ReportError {
    let path = path.to_path_buf();
    match e.classify() {
        Category::Eof => ReportError::Truncated {
            path,
            line: e.line(),
            column: e.column(),
        },
        _ => ReportError::NotJson {
            path,
            line: e.line(),
            column: e.column(),
            message: bare_message(e),
        },
    }
}

/// serde_json's message without its " at line L column C" tail (the error prints its own).
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let tail = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&tail).unwrap_or(&full).to_string()
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to disk,
/// then renamed over `path` (a regular file or a new one; [`write_output`] decides that).
/// `mode` is the new file's permissions.
fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let mut tmp = TempFile::new_in(&parent_of(path), ".jsoncost-")?;
    let file = tmp.file();
    file.write_all(bytes)?;
    file.sync_all()?;
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.persist(path)
}

/// A new file in a directory, removed unless persisted. Written here rather than taken from
/// the tempfile crate: these two uses are all, and tempfile brings five crates into every
/// bench crate that depends on jsoncost.
struct TempFile {
    path: PathBuf,
    file: Option<std::fs::File>,
}

impl TempFile {
    /// Creates `<dir>/<prefix><pid>-<n>.tmp` (the first free `n`), readable by its owner only.
    fn new_in(dir: &Path, prefix: &str) -> std::io::Result<TempFile> {
        for n in 0..10_000u32 {
            let path = dir.join(format!("{prefix}{}-{n}.tmp", std::process::id()));
            match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
                Ok(file) => return Ok(TempFile { path, file: Some(file) }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("no free temporary file name in {}", dir.display()),
        ))
    }

    fn file(&mut self) -> &mut std::fs::File {
        self.file.as_mut().expect("open until persisted")
    }

    /// Renames it over `to`; on failure it is removed.
    fn persist(mut self, to: &Path) -> std::io::Result<()> {
        self.file = None;
        std::fs::rename(&self.path, to)?;
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The directory a file at `path` lives in (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What writing to a path means, once its symlinks are followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A regular file, or nothing yet: replaced atomically. Through a symlink this is the
    /// link's target, so the link stays.
    Replace(PathBuf),
    /// A device, a FIFO, a socket or an open file named by /proc (`/dev/stdout`): opened and
    /// written where it is, never replaced.
    Open(PathBuf),
}

/// Symlinks followed at most, as the kernel's own limit (ELOOP).
const MAX_LINKS: usize = 40;

/// Where a write to `path` goes. A directory is an error (kind `IsADirectory`).
pub fn destination(path: &Path) -> std::io::Result<Destination> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&current) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Destination::Replace(current)),
            Err(e) => return Err(e),
            Ok(m) => m,
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            // A link on procfs (/dev/stdout → /proc/self/fd/1) names an open file (a pipe, a
            // terminal, a file the shell opened), not a path whose file could be replaced.
            if on_procfs(&parent_of(&current)) {
                return Ok(Destination::Open(path.to_path_buf()));
            }
            let target = std::fs::read_link(&current)?;
            current = parent_of(&current).join(target);
        } else if kind.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory"));
        } else if kind.is_file() {
            return Ok(Destination::Replace(current));
        } else {
            return Ok(Destination::Open(path.to_path_buf()));
        }
    }
    Err(std::io::Error::from_raw_os_error(libc::ELOOP))
}

fn on_procfs(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a zeroed statfs is a valid buffer for statfs(2) to fill; `c` is a C string.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    unsafe { libc::statfs(c.as_ptr(), &mut fs) == 0 && fs.f_type == libc::PROC_SUPER_MAGIC }
}

/// Writes `bytes` to what `path` is: a regular file or a new path atomically (see
/// `write_atomic`; an existing file keeps its permissions, a new one gets 0644: results
/// are not secret), through a symlink to its target, and anything else by opening it (a FIFO
/// waits at most [`WRITE_READER_TIMEOUT`] for a reader). A directory is refused. Every
/// writer of results and reports goes through here.
pub fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match destination(path)? {
        Destination::Replace(target) => {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&target).map_or(0o644, |m| m.permissions().mode() & 0o7777);
            write_atomic(&target, bytes, mode)
        }
        Destination::Open(path) => open_for_writing(&path, WRITE_READER_TIMEOUT)?.write_all(bytes),
    }
}

/// Whether writing `output` would replace the file `input`: both name one file (the same path,
/// a symlink or a hard link to it: one device and inode). An output that does not exist yet is
/// no input.
pub fn same_file(output: &Path, input: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(output), std::fs::metadata(input)) {
        (Ok(o), Ok(i)) => o.dev() == i.dev() && o.ino() == i.ino(),
        _ => false,
    }
}

/// Checks, before anything is measured, that [`write_output`] to `path` can work: a directory
/// is refused, a new or regular file's directory must take a new file, a device must open
/// for writing. A FIFO is not opened (a reader that opened it would see its end at once).
pub fn check_output(path: &Path) -> std::io::Result<()> {
    match destination(path)? {
        Destination::Replace(target) => TempFile::new_in(&parent_of(&target), ".jsoncost-write-test-").map(drop),
        Destination::Open(path) if std::fs::metadata(&path)?.file_type().is_fifo() => Ok(()),
        Destination::Open(path) => open_for_writing(&path, Duration::ZERO).map(drop),
    }
}

/// Opens a non-regular file for appending without blocking (a FIFO with no reader would
/// block the open in the kernel): ENXIO, no reader yet, is retried for up to `wait` (or
/// until the stop check), then the file is made blocking again for the write.
fn open_for_writing(path: &Path, wait: Duration) -> std::io::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    let started = Instant::now();
    let file = loop {
        match std::fs::OpenOptions::new().append(true).custom_flags(libc::O_NONBLOCK).open(path) {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if should_stop() {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::Interrupted,
                        "stopped by a signal while waiting for a reader",
                    ));
                }
                if started.elapsed() >= wait {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!(
                            "no process opened it for reading within {} s (a FIFO or a socket with no reader)",
                            wait.as_secs_f64()
                        ),
                    ));
                }
                std::thread::sleep(WAIT_SLICE);
            }
            Err(e) => return Err(e),
        }
    };
    // SAFETY: fcntl on the descriptor `file` owns.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// Writes `results` as pretty JSON to `path` (see [`write_output`]).
pub fn write_results(path: &Path, results: &Results) -> std::io::Result<()> {
    write_output(path, results_json(results).as_bytes())
}

/// The text [`write_results`] writes.
pub fn results_json(results: &Results) -> String {
    pretty(results)
}
