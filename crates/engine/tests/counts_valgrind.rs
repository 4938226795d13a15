//! A counting pass under Valgrind's Callgrind, as `--measure counts` runs one: this test binary
//! run again under `valgrind --tool=callgrind --collect-atstart=no` with the operations per
//! strategy set, two strategies counted a few operations each. Two processes count exactly the
//! same instructions: what lets a gate compare counts across runs.
//!
//! Skipped (said on stderr) where valgrind is not installed, unless JSONCOST_REQUIRE_VALGRIND
//! is set (CI installs it).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;

use jsoncost_engine::counts::{COUNT_OPS_ENV, count_pass, label, parse_dump, requested_ops, running_on_valgrind, split_label};

/// Set in the child's environment: the child test counts instead of returning at once.
const CHILD: &str = "JSONCOST_COUNTS_TEST_CHILD";

/// Operations per strategy: few, so the test stays short under the cache simulation.
const OPS: u64 = 20;

fn sort_work() -> Vec<u32> {
    let mut v: Vec<u32> = (0..500u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    v.sort_unstable();
    black_box(v)
}

fn sum_work() -> u64 {
    black_box((0..1000u64).map(|i| i * i).sum())
}

/// Runs in the child only: counts the two strategies.
#[test]
fn child_counts_two_strategies() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    assert!(running_on_valgrind());
    let ops = requested_ops().expect("the ops asked for, under Valgrind");
    count_pass(&label("work/sort", "sort/std", ops), ops, || Ok::<_, ()>(sort_work())).unwrap();
    count_pass(&label("work/sort", "sum/std", ops), ops, || Ok::<_, ()>(sum_work())).unwrap();
}

/// Every labelled dump of one child process: label → events.
type Dumps = BTreeMap<String, Vec<(String, u64)>>;

fn counted_child(dir: &Path) -> Dumps {
    std::fs::create_dir_all(dir).unwrap();
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--collect-atstart=no", "--cache-sim=yes"])
        .arg(format!("--callgrind-out-file={}", dir.join("callgrind.out.%p").display()))
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "child_counts_two_strategies", "--test-threads=1"])
        .env_clear()
        .env(CHILD, "1")
        .env(COUNT_OPS_ENV, OPS.to_string())
        .output()
        .expect("valgrind runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut dumps = Dumps::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let dump = parse_dump(&text).unwrap();
        if let Some(label) = dump.label {
            dumps.insert(label, dump.events.0);
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
    dumps
}

#[test]
fn two_processes_count_exactly_the_same_instructions() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("JSONCOST_REQUIRE_VALGRIND").is_none(),
            "valgrind is required (JSONCOST_REQUIRE_VALGRIND) but not installed"
        );
        eprintln!("skipped: valgrind is not installed");
        return;
    }
    let base = std::env::temp_dir().join(format!("jsoncost-counts-test-{}", std::process::id()));
    let first = counted_child(&base.join("1"));
    let second = counted_child(&base.join("2"));
    let labels: Vec<(&str, &str, u64)> = first.keys().map(|l| split_label(l).unwrap()).collect();
    assert_eq!(labels, [("work/sort", "sort/std", OPS), ("work/sort", "sum/std", OPS)]);
    // Instructions and data accesses are the same to the unit. The simulated misses are
    // nearly so: the cache is simulated for every thread, and when the harness's other thread
    // runs between two of the counted operations (a wake-up, a matter of time) it evicts a
    // few lines (I1 misses 148–167 of 25.7 M instructions, in three processes).
    let exact = |d: &Dumps| -> Vec<(String, u64)> {
        d.iter()
            .flat_map(|(l, events)| {
                events
                    .iter()
                    .filter(|(n, _)| ["Ir", "Dr", "Dw"].contains(&n.as_str()))
                    .map(move |(n, v)| (format!("{l} {n}"), *v))
            })
            .collect()
    };
    assert_eq!(exact(&first), exact(&second));
    assert_eq!(exact(&first).len(), 6);
    let ir = |label: &str| first[label].iter().find(|(n, _)| n == "Ir").unwrap().1;
    // Only the counted operations: sorting 500 numbers is thousands of instructions each time,
    // far more than a sum of 1000 squares the compiler may fold.
    assert!(ir("work/sort\tsort/std\t20") > 20 * 1000, "{first:?}");
    assert!(ir("work/sort\tsum/std\t20") < ir("work/sort\tsort/std\t20"), "{first:?}");
}
