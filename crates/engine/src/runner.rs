//! The engine's stages, as BenchmarkDotNet runs them: Pilot (choose operations per iteration so
//! one iteration lasts the target time), Warmup, Actual (measured iterations until the stop
//! rule), then one untimed Allocation pass, so counting never perturbs timing.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::alloc;
use crate::model::Row;
use crate::stats::{Summary, remove_upper_outliers};

/// How long and how precisely to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Target duration of one Actual iteration (the Pilot aims for it).
    pub iteration_time: Duration,
    pub warmup_iterations: u32,
    pub min_iterations: u32,
    pub max_iterations: u32,
    /// Stop once Error / Mean falls under this (after `min_iterations`).
    pub max_relative_error: f64,
    /// Stop once this much time has been spent in Actual iterations (after `min_iterations`).
    pub budget: Duration,
    /// Fixed operations per iteration (skips the Pilot): 1 for "each run as a whole".
    pub fixed_ops: Option<u64>,
    /// Operations in the Allocation pass (capped by the chosen operations per iteration).
    pub alloc_ops: u64,
    /// Marks results as traded for speed.
    pub quick: bool,
    /// Whose allocations the Allocation pass counts.
    pub alloc_scope: AllocScope,
    /// Also read the process's peak RSS during the Allocation pass (reset just before it).
    pub measure_rss: bool,
}

/// Whose allocations the Allocation pass counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocScope {
    /// The measuring thread only: exact, immune to other threads (the progress bar's).
    Thread,
    /// Every thread of the process: for operations that hand work to other threads (tokio's
    /// blocking pool reading a file, a server's runtime).
    Process,
}

impl Config {
    /// The default precision: at least 15 and at most 100 iterations of ~40 ms, stopping at 2%.
    pub fn full() -> Self {
        Config {
            iteration_time: Duration::from_millis(40),
            warmup_iterations: 3,
            min_iterations: 15,
            max_iterations: 100,
            max_relative_error: 0.02,
            budget: Duration::from_secs(3),
            fixed_ops: None,
            alloc_ops: 1000,
            quick: false,
            alloc_scope: AllocScope::Thread,
            measure_rss: false,
        }
    }

    /// `--quick`: fewer, shorter iterations; the output says so.
    pub fn quick() -> Self {
        Config {
            iteration_time: Duration::from_millis(8),
            warmup_iterations: 1,
            min_iterations: 5,
            max_iterations: 15,
            max_relative_error: 0.05,
            budget: Duration::from_millis(300),
            fixed_ops: None,
            alloc_ops: 200,
            quick: true,
            alloc_scope: AllocScope::Thread,
            measure_rss: false,
        }
    }

    /// For operations that are a whole run each (the stream experiment): one operation per
    /// iteration, at least `min_runs` runs.
    pub fn whole_runs(min_runs: u32, max_runs: u32, budget: Duration, quick: bool) -> Self {
        Config {
            iteration_time: Duration::ZERO,
            warmup_iterations: 1,
            min_iterations: min_runs,
            max_iterations: max_runs.max(min_runs),
            max_relative_error: 0.02,
            budget,
            fixed_ops: Some(1),
            alloc_ops: 1,
            quick,
            alloc_scope: AllocScope::Process,
            measure_rss: true,
        }
    }
}

/// What the engine measured for one benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Per-operation time (ns) of every Actual iteration, in order.
    pub all_samples_ns: Vec<f64>,
    /// The same without upper outliers.
    pub samples_ns: Vec<f64>,
    pub outliers_removed: usize,
    pub ops_per_iteration: u64,
    pub summary: Summary,
    /// Per-operation allocation from the untimed pass; `None` when the counting allocator is
    /// not installed.
    pub allocated_bytes: Option<f64>,
    pub allocs: Option<f64>,
    /// Peak live heap during the Allocation pass.
    pub peak_bytes: Option<u64>,
    /// Peak resident set size of the process during the Allocation pass (when asked for).
    pub peak_rss_bytes: Option<u64>,
}

impl Measurement {
    /// Writes this measurement into a result row (ratios are filled later per table).
    pub fn fill(&self, row: &mut Row, payload_bytes: Option<u64>) {
        let s = &self.summary;
        row.mean_ns = Some(s.mean);
        row.error_ns = Some(s.error);
        row.stddev_ns = Some(s.stddev);
        row.median_ns = Some(s.median);
        row.p95_ns = Some(s.p95);
        row.min_ns = Some(s.min);
        row.max_ns = Some(s.max);
        row.iterations = Some(self.all_samples_ns.len() as u64);
        row.ops_per_iteration = Some(self.ops_per_iteration);
        row.outliers_removed = Some(self.outliers_removed as u64);
        row.allocated_bytes = self.allocated_bytes;
        row.allocs = self.allocs;
        row.peak_bytes = self.peak_bytes;
        if let Some(rss) = self.peak_rss_bytes {
            row.extra.insert("peak_rss_bytes".into(), rss.into());
        }
        row.samples_ns = self.samples_ns.clone();
        // bytes per ns * 1e9 / 1e6 = MB/s (decimal megabytes, as the published figures).
        if let Some(bytes) = payload_bytes
            && s.mean > 0.0
        {
            row.mb_per_s = Some(bytes as f64 / s.mean * 1e3);
        }
    }
}

