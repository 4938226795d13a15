//! Load against several targets in slices: a fixed duration (or a number of requests) of load on
//! one target, then on the next, in rounds whose order is shuffled per round from the seed, so
//! whatever the machine does meanwhile lands on every target alike and the targets' figures
//! pair round by round. Each target keeps its own keep-alive connections, opened and warmed
//! before the first timed slice and reused by every slice after it. The closed model (each
//! connection sends its next request when the last is answered) and the open model (a fixed
//! rate during the slice, latency from the intended send time) run exactly as a single load run
//! does ([`super::closed`], [`super::open`]).
//!
//! What the server spent is sampled around each slice by the caller's [`SliceProbe`] (the
//! in-process server's CPU and allocations, an external server's `/proc`). A target lost by the
//! [`LossRule`] ends the whole run at once; what was measured is kept, and the rounds every
//! target completed still pair. Every run is bounded ([`SliceSpec::bound`]).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use bytes::Bytes;
use jsoncost_engine::lockstep::Lockstep;
use jsoncost_engine::paired::{self, Interval, PAIRED_CONFIDENCE};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::conn::{Connection, RequestTemplate, first_connection, template};
use super::histogram::{SharedTally, load_report};
use super::loss::{Judge, Loss, LossRule};
use super::report::{LoadReport, StopReason};
use super::shared::Run;
use super::spec::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, LoadError, Model, invalid};
use super::target::Target;
use super::worker::Worker;
use super::{closed, open};

/// One target of a sliced run: a name for its row and the request it is sent.
#[derive(Debug, Clone)]
pub struct SliceTarget {
    /// The row it becomes.
    pub name: String,
    /// `http://host[:port]/path?query`.
    pub url: String,
    /// The request method.
    pub method: http::Method,
    /// Sent with every request (empty for GET).
    pub body: Bytes,
    /// The `Content-Type` header sent with the body, if any.
    pub content_type: Option<String>,
}

impl SliceTarget {
    /// GETs of `url`.
    pub fn get(name: impl Into<String>, url: impl Into<String>) -> Self {
        SliceTarget {
            name: name.into(),
            url: url.into(),
            method: http::Method::GET,
            body: Bytes::new(),
            content_type: None,
        }
    }

    /// POSTs of `body` instead.
    pub fn post(mut self, body: Bytes, content_type: &str) -> Self {
        self.method = http::Method::POST;
        self.body = body;
        self.content_type = Some(content_type.to_string());
        self
    }
}

/// How much load one slice is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SliceLength {
    /// Load for this long (requests in flight when it ends are finished and counted).
    Time(Duration),
    /// This many requests (open model: this many slots of the rate's schedule).
    Requests(u64),
}

/// The default slice: half a second of load.
pub const DEFAULT_SLICE: SliceLength = SliceLength::Time(Duration::from_millis(500));

/// The most a closed-model slice of [`SliceLength::Requests`] may last before it stops with
/// what it has.
pub const REQUESTS_SLICE_CAP: Duration = Duration::from_secs(10);

/// Beyond a slice's load and one timeout: a request timing out at the slice's last moment is
/// counted as a timeout, not cut off by the slice's bound.
const SLICE_MARGIN: Duration = Duration::from_millis(100);

/// When the rounds stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rounds {
    /// The fewest rounds (at least 2, the fewest a paired interval needs).
    pub min: usize,
    /// The most rounds.
    pub max: usize,
    /// From `min` rounds on, stop once the paired ratios are known within this relative
    /// half-width (99% interval): every target's to the first, unless the probe pairs otherwise
    /// ([`SliceProbe::known_within`]).
    pub precision: f64,
    /// From 2 rounds on, no round starts once this much time has passed since the first slice.
    pub budget: Duration,
}

impl Default for Rounds {
    fn default() -> Self {
        Rounds {
            min: 5,
            max: 20,
            precision: 0.02,
            budget: Duration::from_secs(10),
        }
    }
}

