//! The load generator's timing against servers with known behaviour. Timing tests hold a lock
//! so they do not share the two cores with each other; bounds are generous (noisy machines)
//! except where physics gives a hard one.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use common::{FAULT_BODY, Fault, FaultServer};
use jsoncost_http::loadgen::{self, LoadSpec, StopReason};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const MS: u64 = 1_000_000;

#[test]
fn closed_model_against_a_fixed_delay_reports_it_and_the_exact_count() {
    let _g = serial();
    let srv = FaultServer::start(Fault::Delay(Duration::from_millis(20)), None);
    let spec = LoadSpec::closed(srv.url(), 200, 10);
    let r = loadgen::run(&spec).unwrap();
    assert_eq!((r.requests, r.ok, r.responses(), r.errors.total()), (200, 200, 200, 0));
    assert_eq!(srv.requests.load(std::sync::atomic::Ordering::SeqCst), 200);
    assert_eq!(r.stop, StopReason::Completed);
    // No response can be faster than the delay (the histogram keeps 3 significant digits).
    assert!(r.min_ns().unwrap() >= 19_950_000, "min {} ns", r.min_ns().unwrap());
    let p50 = r.quantile_ns(0.5).unwrap();
    assert!(p50 < 100 * MS, "p50 {p50} ns");
    assert!(r.max_ns().unwrap() < 2_000 * MS, "max {} ns", r.max_ns().unwrap());
    // 10 connections, each request ≥ 20 ms: at most 500 req/s, and 200 requests take ≥ 400 ms.
    assert!(r.elapsed >= Duration::from_millis(400), "{:?}", r.elapsed);
    assert!(r.req_per_s() <= 500.0 && r.req_per_s() > 50.0, "{} req/s", r.req_per_s());
    assert_eq!(r.bytes_per_response(), Some(FAULT_BODY.len() as f64));
}

#[test]
fn open_model_keeps_its_rate_and_times_from_the_schedule() {
    let _g = serial();
    let srv = FaultServer::start(Fault::Delay(Duration::from_millis(5)), None);
    let spec = LoadSpec::open(srv.url(), 200.0, Duration::from_millis(1500), 4);
    let r = loadgen::run(&spec).unwrap();
    assert_eq!((r.requests, r.ok), (300, 300));
    // The last request is scheduled at 1.495 s: the run cannot end sooner, and should not take much longer.
    assert!(
        r.elapsed >= Duration::from_millis(1495) && r.elapsed < Duration::from_secs(6),
        "{:?}",
        r.elapsed
    );
    assert!(r.min_ns().unwrap() >= 4_990_000, "min {}", r.min_ns().unwrap());
}

/// The coordinated-omission test: the server stalls once for S while requests are scheduled at a
/// constant rate. Timed from the intended send time, every request scheduled during the stall
/// carries (part of) it, so p99 shows it; timed from the actual send, only the few requests in
/// flight at the time do.
#[test]
fn a_stall_during_an_open_run_shows_in_p99() {
    let _g = serial();
    let stall = Duration::from_millis(300);
    let srv = FaultServer::start(
        Fault::StallOnce {
            after: Duration::from_millis(1000),
            stall,
        },
        None,
    );
    // 3 s at 200/s: 600 requests, ~60 of them scheduled during the stall (10%).
    let spec = LoadSpec::open(srv.url(), 200.0, Duration::from_secs(3), 4);
    let r = loadgen::run(&spec).unwrap();
    assert_eq!((r.requests, r.ok), (600, 600));
    let p99 = r.quantile_ns(0.99).unwrap();
    let uncorrected_p99 = r.uncorrected_latency.value_at_quantile(0.99);
    eprintln!(
        "stall {stall:?}: corrected p99 {p99} ns, uncorrected p99 {uncorrected_p99} ns, max {:?} ns",
        r.max_ns()
    );
    assert!(p99 >= 150 * MS, "corrected p99 {p99} ns does not show the 300 ms stall");
    assert!(r.max_ns().unwrap() >= 250 * MS, "max {}", r.max_ns().unwrap());
    assert!(uncorrected_p99 < p99, "uncorrected p99 {uncorrected_p99} vs corrected {p99}");
    assert!(p99 <= 2_000 * MS, "p99 {p99}");
}

#[test]
fn cancelling_stops_a_run_and_keeps_partial_results() {
    let _g = serial();
    let srv = FaultServer::start(Fault::Delay(Duration::from_millis(10)), None);
    let spec = LoadSpec::open(srv.url(), 100.0, Duration::from_secs(30), 2);
    let cancel = tokio_util::sync::CancellationToken::new();
    let c2 = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        c2.cancel();
    });
    let t0 = std::time::Instant::now();
    let r = loadgen::run_cancellable(&spec, &cancel).unwrap();
    canceller.join().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_eq!(r.stop, StopReason::Cancelled);
    assert!(r.requests > 0 && r.requests < 3000, "{}", r.requests);
    assert_eq!(r.ok, r.requests);
}

#[test]
fn the_time_cap_bounds_a_run() {
    let _g = serial();
    let srv = FaultServer::start(Fault::Delay(Duration::from_millis(5)), None);
    let mut spec = LoadSpec::closed(srv.url(), 1_000_000, 2);
    spec.time_cap = Some(Duration::from_millis(400));
    let t0 = std::time::Instant::now();
    let r = loadgen::run(&spec).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_eq!(r.stop, StopReason::TimeCap);
    assert!(r.requests > 0 && r.requests < 1_000, "{}", r.requests);
}
