//! The allocator dimension: the same rows under another global allocator than the base's
//! (the system's), paired in lockstep. [`compare`] pairs each row as `ab` pairs two builds
//! ([`crate::ab::ab`]: the one pairing loop) and keeps what the allocator tables show; the
//! tables render in every format (each `Exporter`), and [`advise`] words one lever per allocator and table:
//! an allocator change, which touches no code path and no contract, so it is stated apart from
//! the strategy swaps, from the paired ratio's 99% interval alone.

use jsoncost_engine::alloc::Allocator;
use jsoncost_engine::{AllocatorComparison, AllocatorRow, ExperimentKind, Results, Row};

use crate::ab::{self, AbVerdict, Run};
use crate::advice::{Advice, AdviceKind};
use crate::compare::{ALLOCATION_TOLERANCE_BYTES, Reason, Side};
use crate::units;
use crate::view::Align;

/// Title of the allocator section in every format.
pub const TITLE: &str = "Allocators";

/// Each row of `runs` (base program under `base`, new under `allocator`) paired as `ab` pairs
/// it, with both sides' allocation and peak RSS (means over the runs); a row's time is called
/// on at `threshold` as `ab` calls it ([`ab::verdict`]).
pub fn compare(base: Allocator, allocator: Allocator, runs: &[Run], cpu: Option<usize>, threshold: f64) -> AllocatorComparison {
    // Another allocator moves many rows by different amounts: their spread is not noise.
    let paired = ab::ab_with(runs, threshold, ab::RowSpread::Keep);
    let find = |r: &Results, a: &ab::AbRow| -> Option<Row> {
        r.experiments
            .iter()
            .find(|e| e.kind == a.experiment && e.table == a.table)?
            .rows
            .iter()
            .find(|row| row.method == a.method)
            .cloned()
    };
    let rows = paired
        .rows
        .iter()
        .map(|a| {
            let bases: Vec<Row> = runs.iter().filter_map(|r| find(&r.base, a)).collect();
            let news: Vec<Row> = runs.iter().filter_map(|r| find(&r.new, a)).collect();
            let first = bases.first();
            AllocatorRow {
                experiment: a.experiment,
                table: a.table.clone(),
                method: a.method.clone(),
                contract: first.and_then(|r| r.contract),
                baseline: first.is_some_and(|r| r.baseline),
                base_mean_ns: a.base_mean_ns,
                mean_ns: a.new_mean_ns,
                ratio: a.ratio,
                base_allocated_bytes: a.base_allocated_bytes,
                allocated_bytes: a.new_allocated_bytes,
                base_allocs: mean_of(bases.iter().map(|r| r.allocs)),
                allocs: mean_of(news.iter().map(|r| r.allocs)),
                base_peak_rss_bytes: mean_of(bases.iter().map(|r| r.rss.map(|p| p.peak_bytes as f64))).map(|b| b.round() as u64),
                peak_rss_bytes: mean_of(news.iter().map(|r| r.rss.map(|p| p.peak_bytes as f64))).map(|b| b.round() as u64),
            }
        })
        .collect();
    let names = [base.as_str(), allocator.as_str()];
    let not_compared = paired
        .not_compared
        .iter()
        .map(|n| {
            let what = match &n.method {
                Some(m) => format!("{} {} {m}", n.experiment, n.table),
                None => format!("{} {}", n.experiment, n.table),
            };
            format!("{what}: {}", reason(&n.reason, names))
        })
        .collect();
    AllocatorComparison {
        base,
        allocator,
        runs: paired.runs,
        lockstep: paired.lockstep,
        cpu,
        threshold,
        rows,
        not_compared,
        other_cpu: paired.other_cpu,
    }
}

