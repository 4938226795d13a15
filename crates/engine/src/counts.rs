//! Deterministic counts: instructions and simulated cache misses per operation, read by
//! Valgrind's Callgrind around exactly the measured work. Time on a shared machine does not
//! repeat from one process to the next; a count does, so a regression gate can compare it
//! across runs, days and machines of one CPU level.
//!
//! The process being counted runs under `valgrind --tool=callgrind --collect-atstart=no`
//! with [`COUNT_OPS_ENV`] set. For each strategy, [`count_pass`] runs one untimed, uncounted
//! warm-up operation, then switches collection on for a fixed number of operations, off
//! again, and dumps the statistics under a label (`<table>\t<strategy>\t<ops>`): setup, the
//! gate and the allocation pass are never counted. [`parse_dump`] reads one dump file back.
//!
//! The client requests are the documented magic instruction sequence of valgrind.h (amd64),
//! issued with inline assembly: natively it is a no-op (four rotations of `rdi` by 128 bits
//! in all, then `xchg rbx, rbx`), so the same binary runs with or without Valgrind. A binding
//! crate was weighed: `crabgrind` generates its bindings with bindgen (libclang at build time)
//! and needs Valgrind's headers where a user's bench builds; six requests do not justify that.

use std::hint::black_box;

/// Set by the conductor in the counted child: how many operations each strategy counts.
/// Read only when the process runs under Valgrind ([`running_on_valgrind`]).
pub const COUNT_OPS_ENV: &str = "JSONCOST_COUNT_OPS";

/// The CPU level a counting build targets: Valgrind 3.19 cannot decode AVX-512 (EVEX), and
/// x86-64-v3 (AVX2, BMI, FMA) is what sonic-rs and simd-json take their SIMD paths with.
pub const COUNTING_TARGET_CPU: &str = "x86-64-v3";

/// The features a counting build adds to [`COUNTING_TARGET_CPU`]: x86-64-v3 leaves out
/// PCLMULQDQ, which sonic-rs's string scanning takes when compiled in (the build check says
/// "built without pclmulqdq" otherwise), and Valgrind decodes.
pub const COUNTING_TARGET_FEATURES: &str = "+pclmulqdq";

/// Codegen units per crate of a counting build: one. With several, a change to one function
/// moves others between units and changes what is inlined where, so rows the change never
/// touched count differently; with one, a change moves its own rows alone. It costs build
/// time (the jsoncost crate compiles on one core; figures in docs/measurements.md).
pub const COUNTING_CODEGEN_UNITS: &str = "1";

/// What one row's operations cost under Callgrind, per operation (never a time).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Operations counted (after one uncounted warm-up operation).
    pub ops: u64,
    /// Instructions executed per operation (Callgrind's `Ir`).
    pub instructions: f64,
    /// Simulated L1 misses per operation, instruction and data (`I1mr + D1mr + D1mw`); with
    /// the cache simulation only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1_misses: Option<f64>,
    /// Simulated last-level misses per operation (`ILmr + DLmr + DLmw`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ll_misses: Option<f64>,
    /// Estimated cycles per operation ([`Events::estimated_cycles`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_cycles: Option<f64>,
    /// The CPU level and features the counted build targeted (its code is not the native
    /// build's), e.g. `x86-64-v3+pclmulqdq`.
    pub target_cpu: String,
}

/// Callgrind's request codes (callgrind.h: `VG_USERREQ_TOOL_BASE('C','T')` and the next ones).
mod request {
    const BASE: u64 = (b'C' as u64) << 24 | (b'T' as u64) << 16;
    pub const ZERO_STATS: u64 = BASE + 1;
    pub const TOGGLE_COLLECT: u64 = BASE + 2;
    pub const DUMP_STATS_AT: u64 = BASE + 3;
    /// valgrind.h's core request.
    pub const RUNNING_ON_VALGRIND: u64 = 0x1001;
}

/// One client request; returns `default` when not under Valgrind.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn client_request(default: u64, request: u64, arg1: u64) -> u64 {
    let args: [u64; 6] = [request, arg1, 0, 0, 0, 0];
    let result;
    // SAFETY: valgrind.h's amd64 sequence. Natively the rotations sum to 128 bits (rdi is
    // unchanged; declared clobbered anyway) and `xchg rbx, rbx` does nothing; under Valgrind
    // the sequence reads the six words at rax and writes the answer to rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") default => result,
            in("rax") args.as_ptr(),
            inout("rdi") 0u64 => _,
        );
    }
    black_box(&args);
    result
}

/// Elsewhere there is no Valgrind to ask.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn client_request(default: u64, _request: u64, _arg1: u64) -> u64 {
    default
}

/// Whether this process runs under Valgrind (any tool).
pub fn running_on_valgrind() -> bool {
    client_request(0, request::RUNNING_ON_VALGRIND, 0) > 0
}

