//! Runs that cannot go on for hours: a target that never answers, or answers nothing but
//! errors, is given up as lost within one request timeout of the loss rule's bound; the open
//! model stops sending when its duration ends and counts what it could not send. Every run ends
//! within its stated bound ([`LoadSpec::bound`]).

use crate::common;

use std::time::{Duration, Instant};

use common::{Fault, FaultServer};
use jsoncost_http::loadgen::{self, LoadReport, LoadSpec, Loss, LossRule, MIN_JUDGED, STALL_TIMEOUTS, StopReason};
use jsoncost_http::row::http_row;

/// Runs `spec`, checking that it ended within its bound (one second of slack for the
/// runtime's start and end); returns the report and how long it took.
fn run_bounded(spec: &LoadSpec) -> (LoadReport, Duration) {
    let started = Instant::now();
    let report = loadgen::run(spec).unwrap();
    let took = started.elapsed();
    assert!(
        took <= spec.bound() + Duration::from_secs(1),
        "took {took:?}, bound {:?}",
        spec.bound()
    );
    (report, took)
}

#[test]
fn a_target_that_never_answers_is_lost_when_its_second_round_of_requests_times_out() {
    let srv = FaultServer::start(Fault::Silent, None);
    for connections in [1, 8] {
        let mut spec = LoadSpec::closed(srv.url(), 1000, connections);
        spec.timeout = Duration::from_millis(500);
        let (r, took) = run_bounded(&spec);
        assert_eq!(r.stop, StopReason::Lost, "c{connections}");
        let stall = spec.timeout * STALL_TIMEOUTS;
        assert!(matches!(r.lost, Some(Loss::Stall { max, .. }) if max == stall), "{:?}", r.lost);
        assert_eq!((r.ok, r.errors.timeout), (0, r.requests), "c{connections}");
        let c = connections as u64;
        assert!((c + 1..=2 * c).contains(&r.requests), "c{connections}: {} requests", r.requests);
        // Two request timeouts, not a thousand of them (nor the 5-minute cap).
        assert!(took < Duration::from_secs(5), "c{connections}: {took:?}");
        let row = http_row("target", &r, None);
        let message = row.error_message.clone().unwrap();
        let head = format!("lost after {} requests to {}: no successful response for ", r.requests, srv.url());
        assert!(message.starts_with(&head), "{message}");
        assert!(
            message.ends_with(&format!(" s, more than 1 s (timeout×{})", r.requests)),
            "{message}"
        );
        assert_eq!(serde_json::to_value(&row.http).unwrap()["lost"]["rule"], "stall", "{:?}", row.http);
        assert_eq!(serde_json::to_value(&row.http).unwrap()["errors"]["timeout"], r.requests);
    }
}

#[test]
fn a_target_answering_only_errors_is_lost_once_judged() {
    let srv = FaultServer::start(Fault::FailEvery(1), None);
    let (r, _) = run_bounded(&LoadSpec::closed(srv.url(), 100_000, 2));
    assert_eq!(r.stop, StopReason::Lost);
    assert_eq!(
        r.lost,
        Some(Loss::ErrorShare {
            failed: MIN_JUDGED,
            finished: MIN_JUDGED,
            max_share: 0.5
        })
    );
    // The other connection may finish one more before it stops.
    assert!((MIN_JUDGED..=MIN_JUDGED + 1).contains(&r.requests), "{}", r.requests);
    let row = http_row("target", &r, None);
    assert_eq!(
        row.error_message.as_deref(),
        Some(
            format!(
                "lost after {n} requests to {}: 20 of 20 requests failed, more than 50% (500×{n})",
                srv.url(),
                n = r.requests
            )
            .as_str()
        )
    );
    assert_eq!(
        serde_json::to_value(&row.http).unwrap()["lost"],
        serde_json::json!({"rule": "error_share", "message": "20 of 20 requests failed, more than 50%"})
    );
    // A share of 1 never loses a run: all 40 requests are made.
    let mut spec = LoadSpec::closed(srv.url(), 40, 2);
    spec.loss.max_error_share = 1.0;
    let (r, _) = run_bounded(&spec);
    assert_eq!((r.stop, r.lost, r.requests), (StopReason::Completed, None, 40));
}