/// The mean of the values present, if any.
fn mean_of(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = values.flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Why a row was not paired, the sides called by their allocators.
fn reason(r: &Reason, names: [&str; 2]) -> String {
    let side = |s: &Side| match s {
        Side::Base => names[0].to_string(),
        Side::New => names[1].to_string(),
        Side::Both => "both".to_string(),
    };
    match r {
        Reason::OnlyInBase => format!("only under {}", names[0]),
        Reason::OnlyInNew => format!("only under {}", names[1]),
        Reason::ParamsDiffer { base, new } => format!("params differ: {} {base}; {} {new}", names[0], names[1]),
        Reason::Failed { side: s, message } => format!("failed under {}: {message}", side(s)),
        Reason::NoTiming { side: s } => format!("no mean time under {}", side(s)),
        Reason::TooFewPairs { pairs } => {
            format!("{pairs} pair only: a table measured one strategy after another pairs once per run (give --runs 5 or more)")
        }
    }
}

/// How a row's time moved, from its paired interval alone, at the comparison's threshold (the
/// rule of [`ab::verdict`], with `m` half the threshold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Change {
    /// The interval lies below `1 − m`: the share of time saved, and its interval's ends.
    Less { share: f64, low: f64, high: f64 },
    /// The interval lies above `1 + m`.
    More { share: f64, low: f64, high: f64 },
    /// Real (the interval excludes 1) but within `1 ± m`: the signed change of time.
    Small { change: f64 },
    /// The ratio is beyond `1 ± m` but its interval reaches inside it.
    Inconclusive { change: f64 },
    /// The interval holds 1 and the ratio lies within `1 ± m`.
    None,
    /// Not judged: other programs used the two processes' CPU past the limit (`--max-other-cpu`).
    Busy,
}

pub(crate) fn change(c: &AllocatorComparison, r: &AllocatorRow) -> Change {
    let i = r.ratio;
    if c.busy().is_some() {
        return Change::Busy;
    }
    let verdict = if c.threshold > 0.0 {
        ab::verdict(&i, c.threshold)
    } else if i.high < 1.0 {
        AbVerdict::Faster
    } else if i.low > 1.0 {
        AbVerdict::Slower
    } else {
        AbVerdict::NoChange
    };
    match verdict {
        AbVerdict::Faster => Change::Less {
            share: 1.0 - i.estimate,
            low: 1.0 - i.high,
            high: 1.0 - i.low,
        },
        AbVerdict::Slower => Change::More {
            share: i.estimate - 1.0,
            low: i.low - 1.0,
            high: i.high - 1.0,
        },
        AbVerdict::SmallChange => Change::Small { change: i.estimate - 1.0 },
        AbVerdict::Inconclusive | AbVerdict::Unconfirmed => Change::Inconclusive { change: i.estimate - 1.0 },
        AbVerdict::NoChange | AbVerdict::Busy => Change::None,
    }
}

fn change_cell(c: &AllocatorComparison, r: &AllocatorRow) -> String {
    match change(c, r) {
        Change::Less { share, .. } => format!("{} less", units::percent(share)),
        Change::More { share, .. } => format!("{} more", units::percent(share)),
        Change::Small { change } => format!("small ({})", signed_share(change)),
        Change::Inconclusive { change } => format!("inconclusive ({})", signed_share(change)),
        Change::None => "no change".to_string(),
        Change::Busy => "busy: not judged".to_string(),
    }
}

/// "1.8% less" or "1.8% more" for a change of time of -0.018 or 0.018.
fn signed_share(change: f64) -> String {
    format!("{} {}", units::percent(change.abs()), if change < 0.0 { "less" } else { "more" })
}

/// How the Time column decides, said in the legend and the levers: "beyond ±2.5% (half the
/// 5.0% threshold)", or "excluding 1" for files without a threshold.
fn rule(c: &AllocatorComparison) -> String {
    if c.threshold > 0.0 {
        format!(
            "lies beyond ±{}, half the {} threshold",
            units::percent(c.threshold / 2.0),
            units::percent(c.threshold)
        )
    } else {
        "excludes 1".to_string()
    }
}

