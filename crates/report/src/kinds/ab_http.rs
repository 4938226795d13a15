//! http-ab (`jsoncost ab --http`): the http columns and charts of its rows `base` and `new`,
//! then the two servers' placement, curves and verdicts ([`crate::html::ab_http`]).

use jsoncost_engine::{MeasuredTable, Row};

use super::http;
use super::kind_view::KindView;
use crate::columns;
use crate::html::charts::Chart;
use crate::view::View;

/// `jsoncost ab --http`'s tables.
pub(super) struct AbHttp;

impl KindView for AbHttp {
    fn table(&self, exp: &MeasuredTable) -> View {
        columns::table_view(exp, http::columns(exp))
    }

    fn operation(&self) -> (&'static str, &'static str) {
        ("req", "req")
    }

    fn charts(&self, _exp: &MeasuredTable, ok: &[&Row]) -> Vec<Option<Chart>> {
        http::charts(ok)
    }

    fn html_after_charts(&self, exp: &MeasuredTable) -> String {
        crate::html::ab_http::section(exp)
    }
}
