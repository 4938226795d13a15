//! The result model: one versioned JSON schema for every experiment, exporter, the HTML report
//! and `compare` (results.json, `schema_version` 1). Field names are the public contract: add fields freely,
//! rename none without bumping [`SCHEMA_VERSION`].

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

pub use crate::kind::{ExperimentKind, Rates, parse_experiment_rate, parse_rate};
use crate::paired::Interval;

/// Version of the results.json schema written by this build.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The schema's version: [`SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The jsoncost version that wrote the file.
    pub jsoncost_version: String,
    /// The machine and build that measured.
    pub machine: Machine,
    /// RFC 3339 UTC time the run started.
    pub started_at: String,
    /// True when `--quick` traded precision for time.
    #[serde(default)]
    pub quick: bool,
    /// The rates the advisor states per-second figures at (`--advice-rate`); the defaults in files
    /// written before they were recorded.
    #[serde(default)]
    pub rates: Rates,
    /// True when the run was stopped early (Ctrl-C, SIGTERM): the tables are those measured
    /// before it stopped. Absent from files of runs that finished.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The tables, in the order they were measured.
    pub experiments: Vec<MeasuredTable>,
    /// The allocator dimension: the tables' rows under other global allocators, each paired with
    /// the base allocator's (`jsoncost alloc`, `run`'s allocator table, a bench's
    /// `--allocators`); the `experiments` are then the base allocator's. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allocators: Vec<AllocatorComparison>,
}

/// One allocator against the base allocator: the same binary, arguments and seed run under each
/// (one process each: a process has one global allocator), in lockstep, and every row's time
/// paired round by round (`report::ab` pairs them, as it pairs two builds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocatorComparison {
    /// The allocator the other is paired with (the system's).
    pub base: crate::alloc::Allocator,
    /// The allocator measured against `base`.
    pub allocator: crate::alloc::Allocator,
    /// Runs of both programs.
    pub runs: usize,
    /// Every run was in lockstep.
    pub lockstep: bool,
    /// The CPU both programs were pinned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<usize>,
    /// The smallest change of time a row is called on, as a fraction (`--threshold`): a row
    /// takes less or more time only when its whole interval lies beyond half of it, as `ab`
    /// decides. 0 in files written before it was recorded (then any interval that excludes 1).
    #[serde(default)]
    pub threshold: f64,
    /// Every row paired under both allocators.
    pub rows: Vec<AllocatorRow>,
    /// Rows that could not be paired, and why (`experiment table method: reason`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_compared: Vec<String>,
    /// The run in which other programs used the pair's CPU most (None where `/proc` could not
    /// say). Past its limit no row's time is judged: see [`Self::busy`].
    #[serde(default, alias = "cpu_wait", skip_serializing_if = "Option::is_none")]
    pub other_cpu: Option<OtherCpu>,
}

impl AllocatorComparison {
    /// The busiest run's other work, when it is past its limit.
    pub fn busy(&self) -> Option<&OtherCpu> {
        self.other_cpu.as_ref().filter(|w| w.busy())
    }
}

/// Other programs' use of the CPU two programs in lockstep ran on, in one run, as a share of
/// the two's own CPU time: the CPU's busy time (`/proc/stat`: user, system, interrupts, steal)
/// less both programs' (`/proc/PID/stat`: every thread, and the children they reaped). Unpinned,
/// every CPU's busy time counts, less the conductor's own.
///
/// Only one of the two works at any moment, so neither takes the CPU from the other, and each
/// program's own threads (an http table's server and load generator) are its own work. Other
/// programs' work lands on one side's iteration and not on its pair's, and it does not even
/// out (measured: the same binary on both sides, a compiler running beside them, paired ratios
/// of 0.3 to 2.8 with 99% intervals excluding 1 in 9 of 10 runs), so a paired interval cannot be
/// trusted past a small share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(from = "OtherCpuFile")]
pub struct OtherCpu {
    /// The run (from 1).
    pub run: usize,
    /// Other programs' CPU time over the two programs' own.
    pub share: f64,
    /// The share past which the run's pairing is not trusted (`--max-other-cpu`).
    pub limit: f64,
}

/// [`OtherCpu`] as files hold it: files written before it was measured this way hold each
/// program's main-thread run-queue wait (`base`, `new`) instead of `share`; the larger stands
/// for it.
#[derive(Deserialize)]
struct OtherCpuFile {
    run: usize,
    #[serde(default)]
    share: Option<f64>,
    #[serde(default)]
    base: Option<f64>,
    #[serde(default)]
    new: Option<f64>,
    #[serde(default = "OtherCpu::default_limit")]
    limit: f64,
}

impl From<OtherCpuFile> for OtherCpu {
    fn from(f: OtherCpuFile) -> Self {
        let waited = f.base.unwrap_or(0.0).max(f.new.unwrap_or(0.0));
        OtherCpu {
            run: f.run,
            share: f.share.unwrap_or(waited),
            limit: f.limit,
        }
    }
}

impl OtherCpu {
    /// The default limit: on a quiet machine the share stays well under it (measured on a
    /// 2-core VM: 0.0–1.1% under `ab` of micro and http tables, 85% beside one busy loop on the CPU).
    pub const DEFAULT_LIMIT: f64 = 0.05;

