//! The engine's stages, as BenchmarkDotNet runs them: Pilot (choose operations per iteration so
//! one iteration lasts the target time), Warmup, Actual (measured iterations until the stop
//! rule), then one untimed Allocation pass, so counting never perturbs timing.

use std::hint::black_box;
use std::time::Duration;

use rand::SeedableRng;
use rand::seq::SliceRandom;

use crate::alloc;
use crate::clock::{Clock, LessRunQueueWait, SystemClock};
use crate::lockstep::Lockstep;
use crate::model::{Row, RunQueueWait, Schedule};
use crate::stats::{SampleStats, remove_upper_outliers};

/// How long and how precisely to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureConfig {
    /// Target duration of one Actual iteration (the Pilot aims for it).
    pub iteration_time: Duration,
    /// Warmup iterations after the Pilot, untimed in the result.
    pub warmup_iterations: u32,
    /// Actual iterations at least, whatever the precision.
    pub min_iterations: u32,
    /// Actual iterations at most.
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
    /// How a table's strategies share the time ([`measure_interleaved`] or one after another).
    pub schedule: Schedule,
    /// Seed of the interleaved schedule's per-round order.
    pub seed: u64,
    /// Time the interleaved rounds by wall time less the measuring thread's run-queue wait
    /// ([`crate::clock`]), where the kernel counts it: for whole runs, which another
    /// program's share of the CPU would otherwise reach round by round.
    pub leave_out_run_queue_wait: bool,
    /// The turns taken with a conductor (`jsoncost ab`, `alloc`): one before each timed
    /// iteration, and the conductor's say on each interleaved round. Alone by default; the
    /// program's edge sets it ([`Lockstep::from_env`]).
    pub lockstep: Lockstep,
}

/// The interleaved schedule's seed when the caller gives none.
pub const DEFAULT_SCHEDULE_SEED: u64 = 0x5EED_0000_1501;

/// Whose allocations the Allocation pass counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocScope {
    /// The measuring thread only: exact, immune to other threads (the progress bar's).
    Thread,
    /// The measuring thread (for the pass only) and the threads the operation enrolls
    /// ([`alloc::enroll_current_thread`], e.g. from tokio's `on_thread_start`): for operations
    /// that hand work to other threads (tokio's blocking pool reading a file). Not every thread
    /// of the process: the progress bar's ticker draws beside a whole run, a few times or none.
    Enrolled,
}

impl MeasureConfig {
    /// The default precision: at least 15 and at most 100 iterations of ~40 ms, stopping at 2%.
    pub fn full() -> Self {
        MeasureConfig {
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
            schedule: Schedule::Interleaved,
            seed: DEFAULT_SCHEDULE_SEED,
            leave_out_run_queue_wait: false,
            lockstep: Lockstep::alone(),
        }
    }

    /// `--quick`: fewer, shorter iterations; the output says so.
    pub fn quick() -> Self {
        MeasureConfig {
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
            schedule: Schedule::Interleaved,
            seed: DEFAULT_SCHEDULE_SEED,
            leave_out_run_queue_wait: false,
            lockstep: Lockstep::alone(),
        }
    }

