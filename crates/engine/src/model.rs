//! The result model: one versioned JSON schema for every experiment, exporter, the HTML report
//! and `compare` (design.md section 7). Field names are the public contract: add fields freely,
//! rename none without bumping [`SCHEMA_VERSION`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version of the results.json schema written by this build.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    pub jsoncost_version: String,
    pub machine: Machine,
    /// RFC 3339 UTC time the run started.
    pub started_at: String,
    /// True when `--quick` traded precision for time.
    #[serde(default)]
    pub quick: bool,
    /// True when the run was stopped early (Ctrl-C, SIGTERM): the tables are those measured
    /// before it stopped. Absent from files of runs that finished.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    pub experiments: Vec<Experiment>,
}

/// The machine and build that measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub os: String,
    pub rustc: String,
    pub target_features: Vec<String>,
}

/// Which experiment measured a table; renderers choose columns and wording by it. Serialized
/// as today's strings (`micro`, `store`, `stream`, `http`), so schema_version 1 files read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExperimentKind {
    Micro,
    Store,
    Stream,
    Http,
    /// Hostile inputs run in child processes (`crate::safety`): findings, not timings.
    Safety,
}

impl ExperimentKind {
    pub const ALL: [ExperimentKind; 5] = [
        ExperimentKind::Micro,
        ExperimentKind::Store,
        ExperimentKind::Stream,
        ExperimentKind::Http,
        ExperimentKind::Safety,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ExperimentKind::Micro => "micro",
            ExperimentKind::Store => "store",
            ExperimentKind::Stream => "stream",
            ExperimentKind::Http => "http",
            ExperimentKind::Safety => "safety",
        }
    }
}

impl std::fmt::Display for ExperimentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One table: an experiment's measurement of one (shape, operation), (store, shape), ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    pub experiment: ExperimentKind,
    /// Names the table, e.g. `data/deserialize`, `redb/order`, `items/closed`.
    pub table: String,
    #[serde(default)]
    pub params: Map<String, Value>,
    pub rows: Vec<Row>,
    /// What the table shows, as data (e.g. the store's JSON share and the numbers it came
    /// from); every renderer words it, the advisor reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::summary::Summary>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Failed,
}

/// One strategy's measurement. A failed row keeps its place with `status: failed`, an
/// `error_message`, and no timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub method: String,
    pub baseline: bool,
    pub status: Status,
    pub error_message: Option<String>,
    pub mean_ns: Option<f64>,
    pub error_ns: Option<f64>,
    pub stddev_ns: Option<f64>,
    pub median_ns: Option<f64>,
    pub p95_ns: Option<f64>,
    #[serde(default)]
    pub min_ns: Option<f64>,
    #[serde(default)]
    pub max_ns: Option<f64>,
    pub iterations: Option<u64>,
    pub ops_per_iteration: Option<u64>,
    pub outliers_removed: Option<u64>,
    pub ratio: Option<f64>,
    pub ratio_sd: Option<f64>,
    pub allocated_bytes: Option<f64>,
    pub allocs: Option<f64>,
    pub alloc_ratio: Option<f64>,
    pub peak_bytes: Option<u64>,
    pub mb_per_s: Option<f64>,
    #[serde(default)]
    pub extra: Map<String, Value>,
    /// Per-operation time of each kept Actual iteration (ns), for `compare`'s Welch test and
    /// the ratio's pairwise quotients.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ns: Vec<f64>,
    /// How the output compared with the exact reference (the correctness gate's finding);
    /// absent where no output was checked against one (failed rows, http).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fidelity: Option<Fidelity>,
    /// A safety row's finding (library, path, case, outcome, agreement); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<crate::safety::SafetyCell>,
}

/// How a strategy's output compares with the exact reference, in counts of numbers. Every
/// count zero is exact; a value that differs otherwise fails the row instead (it is not timed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fidelity {
    /// Numbers compared (the reference's).
    pub numbers: u64,
    /// Floats one ulp away from the correctly rounded value of their text.
    pub floats_1ulp: u64,
    /// `-0` read as `0` (as the float `0.0` or the integer `0`).
    pub zero_sign_lost: u64,
    /// Integers read as floats, or floats as integers, with the same value as an `f64`.
    pub integers_changed: u64,
    /// Why, when the harness knows (e.g. "serde_json without float_roundtrip").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
}

impl Fidelity {
    /// Every number as the reference has it.
    pub fn is_exact(&self) -> bool {
        self.floats_1ulp == 0 && self.zero_sign_lost == 0 && self.integers_changed == 0
    }

    /// Adds the counts of `other` (e.g. of another element of a streamed array).
    pub fn add(&mut self, other: &Fidelity) {
        self.numbers += other.numbers;
        self.floats_1ulp += other.floats_1ulp;
        self.zero_sign_lost += other.zero_sign_lost;
        self.integers_changed += other.integers_changed;
    }
}

impl Row {
    /// An empty row for `method` with no measurement yet.
    pub fn new(method: impl Into<String>) -> Self {
        Row {
            method: method.into(),
            baseline: false,
            status: Status::Ok,
            error_message: None,
            mean_ns: None,
            error_ns: None,
            stddev_ns: None,
            median_ns: None,
            p95_ns: None,
            min_ns: None,
            max_ns: None,
            iterations: None,
            ops_per_iteration: None,
            outliers_removed: None,
            ratio: None,
            ratio_sd: None,
            allocated_bytes: None,
            allocs: None,
            alloc_ratio: None,
            peak_bytes: None,
            mb_per_s: None,
            extra: Map::new(),
            samples_ns: Vec::new(),
            fidelity: None,
            safety: None,
        }
    }

    /// A failed row: shown, never timed.
    pub fn failed(method: impl Into<String>, message: impl Into<String>) -> Self {
        let mut r = Row::new(method);
        r.status = Status::Failed;
        r.error_message = Some(message.into());
        r
    }

    pub fn is_ok(&self) -> bool {
        self.status == Status::Ok
    }
}

impl Experiment {
    pub fn new(experiment: ExperimentKind, table: impl Into<String>) -> Self {
        Experiment {
            experiment,
            table: table.into(),
            params: Map::new(),
            rows: Vec::new(),
            summary: None,
        }
    }

    /// The baseline row: the one flagged `baseline`, else the first.
    pub fn baseline(&self) -> Option<&Row> {
        self.rows.iter().find(|r| r.baseline).or_else(|| self.rows.first())
    }

    /// Fills Ratio, RatioSD and Alloc Ratio against the baseline (the first row pushed, unless
    /// one is flagged), then sorts fastest first with failed rows last.
    pub fn finish(&mut self) {
        if !self.rows.iter().any(|r| r.baseline)
            && let Some(first) = self.rows.first_mut()
        {
            first.baseline = true;
        }
        let base = self.baseline().cloned();
        if let Some(base) = base {
            for row in self.rows.iter_mut().filter(|r| r.is_ok()) {
                crate::stats::fill_ratios(&base, row);
            }
        }
        self.rows.sort_by(|a, b| {
            let key = |r: &Row| {
                if r.is_ok() {
                    r.mean_ns.unwrap_or(f64::INFINITY)
                } else {
                    f64::INFINITY
                }
            };
            key(a).total_cmp(&key(b)).then((!a.is_ok()).cmp(&!b.is_ok()))
        });
    }
}