    fn default_limit() -> f64 {
        Self::DEFAULT_LIMIT
    }

    /// Other programs' share is past the limit.
    pub fn busy(&self) -> bool {
        self.share > self.limit
    }
}

/// One row under both allocators. Allocation is counted over whichever allocator serves, in
/// requested sizes, so the two sides' counts are the same unless the code itself differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocatorRow {
    /// The experiment of the row's table.
    pub experiment: ExperimentKind,
    /// The table's name ([`MeasuredTable::table`]).
    pub table: String,
    /// The strategy ([`Row::method`]).
    pub method: String,
    /// What the strategy delivers, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// The table's baseline strategy.
    #[serde(default)]
    pub baseline: bool,
    /// Mean time under the base allocator and under the other, over the pairs (ns; a whole run
    /// for stream rows).
    pub base_mean_ns: f64,
    /// Mean time under the other allocator, ns.
    pub mean_ns: f64,
    /// Time under the other allocator / time under the base, per pair: the geometric mean and
    /// its paired 99% interval ([`crate::paired::log_ratio`]).
    pub ratio: Interval,
    /// Bytes allocated per operation under the base allocator.
    pub base_allocated_bytes: Option<f64>,
    /// Bytes allocated per operation under the other allocator.
    pub allocated_bytes: Option<f64>,
    /// Allocations per operation under the base allocator.
    pub base_allocs: Option<f64>,
    /// Allocations per operation under the other allocator.
    pub allocs: Option<f64>,
    /// The process's peak RSS over the row's untimed run (whole-run rows), mean over the runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_peak_rss_bytes: Option<u64>,
    /// The same under the other allocator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
}

/// The machine and build that measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// The CPU's model name.
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Operating system and architecture.
    pub os: String,
    /// The rustc version the build was compiled with.
    pub rustc: String,
    /// The CPU features the build was compiled with (`cfg(target_feature)`, of those that matter
    /// to the JSON libraries): sonic-rs and simd-json choose their SIMD code by them.
    pub target_features: Vec<String>,
    /// The features of [`crate::machine::SIMD_FEATURES`] this CPU has, detected at run time;
    /// absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_simd_features: Option<Vec<String>>,
    /// Of `cpu_simd_features`, those the build was not compiled with: sonic-rs and simd-json
    /// ran their portable code instead (fixed by building with `-C target-cpu=native`).
    #[serde(default)]
    pub missing_target_features: Vec<String>,
    /// True when the build has every SIMD feature of this CPU the JSON libraries use (nothing
    /// missing), false when it lacks some; absent when that was not checked (older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_features_complete: Option<bool>,
    /// The global allocator under the counting allocator that measured (`alloc::allocator`);
    /// absent when none was installed, when it forwarded to an allocator of the program's own,
    /// and in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocator: Option<crate::alloc::Allocator>,
    /// How the JSON libraries were built: their versions, serde_json's features that change
    /// results, the profile. Absent in files written before it was recorded, and from programs
    /// that do not link the libraries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
}

/// The build of the JSON libraries that measured (filled in by `jsoncost_codecs::build`, which
/// links them; the engine links none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// The JSON libraries compiled in and their versions, in a fixed order; a version is
    /// `unknown` where the build found no Cargo.lock naming it.
    #[serde(default)]
    pub libraries: Vec<LibraryVersion>,
    /// serde_json's features that change what it reads or how fast (`float_roundtrip`,
    /// `preserve_order`, `arbitrary_precision`), as the compiled serde_json behaves.
    #[serde(default)]
    pub serde_json_features: Vec<String>,
    /// The optimisation level (`0`–`3`, `s`, `z`); absent when the build did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opt_level: Option<String>,
    /// Debug assertions were compiled in.
    #[serde(default)]
    pub debug_assertions: bool,
    /// LTO, when the build set it through `CARGO_PROFILE_<PROFILE>_LTO` (a manifest's `lto` is
    /// not visible to a build script: absent then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lto: Option<String>,
    /// The panic strategy: `unwind` or `abort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panic: Option<String>,
    /// `-C target-cpu=…` from the build's rustflags, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_cpu: Option<String>,
}

/// A library's name and version, as in Cargo.lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryVersion {
    /// The crate's name (`serde_json`, `sonic-rs`, ...).
    pub name: String,
    /// Its version, or `unknown`.
    pub version: String,
}

impl Machine {
    /// Whether the build has every SIMD feature of this CPU the JSON libraries use; `None`
    /// when the file does not say (written before it was checked).
    pub fn builds_for_this_cpu(&self) -> Option<bool> {
        self.target_features_complete
            .or_else(|| self.cpu_simd_features.as_ref().map(|_| self.missing_target_features.is_empty()))
    }
}