    /// For operations that are a whole run each (the stream experiment): one operation per
    /// iteration, in interleaved rounds (each round runs every strategy once, so the machine's
    /// drift lands on every row alike and rows pair round by round), at least `min_runs` and
    /// at most `max_runs` of them; never fewer than two, the fewest a paired interval needs.
    pub fn whole_runs(min_runs: u32, max_runs: u32, budget: Duration, quick: bool) -> Self {
        let min_runs = min_runs.max(2);
        MeasureConfig {
            iteration_time: Duration::ZERO,
            // The gate's check run, before the rounds, is a whole run of the same operation.
            warmup_iterations: 0,
            min_iterations: min_runs,
            max_iterations: max_runs.max(min_runs),
            max_relative_error: 0.02,
            budget,
            fixed_ops: Some(1),
            alloc_ops: 1,
            quick,
            alloc_scope: AllocScope::Enrolled,
            measure_rss: true,
            schedule: Schedule::Interleaved,
            seed: DEFAULT_SCHEDULE_SEED,
            leave_out_run_queue_wait: true,
            lockstep: Lockstep::alone(),
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
    /// Interleaved schedule: the same as `all_samples_ns`, one per round, for pairing with the
    /// other strategies of the rounds; empty when measured on its own.
    pub rounds_ns: Vec<f64>,
    /// Upper outliers removed (Tukey's fence, k = 1.5).
    pub outliers_removed: usize,
    /// Operations per iteration, as the Pilot chose.
    pub ops_per_iteration: u64,
    /// Statistics of `samples_ns`.
    pub summary: SampleStats,
    /// Per-operation allocation from the untimed pass; `None` when the counting allocator is
    /// not installed.
    pub allocated_bytes: Option<f64>,
    /// Allocations per operation from the untimed pass.
    pub allocs: Option<f64>,
    /// Peak live heap during the Allocation pass.
    pub peak_bytes: Option<u64>,
    /// The process's resident set during the Allocation pass (when asked for).
    pub rss: Option<crate::rss::RssPeak>,
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
        row.rss = self.rss;
        row.samples_ns = self.samples_ns.clone();
        row.rounds_ns = self.rounds_ns.clone();
        // bytes per ns * 1e9 / 1e6 = MB/s (decimal megabytes, as the published figures).
        if let Some(bytes) = payload_bytes
            && s.mean > 0.0
        {
            row.mb_per_s = Some(bytes as f64 / s.mean * 1e3);
        }
    }
}

fn time_iteration<R, E>(clock: &dyn Clock, ops: u64, op: &mut impl FnMut() -> Result<R, E>) -> Result<Duration, E> {
    let start = clock.now();
    for _ in 0..ops {
        black_box(op()?);
    }
    Ok(clock.now().saturating_sub(start))
}

/// The stage an operation runs in, for operations that must start the Allocation pass from a
/// known state (a store read walks a sequence of ids: the pass restarts it, so two runs count
/// the same documents).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Finding how many operations fill an iteration.
    Pilot,
    /// Untimed iterations before the Actual ones.
    Warmup,
    /// The timed iterations.
    Actual,
    /// The untimed pass that counts allocations.
    Allocation,
}

/// Runs the stages on `op` (one operation; its result is passed through `black_box`).
pub fn measure<R>(config: &MeasureConfig, mut op: impl FnMut() -> R) -> Measurement {
    measure_staged(config, |_| op())
}

