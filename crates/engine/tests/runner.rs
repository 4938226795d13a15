//! The engine's stages on a known operation: exact allocation per op and the iteration rules.

use jsoncost_engine::alloc::CountingAllocator;
use jsoncost_engine::{AllocScope, MeasureConfig, measure};
use std::hint::black_box;
use std::time::Duration;

#[global_allocator]
static A: CountingAllocator = CountingAllocator::system();

#[test]
fn allocation_per_op_is_exact_and_iterations_are_bounded() {
    let cfg = MeasureConfig {
        iteration_time: Duration::from_millis(2),
        budget: Duration::from_millis(200),
        ..MeasureConfig::full()
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
    let cfg = MeasureConfig {
        alloc_scope: AllocScope::Thread,
        ..MeasureConfig::whole_runs(5, 7, Duration::from_millis(50), false)
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
    let cfg = MeasureConfig::whole_runs(5, 7, Duration::from_millis(50), false);
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

/// Whole runs count the threads the operation works on (the measuring thread and the ones it
/// enrolls, as tokio's blocking pool does) and no other: a progress bar drawing beside the
/// allocation pass must not change a row's exact count from one run to the next.
#[test]
fn whole_runs_count_the_operations_threads_and_not_a_thread_beside_them() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::{Arc, Barrier};
    let stop = Arc::new(AtomicBool::new(false));
    let beside = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Relaxed) {
                black_box(vec![0u8; 431]);
                std::thread::yield_now();
            }
        })
    };
    // The operation's own worker (a blocking pool of one): enrolled as it starts, it allocates
    // 256 bytes between the two barriers of each operation.
    let (go, done) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let finished = Arc::new(AtomicBool::new(false));
    let worker = {
        let (go, done, finished) = (go.clone(), done.clone(), finished.clone());
        std::thread::spawn(move || {
            jsoncost_engine::alloc::enroll_current_thread();
            loop {
                go.wait();
                if finished.load(Relaxed) {
                    return;
                }
                black_box(vec![0u8; 256]);
                done.wait();
            }
        })
    };
    let m = measure(&MeasureConfig::whole_runs(2, 2, Duration::from_millis(50), false), || {
        let here = black_box(vec![0u8; 64]);
        go.wait();
        done.wait();
        // Long enough for the thread beside it to allocate meanwhile.
        std::thread::sleep(Duration::from_millis(5));
        here
    });
    finished.store(true, Relaxed);
    go.wait();
    worker.join().unwrap();
    stop.store(true, Relaxed);
    beside.join().unwrap();
    assert_eq!((m.allocated_bytes, m.allocs), (Some(64.0 + 256.0), Some(2.0)));
    // The measuring thread was enrolled for the pass only: `run` goes on to http on this
    // thread, whose load generator must not count as the server's allocations.
    let after = jsoncost_engine::alloc::ProcessMeasure::start_enrolled();
    black_box(vec![0u8; 100]);
    assert_eq!(after.finish().count, 0);
}
