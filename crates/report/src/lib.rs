//! jsoncost's renderers: console table, markdown, CSV and JSON of a results file, the
//! self-contained HTML report, the advisor ("What moves the number"), `compare`, `ab` and the
//! allocator tables, and reading and writing results files. Input is only the engine's result model.

pub mod ab;
pub mod advisor;
pub mod allocators;
mod columns;
pub mod compare;
mod csv;
mod error;
pub mod fidelity;
pub mod files;
pub mod html;
mod json;
mod markdown;
mod safety;
pub mod summary;
mod table;
pub mod units;
mod verdicts;

use std::fmt;
use std::str::FromStr;

use jsoncost_engine::{Experiment, Machine, Results};

pub use error::{FormatError, ReportError};

/// An output format of the text renderers (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// A console table (comfy-table).
    Table,
    Markdown,
    /// The results file itself, pretty printed.
    Json,
    /// One line per result row, raw numbers in ns and bytes.
    Csv,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Table, Format::Markdown, Format::Json, Format::Csv];

    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Markdown => "markdown",
            Format::Json => "json",
            Format::Csv => "csv",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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

/// The whole results file in `format`: machine and run header, every table with its summary,
/// and the advisor section. `Json` is the results file itself; `Csv` is the rows only.
/// `color` styles the console table (the caller decides from NO_COLOR and the terminal).
pub fn render(results: &Results, format: Format, color: bool) -> String {
    match format {
        Format::Table => table::render(results, color),
        Format::Markdown => markdown::render(results),
        Format::Json => json::pretty(results),
        Format::Csv => csv::render(&results.experiments),
    }
}

/// One table in `format` (with its header line and summary; CSV with its header row; JSON is
/// the experiment object).
pub fn render_experiment(exp: &Experiment, format: Format, color: bool) -> String {
    match format {
        Format::Table => table::render_experiment(exp, color),
        Format::Markdown => markdown::render_experiment(exp),
        Format::Json => json::pretty(exp),
        Format::Csv => csv::render(std::slice::from_ref(exp)),
    }
}

/// One table as a run on `machine` prints it when it finishes: [`render_experiment`], with the
/// build's note under the table's title when it lacks SIMD features this CPU has
/// ([`simd_note`]). JSON and CSV are the same as [`render_experiment`]'s (results.json records
/// it in `machine`).
pub fn render_experiment_on(exp: &Experiment, machine: &Machine, format: Format, color: bool) -> String {
    let note = simd_note(machine);
    match format {
        Format::Table => table::render_experiment_noted(exp, note.as_deref(), color),
        Format::Markdown => markdown::render_experiment_noted(exp, note.as_deref()),
        Format::Json | Format::Csv => render_experiment(exp, format, color),
    }
}

/// The note every table header, the report's header and stderr carry when the build lacks
/// SIMD features this CPU has (`machine.missing_target_features`), with the fix; `None` when it
/// lacks none, or the file does not say.
pub fn simd_note(machine: &Machine) -> Option<String> {
    if machine.missing_target_features.is_empty() {
        return None;
    }
    Some(format!(
        "Built without {}, which this CPU has: sonic-rs and simd-json choose their SIMD code at compile time, \
         so their figures here are their portable code's. To measure this CPU, build with -C target-cpu=native: \
         a .cargo/config.toml in your crate with [build] rustflags = [\"-C\", \"target-cpu=native\"].",
        machine.missing_target_features.join(", ")
    ))
}

/// The note every format prints for a `--quick` run.
pub(crate) const QUICK_NOTE: &str = "Quick run (--quick): fewer, shorter iterations; the figures are rough.";

/// The note every format prints for a run stopped early.
pub(crate) const INTERRUPTED_NOTE: &str = "Interrupted run: stopped early; only the tables below were measured.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_parses_its_names_and_lists_the_choices_otherwise() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
        let err = "html".parse::<Format>().unwrap_err();
        assert_eq!(err.to_string(), "unknown format `html`; valid formats: table, markdown, json, csv");
    }
}
