//! safety: findings, not timings: the matrix of cases × paths ([`crate::safety`]) and its
//! coloured HTML section ([`crate::html::safety`]).

use jsoncost_engine::MeasuredTable;

use super::kind_view::KindView;
use crate::view::View;

/// `jsoncost safety`'s tables.
pub(super) struct Safety;

impl KindView for Safety {
    fn table(&self, exp: &MeasuredTable) -> View {
        crate::safety::view(exp)
    }

    fn operation(&self) -> (&'static str, &'static str) {
        ("input", "inputs")
    }

    fn html_section(&self, exp: &MeasuredTable, id: &str) -> Option<String> {
        Some(crate::html::safety::section(exp, id))
    }
}
