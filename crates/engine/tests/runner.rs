//! The engine's stages on a known operation: exact allocation per op and the iteration rules.

use jsoncost_engine::alloc::CountingAllocator;
use jsoncost_engine::{AllocScope, Config, measure};
use std::hint::black_box;
use std::time::Duration;

#[global_allocator]
static A: CountingAllocator = CountingAllocator::system();

#[test]
fn allocation_per_op_is_exact_and_iterations_are_bounded() {
    let cfg = Config {
        iteration_time: Duration::from_millis(2),
        budget: Duration::from_millis(200),
        ..Config::full()
    };
    let m = measure(&cfg, || black_box(Vec::<u64>::with_capacity(16)));
    assert_eq!(m.allocated_bytes, Some(128.0));
    assert_eq!(m.allocs, Some(1.0));
    assert!(m.all_samples_ns.len() >= 15 && m.all_samples_ns.len() <= 100);
    assert_eq!(m.samples_ns.len() + m.outliers_removed, m.all_samples_ns.len());
    assert!(m.ops_per_iteration >= 1);
}

#[test]
fn whole_runs_use_one_op_per_iteration() {
    let cfg = Config {
        alloc_scope: AllocScope::Thread,
        ..Config::whole_runs(5, 7, Duration::from_millis(50), false)
    };
    let mut calls = 0u32;
    let m = measure(&cfg, || {
        calls += 1;
        std::thread::sleep(Duration::from_millis(1));
    });
    assert_eq!(m.ops_per_iteration, 1);
    let n = m.all_samples_ns.len();
    assert!((5..=7).contains(&n), "{n}");
    // no warmup (the gate's check run came just before) + actual n + allocation pass 1
    assert_eq!(calls as usize, n + 1);
    assert_eq!(m.allocated_bytes, Some(0.0));
}

#[test]
fn the_first_error_while_timed_stops_the_measurement() {
    let cfg = Config::whole_runs(5, 7, Duration::from_millis(50), false);
    let mut calls = 0u32;
    let r = jsoncost_engine::try_measure_staged(&cfg, |_| {
        calls += 1;
        if calls == 3 {
            Err(format!("failed on call {calls}"))
        } else {
            Ok(())
        }
    });
    assert_eq!(r.unwrap_err(), "failed on call 3");
    assert_eq!(calls, 3);
}
