//! The experiment kinds, and what each kind's tables are ([`KindTraits`], one entry per kind in
//! [`ExperimentKind::traits`]): the name results files and the command line use, what one row
//! measures, the rate its advice is stated at, and whether `compare` and the advisor take its
//! tables. Code that treats kinds differently reads these traits (or, in the report, the kind's
//! view) instead of matching on the kind.

use serde::{Deserialize, Serialize};

/// Which experiment measured a table; renderers choose columns and wording by it. Serialized
/// as lowercase names (`micro`, `store`, `stream`, `http`, `safety`, `http-ab`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExperimentKind {
    /// Serialize and deserialize in memory (`jsoncost micro`).
    Micro,
    /// Documents read from a store (`jsoncost store`).
    Store,
    /// A large array streamed element by element (`jsoncost stream`).
    Stream,
    /// An HTTP server under load (`jsoncost http`).
    Http,
    /// Hostile inputs run in child processes (`crate::safety`): findings, not timings.
    Safety,
    /// `jsoncost ab --http`: one request on two servers (rows `base`, `new`, with the http
    /// figures), its own record in [`crate::MeasuredTable::ab_http`].
    #[serde(rename = "http-ab")]
    AbHttp,
}

/// What one row of a kind's table measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMeasure {
    /// One operation's time, from iterations of many operations (micro, store).
    Operation,
    /// One whole run over the input, one operation per iteration (stream).
    WholeRun,
    /// Requests under load: the row carries the load figures ([`crate::HttpFigures`]: req/s,
    /// latency percentiles), its time is the mean latency and its allocation the server's per
    /// request, shared out over requests differently each run.
    Request,
    /// Findings, not timings (safety): one case per row.
    Finding,
}

/// The per-second rate a kind's advice is stated at: one field of [`Rates`].
#[derive(Debug, Clone, Copy)]
pub struct Rate {
    /// Reads the kind's field.
    pub get: fn(&Rates) -> f64,
    /// Sets the kind's field.
    pub set: fn(&mut Rates, f64),
}

/// Who is to blame when every row of a kind's table failed: the command's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blame {
    /// The input: every strategy refused the document, body or sample (exit 2).
    Input,
    /// What was measured: a server (exit 3).
    Environment,
}

/// What a kind's tables are: the one description every crate reads instead of matching on the
/// kind.
#[derive(Debug, Clone, Copy)]
pub struct KindTraits {
    /// The name results files and the command line use: `micro`, `store`, ... (the kind's serde
    /// name).
    pub name: &'static str,
    /// What one row measures.
    pub row: RowMeasure,
    /// The rate the advice states per-second figures at; `None`: its rows take none (findings,
    /// or verdicts of their own).
    pub rate: Option<Rate>,
    /// `compare` (and `ab`) match its rows between files; false for findings.
    pub compared: bool,
    /// The advisor weighs its rows against the baseline; false for findings and for tables
    /// decided by verdicts of their own (an http A/B).
    pub advised: bool,
    /// Its strategies measure themselves (an http table's modes loaded together in slices): the
    /// Runner times them one after another, never in interleaved rounds, and a table whose rows
    /// carry rounds is recorded as interleaved.
    pub measures_itself: bool,
    /// Its rows are read against a [`crate::FLOOR`] row (bytes read and discarded): each row's
    /// time above the floor is filled when the table finishes.
    pub floor: bool,
    /// Who is to blame when every row failed.
    pub all_failed: Blame,
}

impl ExperimentKind {
    /// Every experiment kind: the five a run measures, in that order, then `ab --http`'s.
    pub const ALL: [ExperimentKind; 6] = [
        ExperimentKind::Micro,
        ExperimentKind::Store,
        ExperimentKind::Stream,
        ExperimentKind::Http,
        ExperimentKind::Safety,
        ExperimentKind::AbHttp,
    ];

    /// What this kind's tables are.
    pub const fn traits(self) -> &'static KindTraits {
        match self {
            ExperimentKind::Micro => &MICRO,
            ExperimentKind::Store => &STORE,
            ExperimentKind::Stream => &STREAM,
            ExperimentKind::Http => &HTTP,
            ExperimentKind::Safety => &SAFETY,
            ExperimentKind::AbHttp => &AB_HTTP,
        }
    }

    /// The name results files and the command line use: `micro`, `store`, ...
    pub fn as_str(self) -> &'static str {
        self.traits().name
    }
}

/// A timed kind's traits: compared and advised, measured by the Runner, blaming the input.
const TIMED: KindTraits = KindTraits {
    name: "",
    row: RowMeasure::Operation,
    rate: None,
    compared: true,
    advised: true,
    measures_itself: false,
    floor: false,
    all_failed: Blame::Input,
};

const MICRO: KindTraits = KindTraits {
    name: "micro",
    rate: Some(Rate {
        get: |r| r.operations_per_s,
        set: |r, v| r.operations_per_s = v,
    }),
    ..TIMED
};

