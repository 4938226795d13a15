use std::path::PathBuf;

use thiserror::Error;

/// Why a results file could not be loaded. Every variant names the file.
#[derive(Debug, Error)]
pub enum ReportError {
    /// The file could not be read. The cause's text is part of this message, so it is not
    /// also a `source` (printing the chain would say it twice).
    #[error("cannot read results file {}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        cause: std::io::Error,
    },
    /// The file is larger than a results file may be.
    #[error("results file {} is over the {limit}-byte limit of a results file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, bytes.
        limit: u64,
    },
    /// The file holds nothing.
    #[error("results file {} is empty", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The JSON ends early (a run still writing, or cut off).
    #[error("results file {} is truncated: the JSON ends early at line {line}, column {column}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Where it ends: line.
        line: usize,
        /// And column.
        column: usize,
    },
    /// The file is not JSON.
    #[error("results file {} is not JSON: {message} at line {line}, column {column}", path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Where the parser stopped: line.
        line: usize,
        /// And column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    #[error(
        "results file {} has schema_version {found}, but this build of jsoncost reads schema_version {supported}",
        path.display()
    )]
    /// Written by a build with another results schema.
    SchemaVersion {
        /// The file.
        path: PathBuf,
        /// The version it holds, as written.
        found: String,
        /// The version this build reads.
        supported: u32,
    },
    /// JSON, but not a results file (no `schema_version`, or not an object).
    #[error("results file {} is not a jsoncost results file: {message}", path.display())]
    NotResults {
        /// The file.
        path: PathBuf,
        /// What is missing.
        message: String,
    },
    /// A row no run writes: a negative time or size, or a row twice in one table.
    #[error("results file {}: {experiment} table {table}, row {method}: {why}", path.display())]
    BadRow {
        /// The file.
        path: PathBuf,
        /// The row's experiment.
        experiment: String,
        /// The row's table.
        table: String,
        /// The row's strategy.
        method: String,
        /// What is wrong with it.
        why: String,
    },
    /// JSON with a `schema_version` this build reads, whose fields do not fit the schema.
    #[error("results file {} does not match the results schema: {message} at line {line}, column {column}", path.display())]
    Schema {
        /// The file.
        path: PathBuf,
        /// Where the mismatch was found: line.
        line: usize,
        /// And column.
        column: usize,
        /// serde's message (the field and what it expected).
        message: String,
    },
}