#[test]
fn a_server_whose_store_stalls_is_lost_at_its_first_5xx_or_by_the_stall_bound() {
    // Every request answered 503 after 300 ms: a run of 1000 at one connection would crawl
    // for 5 minutes (the cap) at 3 requests a second.
    let srv = FaultServer::start(Fault::UnavailableAfter(Duration::from_millis(300)), None);
    let mut spec = LoadSpec::closed(srv.url(), 1000, 1);
    spec.loss = LossRule {
        first_server_error: true,
        ..LossRule::default()
    };
    let (r, took) = run_bounded(&spec);
    assert_eq!((r.stop, r.lost, r.requests), (StopReason::Lost, Some(Loss::ServerError), 1));
    assert!(took < Duration::from_secs(3), "{took:?}");
    // Without that rule, the stall bound (two 500 ms timeouts) ends it after ~4 answers.
    let mut spec = LoadSpec::closed(srv.url(), 1000, 1);
    spec.timeout = Duration::from_millis(500);
    let (r, took) = run_bounded(&spec);
    assert_eq!(r.stop, StopReason::Lost);
    assert!(matches!(r.lost, Some(Loss::Stall { .. })), "{:?}", r.lost);
    assert!((3..=5).contains(&r.requests), "{} requests", r.requests);
    assert_eq!(r.status_codes.get(&503), Some(&r.requests));
    assert!(took < Duration::from_secs(4), "{took:?}");
}

#[test]
fn the_open_model_stops_sending_when_its_duration_ends_and_counts_what_it_could_not_send() {
    let srv = FaultServer::start(Fault::Delay(Duration::ZERO), None);
    for rate in [1e15, 200_000.0] {
        let mut spec = LoadSpec::open(srv.url(), rate, Duration::from_secs(1), 4);
        spec.timeout = Duration::from_secs(2);
        let (r, took) = run_bounded(&spec);
        assert_eq!((r.stop, r.lost), (StopReason::Completed, None), "rate {rate}");
        // Every slot is either sent (and answered: the requests in flight at the end drain) or
        // counted as not sent.
        let total = rate as u64;
        assert!(r.unsent > 0, "rate {rate}: {} requests", r.requests);
        assert_eq!(r.requests + r.unsent, total, "rate {rate}");
        assert_eq!(r.ok, r.requests, "rate {rate}");
        assert!(took < Duration::from_secs(3), "rate {rate}: {took:?}");
        let row = http_row("target", &r, None);
        assert!(row.is_ok());
        assert_eq!(serde_json::to_value(&row.http).unwrap()["unsent"], r.unsent);
    }
    // A rate the target keeps up with sends everything.
    let spec = LoadSpec::open(srv.url(), 20.0, Duration::from_secs(1), 2);
    let (r, _) = run_bounded(&spec);
    assert_eq!((r.stop, r.requests, r.unsent), (StopReason::Completed, 20, 0));
}

#[test]
fn the_open_model_against_a_target_that_never_answers_ends_within_its_bound() {
    let srv = FaultServer::start(Fault::Silent, None);
    for rate in [1e15, 20.0] {
        let mut spec = LoadSpec::open(srv.url(), rate, Duration::from_secs(1), 4);
        spec.timeout = Duration::from_millis(500);
        let (r, took) = run_bounded(&spec);
        // Lost at the second round of timeouts, which may come as the duration ends: then every
        // connection may have stopped sending before it heard of the loss.
        let ended = r.stop == StopReason::Completed && r.unsent > 0 && r.lost.is_none();
        assert!(r.stop == StopReason::Lost || ended, "rate {rate}: {:?} {:?}", r.stop, r.lost);
        assert_eq!((r.ok, r.errors.timeout), (0, r.requests), "rate {rate}");
        assert!(took < Duration::from_secs(3), "rate {rate}: {took:?}");
        assert!(!http_row("target", &r, None).is_ok());
    }
}