/// [`measure`], telling `op` which stage it runs in.
pub fn measure_staged<R>(config: &MeasureConfig, mut op: impl FnMut(Stage) -> R) -> Measurement {
    match try_measure_staged(config, |stage| Ok::<R, std::convert::Infallible>(op(stage))) {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// [`measure_staged`] for an operation that can fail: the first error stops the measurement
/// and is returned (a row met an error while timed is failed, so nothing after it counts).
pub fn try_measure_staged<R, E>(config: &MeasureConfig, op: impl FnMut(Stage) -> Result<R, E>) -> Result<Measurement, E> {
    try_measure_staged_with(config, &SystemClock::default(), op)
}

/// Pilot: double the operation count until one iteration lasts a quarter of the target, then
/// scale to the target.
fn pilot<R, E>(config: &MeasureConfig, clock: &dyn Clock, op: &mut impl FnMut(Stage) -> Result<R, E>) -> Result<u64, E> {
    if let Some(n) = config.fixed_ops {
        return Ok(n.max(1));
    }
    let target = config.iteration_time.as_secs_f64();
    let mut n: u64 = 1;
    loop {
        let t = time_iteration(clock, n, &mut || op(Stage::Pilot))?.as_secs_f64();
        if t >= target / 4.0 || n >= 1 << 30 {
            return Ok(((n as f64 * target / t.max(1e-9)).ceil() as u64).max(1));
        }
        n *= 2;
    }
}

/// The stop rule's precision test: Error / Mean of the samples without upper outliers.
fn precise_enough(config: &MeasureConfig, all: &[f64]) -> bool {
    let (kept, _) = remove_upper_outliers(all);
    SampleStats::of(&kept).is_some_and(|s| s.relative_error() < config.max_relative_error)
}

/// The interleaved stop rule's paired test: every strategy's per-round ratio to the first
/// one is known within `max_relative_error` (half the 99% interval). Drift shared by a round
/// cancels in the ratio, so on a noisy machine this is met long before each strategy's own
/// Error/Mean is, and the rows' relative figures are what a table is read for.
fn ratios_precise_enough(config: &MeasureConfig, samples: &[Vec<f64>]) -> bool {
    let Some((first, rest)) = samples.split_first() else {
        return true;
    };
    !rest.is_empty()
        && rest.iter().all(|s| {
            crate::paired::log_ratio(first, s, crate::paired::PAIRED_CONFIDENCE)
                .is_some_and(|i| i.relative_half_width() < config.max_relative_error)
        })
}

/// What the untimed Allocation pass counted.
struct Counted {
    allocated_bytes: Option<f64>,
    allocs: Option<f64>,
    peak_bytes: Option<u64>,
    rss: Option<crate::rss::RssPeak>,
}

/// Allocation pass: untimed. A fixed number of operations, so two runs count the same ones,
/// unless that would take longer than the budget (a slow operation: its allocation is usually
/// the same every time).
fn allocation_pass<R, E>(config: &MeasureConfig, mean_ns: f64, op: &mut impl FnMut(Stage) -> Result<R, E>) -> Result<Counted, E> {
    let affordable = (config.budget.as_secs_f64() * 1e9 / mean_ns.max(1.0)) as u64;
    let n = config.alloc_ops.min(affordable).max(1);
    let rss = if config.measure_rss { crate::rss::PeakWindow::open() } else { None };
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
        (true, AllocScope::Enrolled) => {
            let (r, stats) = alloc::while_enrolled(|| {
                let m = alloc::ProcessMeasure::start_enrolled();
                let r = pass();
                (r, m.finish())
            });
            r?;
            Some(stats)
        }
    };
    Ok(Counted {
        allocated_bytes: stats.map(|s| s.bytes as f64 / n as f64),
        allocs: stats.map(|s| s.count as f64 / n as f64),
        peak_bytes: stats.map(|s| s.peak_bytes),
        rss: rss.and_then(crate::rss::PeakWindow::close),
    })
}

/// The measurement of `all` (per-op samples, in order), before its Allocation pass.
fn timed(all: Vec<f64>, ops: u64, rounds: bool) -> Option<(Measurement, f64)> {
    let (kept, removed) = remove_upper_outliers(&all);
    let summary = SampleStats::of(&kept)?;
    let m = Measurement {
        rounds_ns: if rounds { all.clone() } else { Vec::new() },
        all_samples_ns: all,
        samples_ns: kept,
        outliers_removed: removed,
        ops_per_iteration: ops,
        summary,
        allocated_bytes: None,
        allocs: None,
        peak_bytes: None,
        rss: None,
    };
    Some((m, summary.mean))
}

fn with_counted(mut m: Measurement, c: Counted) -> Measurement {
    m.allocated_bytes = c.allocated_bytes;
    m.allocs = c.allocs;
    m.peak_bytes = c.peak_bytes;
    m.rss = c.rss;
    m
}

/// [`try_measure_staged`] reading time from `clock`.
pub fn try_measure_staged_with<R, E>(
    config: &MeasureConfig,
    clock: &dyn Clock,
    mut op: impl FnMut(Stage) -> Result<R, E>,
) -> Result<Measurement, E> {
    config.lockstep.turn();
    let ops = pilot(config, clock, &mut op)?;
    for _ in 0..config.warmup_iterations {
        time_iteration(clock, ops, &mut || op(Stage::Warmup))?;
    }
    let mut all = Vec::new();
    let started = clock.now();
    loop {
        config.lockstep.turn();
        let t = time_iteration(clock, ops, &mut || op(Stage::Actual))?;
        all.push(t.as_nanos() as f64 / ops as f64);
        let n = all.len() as u32;
        if n >= config.max_iterations {
            break;
        }
        if n >= config.min_iterations && (clock.now().saturating_sub(started) >= config.budget || precise_enough(config, &all)) {
            break;
        }
    }
    let (m, mean) = timed(all, ops, false).expect("at least one finite sample");
    let counted = allocation_pass(config, mean, &mut op)?;
    Ok(with_counted(m, counted))
}

/// The strategies of one table, measured together by [`measure_interleaved`].
pub trait Lineup {
    /// A strategy's failure, returned by its operation.
    type Error;
    /// How many strategies there are.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Called before strategy `i`'s iteration of round `round` (Actual iterations only): a
    /// store read starts the round's ids here, so every strategy of a round reads the same.
    fn begin_round(&mut self, _i: usize, _round: u64) {}
    /// Asked once two rounds are complete, after each round and before each strategy's
    /// iteration: true ends the rounds there (the cancel flag), dropping an incomplete round
    /// (a round of whole runs can last many seconds), and the Allocation passes still run.
    fn should_stop(&self) -> bool {
        false
    }
    /// Called after each complete round with the number complete so far (progress).
    fn round_done(&mut self, _rounds: u64) {}
    /// One operation of strategy `i`. An error stops the rounds (the caller keeps errors that
    /// concern one operation to itself and returns only those the table cannot survive).
    fn op(&mut self, i: usize, stage: Stage) -> Result<(), Self::Error>;
}

/// What [`measure_interleaved`] measured.
#[derive(Debug)]
pub struct Interleaved<E> {
    /// One per strategy, in lineup order: `None` when it was not measured (rounds stopped
    /// before two were complete).
    pub measurements: Vec<Option<Measurement>>,
    /// The order of every complete round (a permutation of the strategies).
    pub orders: Vec<Vec<usize>>,
    /// The error that stopped the measurement, and whose it was. Rows keep the complete rounds
    /// before it; strategies whose Allocation pass had not run yet have no allocation figures.
    pub stopped: Option<(usize, E)>,
    /// The rounds' wall time and the measuring thread's run-queue wait in it, when the times
    /// leave that wait out (`MeasureConfig::leave_out_run_queue_wait`).
    pub run_queue_wait: Option<RunQueueWait>,
}

/// The interleaved schedule: a Pilot per strategy (each keeps its own operations per
/// iteration), the Warmup iterations round-robin, then rounds in which every strategy does
/// one Actual iteration, in an order shuffled per round from `config.seed` (ChaCha8: the same
/// order on every machine). The rounds stop at `max_iterations`, or after `min_iterations`
/// once every strategy's Error/Mean is under `max_relative_error`, or every strategy's paired
/// ratio to the first is known that well, or the budget (the per-benchmark budget times the
/// strategies: a sequential table's worst case) is spent. In a [`crate::lockstep`] (under
/// `jsoncost ab`) the conductor's round count replaces those rules and every timed iteration
/// waits for its turn. Then each strategy's untimed Allocation pass, one after another. With
/// `config.leave_out_run_queue_wait` the rounds read [`LessRunQueueWait`] where the kernel
/// counts the wait, and the result says how much was left out.
pub fn measure_interleaved<L: Lineup>(config: &MeasureConfig, lineup: &mut L) -> Interleaved<L::Error> {
    if config.leave_out_run_queue_wait
        && let Some(clock) = LessRunQueueWait::for_this_thread()
    {
        let mut out = measure_interleaved_with(config, &clock, lineup);
        out.run_queue_wait = Some(clock.totals());
        return out;
    }
    measure_interleaved_with(config, &SystemClock::default(), lineup)
}

/// [`measure_interleaved`] reading time from `clock`.
pub fn measure_interleaved_with<L: Lineup>(config: &MeasureConfig, clock: &dyn Clock, lineup: &mut L) -> Interleaved<L::Error> {
    let n = lineup.len();
    let mut out = Interleaved {
        measurements: (0..n).map(|_| None).collect(),
        orders: Vec::new(),
        stopped: None,
        run_queue_wait: None,
    };
    let mut ops = Vec::with_capacity(n);
    // The pilots choose every iteration's operation count: taken alone, in a turn of their own.
    config.lockstep.turn();
    for i in 0..n {
        match pilot(config, clock, &mut |stage| lineup.op(i, stage)) {
            Ok(k) => ops.push(k),
            Err(e) => {
                out.stopped = Some((i, e));
                return out;
            }
        }
    }
    for _ in 0..config.warmup_iterations {
        for (i, &k) in ops.iter().enumerate() {
            if let Err(e) = time_iteration(clock, k, &mut || lineup.op(i, Stage::Warmup)) {
                out.stopped = Some((i, e));
                return out;
            }
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(config.seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); n];
    let budget = config.budget.saturating_mul(n.max(1) as u32);
    let started = clock.now();
    'rounds: loop {
        let round = out.orders.len() as u64;
        // Under `jsoncost ab` the conductor fixes the round count, so both builds' rows pair
        // round by round; its own stop rules below then do not apply.
        let conducted = config.lockstep.round(round);
        if conducted == Some(false) {
            break;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let mut this_round = vec![0.0; n];
        for (j, &i) in order.iter().enumerate() {
            // The incomplete round is dropped, so the rows still pair up.
            if j > 0 && round >= 2 && lineup.should_stop() {
                break 'rounds;
            }
            lineup.begin_round(i, round);
            if j > 0 {
                config.lockstep.turn();
            }
            match time_iteration(clock, ops[i], &mut || lineup.op(i, Stage::Actual)) {
                Ok(t) => this_round[i] = t.as_nanos() as f64 / ops[i] as f64,
                Err(e) => {
                    // The incomplete round is dropped, so the rows still pair up.
                    out.stopped = Some((i, e));
                    break 'rounds;
                }
            }
        }
        for (s, x) in samples.iter_mut().zip(this_round) {
            s.push(x);
        }
        out.orders.push(order);
        let done = out.orders.len() as u32;
        lineup.round_done(u64::from(done));
        if done >= 2 && lineup.should_stop() {
            break;
        }
        if conducted.is_some() {
            continue;
        }
        if done >= config.max_iterations {
            break;
        }
        if done >= config.min_iterations
            && (clock.now().saturating_sub(started) >= budget
                || samples.iter().all(|s| precise_enough(config, s))
                || ratios_precise_enough(config, &samples))
        {
            break;
        }
    }
    if out.orders.len() < 2 {
        return out;
    }
    for (i, (all, &k)) in samples.into_iter().zip(&ops).enumerate() {
        let Some((m, mean)) = timed(all, k, true) else { continue };
        // After a failure the table cannot survive, no more operations are run.
        if out.stopped.is_some() {
            out.measurements[i] = Some(m);
            continue;
        }
        match allocation_pass(config, mean, &mut |stage| lineup.op(i, stage)) {
            Ok(c) => out.measurements[i] = Some(with_counted(m, c)),
            Err(e) => {
                out.measurements[i] = Some(m);
                out.stopped = Some((i, e));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! The interleaved scheduler with counting strategies and a fake clock: exact assertions on
    //! orders, rounds and ratios, no real timing.

    use super::*;
    use crate::clock::FakeClock;

    /// Strategies costing `cost[i]` ns per operation times a drift factor that grows with the
    /// time elapsed: the machine gets slower as the table runs (`1 + drift · t / 1 s`).
    struct Drifting {
        clock: FakeClock,
        cost: Vec<f64>,
        drift: f64,
        rounds: Vec<(usize, u64)>,
        fail: Option<(usize, u64)>,
        ops: Vec<u64>,
        /// One strategy's own noise: its n-th operation costs `factors[n % len]` times more.
        jitter: Option<(usize, Vec<f64>)>,
        /// `should_stop` answers true once this many operations have run.
        stop_after_ops: Option<u64>,
        /// The machine's speed in each round (cycling), shared by every strategy of the round.
        round_speed: Vec<f64>,
    }

    impl Drifting {
        fn new(clock: &FakeClock, cost: &[f64], drift: f64) -> Self {
            Drifting {
                clock: clock.clone(),
                cost: cost.to_vec(),
                drift,
                rounds: Vec::new(),
                fail: None,
                ops: vec![0; cost.len()],
                jitter: None,
                stop_after_ops: None,
                round_speed: vec![1.0],
            }
        }
    }

    impl Lineup for Drifting {
        type Error = String;
        fn len(&self) -> usize {
            self.cost.len()
        }
        fn begin_round(&mut self, i: usize, round: u64) {
            self.rounds.push((i, round));
        }
        fn op(&mut self, i: usize, stage: Stage) -> Result<(), String> {
            if stage == Stage::Actual
                && let Some((who, round)) = self.fail
                && who == i
                && self.rounds.last() == Some(&(i, round))
            {
                return Err(format!("{i} failed in round {round}"));
            }
            let own = match &self.jitter {
                Some((who, factors)) if *who == i => factors[self.ops[i] as usize % factors.len()],
                _ => 1.0,
            };
            let round = self.rounds.last().map_or(0, |&(_, r)| r as usize);
            let speed = self.round_speed[round % self.round_speed.len()];
            self.ops[i] += 1;
            let t = self.clock.0.get();
            self.clock.0.set(t + self.cost[i] * own * speed * (1.0 + self.drift * t / 1e9));
            Ok(())
        }
        fn should_stop(&self) -> bool {
            self.stop_after_ops.is_some_and(|n| self.ops.iter().sum::<u64>() >= n)
        }
    }

    fn config(rounds: u32) -> MeasureConfig {
        MeasureConfig {
            iteration_time: Duration::from_micros(100),
            warmup_iterations: 1,
            min_iterations: rounds,
            max_iterations: rounds,
            alloc_ops: 10,
            ..MeasureConfig::full()
        }
    }

    #[test]
    fn every_strategy_runs_every_round_in_a_seeded_permutation() {
        let clock = FakeClock::default();
        let mut lineup = Drifting::new(&clock, &[100.0, 200.0, 300.0, 400.0], 0.0);
        let r = measure_interleaved_with(&config(20), &clock, &mut lineup);
        assert!(r.stopped.is_none());
        assert_eq!(r.orders.len(), 20);
        for (round, order) in r.orders.iter().enumerate() {
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, [0, 1, 2, 3], "round {round} is a permutation");
            // begin_round saw the same order, with the round's number.
            let seen: Vec<usize> = lineup.rounds[round * 4..round * 4 + 4]
                .iter()
                .map(|&(i, r)| {
                    assert_eq!(r, round as u64);
                    i
                })
                .collect();
            assert_eq!(&seen, order);
        }
        assert!(r.orders.iter().any(|o| o != &r.orders[0]), "the order changes between rounds");
        for m in r.measurements.iter().map(|m| m.as_ref().unwrap()) {
            assert_eq!((m.all_samples_ns.len(), m.rounds_ns.len()), (20, 20));
        }
        // Deterministic for a seed, different for another.
        let run = |config: &MeasureConfig| {
            let clock = FakeClock::default();
            measure_interleaved_with(config, &clock, &mut Drifting::new(&clock, &[100.0, 200.0, 300.0, 400.0], 0.0))
        };
        assert_eq!(run(&config(20)).orders, r.orders);
        let other = run(&MeasureConfig { seed: 7, ..config(20) });
        assert_ne!(other.orders, r.orders);
    }

    #[test]
    fn under_drift_interleaving_gives_the_true_ratio_and_sequential_a_biased_one() {
        // B costs 1.5× A; the machine slows by 100% per simulated second.
        let cost = [1_000.0, 1_500.0];
        let cfg = MeasureConfig {
            iteration_time: Duration::from_millis(5),
            ..config(40)
        };
        let clock = FakeClock::default();
        let r = measure_interleaved_with(&cfg, &clock, &mut Drifting::new(&clock, &cost, 1.0));
        let (a, b) = (r.measurements[0].as_ref().unwrap(), r.measurements[1].as_ref().unwrap());
        let paired = crate::paired::log_ratio(&a.rounds_ns, &b.rounds_ns, 0.99).unwrap();
        assert!((paired.estimate - 1.5).abs() < 0.01, "{paired:?}");

        // The same strategies one after another on the same drifting machine.
        let clock = FakeClock::default();
        let mut lineup = Drifting::new(&clock, &cost, 1.0);
        let seq: Vec<Measurement> = (0..2)
            .map(|i| try_measure_staged_with(&cfg, &clock, |stage| lineup.op(i, stage)).unwrap())
            .collect();
        let biased = seq[1].summary.mean / seq[0].summary.mean;
        assert!(biased > 1.5 * 1.1, "sequential ratio {biased} should carry the drift");
    }

    /// Whole runs (the stream's settings): strategies of a third of a second each.
    fn whole(min: u32, max: u32) -> MeasureConfig {
        MeasureConfig {
            measure_rss: false,
            ..MeasureConfig::whole_runs(min, max, Duration::from_secs(8), false)
        }
    }

    #[test]
    fn whole_runs_go_in_seeded_rounds_with_no_pilot_nor_warmup_and_pair_round_by_round() {
        let clock = FakeClock::default();
        let mut lineup = Drifting::new(&clock, &[3e8, 2e8, 4e8], 0.0);
        let r = measure_interleaved_with(&whole(4, 4), &clock, &mut lineup);
        assert!(r.stopped.is_none());
        // The order of every round, from the default seed (ChaCha8: the same on every machine).
        assert_eq!(r.orders, [[1, 2, 0], [1, 0, 2], [2, 1, 0], [0, 2, 1]]);
        // Each strategy: one run a round and one in its Allocation pass; no pilot, no warmup.
        assert_eq!(lineup.ops, [5, 5, 5]);
        let m: Vec<&Measurement> = r.measurements.iter().map(|m| m.as_ref().unwrap()).collect();
        for (m, cost) in m.iter().zip([3e8, 2e8, 4e8]) {
            assert_eq!(m.ops_per_iteration, 1);
            assert_eq!(m.rounds_ns, [cost; 4]);
        }
        let paired = crate::paired::log_ratio(&m[0].rounds_ns, &m[2].rounds_ns, 0.99).unwrap();
        assert_eq!((paired.estimate, paired.n), (4.0 / 3.0, 4));
    }

    #[test]
    fn whole_run_rounds_stop_at_the_minimum_once_every_paired_ratio_is_known_and_else_at_the_maximum() {
        // The machine switches between two speeds 1.8× apart from round to round: each
        // strategy's own Error is far above 2%, but the ratios are exact, known at once.
        let clock = FakeClock::default();
        let mut switching = Drifting::new(&clock, &[3e8, 2e8], 0.0);
        switching.round_speed = vec![1.0, 1.8];
        let r = measure_interleaved_with(&whole(3, 10), &clock, &mut switching);
        assert_eq!(r.orders.len(), 3);
        let a = r.measurements[0].as_ref().unwrap();
        assert!(a.summary.relative_error() > 0.5, "{:?}", a.summary);
        // One strategy's own noise (±10% from round to round): never within 2%, so the
        // rounds go on to the maximum within the budget (8 s for each strategy).
        let clock = FakeClock::default();
        let mut noisy = Drifting::new(&clock, &[3e8, 2e8], 0.0);
        noisy.jitter = Some((1, vec![1.1, 0.9, 1.05, 0.95, 1.0]));
        let r = measure_interleaved_with(&whole(3, 10), &clock, &mut noisy);
        assert_eq!(r.orders.len(), 10);
        // The budget (strategies × 8 s) ends the rounds before the maximum: 5 s a round.
        let clock = FakeClock::default();
        let mut slow = Drifting::new(&clock, &[3e9, 2e9], 0.0);
        slow.jitter = Some((1, vec![1.1, 0.9, 1.05, 0.95, 1.0]));
        let r = measure_interleaved_with(&whole(3, 10), &clock, &mut slow);
        assert_eq!(r.orders.len(), 4);
    }

    #[test]
    fn a_stop_asked_within_a_round_of_whole_runs_drops_that_round() {
        let clock = FakeClock::default();
        let mut lineup = Drifting::new(&clock, &[3e8, 2e8, 4e8], 0.0);
        // Asked after the third round's first run.
        lineup.stop_after_ops = Some(3 * 3 + 1);
        let r = measure_interleaved_with(&whole(10, 10), &clock, &mut lineup);
        assert_eq!(r.orders.len(), 3);
        for m in r.measurements.iter().map(|m| m.as_ref().unwrap()) {
            assert_eq!(m.rounds_ns.len(), 3);
        }
        // The round's first run happened and was dropped; then each Allocation pass.
        assert_eq!(lineup.ops.iter().sum::<u64>(), 3 * 3 + 1 + 3);
    }

    #[test]
    fn a_failure_stops_the_rounds_and_keeps_the_complete_ones() {
        let clock = FakeClock::default();
        let mut lineup = Drifting::new(&clock, &[100.0, 200.0, 300.0], 0.0);
        lineup.fail = Some((1, 5));
        let r = measure_interleaved_with(&config(20), &clock, &mut lineup);
        let (who, e) = r.stopped.unwrap();
        assert_eq!((who, e.as_str()), (1, "1 failed in round 5"));
        assert_eq!(r.orders.len(), 5);
        for m in &r.measurements {
            let m = m.as_ref().unwrap();
            assert_eq!(m.rounds_ns.len(), 5);
            // No operation after the failure: no Allocation pass.
            assert_eq!(m.allocated_bytes, None);
        }
        // Stopped before two complete rounds: nothing is measured.
        let mut lineup = Drifting::new(&clock, &[100.0, 200.0], 0.0);
        lineup.fail = Some((0, 1));
        let r = measure_interleaved_with(&config(20), &clock, &mut lineup);
        assert!(r.measurements.iter().all(Option::is_none));
    }
}