/// A sliced run.
#[derive(Debug, Clone)]
pub struct SliceSpec {
    /// The targets; the first is the baseline the others' ratios are to.
    pub targets: Vec<SliceTarget>,
    /// Keep-alive connections per target (`-c`).
    pub connections: usize,
    /// Open model: requests per second during each slice; `None`: the closed model.
    pub rate: Option<f64>,
    /// How long each slice is (requests, or time).
    pub length: SliceLength,
    /// How many rounds, and when they stop.
    pub rounds: Rounds,
    /// Seeds each round's order (ChaCha8: the same orders on every machine).
    pub seed: u64,
    /// Per-request timeout, from send (or intended send) to the last body byte.
    pub timeout: Duration,
    /// How long a connection may take to open.
    pub connect_timeout: Duration,
    /// When a target is given up as lost (judged over all its slices, the time other targets'
    /// slices took not counting as a stall).
    pub loss: LossRule,
    /// One untimed slice per target before the rounds: connections opened, server warm.
    pub warmup: bool,
    /// The turns taken with a conductor (`jsoncost ab`): one before every slice but each
    /// round's first, and the conductor's say on each round. Alone by default.
    pub lockstep: Lockstep,
}

impl SliceSpec {
    /// The closed model over `connections` connections per target, default slices and rounds.
    pub fn closed(targets: Vec<SliceTarget>, connections: usize) -> Self {
        SliceSpec {
            targets,
            connections,
            rate: None,
            length: DEFAULT_SLICE,
            rounds: Rounds::default(),
            seed: jsoncost_shapes::DEFAULT_SEED,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            loss: LossRule::default(),
            warmup: true,
            lockstep: Lockstep::alone(),
        }
    }

    /// The most one slice takes: its load, then the requests in flight (one timeout).
    pub fn slice_bound(&self) -> Duration {
        let load = match (self.length, self.rate) {
            (SliceLength::Time(d), _) => d,
            (SliceLength::Requests(n), Some(rate)) if rate > 0.0 => Duration::from_secs_f64(n as f64 / rate),
            (SliceLength::Requests(_), _) => REQUESTS_SLICE_CAP,
        };
        load.saturating_add(self.timeout).saturating_add(SLICE_MARGIN)
    }

    /// The most wall time the run takes: each target's first connection, the warm-up round,
    /// then rounds until the budget (the round under way finishing) or the most rounds.
    pub fn bound(&self) -> Duration {
        let n = self.targets.len() as u32;
        let round = self.slice_bound().saturating_mul(n);
        let rounds = round
            .saturating_mul(self.rounds.max as u32)
            .min(self.rounds.budget.saturating_add(round).max(round.saturating_mul(2)));
        let warmup = if self.warmup { round } else { Duration::ZERO };
        self.connect_timeout.saturating_mul(n).saturating_add(warmup).saturating_add(rounds)
    }
}

/// What the caller samples of the server(s) around each slice.
pub trait SliceProbe {
    /// What one slice's sample holds.
    type Sample;
    /// Target `target`'s slice is about to start (not timed).
    fn begin(&mut self, target: usize);
    /// It ended, having measured `report`: what the server spent during it.
    fn end(&mut self, target: usize, report: &LoadReport) -> Self::Sample;
    /// The process ID of target `target`'s server once that process has exited: the target is
    /// lost, whatever now answers on its address (another program may have taken the port).
    fn exited(&self, _target: usize) -> Option<u32> {
        None
    }
    /// The precision stop rule ([`Rounds::precision`]): true once what the caller compares is
    /// known within `precision` (relative half-width of the 99% paired interval). By default
    /// every target's time per request to the first's; a caller that pairs other targets, or
    /// other figures of its samples, says so here.
    fn known_within(&self, run: &SliceRun<Self::Sample>, precision: f64) -> bool {
        run.ratios_to_first_within(precision)
    }
}

/// Samples nothing.
pub struct NoProbe;

impl SliceProbe for NoProbe {
    type Sample = ();
    fn begin(&mut self, _: usize) {}
    fn end(&mut self, _: usize, _: &LoadReport) {}
}

/// One slice's load report and what the server spent during it.
#[derive(Debug, Clone)]
pub struct Slice<S> {
    /// The round it belongs to (from 0).
    pub round: usize,
    /// The load generator's figures for the slice.
    pub report: LoadReport,
    /// What the probe sampled of the server during it.
    pub server: S,
}

impl<S> Slice<S> {
    /// Wall time per successful request (ns): the slice's paired quantity, the inverse of its
    /// req/s (infinite without a success, which no ratio is then computed from).
    pub fn ns_per_request(&self) -> f64 {
        if self.report.ok == 0 {
            f64::INFINITY
        } else {
            self.report.elapsed.as_nanos() as f64 / self.report.ok as f64
        }
    }
}