/// One table: an experiment's measurement of one (shape, operation), (store, shape), ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredTable {
    /// The experiment that measured the table (its key in results files is `experiment`).
    #[serde(rename = "experiment")]
    pub kind: ExperimentKind,
    /// Names the table, e.g. `data/deserialize`, `redb/order`, `items/closed`.
    pub table: String,
    /// The settings the table was measured with (payload, load ...); tables compare only
    /// when equal.
    #[serde(default)]
    pub params: Map<String, Value>,
    /// One row per strategy.
    pub rows: Vec<Row>,
    /// How the table's strategies were scheduled; files written before it was recorded were
    /// measured one strategy after another.
    #[serde(default)]
    pub schedule: Schedule,
    /// What the table shows, as data (e.g. the store's JSON share and the numbers it came
    /// from); every renderer words it, the advisor reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::summary::Summary>,
    /// An http A/B table's own record (servers, placement, latency distributions, slices);
    /// present exactly on `ExperimentKind::AbHttp` tables. Its key in results files is
    /// `http_ab`, as it was first written.
    #[serde(default, rename = "http_ab", skip_serializing_if = "Option::is_none")]
    pub ab_http: Option<crate::ab_http::AbHttpTable>,
    /// Present when the rows' times are wall time less the measuring thread's run-queue wait
    /// (whole runs, [`crate::clock::LessRunQueueWait`]): how long the rounds took and how much
    /// of it that was. Absent, the times are wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_queue_wait: Option<RunQueueWait>,
}

/// A table's timed runs: their wall time and, of it, the measuring thread's run-queue wait,
/// which the rows' times leave out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunQueueWait {
    /// Wall time from the first timed run's start to the last one's end, ns.
    pub wall_ns: f64,
    /// Of it, the time the measuring thread waited for a CPU, ns.
    pub waited_ns: f64,
}

impl RunQueueWait {
    /// The wait as a share of the wall time (0 when no time passed).
    pub fn share(&self) -> f64 {
        if self.wall_ns > 0.0 { self.waited_ns / self.wall_ns } else { 0.0 }
    }
}

/// How a table's strategies share the machine's time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// Each strategy's iterations one after another: whatever the machine does meanwhile
    /// lands on some rows and not others.
    #[default]
    Sequential,
    /// Rounds in which every strategy does one iteration, in an order shuffled per round:
    /// drift lands on every row alike, and rows pair up round by round.
    Interleaved,
}

impl Schedule {
    /// The name results files and `--schedule` use: `sequential`, `interleaved`.
    pub fn as_str(self) -> &'static str {
        match self {
            Schedule::Sequential => "sequential",
            Schedule::Interleaved => "interleaved",
        }
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Schedule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sequential" => Ok(Schedule::Sequential),
            "interleaved" => Ok(Schedule::Interleaved),
            other => Err(format!("unknown schedule {other:?}: expected sequential or interleaved")),
        }
    }
}

/// Whether a row was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Passed the gate and was timed.
    Ok,
    /// Failed (the gate or the run): no timing, see [`Row::error_message`].
    Failed,
}

/// A strategy's identity as values: its style (the API it calls: `typed`, `borrowed`, `dom`,
/// `incremental` ...) and the library it calls, if one (the store's `floor` and `default` call
/// none). Made where the strategy is made and carried to its row; its name, `style/library`,
/// is for people and is never read back into parts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StrategyId {
    style: Cow<'static, str>,
    library: Option<Cow<'static, str>>,
    /// `style/library`, or the style alone: made once, as rows and filters read it often.
    name: String,
}

impl StrategyId {
    /// `style/library`, e.g. `typed/serde_json`.
    pub fn new(style: impl Into<Cow<'static, str>>, library: impl Into<Cow<'static, str>>) -> Self {
        Self::of(style.into(), Some(library.into()))
    }

    /// A strategy of no one library (the store's `floor`), or a row named by a label taken whole
    /// (an http target, an error table's row, an A/B figure): the name is its style.
    pub fn named(style: impl Into<Cow<'static, str>>) -> Self {
        Self::of(style.into(), None)
    }

    fn of(style: Cow<'static, str>, library: Option<Cow<'static, str>>) -> Self {
        let name = match &library {
            Some(library) => format!("{style}/{library}"),
            None => style.to_string(),
        };
        StrategyId { style, library, name }
    }

    /// The style: the API the strategy calls.
    pub fn style(&self) -> &str {
        &self.style
    }

    /// The library it calls, if one.
    pub fn library(&self) -> Option<&str> {
        self.library.as_deref()
    }

    /// `style/library` (the style alone without a library): the name tables, filters and
    /// results files show.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The identity of a row of a file written before rows carried one: its method read as
    /// `style/library` (the last `/` splits them: a library's name has none), a method without
    /// one as a style alone. Reading such files is the only place a name is split.
    fn from_legacy_method(method: &str) -> Self {
        match method.rsplit_once('/') {
            Some((style, library)) => StrategyId::new(style.to_string(), library.to_string()),
            None => StrategyId::named(method.to_string()),
        }
    }
}

impl std::fmt::Display for StrategyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// A label taken whole as a row's name, never split ([`StrategyId::named`]).
impl From<&str> for StrategyId {
    fn from(label: &str) -> Self {
        StrategyId::named(label.to_string())
    }
}

/// A label taken whole as a row's name, never split ([`StrategyId::named`]).
impl From<String> for StrategyId {
    fn from(label: String) -> Self {
        StrategyId::named(label)
    }
}

impl From<&StrategyId> for StrategyId {
    fn from(id: &StrategyId) -> Self {
        id.clone()
    }
}

/// [`StrategyId`] as results files hold it: `{"style": "typed", "library": "serde_json"}`.
#[derive(Serialize, Deserialize)]
struct StrategyIdFile {
    style: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    library: Option<String>,
}

