use std::path::PathBuf;

use thiserror::Error;

/// Why a results file could not be loaded. Every variant names the file.
#[derive(Debug, Error)]
pub enum ReportError {
    /// The cause's text is part of this message, so it is not also a `source` (printing the
    /// chain would say it twice).
    #[error("cannot read results file {}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("results file {} is over the {limit}-byte limit of a results file", path.display())]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("results file {} is empty", path.display())]
    Empty { path: PathBuf },
    #[error("results file {} is truncated: the JSON ends early at line {line}, column {column}", path.display())]
    Truncated { path: PathBuf, line: usize, column: usize },
    #[error("results file {} is not JSON: {message} at line {line}, column {column}", path.display())]
    NotJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "results file {} has schema_version {found}, but this build of jsoncost reads schema_version {supported}",
        path.display()
    )]
    SchemaVersion { path: PathBuf, found: String, supported: u32 },
    #[error("results file {} is not a jsoncost results file: {message}", path.display())]
    NotResults { path: PathBuf, message: String },
    /// A row no run writes: a negative time or size, or a row twice in one table.
    #[error("results file {}: {experiment} table {table}, row {method}: {why}", path.display())]
    BadRow {
        path: PathBuf,
        experiment: String,
        table: String,
        method: String,
        why: String,
    },
    #[error("results file {} does not match the results schema: {message} at line {line}, column {column}", path.display())]
    Schema {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
}