/// One target's slices, in round order.
#[derive(Debug, Clone)]
pub struct TargetSlices<S> {
    /// The target's name (its row).
    pub name: String,
    /// The URL it loaded.
    pub url: String,
    /// Every slice it ran: one per complete round, then possibly one of the round under way
    /// when the run stopped (a lost target's last slice shows why).
    pub slices: Vec<Slice<S>>,
}

impl<S> TargetSlices<S> {
    /// The slices of the first `rounds` rounds.
    pub fn paired(&self, rounds: usize) -> &[Slice<S>] {
        &self.slices[..rounds.min(self.slices.len())]
    }
}

/// The target that was lost, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LostTarget {
    /// The lost target's index in the spec.
    pub target: usize,
    /// The loss rule's verdict.
    pub loss: Loss,
}

/// What a sliced run measured.
#[derive(Debug, Clone)]
pub struct SliceRun<S> {
    /// In the spec's order.
    pub targets: Vec<TargetSlices<S>>,
    /// Rounds every target completed: each target's first `rounds` slices pair up.
    pub rounds: usize,
    /// The order of every complete round (a permutation of the targets).
    pub orders: Vec<Vec<usize>>,
    /// Completed (a stop rule ended the rounds), Lost, Cancelled or TimeCap (a slice hit its
    /// bound).
    pub stop: StopReason,
    /// The target that was lost, when one was.
    pub lost: Option<LostTarget>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
}

impl<S> SliceRun<S> {
    /// Wall time per successful request of target `t` in each complete round (ns).
    pub fn rounds_ns(&self, t: usize) -> Vec<f64> {
        self.targets[t].paired(self.rounds).iter().map(Slice::ns_per_request).collect()
    }

    /// Target `t`'s time per request over the first target's, paired round by round
    /// ([`paired::log_ratio`]); its req/s ratio is the inverse.
    pub fn ratio_to_first(&self, t: usize) -> Option<Interval> {
        paired::log_ratio(&self.rounds_ns(0), &self.rounds_ns(t), PAIRED_CONFIDENCE)
    }

    /// Every target's ratio to the first is known within `precision` (relative half-width).
    pub fn ratios_to_first_within(&self, precision: f64) -> bool {
        (1..self.targets.len()).all(|t| self.ratio_to_first(t).is_some_and(|i| i.relative_half_width() < precision))
    }
}

fn validate(spec: &SliceSpec) -> Result<(), LoadError> {
    if spec.targets.is_empty() {
        return Err(invalid("no target to load"));
    }
    if spec.connections == 0 {
        return Err(invalid("connections must be at least 1"));
    }
    if spec.timeout.is_zero() || spec.connect_timeout.is_zero() {
        return Err(invalid("timeouts must be above zero"));
    }
    if let Some(rate) = spec.rate
        && !(rate.is_finite() && rate > 0.0)
    {
        return Err(invalid(format!("rate ({rate}) must be above zero")));
    }
    match spec.length {
        SliceLength::Time(d) if d.is_zero() => return Err(invalid("a slice must last more than zero")),
        SliceLength::Requests(0) => return Err(invalid("a slice must have at least 1 request")),
        _ => {}
    }
    if spec.rounds.min < 2 || spec.rounds.max < spec.rounds.min {
        return Err(invalid(format!(
            "rounds: at least 2 and max ({}) at least min ({})",
            spec.rounds.max, spec.rounds.min
        )));
    }
    Ok(())
}

/// [`run_slices_async`] on a runtime of its own; blocks until it ends. For sync code: the probe
/// may hold what must stay on its thread (an allocation measurement's lock), so it is not moved
/// to a helper thread, and a call from a runtime's own thread is refused.
pub fn run_slices<P: SliceProbe>(spec: &SliceSpec, probe: &mut P, cancel: &CancellationToken) -> Result<SliceRun<P::Sample>, LoadError> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(invalid("run_slices blocks: call run_slices_async from inside a runtime"));
    }
    // One thread, as a single run: a connection's task and hyper's driver wake each other
    // without crossing threads.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .thread_name("jsoncost-loadgen")
        .enable_all()
        .build()
        .map_err(LoadError::Runtime)?;
    runtime.block_on(run_slices_async(spec, probe, cancel.clone()))
}