impl Serialize for StrategyId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StrategyIdFile {
            style: self.style.to_string(),
            library: self.library.as_ref().map(|l| l.to_string()),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for StrategyId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = StrategyIdFile::deserialize(d)?;
        Ok(StrategyId::of(f.style.into(), f.library.map(Cow::Owned)))
    }
}

/// One strategy's measurement. A failed row keeps its place with `status: failed`, an
/// `error_message`, and no timing.
///
/// Read through `RowVisitor`, which also reads files written before rows carried their
/// [`StrategyId`] or typed http figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Row {
    /// The strategy's name, `style/library` (e.g. `typed/serde_json`): [`Row::strategy`]'s
    /// name, as tables and `compare` show and match it.
    pub method: String,
    /// The strategy's identity. Files written before it was recorded have it from `method`
    /// as they are read.
    #[serde(default = "StrategyId::unread")]
    pub strategy: StrategyId,
    /// The row the table's ratios are to.
    pub baseline: bool,
    /// Measured or failed.
    pub status: Status,
    /// Why it failed.
    pub error_message: Option<String>,
    /// Mean time per operation, ns.
    pub mean_ns: Option<f64>,
    /// Half the 99.9% confidence interval of the mean, ns.
    pub error_ns: Option<f64>,
    /// Sample standard deviation of the per-operation times, ns.
    pub stddev_ns: Option<f64>,
    /// Median per-operation time, ns.
    pub median_ns: Option<f64>,
    /// 95th percentile per-operation time, ns.
    pub p95_ns: Option<f64>,
    /// Fastest kept iteration's per-operation time, ns.
    #[serde(default)]
    pub min_ns: Option<f64>,
    /// Slowest kept iteration's per-operation time, ns.
    #[serde(default)]
    pub max_ns: Option<f64>,
    /// Actual iterations kept.
    pub iterations: Option<u64>,
    /// Operations in one iteration (chosen by the Pilot).
    pub ops_per_iteration: Option<u64>,
    /// Upper outliers removed (Tukey's fence).
    pub outliers_removed: Option<u64>,
    /// Time over the baseline's: the paired geometric mean on an interleaved table, else the
    /// mean of all pairwise quotients of per-operation samples.
    pub ratio: Option<f64>,
    /// Standard deviation of `ratio`'s quotients.
    pub ratio_sd: Option<f64>,
    /// Bytes allocated per operation (requested sizes).
    pub allocated_bytes: Option<f64>,
    /// Allocations per operation.
    pub allocs: Option<f64>,
    /// Allocated bytes over the baseline's.
    pub alloc_ratio: Option<f64>,
    /// Peak live heap during the Allocation pass, bytes.
    pub peak_bytes: Option<u64>,
    /// Payload megabytes per second.
    pub mb_per_s: Option<f64>,
    /// Per-operation time of each kept Actual iteration (ns): a sequential table's ratio is
    /// computed from their pairwise quotients, and the report counts them as the row's samples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ns: Vec<f64>,
    /// Interleaved schedule: per-operation time of every round, in round order, nothing
    /// removed, so rows of a table pair up round by round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds_ns: Vec<f64>,
    /// Interleaved schedule: the paired Ratio against the baseline (geometric mean of the
    /// per-round ratios) with its 99% interval ([`crate::paired::log_ratio`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_interval: Option<Interval>,
    /// Interleaved store tables: the per-round time above the table's floor row (ns), with
    /// its 99% interval ([`crate::paired::difference`]): the row's JSON work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub above_floor_ns: Option<Interval>,
    /// How the output compared with the exact reference (the correctness gate's finding);
    /// absent where no output was checked against one (failed rows, http).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fidelity: Option<Fidelity>,
    /// A safety row's finding (library, path, case, outcome, agreement); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<crate::safety::SafetyCell>,
    /// What the strategy delivers; the advisor compares only rows with the baseline's. Absent
    /// in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// What adopting the strategy takes (the verdict's ladder is ordered by it). Absent in files
    /// written before it was recorded: their rows all stand on one rung.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// The process's peak RSS over the row's untimed run and its growth above the (trimmed)
    /// RSS the run started at: whole-run rows (stream) and the http uploads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss: Option<crate::rss::RssPeak>,
    /// An http row's load figures (req/s, latency percentiles, errors, server CPU); absent
    /// elsewhere. Files that kept them as `extra` keys have them here as they are read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<crate::http_figures::HttpFigures>,
    /// Instructions and simulated cache misses per operation under Callgrind
    /// (`--measure counts`); never a time. Absent where not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<crate::counts::Counts>,
    /// The profile of the server this row loaded (`http --target … --profile`, `ab --http
    /// --profile`): its JSON share, where it went, its flamegraph's stacks. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Box<crate::profile::ServerProfile>>,
}

/// The method name of the store experiment's reference row: the document's bytes read and
/// discarded ([`Contract::Discarded`]); a read's JSON work is its time above this row's.
pub const FLOOR: &str = "floor";

