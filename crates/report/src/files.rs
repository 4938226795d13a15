//! Reading and writing results files. Load errors name the file and what was wrong with it;
//! writes go to a temporary file in the same directory and are renamed into place, so an
//! interrupted run never leaves half a file.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use jsoncost_engine::{Results, SCHEMA_VERSION};
use serde_json::Value;
use serde_json::error::Category;

use crate::ReportError;
use crate::json::pretty;

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
    #[error("{0}")]
    Io(std::io::Error),
    #[error("it holds more than {limit} bytes")]
    TooLarge { limit: u64 },
}

/// Reads a whole file, at most `limit` bytes. The bound holds while reading, not from the
/// file's size, so a device (/dev/zero) or a pipe that never ends is refused after `limit`
/// bytes instead of filling memory.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
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
    serde_json::from_slice(bytes).map_err(|e| ReportError::Schema {
        path: path_buf(),
        line: e.line(),
        column: e.column(),
        message: bare_message(&e),
    })
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
/// then renamed over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".jsoncost-").suffix(".tmp").tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    readable_by_all(tmp.as_file())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Results are not secret: give the file the usual 0644 rather than the temp file's 0600.
#[cfg(unix)]
fn readable_by_all(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn readable_by_all(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// Writes `results` as pretty JSON to `path` atomically.
pub fn write_results(path: &Path, results: &Results) -> std::io::Result<()> {
    write_atomic(path, pretty(results).as_bytes())
}