/// "8.2 KB", or "8.2 KB → 8.4 KB" when the two sides differ.
fn both(base: Option<f64>, other: Option<f64>, tolerance: f64, show: fn(f64) -> String) -> String {
    match (base, other) {
        (Some(b), Some(o)) if (b - o).abs() < tolerance => show(b),
        (Some(b), Some(o)) => format!("{} → {}", show(b), show(o)),
        _ => units::ABSENT.to_string(),
    }
}

pub(crate) fn columns(c: &AllocatorComparison) -> Vec<(String, Align)> {
    [
        ("Table".to_string(), Align::Left),
        ("Method".to_string(), Align::Left),
        (c.base.to_string(), Align::Right),
        (c.allocator.to_string(), Align::Right),
        ("Ratio".to_string(), Align::Right),
        ("99% interval".to_string(), Align::Right),
        ("Time".to_string(), Align::Left),
        ("Allocated".to_string(), Align::Right),
        ("Allocs".to_string(), Align::Right),
        (format!("Peak RSS ({} → {})", c.base, c.allocator), Align::Right),
    ]
    .to_vec()
}

pub(crate) fn cells(c: &AllocatorComparison, r: &AllocatorRow) -> Vec<String> {
    let method = if r.baseline {
        format!("{} (baseline)", r.method)
    } else {
        r.method.clone()
    };
    vec![
        format!("{} {}", r.experiment, r.table),
        method,
        units::time(r.base_mean_ns),
        units::time(r.mean_ns),
        format!("{:.3}", r.ratio.estimate),
        format!("{:.3}–{:.3}", r.ratio.low, r.ratio.high),
        change_cell(c, r),
        both(r.base_allocated_bytes, r.allocated_bytes, ALLOCATION_TOLERANCE_BYTES, units::bytes),
        both(r.base_allocs, r.allocs, 0.5, units::count),
        match (r.base_peak_rss_bytes, r.peak_rss_bytes) {
            (Some(b), Some(o)) => format!("{} → {}", units::bytes(b as f64), units::bytes(o as f64)),
            _ => units::ABSENT.to_string(),
        },
    ]
}

/// "mimalloc against system: paired in lockstep on CPU 1, round by round over 1 run"
pub(crate) fn heading(c: &AllocatorComparison) -> String {
    let pinned = c.cpu.map(|cpu| format!(" on CPU {cpu}")).unwrap_or_default();
    let pairing = match (c.lockstep, c.runs) {
        (true, 1) => format!("paired in lockstep{pinned}, round by round over 1 run of both processes"),
        (true, n) => format!("paired in lockstep{pinned}, each row's interval from the ratios of its {n} runs"),
        (false, n) => format!("paired over {n} runs{pinned}, once per run"),
    };
    format!("{} against {}: {pairing}", c.allocator, c.base)
}

/// What every allocator table means, said once under it.
pub(crate) fn legend(c: &AllocatorComparison) -> String {
    let mut text = format!(
        "Ratio: time under {a} / time under {b} per pair, the geometric mean and its 99% interval; a row takes less or more \
         time only when the whole interval {rule}{small}. The same binary and arguments ran under each allocator, one process each. \
         Allocation is counted in the bytes the program requests, whichever allocator serves them; Peak RSS is the process's \
         over the row's untimed run (whole-run rows only).",
        a = c.allocator,
        b = c.base,
        rule = rule(c),
        small = if c.threshold > 0.0 {
            "; small when it excludes 1 but not that, inconclusive when the ratio is beyond it but the interval is not"
        } else {
            ""
        },
    );
    if let Some(busy) = c.busy() {
        text = format!("Time not judged: {}. {text}", ab::busy_note(busy));
    } else if let Some(other) = &c.other_cpu {
        text = format!("{text} {}", ab::other_cpu_note(other));
    }
    if c.runs == 1 {
        text.push_str(
            " One run's interval holds no process-to-process variation (up to 9% measured on rows building large DOMs, one \
             binary on both sides): more runs of both processes (jsoncost alloc --runs 5) before trusting such a row's change.",
        );
    }
    text
}