/// What a strategy hands its caller: two strategies do the same job only when they deliver the
/// same thing, so advice never swaps one for the other silently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Contract {
    /// An owned value of the caller's type.
    TypedValue,
    /// The caller's type with strings borrowed from the input (the input must outlive it, and
    /// a string with escapes cannot be borrowed).
    BorrowedValue,
    /// An owned tree of any JSON.
    Dom,
    /// A tree borrowing strings from the input.
    BorrowedDom,
    /// The input, validated and kept as bytes.
    RawValidated,
    /// A few named fields, the rest skipped.
    Projection,
    /// A fold over the elements (the stream's aggregate): no value is kept.
    Aggregate,
    /// Output bytes written from a typed value.
    BytesFromTyped,
    /// Output bytes written from a tree already held.
    BytesFromDom,
    /// Stored bytes sent as they are, never parsed.
    Passthrough,
    /// The bytes read and discarded: a reference row (the store's floor), not a choice.
    Discarded,
    /// Someone else's endpoint (`http --target`): what it does is not known.
    Opaque,
    /// The same values read through another model of the caller's type (a flattened struct, a
    /// tagged enum, an unparsed date-time ...): a change to the type, never a drop-in swap.
    OtherModel,
}

impl Contract {
    /// What the "if you only need ..." line of the advice says of it.
    pub fn need(self) -> &'static str {
        match self {
            Contract::TypedValue => "an owned typed value",
            Contract::BorrowedValue => "a typed value borrowing strings from the input",
            Contract::Dom => "a DOM",
            Contract::BorrowedDom => "a DOM borrowing from the input",
            Contract::RawValidated => "the input validated and kept as bytes",
            Contract::Projection => "a few named fields",
            Contract::Aggregate => "an aggregate over the elements",
            Contract::BytesFromTyped => "output bytes from a typed value",
            Contract::BytesFromDom => "output bytes from a DOM you already hold",
            Contract::Passthrough => "the stored bytes sent unparsed",
            Contract::Discarded => "the bytes discarded",
            Contract::Opaque => "what this endpoint does",
            Contract::OtherModel => "the values through another model of your type",
        }
    }
}

impl Contract {
    /// Whether a strategy delivering `self` can replace one delivering `base` without the
    /// caller losing anything it had: the same contract; or, at the cost of a change to the
    /// type, the same values through a borrowed form or another model of the type; or, behind
    /// an endpoint, the stored bytes sent unparsed where output bytes of a typed value were
    /// (the response is the same bytes: http's agreement check compares them).
    pub fn stands_in_for(self, base: Contract) -> bool {
        self == base
            || matches!(
                (base, self),
                (Contract::TypedValue, Contract::BorrowedValue | Contract::OtherModel) | (Contract::BytesFromTyped, Contract::Passthrough)
            )
    }
}

/// What adopting a strategy takes, cheapest first: the rungs of the verdict's ladder. A pull
/// request reviewer's scale: a swap touches no type and no call site's logic; a model change
/// touches the types; a code change rewrites the path that handles the JSON; an architecture
/// change moves where or whether the JSON is handled at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    /// The same types and serde derives: another serde library, a reused buffer, `from_slice`
    /// instead of `from_reader`, another allocator.
    Swap,
    /// A change to the types or their derives: a borrowed form, another model of the type,
    /// another library's derive, another library's DOM type.
    Model,
    /// A different code path: a lazy projection, raw passthrough of a value, streaming the
    /// elements, a hand-written decoder, a DOM walk then conversion.
    Code,
    /// Where or whether the JSON is handled: serving stored bytes unparsed, a projection done
    /// by the store, a client kept across calls.
    Architecture,
}

impl Effort {
    /// Every rung, cheapest first.
    pub const ALL: [Effort; 4] = [Effort::Swap, Effort::Model, Effort::Code, Effort::Architecture];

    /// The rung's name in tables and verdicts.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Swap => "swap",
            Effort::Model => "model",
            Effort::Code => "code",
            Effort::Architecture => "architecture",
        }
    }

    /// What adopting a step of this rung means, for the verdict's legend.
    pub fn means(self) -> &'static str {
        match self {
            Effort::Swap => "same types and derives, another call",
            Effort::Model => "a change to your types or their derives",
            Effort::Code => "a different code path",
            Effort::Architecture => "a change to where or whether JSON is handled",
        }
    }
}

impl std::fmt::Display for Effort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a strategy's output compares with the exact reference, in counts of numbers. Every
/// count zero is exact; a value that differs otherwise fails the row instead (it is not timed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fidelity {
    /// Numbers compared (the reference's).
    pub numbers: u64,
    /// Floats a few ulp away from the correctly rounded value of their text (at most
    /// [`Fidelity::MAX_INEXACT_ULPS`]; `floats_1ulp` in files written before it was counted so).
    #[serde(alias = "floats_1ulp")]
    pub floats_inexact: u64,
    /// The largest distance, in ulp, of those floats (0 when none; absent in older files).
    #[serde(default)]
    pub max_ulps: u64,
    /// `-0` read as `0` (as the float `0.0` or the integer `0`).
    pub zero_sign_lost: u64,
    /// Integers read as floats, or floats as integers, with the same value as an `f64`.
    pub integers_changed: u64,
    /// Objects whose members' order was compared with the input's: a written output's (the
    /// serialized text), 0 when none was (a decoded value has no text to read it from).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub objects: u64,
    /// Of those, objects whose members come in another order than the input's (JSON leaves
    /// the order free: a value difference neither counts nor fails).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub objects_reordered: u64,
    /// Why, when the harness knows (e.g. "serde_json without float_roundtrip").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The first numbers that differ, up to [`Fidelity::EXAMPLES`] of each kind, in the order
    /// they were met; absent when exact (and in files written before they were named).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first: Vec<NumberDifference>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One number of the output that is not the reference's exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberDifference {
    /// How the number differs.
    pub kind: DifferenceKind,
    /// Where, as a JSON pointer (RFC 6901; `""` is the document itself).
    pub pointer: String,
    /// The reference's value: the correctly rounded value of the input's text, written as the
    /// shortest text that reads back as it.
    pub exact: String,
    /// The library's value, written the same way.
    pub got: String,
}

