//! [`KindView`]: how the report shows one experiment kind's tables.

use jsoncost_engine::{MeasuredTable, Row};

use crate::html::charts::Chart;
use crate::view::View;

/// How the report shows one experiment kind's tables: its table (columns, or a layout of its
/// own), its HTML section's charts, and the words of its advice. One implementation per kind,
/// in its own file of [`crate::kinds`], found by [`crate::kinds::view`].
pub(crate) trait KindView: Sync {
    /// The table as every format lays it out.
    fn table(&self, exp: &MeasuredTable) -> View;

    /// How the advice names one row's operation and several (`read`, `reads`).
    fn operation(&self) -> (&'static str, &'static str);

    /// The table's whole HTML section, when it is not the table, notes, summary and charts
    /// every other kind has.
    fn html_section(&self, _exp: &MeasuredTable, _id: &str) -> Option<String> {
        None
    }

    /// The charts of the table's HTML section, of its ok rows `ok` (`None`: nothing to draw).
    fn charts(&self, _exp: &MeasuredTable, _ok: &[&Row]) -> Vec<Option<Chart>> {
        Vec::new()
    }

    /// What the HTML section shows after its charts.
    fn html_after_charts(&self, _exp: &MeasuredTable) -> String {
        String::new()
    }

    /// What a recommendation of `best` over `base` adds after the saving.
    fn recommendation_note(&self, _exp: &MeasuredTable, _base: &Row, _best: &Row) -> String {
        String::new()
    }

    /// What the run's headline shows one table of: tables of one group (a shape's tables, a
    /// route's loads) tell one story, so the headline takes the first of each with a step. By
    /// default the table's shape, else its route, else the table itself.
    fn headline_group(&self, exp: &MeasuredTable) -> String {
        ["shape", "route"]
            .iter()
            .find_map(|k| exp.params.get(*k).and_then(serde_json::Value::as_str))
            .unwrap_or(&exp.table)
            .to_string()
    }

    /// How much of the operation is JSON work, for the verdict: the first sentence of the
    /// table's summary where the kind reads its rows against a floor (the store's read).
    fn json_share(&self, exp: &MeasuredTable) -> Option<String> {
        if !exp.kind.traits().floor {
            return None;
        }
        exp.summary.as_ref().and_then(|s| crate::summary::sentences(s).into_iter().next())
    }

    /// A second baseline some of the table's rows are advised against, besides the table's own
    /// (a stream table's buffered typed row, for its incremental typed rows).
    fn second_baseline<'e>(&self, _exp: &'e MeasuredTable) -> Option<&'e Row> {
        None
    }
}