/// One lever per allocator and table, from the paired intervals only: the row that takes the
/// most less time beyond the noise; else, when rows take more, the one that takes the most
/// more; else that no row moved.
pub fn advise(results: &Results) -> Vec<Advice> {
    let mut out = Vec::new();
    for c in &results.allocators {
        let mut tables: Vec<(ExperimentKind, &str)> = Vec::new();
        for r in &c.rows {
            if !tables.contains(&(r.experiment, r.table.as_str())) {
                tables.push((r.experiment, r.table.as_str()));
            }
        }
        for (kind, table) in tables {
            let rows: Vec<&AllocatorRow> = c.rows.iter().filter(|r| r.experiment == kind && r.table == table).collect();
            out.push(Advice {
                experiment: kind,
                table: table.to_string(),
                title: table.to_string(),
                group: table.to_string(),
                kind: AdviceKind::AllocatorChange,
                baseline: c.base.to_string(),
                candidate: Some(c.allocator.to_string()),
                text: lever(c, table, &rows),
                ladder: Vec::new(),
                baseline_figures: None,
                per_second: None,
                json_share: None,
                alternatives: Vec::new(),
                crossovers: Vec::new(),
            });
        }
    }
    out
}

/// The sentence for one allocator on one table's rows.
fn lever(c: &AllocatorComparison, table: &str, rows: &[&AllocatorRow]) -> String {
    let (a, b) = (c.allocator, c.base);
    if let Some(busy) = c.busy() {
        return format!("With {a}, time on {table} not judged: {}.", ab::busy_note(busy));
    }
    let less: Vec<&&AllocatorRow> = rows.iter().filter(|r| matches!(change(c, r), Change::Less { .. })).collect();
    let more: Vec<&&AllocatorRow> = rows.iter().filter(|r| matches!(change(c, r), Change::More { .. })).collect();
    let tally = if rows.len() == 1 {
        String::new()
    } else {
        format!(
            "; {} of its {} rows take less time, {} more",
            count_word(less.len()),
            rows.len(),
            count_word(more.len())
        )
    };
    let pct = units::percent;
    // What the interval holds: one run's rounds, or the runs' own ratios.
    let paired = match (c.lockstep, c.runs) {
        (true, 1) => format!("paired per round with {b} in one run of each"),
        (_, n) => format!("paired with {b} over {n} runs of each"),
    };
    if let Some(best) = less.iter().min_by(|x, y| x.ratio.estimate.total_cmp(&y.ratio.estimate)) {
        let Change::Less { share, low, high } = change(c, best) else {
            unreachable!("filtered")
        };
        return format!(
            "With {a}, {} on {table} takes {} less time (99% interval {} to {}, {paired}). \
             An allocator change (the global allocator), not a code path: what each row delivers is the same{tally}.",
            best.method,
            pct(share),
            pct(low),
            pct(high)
        );
    }
    if let Some(worst) = more.iter().max_by(|x, y| x.ratio.estimate.total_cmp(&y.ratio.estimate)) {
        let Change::More { share, low, high } = change(c, worst) else {
            unreachable!("filtered")
        };
        return format!(
            "With {a}, no row of {table} takes less time; {} takes {} more (99% interval {} to {}, {paired}): keep {b} for it{tally}.",
            worst.method,
            pct(share),
            pct(low),
            pct(high)
        );
    }
    let n = rows.len();
    let rows_word = if n == 1 { "row" } else { "rows" };
    if c.threshold > 0.0 {
        format!(
            "With {a}, no row of {table} takes less or more time than with {b}: no 99% interval of its {n} {rows_word} {}.",
            rule(c)
        )
    } else {
        format!("With {a}, no measurable difference on {table}: the 99% interval of every row's ratio to {b} holds 1 ({n} {rows_word}).")
    }
}