/// The kinds of [`Fidelity`]'s counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DifferenceKind {
    /// A float a few ulp from the correctly rounded value (`floats_inexact`).
    InexactFloat,
    /// `-0` read as `0` (`zero_sign_lost`).
    ZeroSignLost,
    /// An integer read as a float or the reverse (`integers_changed`).
    IntegerChanged,
}

impl Fidelity {
    /// How far a float may be from the correctly rounded value of its text and still count as
    /// the same number read inexactly: serde_json without `float_roundtrip` is usually 1 ulp off,
    /// and more on long mantissas (`381541.33417545308e-12`); values further apart differ.
    pub const MAX_INEXACT_ULPS: u64 = 16;

    /// How many numbers of each kind [`Fidelity::first`] names.
    pub const EXAMPLES: usize = 3;

    /// Keeps `difference` among [`Fidelity::first`] when fewer than [`Fidelity::EXAMPLES`] of
    /// its kind are named (the counts are the caller's).
    pub fn name(&mut self, difference: NumberDifference) {
        if self.first.iter().filter(|d| d.kind == difference.kind).count() < Self::EXAMPLES {
            self.first.push(difference);
        }
    }

    /// The named differences of one kind.
    pub fn named(&self, kind: DifferenceKind) -> impl Iterator<Item = &NumberDifference> {
        self.first.iter().filter(move |d| d.kind == kind)
    }

    /// Every number as the reference has it.
    pub fn is_exact(&self) -> bool {
        self.floats_inexact == 0 && self.zero_sign_lost == 0 && self.integers_changed == 0
    }

    /// Adds the counts of `other` (e.g. of another element of a streamed array).
    pub fn add(&mut self, other: &Fidelity) {
        self.numbers += other.numbers;
        self.floats_inexact += other.floats_inexact;
        self.max_ulps = self.max_ulps.max(other.max_ulps);
        self.zero_sign_lost += other.zero_sign_lost;
        self.integers_changed += other.integers_changed;
        self.objects += other.objects;
        self.objects_reordered += other.objects_reordered;
        for d in &other.first {
            self.name(d.clone());
        }
    }
}

impl Serialize for Row {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Row::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Row {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RowVisitor)
    }
}

impl StrategyId {
    /// Stands for an identity the file did not hold until [`Legacy::apply`] derives it.
    fn unread() -> Self {
        StrategyId::named("")
    }
}

/// Reads a row's fields as they are declared, with what older files hold beside them: the
/// `extra` map (http figures before they were typed: [`HttpFigures::take_from_extra`]) and no
/// `strategy` (derived from `method`). Every field is read from the file's own deserializer, so
/// an error keeps its line and column.
///
/// [`HttpFigures::take_from_extra`]: crate::http_figures::HttpFigures::take_from_extra
struct RowVisitor;

/// What a row of an older file held that the row no longer declares.
#[derive(Default)]
struct Legacy {
    extra: Map<String, Value>,
    has_strategy: bool,
}

impl Legacy {
    fn apply(mut self, row: &mut Row) {
        if row.http.is_none() {
            row.http = crate::http_figures::HttpFigures::take_from_extra(&mut self.extra);
        }
        if !self.has_strategy {
            row.strategy = StrategyId::from_legacy_method(&row.method);
        }
    }
}

impl<'de> serde::de::Visitor<'de> for RowVisitor {
    type Value = Row;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a row")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Row, A::Error> {
        let mut legacy = Legacy::default();
        let sifted = Sift { map, legacy: &mut legacy };
        let mut row = Row::deserialize(serde::de::value::MapAccessDeserializer::new(sifted))?;
        legacy.apply(&mut row);
        Ok(row)
    }
}

