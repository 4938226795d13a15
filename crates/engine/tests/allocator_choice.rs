//! The counting allocator over the allocator JSONCOST_ALLOCATOR selects: the same exact counts
//! under the system allocator, mimalloc and jemalloc, each in its own process (this test
//! binary run again with the variable set, as `jsoncost alloc` runs the jsoncost binary), and
//! a name that is unknown is refused and leaves the system allocator serving.

use jsoncost_engine::alloc::{self, Allocator, CountingAllocator, SelectedAllocator, SelectionError, thread_measure};
use std::hint::black_box;
use std::process::Command;

#[global_allocator]
static A: CountingAllocator<SelectedAllocator> = CountingAllocator::selected();

/// Set in the child's environment: the child test reports instead of returning at once.
const CHILD: &str = "JSONCOST_ALLOCATOR_TEST_CHILD";

/// The fixed operation: three allocations (one a realloc) and a Vec grown by pushes, whose
/// growth Rust decides without asking the allocator.
fn operation() -> (Vec<u8>, Vec<u64>) {
    let mut a = Vec::<u8>::with_capacity(100);
    a.reserve_exact(300); // realloc 100 -> 300
    black_box(&a);
    drop(a);
    let mut grown = Vec::new();
    for i in 0..1000u64 {
        grown.push(black_box(i));
    }
    (black_box(Vec::<u8>::with_capacity(50)), grown)
}

/// Runs in the child only: prints `allocator bytes count peak net in_mimalloc_heap`.
#[test]
fn child_reports_its_allocator_and_counts() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (kept, s) = thread_measure(operation);
    // A pointer from the allocator: mimalloc knows its own.
    let probe = Box::new(7u64);
    #[cfg(feature = "mimalloc")]
    // SAFETY: only asks whether the address lies in mimalloc's heap.
    let in_mimalloc = unsafe { libmimalloc_sys::mi_is_in_heap_region(std::ptr::from_ref(&*probe).cast()) };
    #[cfg(not(feature = "mimalloc"))]
    let in_mimalloc = false;
    println!(
        "report {} {} {} {} {} {in_mimalloc} {}",
        alloc::allocator().map_or("none", Allocator::as_str),
        s.bytes,
        s.count,
        s.peak_bytes,
        s.net_live_bytes,
        alloc::selection_error().map_or("-".to_string(), |e| e.to_string()),
    );
    drop((kept, probe));
}

/// The child's report line, run with `JSONCOST_ALLOCATOR=value`.
fn report(value: &str) -> Vec<String> {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_reports_its_allocator_and_counts",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(alloc::ENV, value)
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("report ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no report in {stdout}"));
    line.splitn(7, ' ').map(String::from).collect()
}

#[test]
fn counts_are_exact_and_the_same_under_every_allocator() {
    // 100 + 300 + 50 for the three, and the pushes' growth: 4, 8, ..., 1024 u64s (9 allocations);
    // the peak and what is left: the grown 8 KiB and the last 50 bytes.
    let grown: u64 = (2..=10).map(|k| 8 << k).sum();
    for allocator in Allocator::built() {
        let r = report(allocator.env_value());
        assert_eq!(r[0], allocator.as_str(), "{r:?}");
        assert_eq!(
            r[1..5],
            [
                (450 + grown).to_string(),
                "12".into(),
                (50 + 8192).to_string(),
                (50 + 8192).to_string()
            ],
            "{allocator}: {r:?}"
        );
        assert_eq!(r[5] == "true", allocator == Allocator::Mimalloc, "{allocator}: {r:?}");
        assert_eq!(r[6], "-", "{r:?}");
    }
    assert_eq!(
        Allocator::built(),
        Allocator::ALL,
        "the test is built with the features mimalloc and jemalloc"
    );
}

#[test]
fn an_unknown_name_is_refused_and_the_system_allocator_serves() {
    let r = report("tcmalloc");
    assert_eq!(r[0], "system");
    assert_eq!(r[6], SelectionError::Unknown("tcmalloc".into()).to_string());
    assert_eq!(
        r[6],
        "JSONCOST_ALLOCATOR=\"tcmalloc\" names no allocator; valid: system, mimalloc, jemalloc"
    );
    // Unset or empty: the system's, no error.
    assert_eq!(report("")[0], "system");
}