/// One target's state across slices.
struct Lane<'t> {
    target: &'t Target,
    template: RequestTemplate,
    url: &'t str,
    /// Its warm connections, handed from slice to slice.
    connections: Vec<Connection<'t>>,
    judge: Judge,
    /// When its last slice ended: the time until its next one is no stall.
    paused_at: Instant,
}

/// What one slice saw.
struct SliceOutcome {
    report: LoadReport,
    stop: StopReason,
}

/// The sliced run on the current tokio runtime. Under `jsoncost ab` (a
/// [`jsoncost_engine::lockstep`]) every round waits for the conductor, whose round count then
/// replaces the stop rules, and every slice for its turn.
pub async fn run_slices_async<P: SliceProbe>(
    spec: &SliceSpec,
    probe: &mut P,
    cancel: CancellationToken,
) -> Result<SliceRun<P::Sample>, LoadError> {
    validate(spec)?;
    let targets: Vec<Target> = spec.targets.iter().map(|t| Target::parse(&t.url)).collect::<Result<_, _>>()?;
    let now = Instant::now();
    let mut lanes = Vec::with_capacity(targets.len());
    for (target, t) in targets.iter().zip(&spec.targets) {
        lanes.push(Lane {
            target,
            template: template(target, &t.method, &t.body, t.content_type.as_deref())?,
            url: &t.url,
            connections: (0..spec.connections)
                .map(|_| Connection::new(target, spec.connect_timeout))
                .collect(),
            judge: Judge::new(spec.loss, spec.timeout, now),
            paused_at: now,
        });
    }
    // A target that refuses its first connection is an environment failure: nothing is sent.
    for lane in &lanes {
        first_connection(lane.target, lane.url, spec.connect_timeout).await?;
    }
    let started = Instant::now();
    let mut out = SliceRun {
        targets: spec
            .targets
            .iter()
            .map(|t| TargetSlices {
                name: t.name.clone(),
                url: t.url.clone(),
                slices: Vec::new(),
            })
            .collect(),
        rounds: 0,
        orders: Vec::new(),
        stop: StopReason::Completed,
        lost: None,
        elapsed: Duration::ZERO,
    };
    let ended = |out: &mut SliceRun<P::Sample>, t: usize, o: &mut SliceOutcome, probe: &P| -> bool {
        // A server gone after Ctrl-C (the user's, in the terminal's process group) was not lost.
        if o.stop != StopReason::Cancelled
            && let (None, Some(pid)) = (o.report.lost, probe.exited(t))
        {
            o.stop = StopReason::Lost;
            o.report.stop = StopReason::Lost;
            o.report.lost = Some(Loss::Exited { pid });
        }
        if o.stop == StopReason::Completed {
            return false;
        }
        out.stop = o.stop;
        out.lost = o.report.lost.map(|loss| LostTarget { target: t, loss });
        true
    };
    if spec.warmup {
        spec.lockstep.turn();
        for (t, lane) in lanes.iter_mut().enumerate() {
            probe.begin(t);
            let mut o = slice(spec, lane, &cancel).await;
            let server = probe.end(t, &o.report);
            if ended(&mut out, t, &mut o, probe) {
                // A lost warm-up's report is kept: it shows why the target was lost.
                out.targets[t].slices.push(Slice {
                    round: 0,
                    report: o.report,
                    server,
                });
                out.elapsed = started.elapsed();
                return Ok(out);
            }
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed);
    let rounds_started = Instant::now();
    'rounds: loop {
        let round = out.orders.len();
        let conducted = spec.lockstep.round(round as u64);
        if conducted == Some(false) {
            break;
        }
        let mut order: Vec<usize> = (0..lanes.len()).collect();
        order.shuffle(&mut rng);
        for (j, &t) in order.iter().enumerate() {
            if j > 0 {
                spec.lockstep.turn();
            }
            probe.begin(t);
            let mut o = slice(spec, &mut lanes[t], &cancel).await;
            let server = probe.end(t, &o.report);
            let stop = ended(&mut out, t, &mut o, probe);
            out.targets[t].slices.push(Slice {
                round,
                report: o.report,
                server,
            });
            if stop {
                // The round under way is incomplete: the complete ones still pair.
                break 'rounds;
            }
        }
        out.orders.push(order);
        out.rounds = out.orders.len();
        if conducted.is_some() {
            continue;
        }
        let done = out.rounds;
        if done >= spec.rounds.max
            || (done >= 2 && rounds_started.elapsed() >= spec.rounds.budget)
            || (done >= spec.rounds.min && probe.known_within(&out, spec.rounds.precision))
        {
            break;
        }
    }
    out.elapsed = started.elapsed();
    Ok(out)
}

