//! jsoncost's renderers: console table, markdown, CSV, JSON and the self-contained HTML report
//! of a results file, each one [`Exporter`] named by a [`Format`]; the advisor ("What moves the
//! number"), `compare`, `ab` and the allocator tables, rendered through the same exporters; and
//! reading and writing results files. Input is only the engine's result model.
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! Depends on `jsoncost-engine` only (its result model): every renderer works from a results file,
//! so the CLI, a `cargo bench` harness and `compare` render alike.
//!
//! # Modules
//!
//! Public: [`compare`], [`ab`], [`ab_http`], [`allocators`], [`advisor`], [`html`], [`files`],
//! [`fidelity`], [`summary`], [`sweep`] (payload size as a dimension), [`units`]. The formats are private modules behind [`Exporter`]
//! and [`Format`] (`table`, `markdown`, `csv`, `json`, `junit`, and `html`'s exporter).

#![deny(missing_docs)]

pub mod ab;
pub mod ab_http;
mod advice;
pub mod advisor;
pub mod allocators;
pub mod answer;
pub mod build_difference;
mod columns;
pub mod compare;
mod error;
mod export;
pub mod fidelity;
pub mod files;
#[cfg(feature = "flamegraph")]
pub mod flamegraph;
mod format;
pub mod html;
mod kinds;
pub mod levers;
mod notes;
pub mod profile;
mod row_figures;
mod safety;
pub mod summary;
pub mod sweep;
pub mod units;
mod verdicts;
mod view;

use jsoncost_engine::{Machine, MeasuredTable, Results};

pub use error::ReportError;
pub use export::Exporter;
pub use format::{Format, FormatError};
pub use notes::simd_note;

/// The whole results file in `format`: machine and run header, every table with its summary,
/// and the advisor section. `Json` is the results file itself; `Csv` is the rows only.
/// `color` styles the console table (the caller decides from NO_COLOR and the terminal).
pub fn render(results: &Results, format: Format, color: bool) -> String {
    format.exporter().results(results, color)
}

/// One table in `format` (with its header line and summary; CSV with its header row; JSON is
/// the experiment object).
pub fn render_experiment(exp: &MeasuredTable, format: Format, color: bool) -> String {
    format.exporter().experiment(exp, None, color)
}

/// One table as a run on `machine` prints it when it finishes: [`render_experiment`], with the
/// build's note under the table's title when it lacks SIMD features this CPU has
/// ([`simd_note`]; formats without a title, JSON and CSV, leave it to results.json's `machine`).
pub fn render_experiment_on(exp: &MeasuredTable, machine: &Machine, format: Format, color: bool) -> String {
    format.exporter().experiment(exp, simd_note(machine).as_deref(), color)
}
