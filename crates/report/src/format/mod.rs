//! The output formats by name (`--format`), each one [`Exporter`]: a module here (`html`, whose
//! renderer the kinds' views draw into, is the crate's own module), declared below and named by
//! a variant of [`Format`].

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::export::Exporter;

mod bmf;
mod csv;
mod github_action_benchmark;
pub(crate) mod json;
mod junit;
mod markdown;
mod table;

/// An output format: what stdout carries (`--format`), and what every renderer of results,
/// comparisons and advice writes. Each is one module implementing [`Exporter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// A console table (comfy-table).
    Table,
    /// GitHub-flavoured markdown: report.md and PR comments.
    Markdown,
    /// The results file itself, pretty printed.
    Json,
    /// One line per result row, raw numbers in ns and bytes.
    Csv,
    /// The self-contained HTML report (inline CSS and SVG charts).
    Html,
    /// JUnit XML, for CI systems: rows as test cases, failures and regressions as failures.
    Junit,
    /// Bencher Metric Format JSON, for `bencher run --adapter json`: benchmark history.
    Bmf,
    /// github-action-benchmark's `customSmallerIsBetter` JSON array: benchmark history.
    GithubActionBenchmark,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 8] = [
        Format::Table,
        Format::Markdown,
        Format::Json,
        Format::Csv,
        Format::Html,
        Format::Junit,
        Format::Bmf,
        Format::GithubActionBenchmark,
    ];

    /// What renders this format.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Table => &table::Console,
            Format::Markdown => &markdown::Markdown,
            Format::Json => &json::Json,
            Format::Csv => &csv::Csv,
            Format::Html => &crate::html::Html,
            Format::Junit => &junit::Junit,
            Format::Bmf => &bmf::Bmf,
            Format::GithubActionBenchmark => &github_action_benchmark::GithubActionBenchmark,
        }
    }

    /// Its `--format` name.
    pub fn name(self) -> &'static str {
        self.exporter().name()
    }

    /// Every format's name, comma separated.
    pub fn names() -> String {
        Format::ALL.map(Format::name).join(", ")
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--format` value that names no format.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown format `{given}`; valid formats: {}", Format::names())]
pub struct FormatError {
    /// The value given.
    pub given: String,
}

impl FromStr for Format {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| FormatError { given: s.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_parses_its_names_and_lists_the_choices_otherwise() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
        let err = "yaml".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown format `yaml`; valid formats: table, markdown, json, csv, html, junit, bmf, github-action-benchmark"
        );
    }
}
