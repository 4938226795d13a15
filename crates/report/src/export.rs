//! The one seam between results and their text: every format implements [`Exporter`], and
//! every renderer (a run's tables, `report`, `compare`, `ab`, `alloc`, the advisor) goes
//! through it, so a format is one module and one arm of [`crate::Format`].

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results};

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::compare::Comparison;

/// Everything jsoncost prints, in one format.
pub trait Exporter: Sync {
    /// The `--format` name.
    fn name(&self) -> &'static str;

    /// Whether a run prints each table as it finishes (or, verdict first, holds it for after
    /// the headline) and the advice at its end (a reader's format), rather than
    /// [`Exporter::results`] once at the end (a whole document).
    fn prints_each_table(&self) -> bool;

    /// The whole results file: run header, every table with its summary, the allocator tables
    /// and the advice. `color` styles a console table (the caller decides from NO_COLOR and
    /// the terminal).
    fn results(&self, results: &Results, color: bool) -> String;

    /// One table with its title and summary; `note` (the build's, [`crate::simd_note`]) under
    /// the title where the format has one.
    fn experiment(&self, exp: &MeasuredTable, note: Option<&str>, color: bool) -> String;

    /// The advisor's section: every table's verdict in full.
    fn advice(&self, advice: &[Advice]) -> String;

    /// The run's headline verdict, printed before any table by a run that puts the answer
    /// first (`run`, the bench harness): one screen, a verdict for every experiment that ran.
    /// Empty for a document's format (its document holds the verdicts).
    fn headline(&self, _advice: &[Advice]) -> String {
        String::new()
    }

    /// Allocator tables (one per allocator) with the rows that could not be paired.
    fn allocator_tables(&self, comparisons: &[AllocatorComparison]) -> String;

    /// What `jsoncost alloc` and a bench's `--allocators` print of their results: by default
    /// the allocator tables and their levers.
    fn allocator_run(&self, results: &Results) -> String {
        format!(
            "{}\n{}",
            self.allocator_tables(&results.allocators),
            self.advice(&crate::allocators::advise(results))
        )
    }

    /// The outcome of `compare`.
    fn comparison(&self, comparison: &Comparison) -> String;

    /// The outcome of `ab`.
    fn ab(&self, comparison: &AbComparison) -> String;

    /// What `ab --http` prints: its results (a table per request) and the verdicts decided
    /// from them (`comparison`). A reader's format prints one after the other; a document's
    /// format (JSON, CSV, HTML, JUnit) prints exactly one document, so stdout parses.
    fn ab_http(&self, results: &Results, comparison: &AbComparison, color: bool) -> String {
        format!("{}\n{}", self.results(results, color), self.ab(comparison))
    }
}
