//! Each experiment kind's view ([`KindView`]), one file per kind: its columns (or its own
//! layout), its HTML charts and the words of its advice. [`view`] is the one place a kind is
//! looked up; [`View::of`] builds any table's view through it.

mod ab_http;
mod http;
mod kind_view;
mod micro;
mod safety;
mod store;
mod stream;

use jsoncost_engine::{ExperimentKind, MeasuredTable};

pub(crate) use kind_view::KindView;

use crate::view::View;

/// The view of `kind`'s tables.
pub(crate) fn view(kind: ExperimentKind) -> &'static dyn KindView {
    match kind {
        ExperimentKind::Micro => &micro::Micro,
        ExperimentKind::Store => &store::Store,
        ExperimentKind::Stream => &stream::Stream,
        ExperimentKind::Http => &http::Http,
        ExperimentKind::Safety => &safety::Safety,
        ExperimentKind::AbHttp => &ab_http::AbHttp,
    }
}

impl View {
    /// `exp` as every format lays it out, by its kind's view.
    pub(crate) fn of(exp: &MeasuredTable) -> View {
        view(exp.kind).table(exp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_view() {
        for kind in ExperimentKind::ALL {
            let exp = MeasuredTable::new(kind, "t");
            let table = view(kind).table(&exp);
            assert_eq!(table.heading, format!("{kind}: t"));
            assert!(!view(kind).operation().0.is_empty(), "{kind}");
        }
    }
}