/// The operations per strategy the conductor asked for, when this process is its counted
/// child: [`COUNT_OPS_ENV`] set to a positive number and Valgrind running it. `None`
/// otherwise (a stray variable in a native run changes nothing).
pub fn requested_ops() -> Option<u64> {
    let ops: u64 = std::env::var(COUNT_OPS_ENV).ok()?.trim().parse().ok()?;
    (ops > 0 && running_on_valgrind()).then_some(ops)
}

/// The label a count is dumped under: tabs and line breaks in the names would break the
/// dump's `desc:` line and the split, so they become spaces.
pub fn label(table: &str, method: &str, ops: u64) -> String {
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    format!("{}\t{}\t{ops}", clean(table), clean(method))
}

/// Collection switched on; switched off again when dropped, so an operation's error (or a
/// panic) cannot leave the rest of the process counted.
struct Collecting;

impl Collecting {
    fn start() -> Self {
        client_request(0, request::ZERO_STATS, 0);
        client_request(0, request::TOGGLE_COLLECT, 0);
        Collecting
    }
}

impl Drop for Collecting {
    fn drop(&mut self) {
        client_request(0, request::TOGGLE_COLLECT, 0);
    }
}

/// Counts `ops` operations of `op` under `label` ([`label`]): one warm-up operation first
/// (uncounted: the first call's page faults, lazy statics and cold simulated caches are not
/// the operation's steady cost), then exactly `ops` operations with collection on, then a dump
/// named by `label`. The first error stops it; nothing is dumped then.
pub fn count_pass<R, E>(label: &str, ops: u64, mut op: impl FnMut() -> Result<R, E>) -> Result<(), E> {
    black_box(op()?);
    {
        let _on = Collecting::start();
        for _ in 0..ops {
            black_box(op()?);
        }
    }
    let mut text = label.as_bytes().to_vec();
    text.push(0);
    client_request(0, request::DUMP_STATS_AT, text.as_ptr() as u64);
    Ok(())
}

/// One Callgrind dump: its label and event totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Dump {
    /// The text after `Client Request: ` in its trigger (`None`: a dump at exit).
    pub label: Option<String>,
    /// The events counted, by Callgrind's names (`Ir`, `I1mr` ...).
    pub events: Events,
}

/// Event totals by name, in the dump's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Events(pub Vec<(String, u64)>);

impl Events {
    /// The total of `name`, when the dump has it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    fn sum(&self, names: &[&str]) -> Option<u64> {
        names.iter().map(|n| self.get(n)).sum()
    }

    /// L1 misses (instruction and data), with the cache simulation.
    pub fn l1_misses(&self) -> Option<u64> {
        self.sum(&["I1mr", "D1mr", "D1mw"])
    }

    /// Last-level misses (instruction and data), with the cache simulation.
    pub fn ll_misses(&self) -> Option<u64> {
        self.sum(&["ILmr", "DLmr", "DLmw"])
    }

    /// Estimated cycles, the formula of iai and gungraun (formerly iai-callgrind; its
    /// `EstimatedCycles`), from Itamar Turner-Trauring (pythonspeed.com, "consistent
    /// benchmarking in CI"): every access that hits L1 costs 1, one that misses L1 but hits
    /// the last level 5, one that goes to RAM 35:
    /// `(Ir + Dr + Dw − L1 misses) + 5·(L1 misses − LL misses) + 35·LL misses`.
    /// A model of a CPU, not a measurement of one: it ignores pipelining and prediction.
    pub fn estimated_cycles(&self) -> Option<u64> {
        let accesses = self.sum(&["Ir", "Dr", "Dw"])?;
        let (l1, ll) = (self.l1_misses()?, self.ll_misses()?);
        let l1_hits = accesses.saturating_sub(l1);
        let ll_hits = l1.saturating_sub(ll);
        Some(l1_hits + 5 * ll_hits + 35 * ll)
    }

    /// Per operation, as a row keeps them.
    pub fn per_op(&self, ops: u64) -> Option<Counts> {
        let per = |v: u64| v as f64 / ops.max(1) as f64;
        Some(Counts {
            ops,
            instructions: per(self.get("Ir")?),
            l1_misses: self.l1_misses().map(per),
            ll_misses: self.ll_misses().map(per),
            estimated_cycles: self.estimated_cycles().map(per),
            target_cpu: format!("{COUNTING_TARGET_CPU}{COUNTING_TARGET_FEATURES}"),
        })
    }
}

/// Why a dump file could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DumpError {
    /// No `events:` line.
    #[error("no events: line")]
    NoEvents,
    /// No `summary:` nor `totals:` line.
    #[error("no summary: or totals: line")]
    NoTotals,
    /// A total that is not a number.
    #[error("bad number {0:?} in the totals")]
    BadNumber(String),
}

