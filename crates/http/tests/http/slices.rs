//! The slice scheduler: targets alternate in seeded rounds on warm connections, the probe is
//! sampled around every slice, a lost target ends the run keeping what was measured, and the
//! rows pair round by round.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use common::{Fault, FaultServer, refused_addr};
use jsoncost_engine::{ExperimentKind, LossKind, MeasuredTable};
use jsoncost_http::ServerCost;
use jsoncost_http::loadgen::{
    LoadError, LoadReport, Loss, LossRule, Rounds, SliceLength, SliceProbe, SliceRun, SliceSpec, SliceTarget, StopReason, run_slices,
};
use jsoncost_http::row::sliced_rows;
use tokio_util::sync::CancellationToken;

/// Counts what each fault server answered during each slice, and the order of the calls.
struct CountingProbe {
    served: Vec<Arc<AtomicU64>>,
    at_begin: u64,
    calls: Vec<(usize, &'static str)>,
}

impl CountingProbe {
    fn new(servers: &[&FaultServer]) -> Self {
        CountingProbe {
            served: servers.iter().map(|s| Arc::clone(&s.requests)).collect(),
            at_begin: 0,
            calls: Vec::new(),
        }
    }
}

impl SliceProbe for CountingProbe {
    type Sample = Option<ServerCost>;
    fn begin(&mut self, target: usize) {
        self.calls.push((target, "begin"));
        self.at_begin = self.served[target].load(SeqCst);
    }
    fn end(&mut self, target: usize, _report: &LoadReport) -> Option<ServerCost> {
        self.calls.push((target, "end"));
        Some(ServerCost {
            requests: self.served[target].load(SeqCst) - self.at_begin,
            allocated_bytes: None,
            allocs: None,
            peak_bytes: None,
            cpu_ns: None,
            rss: None,
            wall: Duration::ZERO,
        })
    }
}

fn spec(servers: &[&FaultServer], requests: u64, connections: usize, rounds: usize) -> SliceSpec {
    let targets = servers
        .iter()
        .enumerate()
        .map(|(i, s)| SliceTarget::get(format!("t{i}"), s.url()))
        .collect();
    SliceSpec {
        length: SliceLength::Requests(requests),
        rounds: Rounds {
            min: rounds,
            max: rounds,
            precision: 0.0,
            budget: Duration::MAX,
        },
        timeout: Duration::from_secs(5),
        ..SliceSpec::closed(targets, connections)
    }
}

fn run(spec: &SliceSpec, probe: &mut CountingProbe) -> SliceRun<Option<ServerCost>> {
    let started = Instant::now();
    let run = run_slices(spec, probe, &CancellationToken::new()).unwrap();
    assert!(
        started.elapsed() < spec.bound(),
        "{:?} beyond its bound {:?}",
        started.elapsed(),
        spec.bound()
    );
    run
}

#[test]
fn targets_alternate_in_seeded_rounds_on_connections_kept_warm() {
    // Each server accepts three connections and then refuses: the first-connection check and the
    // two of the load. A slice that opened new connections would fail.
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), Some(3));
    let b = FaultServer::start(Fault::Delay(Duration::ZERO), Some(3));
    let spec = spec(&[&a, &b], 20, 2, 4);
    let mut probe = CountingProbe::new(&[&a, &b]);
    let r = run(&spec, &mut probe);
    assert_eq!((r.stop, r.lost, r.rounds), (StopReason::Completed, None, 4));
    for order in &r.orders {
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, [0, 1]);
    }
    for (t, target) in r.targets.iter().enumerate() {
        assert_eq!(target.slices.len(), 4, "t{t}");
        for (k, s) in target.slices.iter().enumerate() {
            assert_eq!((s.round, s.report.requests, s.report.ok), (k, 20, 20), "t{t} slice {k}");
            assert_eq!(s.server.map(|c| c.requests), Some(20), "t{t} slice {k}: what the server answered");
        }
    }
    // Warm-up slice and four rounds, 20 requests each, per server.
    assert_eq!((a.requests.load(SeqCst), b.requests.load(SeqCst)), (100, 100));
    // Every slice, warm-up included, is probed: begin then end of the same target.
    assert_eq!(probe.calls.len(), 2 * 2 * 5);
    for pair in probe.calls.chunks(2) {
        assert_eq!((pair[0].0, pair[0].1, pair[1].1), (pair[1].0, "begin", "end"));
    }
    // The same seed gives the same orders.
    let mut again = CountingProbe::new(&[&a, &b]);
    let c = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let d = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let r2 = run(&self::spec(&[&c, &d], 20, 2, 4), &mut again);
    assert_eq!(r2.orders, r.orders);
}

#[test]
fn rows_pair_round_by_round_and_the_ratio_is_the_engines_paired_one() {
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let b = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let mut probe = CountingProbe::new(&[&a, &b]);
    let r = run(&spec(&[&a, &b], 10, 1, 3), &mut probe);
    let rows = sliced_rows(&r);
    assert_eq!(rows.len(), 2);
    for (t, row) in rows.iter().enumerate() {
        assert!(row.is_ok(), "{row:?}");
        assert_eq!(row.rounds_ns, r.rounds_ns(t));
        assert_eq!(row.rounds_ns.len(), 3);
        let http = row.http.as_ref().unwrap();
        assert_eq!((http.requests, http.slices, http.errors.total()), (30, Some(3), 0));
        assert!(http.p99_ratio.is_some() && http.cpu_ratio.is_none(), "{http:?}");
    }
    let mut exp = MeasuredTable::new(ExperimentKind::Http, "t");
    exp.rows = rows;
    exp.finish();
    let t1 = exp.rows.iter().find(|row| row.method == "t1").unwrap();
    assert_eq!(t1.ratio_interval, r.ratio_to_first(1));
    assert_eq!(t1.ratio_interval.map(|i| i.n), Some(3));
}