fn count_word(n: usize) -> String {
    if n == 0 { "none".to_string() } else { n.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;
    use jsoncost_engine::Interval;

    fn row(table: &str, method: &str, estimate: f64, low: f64, high: f64) -> AllocatorRow {
        AllocatorRow {
            experiment: ExperimentKind::Micro,
            table: table.into(),
            method: method.into(),
            contract: None,
            baseline: false,
            base_mean_ns: 1000.0,
            mean_ns: 1000.0 * estimate,
            ratio: Interval {
                estimate,
                low,
                high,
                n: 30,
            },
            base_allocated_bytes: Some(8192.0),
            allocated_bytes: Some(8192.0),
            base_allocs: Some(112.0),
            allocs: Some(112.0),
            base_peak_rss_bytes: None,
            peak_rss_bytes: None,
        }
    }

    fn comparison(rows: Vec<AllocatorRow>) -> Results {
        let mut r = Results {
            schema_version: 1,
            jsoncost_version: "0.1.0".into(),
            machine: Default::default(),
            started_at: "2026-12-01T00:00:00Z".into(),
            quick: false,
            interrupted: false,
            rates: Default::default(),
            experiments: vec![],
            allocators: vec![],
        };
        r.allocators = vec![AllocatorComparison {
            base: Allocator::System,
            allocator: Allocator::Mimalloc,
            runs: 1,
            lockstep: true,
            cpu: Some(1),
            threshold: ab::DEFAULT_THRESHOLD,
            rows,
            not_compared: vec![],
            other_cpu: None,
        }];
        r
    }

    /// Two processes of one allocator differ by a percent or two on some rows (process to
    /// process): a real change that small is shown, but is neither a lever nor "less time".
    #[test]
    fn a_change_within_half_the_threshold_is_small_and_no_lever() {
        let mut results = comparison(vec![
            row("order/deserialize", "typed/serde_json", 0.985, 0.975, 0.995),
            row("order/deserialize", "dom/serde_json", 1.03, 0.99, 1.07),
            row("order/deserialize", "dom/sonic-rs", 1.004, 0.99, 1.02),
        ]);
        let c = &results.allocators[0];
        let time: Vec<String> = c.rows.iter().map(|r| change_cell(c, r)).collect();
        assert_eq!(time, ["small (1.5% less)", "inconclusive (3.0% more)", "no change"]);
        assert_eq!(
            advise(&results)[0].text,
            "With mimalloc, no row of order/deserialize takes less or more time than with system: no 99% interval of its 3 rows \
             lies beyond ±2.5%, half the 5.0% threshold."
        );
        assert!(legend(c).contains(
            "a row takes less or more time only when the whole interval lies beyond ±2.5%, half the 5.0% threshold; small when it \
             excludes 1 but not that, inconclusive when the ratio is beyond it but the interval is not."
        ));
        // A file written without a threshold keeps the rule it was judged by: any interval that
        // excludes 1.
        results.allocators[0].threshold = 0.0;
        let c = &results.allocators[0];
        let time: Vec<String> = c.rows.iter().map(|r| change_cell(c, r)).collect();
        assert_eq!(time, ["1.5% less", "no change", "no change"]);
        assert!(
            advise(&results)[0]
                .text
                .starts_with("With mimalloc, typed/serde_json on order/deserialize takes 1.5% less time")
        );
    }

    #[test]
    fn the_lever_is_worded_from_the_paired_interval_alone() {
        let results = comparison(vec![
            row("order/deserialize", "typed/serde_json", 0.9, 0.88, 0.92),
            row("order/deserialize", "dom/serde_json", 0.766, 0.735, 0.799),
            row("order/deserialize", "dom/sonic-rs", 1.004, 0.99, 1.02),
            row("data/deserialize", "typed/serde_json", 1.05, 1.03, 1.07),
            row("data/serialize", "typed/serde_json", 1.001, 0.995, 1.008),
        ]);
        let advice = advise(&results);
        let texts: Vec<&str> = advice.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "With mimalloc, dom/serde_json on order/deserialize takes 23.4% less time (99% interval 20.1% to 26.5%, paired per round with system in one run of each). \
                 An allocator change (the global allocator), not a code path: what each row delivers is the same; 2 of its 3 rows take less time, none more.",
                "With mimalloc, no row of data/deserialize takes less time; typed/serde_json takes 5.0% more (99% interval 3.0% to 7.0%, paired per round with system in one run of each): keep system for it.",
                "With mimalloc, no row of data/serialize takes less or more time than with system: no 99% interval of its 1 row \
                 lies beyond ±2.5%, half the 5.0% threshold.",
            ]
        );
        assert!(advice.iter().all(|a| a.kind == AdviceKind::AllocatorChange));
        // Every format of the results carries the tables and the levers.
        let md = crate::render(&results, Format::Markdown, false);
        assert!(
            md.contains(
                "## Allocators: mimalloc against system: paired in lockstep on CPU 1, round by round over 1 run of both processes\n"
            ),
            "{md}"
        );
        assert!(md.contains("\n| micro order/deserialize | dom/serde_json | 1.000 µs | 766.0 ns | 0.766 | 0.735–0.799 | 23.4% less | 8.00 KB | 112 | - |\n"), "{md}");
        assert!(md.contains(&format!("- **micro: order/deserialize**\n  - {}\n", texts[0])), "{md}");
        let console = crate::render(&results, Format::Table, false);
        assert!(
            console.contains(&format!("micro: order/deserialize\n  {}\n", texts[0])),
            "{console}"
        );
        let html = crate::html::render(&results);
        assert!(
            html.contains("<li class=\"allocator\"><strong>micro: order/deserialize</strong> With mimalloc, dom/serde_json on"),
            "{html}"
        );
        assert!(
            html.contains("<tr class=\"less\"><td>micro order/deserialize</td><th scope=\"row\">dom/serde_json</th>"),
            "{html}"
        );
        assert_eq!(
            (advice[0].baseline.as_str(), advice[0].candidate.as_deref()),
            ("system", Some("mimalloc"))
        );
    }

    #[test]
    fn on_a_busy_machine_no_row_is_judged_and_the_lever_says_why() {
        let mut results = comparison(vec![row("order/deserialize", "dom/serde_json", 0.766, 0.735, 0.799)]);
        results.allocators[0].other_cpu = Some(jsoncost_engine::OtherCpu {
            run: 1,
            share: 1.3,
            limit: 0.05,
        });
        let advice = advise(&results);
        assert_eq!(
            advice[0].text,
            "With mimalloc, time on order/deserialize not judged: the machine was busy: in run 1 other programs used the CPU the \
             two ran on for 130.0% of the time the two did, over the 5.0% a pairing holds to (another program's work lands on one \
             side of a pair and not on the other, and does not even out); run again when the machine is quiet."
        );
        let md = crate::render(&results, Format::Markdown, false);
        assert!(md.contains("| 0.766 | 0.735–0.799 | busy: not judged |"), "{md}");
        assert!(
            md.contains("Time not judged: the machine was busy: in run 1 other programs used"),
            "{md}"
        );
    }

    #[test]
    fn on_a_quiet_machine_rows_are_judged_and_the_legend_gives_other_programs_share() {
        let mut results = comparison(vec![row("order/deserialize", "dom/serde_json", 0.766, 0.735, 0.799)]);
        results.allocators[0].other_cpu = Some(jsoncost_engine::OtherCpu {
            run: 1,
            share: 0.031,
            limit: 0.05,
        });
        let md = crate::render(&results, Format::Markdown, false);
        assert!(md.contains("| 0.766 | 0.735–0.799 | 23.4% less |"), "{md}");
        assert!(
            md.contains(
                "Other programs used the CPU the two ran on for at most 3.1% of the time the two did (run 1; a pairing is trusted up to 5.0%)."
            ),
            "{md}"
        );
    }
}