/// Reads one Callgrind dump (the header's `desc: Trigger:` and `events:`, and its `summary:`
/// or, failing that, `totals:` line); the per-function costs between are skipped.
pub fn parse_dump(text: &str) -> Result<Dump, DumpError> {
    let mut label = None;
    let mut names: Option<Vec<String>> = None;
    let mut summary = None;
    let mut totals = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("desc: Trigger: ") {
            label = rest.strip_prefix("Client Request: ").map(str::to_string);
        } else if let Some(rest) = line.strip_prefix("events:") {
            names = Some(rest.split_whitespace().map(str::to_string).collect());
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = Some(rest.to_string());
        } else if let Some(rest) = line.strip_prefix("totals:") {
            totals = Some(rest.to_string());
        }
    }
    let names = names.ok_or(DumpError::NoEvents)?;
    let values = summary.or(totals).ok_or(DumpError::NoTotals)?;
    let values: Vec<u64> = values
        .split_whitespace()
        .map(|v| v.parse().map_err(|_| DumpError::BadNumber(v.to_string())))
        .collect::<Result<_, _>>()?;
    // Callgrind leaves trailing zero events out of a cost line.
    let events = names
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, values.get(i).copied().unwrap_or(0)))
        .collect();
    Ok(Dump {
        label,
        events: Events(events),
    })
}

/// A label split back into (table, method, ops).
pub fn split_label(label: &str) -> Option<(&str, &str, u64)> {
    let mut parts = label.splitn(3, '\t');
    let (table, method, ops) = (parts.next()?, parts.next()?, parts.next()?);
    Some((table, method, ops.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 4242\ncmd:  jsoncost micro\npart: 2\n\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\ndesc: Timerange: Basic block 100 - 200\ndesc: Trigger: Client Request: data/deserialize\ttyped/serde_json\t200\n\npositions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 100000 30000 20000 100 200 300 10 20 30\n\n\nob=(1) /bin/jsoncost\nfl=(1) ???\nfn=(1) x\n0 5 1\n\ntotals: 100000 30000 20000 100 200 300 10 20 30\n";

    #[test]
    fn a_dump_gives_its_label_and_the_counts_per_operation() {
        let d = parse_dump(DUMP).unwrap();
        assert_eq!(d.label.as_deref(), Some("data/deserialize\ttyped/serde_json\t200"));
        assert_eq!(
            split_label(d.label.as_deref().unwrap()),
            Some(("data/deserialize", "typed/serde_json", 200))
        );
        assert_eq!(d.events.l1_misses(), Some(600));
        assert_eq!(d.events.ll_misses(), Some(60));
        // (150000 − 600) + 5·(600 − 60) + 35·60
        assert_eq!(d.events.estimated_cycles(), Some(149_400 + 2_700 + 2_100));
        let c = d.events.per_op(200).unwrap();
        assert_eq!(
            c,
            Counts {
                ops: 200,
                instructions: 500.0,
                l1_misses: Some(3.0),
                ll_misses: Some(0.3),
                estimated_cycles: Some(771.0),
                target_cpu: "x86-64-v3+pclmulqdq".into(),
            }
        );
    }

    #[test]
    fn without_the_cache_simulation_only_instructions_are_known() {
        let d = parse_dump("events: Ir\ntotals: 1234\n").unwrap();
        assert_eq!(d.label, None);
        let c = d.events.per_op(2).unwrap();
        assert_eq!((c.instructions, c.l1_misses, c.estimated_cycles), (617.0, None, None));
        // Trailing zero events are left out of a cost line.
        let d = parse_dump("events: Ir Dr Dw\nsummary: 7\n").unwrap();
        assert_eq!(d.events.0, [("Ir".into(), 7), ("Dr".into(), 0), ("Dw".into(), 0)]);
    }

    #[test]
    fn a_dump_without_events_or_totals_is_refused() {
        assert_eq!(parse_dump("summary: 1\n"), Err(DumpError::NoEvents));
        assert_eq!(parse_dump("events: Ir\n"), Err(DumpError::NoTotals));
        assert_eq!(parse_dump("events: Ir\ntotals: x\n"), Err(DumpError::BadNumber("x".into())));
    }

    #[test]
    fn labels_keep_their_three_parts_whatever_the_names_hold() {
        let l = label("my\ttable", "a\nb", 5);
        assert_eq!(l, "my table\ta b\t5");
        assert_eq!(split_label(&l), Some(("my table", "a b", 5)));
        assert_eq!(split_label("no tabs"), None);
    }

    #[test]
    fn natively_the_requests_do_nothing_and_the_pass_runs_every_operation() {
        assert!(!running_on_valgrind());
        let mut n = 0;
        count_pass::<(), ()>("t\tm\t3", 3, || {
            n += 1;
            Ok(())
        })
        .unwrap();
        // One warm-up, then the three counted.
        assert_eq!(n, 4);
        let mut n = 0;
        let r = count_pass("t\tm\t3", 3, || {
            n += 1;
            if n == 2 { Err("second") } else { Ok(()) }
        });
        assert_eq!((r, n), (Err("second"), 2));
    }
}