/// The open model's slots in `duration` at `rate`: every slot that starts within it, a
/// product a rounding error above a whole number (1e15/s × 0.2 s) counting as that number.
fn slots(rate: f64, duration: Duration) -> u64 {
    let exact = rate * duration.as_secs_f64();
    let near = exact.round();
    if (exact - near).abs() <= exact * 1e-12 {
        near as u64
    } else {
        exact.ceil() as u64
    }
}

/// One slice of load on `lane`'s warm connections.
async fn slice(spec: &SliceSpec, lane: &mut Lane<'_>, cancel: &CancellationToken) -> SliceOutcome {
    let started = Instant::now();
    lane.judge.paused(started.saturating_duration_since(lane.paused_at));
    let (model, until) = match (spec.length, spec.rate) {
        (SliceLength::Time(d), None) => (Model::Closed { requests: u64::MAX }, Some(started + d)),
        (SliceLength::Requests(n), None) => (Model::Closed { requests: n }, None),
        (SliceLength::Time(d), Some(rate)) => (Model::Open { rate, duration: d }, None),
        (SliceLength::Requests(n), Some(rate)) => (
            Model::Open {
                rate,
                duration: Duration::from_secs_f64(n as f64 / rate),
            },
            None,
        ),
    };
    let run = Run {
        target: lane.target.clone(),
        template: lane.template.clone(),
        timeout: spec.timeout,
        connect_timeout: spec.connect_timeout,
        deadline: started + spec.slice_bound(),
        cancel: cancel.clone(),
        stop: cancel.child_token(),
        tally: SharedTally::new(lane.judge.clone()),
        unsent: AtomicU64::new(0),
    };
    let next = AtomicU64::new(0);
    let connections = lane.connections.len() as u64;
    let schedule = match model {
        Model::Open { rate, duration } => Some(open::Schedule {
            start: started,
            end: started + duration,
            rate,
            total: slots(rate, duration),
        }),
        Model::Closed { .. } => None,
    };
    let workers = std::mem::take(&mut lane.connections).into_iter().enumerate().map(|(index, conn)| {
        let (run, next, schedule) = (&run, &next, schedule.as_ref());
        async move {
            let mut worker = Worker::new(run, conn);
            let stop = match (model, schedule) {
                (Model::Closed { requests }, _) => closed::worker(&mut worker, next, requests, until).await,
                (Model::Open { .. }, Some(schedule)) => open::worker(&mut worker, run, index as u64, connections, schedule).await,
                (Model::Open { .. }, None) => StopReason::Completed,
            };
            (worker.into_connection(), stop)
        }
    });
    let mut stop = StopReason::Completed;
    for (conn, reason) in futures::future::join_all(workers).await {
        lane.connections.push(conn);
        stop = stop.max(reason);
    }
    let elapsed = started.elapsed();
    let unsent = run.unsent.load(Relaxed);
    let tally = run.tally.into_inner();
    lane.judge = tally.judge.clone();
    lane.paused_at = Instant::now();
    let model = match model {
        // A timed closed slice planned no count: it made what it made.
        Model::Closed { requests: u64::MAX } => Model::Closed { requests: tally.requests },
        m => m,
    };
    let report = load_report(lane.url, model, spec.connections, tally, elapsed, stop, unsent);
    SliceOutcome { report, stop }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slices_slots_are_whole_when_the_product_is_whole() {
        // 1e15/s over 0.2 s is 200000000000000.02 in floating point: 2e14 slots, not one more,
        // so five slices schedule exactly what one 1 s run would.
        assert_eq!(slots(1e15, Duration::from_millis(200)), 200_000_000_000_000);
        assert_eq!(slots(200.0, Duration::from_millis(100)), 20);
        assert_eq!(slots(3.0, Duration::from_millis(500)), 2);
    }
}