fn time_iteration<R, E>(ops: u64, op: &mut impl FnMut() -> Result<R, E>) -> Result<Duration, E> {
    let start = Instant::now();
    for _ in 0..ops {
        black_box(op()?);
    }
    Ok(start.elapsed())
}

/// The stage an operation runs in, for operations that must start the Allocation pass from a
/// known state (a store read walks a sequence of ids: the pass restarts it, so two runs count
/// the same documents).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Pilot,
    Warmup,
    Actual,
    Allocation,
}

/// Runs the stages on `op` (one operation; its result is passed through `black_box`).
pub fn measure<R>(config: &Config, mut op: impl FnMut() -> R) -> Measurement {
    measure_staged(config, |_| op())
}

/// [`measure`], telling `op` which stage it runs in.
pub fn measure_staged<R>(config: &Config, mut op: impl FnMut(Stage) -> R) -> Measurement {
    match try_measure_staged(config, |stage| Ok::<R, std::convert::Infallible>(op(stage))) {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// [`measure_staged`] for an operation that can fail: the first error stops the measurement
/// and is returned (a row met an error while timed is failed, so nothing after it counts).
pub fn try_measure_staged<R, E>(config: &Config, mut op: impl FnMut(Stage) -> Result<R, E>) -> Result<Measurement, E> {
    // Pilot: double the operation count until one iteration lasts a quarter of the target,
    // then scale to the target.
    let ops = match config.fixed_ops {
        Some(n) => n.max(1),
        None => {
            let target = config.iteration_time.as_secs_f64();
            let mut n: u64 = 1;
            loop {
                let t = time_iteration(n, &mut || op(Stage::Pilot))?.as_secs_f64();
                if t >= target / 4.0 || n >= 1 << 30 {
                    break ((n as f64 * target / t.max(1e-9)).ceil() as u64).max(1);
                }
                n *= 2;
            }
        }
    };
    for _ in 0..config.warmup_iterations {
        time_iteration(ops, &mut || op(Stage::Warmup))?;
    }
    let mut all = Vec::new();
    let started = Instant::now();
    loop {
        let t = time_iteration(ops, &mut || op(Stage::Actual))?;
        all.push(t.as_nanos() as f64 / ops as f64);
        let n = all.len() as u32;
        if n >= config.max_iterations {
            break;
        }
        if n >= config.min_iterations {
            if started.elapsed() >= config.budget {
                break;
            }
            let (kept, _) = remove_upper_outliers(&all);
            if Summary::of(&kept).is_some_and(|s| s.relative_error() < config.max_relative_error) {
                break;
            }
        }
    }
    let (kept, removed) = remove_upper_outliers(&all);
    let summary = Summary::of(&kept).expect("at least one finite sample");

    // Allocation pass: untimed. A fixed number of operations, so two runs count the same ones,
    // unless that would take longer than the budget (a slow operation: its allocation is
    // usually the same every time).
    let affordable = (config.budget.as_secs_f64() * 1e9 / summary.mean.max(1.0)) as u64;
    let n = config.alloc_ops.min(affordable).max(1);
    let rss_reset = config.measure_rss && crate::rss::reset_peak();
    let mut pass = || -> Result<(), E> {
        for _ in 0..n {
            black_box(op(Stage::Allocation)?);
        }
        Ok(())
    };
    let stats = match (alloc::is_installed(), config.alloc_scope) {
        (false, _) => {
            pass()?;
            None
        }
        (true, AllocScope::Thread) => {
            let (r, stats) = alloc::thread_measure(pass);
            r?;
            Some(stats)
        }
        (true, AllocScope::Process) => {
            let m = alloc::ProcessMeasure::start();
            let r = pass();
            let stats = m.finish();
            r?;
            Some(stats)
        }
    };
    let peak_rss_bytes = if rss_reset { crate::rss::peak_bytes() } else { None };
    Ok(Measurement {
        all_samples_ns: all,
        samples_ns: kept,
        outliers_removed: removed,
        ops_per_iteration: ops,
        summary,
        allocated_bytes: stats.map(|s| s.bytes as f64 / n as f64),
        allocs: stats.map(|s| s.count as f64 / n as f64),
        peak_bytes: stats.map(|s| s.peak_bytes),
        peak_rss_bytes,
    })
}