const STORE: KindTraits = KindTraits {
    name: "store",
    rate: Some(Rate {
        get: |r| r.reads_per_s,
        set: |r, v| r.reads_per_s = v,
    }),
    floor: true,
    ..TIMED
};

const STREAM: KindTraits = KindTraits {
    name: "stream",
    row: RowMeasure::WholeRun,
    rate: Some(Rate {
        get: |r| r.bodies_per_s,
        set: |r, v| r.bodies_per_s = v,
    }),
    ..TIMED
};

const HTTP: KindTraits = KindTraits {
    name: "http",
    row: RowMeasure::Request,
    rate: Some(Rate {
        get: |r| r.requests_per_s,
        set: |r, v| r.requests_per_s = v,
    }),
    measures_itself: true,
    all_failed: Blame::Environment,
    ..TIMED
};

const SAFETY: KindTraits = KindTraits {
    name: "safety",
    row: RowMeasure::Finding,
    compared: false,
    advised: false,
    ..TIMED
};

const AB_HTTP: KindTraits = KindTraits {
    name: "http-ab",
    row: RowMeasure::Request,
    advised: false,
    ..TIMED
};

impl std::fmt::Display for ExperimentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The request rates per-second figures are stated at: assumptions about the reader's service,
/// printed with every figure, never measurements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rates {
    /// micro: JSON operations per second.
    pub operations_per_s: f64,
    /// store: document reads per second.
    pub reads_per_s: f64,
    /// stream: request bodies per second.
    pub bodies_per_s: f64,
    /// http: requests per second.
    pub requests_per_s: f64,
}

impl Default for Rates {
    fn default() -> Self {
        Rates {
            operations_per_s: 10_000.0,
            reads_per_s: 2_000.0,
            bodies_per_s: 1.0,
            requests_per_s: 1_000.0,
        }
    }
}

impl Rates {
    /// The rate of one experiment's operations (0 for a kind without a rate).
    pub fn of(&self, kind: ExperimentKind) -> f64 {
        kind.traits().rate.map_or(0.0, |rate| (rate.get)(self))
    }

    /// Sets one experiment's rate (nothing for a kind without a rate).
    pub fn set(&mut self, kind: ExperimentKind, per_s: f64) {
        if let Some(rate) = kind.traits().rate {
            (rate.set)(self, per_s);
        }
    }
}

/// A rate: a finite number above zero (`--advice-rate PER_S`; `_` separators allowed).
pub fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().replace('_', "").parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("{text:?} is not a rate: give a number of operations per second above 0")),
    }
}

/// `EXPERIMENT=PER_S` (`--advice-rate store=500`): an experiment that has a rate, and the rate.
pub fn parse_experiment_rate(text: &str) -> Result<(ExperimentKind, f64), String> {
    let (kind, rate) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: give EXPERIMENT=PER_S, e.g. store=500"))?;
    let rated: Vec<ExperimentKind> = ExperimentKind::ALL.into_iter().filter(|k| k.traits().rate.is_some()).collect();
    let kind = rated.iter().copied().find(|k| k.as_str() == kind.trim()).ok_or_else(|| {
        format!(
            "{text:?}: unknown experiment {kind:?}; valid: {}",
            rated.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
        )
    })?;
    Ok((kind, parse_rate(rate)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_traits_named_as_it_is_serialized() {
        for kind in ExperimentKind::ALL {
            let serialized = serde_json::to_value(kind).unwrap();
            assert_eq!(serialized, serde_json::Value::from(kind.traits().name), "{kind:?}");
            assert_eq!(serde_json::from_value::<ExperimentKind>(serialized).unwrap(), kind);
        }
    }

    #[test]
    fn every_kind_is_listed_once_and_every_advised_kind_has_a_rate() {
        for (i, kind) in ExperimentKind::ALL.into_iter().enumerate() {
            assert!(!ExperimentKind::ALL[..i].contains(&kind), "{kind:?} twice");
            let t = kind.traits();
            // The advice states its savings at the kind's rate.
            assert!(!t.advised || t.rate.is_some(), "{kind:?} is advised without a rate");
            // Findings are neither compared nor advised.
            assert!(t.row != RowMeasure::Finding || !(t.compared || t.advised), "{kind:?}");
        }
    }

    #[test]
    fn rates_read_and_set_each_kind_own_field() {
        let mut rates = Rates::default();
        for (i, kind) in ExperimentKind::ALL.into_iter().enumerate() {
            rates.set(kind, 7.0 + i as f64);
        }
        for (i, kind) in ExperimentKind::ALL.into_iter().enumerate() {
            let expected = if kind.traits().rate.is_some() { 7.0 + i as f64 } else { 0.0 };
            assert_eq!(rates.of(kind), expected, "{kind:?}");
        }
        assert_eq!(
            parse_experiment_rate("safety=1").unwrap_err(),
            "\"safety=1\": unknown experiment \"safety\"; valid: micro, store, stream, http"
        );
    }
}