#[test]
fn a_lost_target_ends_the_run_and_what_was_measured_is_kept() {
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    // Requests 1..=49 answered, the 50th a 500: in round 1 (the warm-up and round 0 take 40).
    let b = FaultServer::start(Fault::FailEvery(50), None);
    let mut spec = spec(&[&a, &b], 20, 1, 5);
    spec.loss = LossRule {
        first_server_error: true,
        ..LossRule::default()
    };
    let mut probe = CountingProbe::new(&[&a, &b]);
    let r = run(&spec, &mut probe);
    assert_eq!(r.stop, StopReason::Lost);
    assert_eq!(r.lost.map(|l| (l.target, l.loss)), Some((1, Loss::ServerError)));
    assert_eq!(r.rounds, 1);
    let lost = &r.targets[1].slices;
    assert_eq!(lost.len(), 2);
    assert_eq!((lost[1].round, lost[1].report.requests, lost[1].report.ok), (1, 10, 9));
    // Nothing after the loss: b answered its 50 and no more.
    assert_eq!(b.requests.load(SeqCst), 50);
    let rows = sliced_rows(&r);
    assert!(rows[0].is_ok(), "{:?}", rows[0]);
    assert_eq!(rows[0].http.as_ref().map(|h| h.requests), Some(20));
    assert!(rows[0].rounds_ns.is_empty(), "one round pairs nothing");
    assert!(!rows[1].is_ok());
    let message = rows[1].error_message.as_deref().unwrap();
    assert!(message.starts_with("lost after 30 requests to "), "{message}");
    assert_eq!(
        rows[1].http.as_ref().and_then(|h| h.lost.as_ref()).map(|l| l.rule),
        Some(LossKind::ServerError)
    );
}

#[test]
fn a_silent_target_is_lost_within_the_runs_bound() {
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let silent = FaultServer::start(Fault::Silent, None);
    let mut spec = spec(&[&a, &silent], 5, 1, 3);
    spec.timeout = Duration::from_millis(200);
    let mut probe = CountingProbe::new(&[&a, &silent]);
    let r = run(&spec, &mut probe);
    assert_eq!(r.stop, StopReason::Lost);
    assert!(
        matches!(r.lost.map(|l| (l.target, l.loss)), Some((1, Loss::Stall { .. }))),
        "{:?}",
        r.lost
    );
    // Lost in its warm-up slice, at its second timeout (0.4 s without a success), which is kept.
    assert_eq!(r.targets[1].slices.len(), 1);
    assert_eq!(r.targets[1].slices[0].report.errors.timeout, 2);
}

#[test]
fn the_open_model_sends_each_slices_schedule_or_counts_it_unsent() {
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let b = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let mut spec = spec(&[&a, &b], 0, 2, 2);
    spec.rate = Some(200.0);
    spec.length = SliceLength::Time(Duration::from_millis(100));
    let mut probe = CountingProbe::new(&[&a, &b]);
    let r = run(&spec, &mut probe);
    assert_eq!((r.stop, r.rounds), (StopReason::Completed, 2));
    for target in &r.targets {
        for s in &target.slices {
            assert_eq!(s.report.requests + s.report.unsent, 20);
        }
    }
}

#[test]
fn bad_specs_and_unreachable_targets_are_refused_before_any_load() {
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let mut probe = CountingProbe::new(&[&a]);
    let mut one_round = spec(&[&a], 5, 1, 2);
    one_round.rounds.min = 1;
    let e = run_slices(&one_round, &mut probe, &CancellationToken::new()).unwrap_err();
    assert_eq!(e.to_string(), "invalid load: rounds: at least 2 and max (2) at least min (1)");
    let none = SliceSpec::closed(Vec::new(), 1);
    let e = run_slices(&none, &mut probe, &CancellationToken::new()).unwrap_err();
    assert_eq!(e.to_string(), "invalid load: no target to load");
    let mut refused = spec(&[&a, &a], 5, 1, 2);
    let url = format!("http://{}/x", refused_addr());
    refused.targets[1].url = url.clone();
    match run_slices(&refused, &mut probe, &CancellationToken::new()) {
        Err(LoadError::Unreachable { url: u, .. }) => assert_eq!(u, url),
        other => panic!("{other:?}"),
    }
    assert_eq!(a.requests.load(SeqCst), 0);
    assert!(probe.calls.is_empty());
}

#[test]
fn a_cancelled_run_stops_and_keeps_its_slices() {
    let a = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let b = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let mut probe = CountingProbe::new(&[&a, &b]);
    let r = run_slices(&spec(&[&a, &b], 5, 1, 3), &mut probe, &cancel).unwrap();
    assert_eq!((r.stop, r.rounds, r.lost), (StopReason::Cancelled, 0, None));
}