/// A row's map with `extra` taken aside into [`Legacy`] and `strategy` noted.
struct Sift<'l, A> {
    map: A,
    legacy: &'l mut Legacy,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for Sift<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        use serde::de::IntoDeserializer;
        // Bounded by the map's own keys.
        while let Some(key) = self.map.next_key::<String>()? {
            match key.as_str() {
                "extra" => {
                    self.legacy.extra = self.map.next_value()?;
                    continue;
                }
                "strategy" => self.legacy.has_strategy = true,
                _ => {}
            }
            return seed.deserialize(IntoDeserializer::<A::Error>::into_deserializer(key)).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

impl Row {
    /// An empty row of `strategy` with no measurement yet. A `&str` or `String` is taken whole
    /// as a label ([`StrategyId::named`]).
    pub fn new(strategy: impl Into<StrategyId>) -> Self {
        let strategy = strategy.into();
        Row {
            method: strategy.name().to_string(),
            strategy,
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
            samples_ns: Vec::new(),
            rounds_ns: Vec::new(),
            ratio_interval: None,
            above_floor_ns: None,
            fidelity: None,
            safety: None,
            contract: None,
            effort: None,
            rss: None,
            http: None,
            counts: None,
            profile: None,
        }
    }

    /// A failed row: shown, never timed.
    pub fn failed(strategy: impl Into<StrategyId>, message: impl Into<String>) -> Self {
        let mut r = Row::new(strategy);
        r.status = Status::Failed;
        r.error_message = Some(message.into());
        r
    }

    /// Whether it was measured ([`Status::Ok`]).
    pub fn is_ok(&self) -> bool {
        self.status == Status::Ok
    }

    /// This row's time over `base`'s, paired round by round ([`crate::paired::log_ratio`]:
    /// the geometric mean of the per-round ratios with its 99% interval); `None` unless both
    /// were measured in the same interleaved rounds. The one place a paired ratio of two rows
    /// is computed: the Ratio column, the advisor and the summaries read it.
    pub fn paired_ratio_to(&self, base: &Row) -> Option<Interval> {
        if base.rounds_ns.is_empty() {
            return None;
        }
        crate::paired::log_ratio(&base.rounds_ns, &self.rounds_ns, crate::paired::PAIRED_CONFIDENCE)
    }
}

impl MeasuredTable {
    /// An empty table of `experiment` named `table`, measured one strategy after another.
    pub fn new(experiment: ExperimentKind, table: impl Into<String>) -> Self {
        MeasuredTable {
            kind: experiment,
            table: table.into(),
            params: Map::new(),
            rows: Vec::new(),
            schedule: Schedule::Sequential,
            summary: None,
            ab_http: None,
            run_queue_wait: None,
        }
    }

    /// The baseline row: the one flagged `baseline`, else the first.
    pub fn baseline(&self) -> Option<&Row> {
        self.rows.iter().find(|r| r.baseline).or_else(|| self.rows.first())
    }

    /// Fills every ok row's `above_floor_ns` from the rounds it shares with the ok row named
    /// `floor` (interleaved tables only; the floor's own is a zero difference).
    pub fn fill_above_floor(&mut self, floor: &str) {
        let Some(floor_rounds) = self
            .rows
            .iter()
            .find(|r| r.method == floor && r.is_ok() && !r.rounds_ns.is_empty())
            .map(|r| r.rounds_ns.clone())
        else {
            return;
        };
        for row in self.rows.iter_mut().filter(|r| r.is_ok()) {
            row.above_floor_ns = crate::paired::difference(&floor_rounds, &row.rounds_ns, crate::paired::PAIRED_CONFIDENCE);
        }
    }

    /// Fills Ratio, RatioSD and Alloc Ratio against the baseline (unless one is flagged, the
    /// first row measured, else the first pushed: a filter may leave the real one out), then
    /// sorts fastest first with failed rows last.
    pub fn finish(&mut self) {
        if !self.rows.iter().any(|r| r.baseline) {
            let first_ok = self.rows.iter().position(Row::is_ok).unwrap_or(0);
            if let Some(row) = self.rows.get_mut(first_ok) {
                row.baseline = true;
            }
        }
        let base = self.baseline().cloned();
        if let Some(base) = base {
            for row in self.rows.iter_mut().filter(|r| r.is_ok()) {
                fill_ratios(&base, row);
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

/// Fills `ratio`, `ratio_sd` and `alloc_ratio` of `row` against `base`. Rows measured in the
/// same interleaved rounds are paired ([`crate::paired::log_ratio`]: geometric mean of the
/// per-round ratios, its 99% interval, RatioSD the SD of the per-round ratios); others get
/// BenchmarkDotNet's pairwise quotients.
fn fill_ratios(base: &Row, row: &mut Row) {
    if let Some(interval) = row.paired_ratio_to(base) {
        row.ratio = Some(interval.estimate);
        row.ratio_sd = crate::paired::ratio_sd(&base.rounds_ns, &row.rounds_ns);
        row.ratio_interval = Some(interval);
    } else if let Some((r, sd)) = crate::stats::ratio_of_samples(&base.samples_ns, &row.samples_ns) {
        row.ratio = Some(r);
        row.ratio_sd = Some(sd);
    } else if let (Some(b), Some(m)) = (base.mean_ns, row.mean_ns)
        && b > 0.0
    {
        row.ratio = Some(m / b);
    }
    row.alloc_ratio = match (base.allocated_bytes, row.allocated_bytes) {
        (Some(b), Some(a)) if b > 0.0 => Some(a / b),
        (Some(b), Some(a)) if b == 0.0 && a == 0.0 => Some(1.0),
        _ => None,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_cpu_round_trips_and_an_older_files_wait_reads_as_its_larger_side() {
        let now = OtherCpu {
            run: 2,
            share: 0.012,
            limit: 0.05,
        };
        let text = serde_json::to_string(&now).unwrap();
        assert_eq!(text, r#"{"run":2,"share":0.012,"limit":0.05}"#);
        assert_eq!(serde_json::from_str::<OtherCpu>(&text).unwrap(), now);
        let older: OtherCpu = serde_json::from_str(r#"{"run":1,"base":0.004,"new":0.3}"#).unwrap();
        assert_eq!(
            older,
            OtherCpu {
                run: 1,
                share: 0.3,
                limit: OtherCpu::DEFAULT_LIMIT
            }
        );
        assert!(older.busy() && !now.busy());
    }

    /// A filter that leaves out the baseline: the first row that was measured stands in, not
    /// a failed one (whose figures no ratio can be taken against).
    #[test]
    fn without_a_flagged_baseline_the_first_measured_row_is_it() {
        let mut exp = MeasuredTable::new(ExperimentKind::Micro, "t");
        exp.rows.push(Row::failed("borrowed/serde_json", "cannot borrow"));
        for (method, mean) in [("borrowed/sonic-rs", 20.0), ("borrowed/simd-json", 10.0)] {
            let mut row = Row::new(method);
            row.mean_ns = Some(mean);
            exp.rows.push(row);
        }
        exp.finish();
        let baseline: Vec<&str> = exp.rows.iter().filter(|r| r.baseline).map(|r| r.method.as_str()).collect();
        assert_eq!(baseline, ["borrowed/sonic-rs"]);
        let ratio = |m: &str| exp.rows.iter().find(|r| r.method == m).unwrap().ratio;
        assert_eq!((ratio("borrowed/sonic-rs"), ratio("borrowed/simd-json")), (Some(1.0), Some(0.5)));
    }

    #[test]
    fn a_rows_strategy_round_trips_as_values_and_its_name_is_made_from_them() {
        let id = StrategyId::new("dom-borrowed", "serde_json_borrow");
        let row = Row::new(id.clone());
        assert_eq!(
            (row.method.as_str(), id.style(), id.library()),
            ("dom-borrowed/serde_json_borrow", "dom-borrowed", Some("serde_json_borrow"))
        );
        let text = serde_json::to_value(&row).unwrap();
        assert_eq!(
            text["strategy"],
            serde_json::json!({"style": "dom-borrowed", "library": "serde_json_borrow"})
        );
        assert!(text.get("extra").is_none());
        assert_eq!(serde_json::from_value::<Row>(text).unwrap(), row);
        // A label is taken whole: no library, however many slashes it has.
        let label = Row::new("req/s");
        assert_eq!((label.strategy.style(), label.strategy.library()), ("req/s", None));
        let text = serde_json::to_string(&label).unwrap();
        assert!(text.contains(r#""strategy":{"style":"req/s"}"#), "{text}");
        assert_eq!(serde_json::from_str::<Row>(&text).unwrap(), label);
    }

    /// A row of a file written before rows carried their identity and typed http figures: the
    /// identity comes from the method, the figures from `extra`, which is not kept.
    #[test]
    fn an_older_rows_strategy_and_http_figures_are_read_from_its_method_and_extra() {
        let older = r#"{"method": "typed/serde_json", "baseline": true, "status": "ok", "error_message": null,
            "mean_ns": 5.0, "error_ns": null, "stddev_ns": null, "median_ns": null, "p95_ns": null,
            "iterations": null, "ops_per_iteration": null, "outliers_removed": null, "ratio": null,
            "ratio_sd": null, "allocated_bytes": null, "allocs": null, "alloc_ratio": null,
            "peak_bytes": null, "mb_per_s": null, "extra": {"req_per_s": 500.0, "requests": 1000, "other": 1}}"#;
        let row: Row = serde_json::from_str(older).unwrap();
        assert_eq!(row.strategy, StrategyId::new("typed", "serde_json"));
        let http = row.http.as_ref().unwrap();
        assert_eq!((http.req_per_s, http.requests), (Some(500.0), 1000));
        let floor: Row = serde_json::from_str(
            &older
                .replace("typed/serde_json", FLOOR)
                .replace(r#""req_per_s": 500.0, "requests": 1000, "#, ""),
        )
        .unwrap();
        assert_eq!((floor.strategy, floor.http), (StrategyId::named(FLOOR), None));
        // The file's own identity wins over its method; an error keeps its place in the text.
        let own = older.replace(r#""extra""#, r#""strategy": {"style": "typed", "library": "other"}, "extra""#);
        assert_eq!(
            serde_json::from_str::<Row>(&own).unwrap().strategy,
            StrategyId::new("typed", "other")
        );
        let bad = older.replace(r#""mean_ns": 5.0"#, r#""mean_ns": "fast""#);
        let e = serde_json::from_str::<Row>(&bad).unwrap_err();
        assert_eq!(
            (
                e.to_string().starts_with("invalid type: string \"fast\", expected f64"),
                e.line(),
                e.column()
            ),
            (true, 2, 29)
        );
    }

    #[test]
    fn alloc_ratio_handles_zero_baseline() {
        let mut base = Row::new("a");
        base.allocated_bytes = Some(0.0);
        let mut row = Row::new("b");
        row.allocated_bytes = Some(0.0);
        fill_ratios(&base, &mut row);
        assert_eq!(row.alloc_ratio, Some(1.0));
        row.allocated_bytes = Some(8.0);
        fill_ratios(&base, &mut row);
        assert_eq!(row.alloc_ratio, None);
    }
}
