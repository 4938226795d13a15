//! "What moves the number": for each table, the cheapest correct strategy that delivers what the
//! baseline delivers (its [`Contract`]: a typed value, a DOM, bytes ...), what it saves per
//! operation and, at a stated rate, as a share of a core and an allocation rate. A change is
//! recommended only when it is beyond the noise: on an interleaved table, when the 99% interval
//! of its paired per-round ratio to the baseline excludes 1; otherwise when its confidence
//! interval (mean ± Error, 99.9%) does not overlap the baseline's. Cheaper strategies that deliver something else are listed apart, as "if you
//! only need ..." options: following them changes what the caller gets.

use jsoncost_engine::stats::CONFIDENCE;
use jsoncost_engine::{Contract, Effort, ExperimentKind as Kind, FLOOR, Interval, MeasuredTable, Results, Row, RowMeasure};

use crate::row_figures::{http_figure, mean_interval as interval};
use crate::{fidelity, kinds, units};

pub use crate::advice::{ALTERNATIVE_KEY, Advice, AdviceKind, Alternative, Step, TITLE};
/// The request rates the per-second figures are stated at (`Results::rates`, set by `--advice-rate`).
pub use jsoncost_engine::Rates;

/// Advice for every table, per-second figures at the file's rates.
pub fn advise(results: &Results) -> Vec<Advice> {
    advise_at(results, &results.rates)
}

/// Advice for every table, per-second figures at `rates`, then the allocator levers.
pub fn advise_at(results: &Results, rates: &Rates) -> Vec<Advice> {
    let tables = results.experiments.iter().flat_map(|exp| advise_table(exp, rates));
    tables
        .chain(crate::sweep::advise(results, &JUDGE))
        .chain(crate::allocators::advise(results))
        .collect()
}

/// How a table names one operation and its rate.
struct Unit {
    one: &'static str,
    many: &'static str,
    rate: f64,
    /// Whose rate it is.
    whose: RateSource,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RateSource {
    Default,
    /// The default lowered so the table's payloads come to at most
    /// [`DEFAULT_PAYLOAD_BYTES_PER_S`].
    DefaultFitted,
    User,
}

/// The most payload a default rate handles per second: a service parsing 10,000 small records a
/// second does not parse 10,000 one-megabyte batches, so a default rate is lowered for large
/// payloads to what one core might plausibly face (100 MB/s of JSON).
pub const DEFAULT_PAYLOAD_BYTES_PER_S: f64 = 100e6;

impl Unit {
    /// "at 2,000 reads/s (default rate)", "at 1 body/s (your --advice-rate)"
    fn at_rate(&self) -> String {
        let noun = if self.rate == 1.0 { self.one } else { self.many };
        let whose = match self.whose {
            RateSource::Default => "default rate",
            RateSource::DefaultFitted => "default rate, fitted to 100 MB/s of this payload",
            RateSource::User => "your --advice-rate",
        };
        format!("at {} {noun}/s ({whose})", units::count(self.rate))
    }
}

fn unit(exp: &MeasuredTable, rates: &Rates) -> Unit {
    let kind = exp.kind;
    let (one, many) = kinds::view(kind).operation();
    let rate = rates.of(kind);
    if rate != Rates::default().of(kind) {
        return Unit {
            one,
            many,
            rate,
            whose: RateSource::User,
        };
    }
    let payload = exp
        .params
        .get("payload_bytes")
        .and_then(serde_json::Value::as_f64)
        .filter(|b| *b > 0.0);
    match payload {
        Some(bytes) if rate * bytes > DEFAULT_PAYLOAD_BYTES_PER_S => Unit {
            one,
            many,
            rate: round_down_1_2_5(DEFAULT_PAYLOAD_BYTES_PER_S / bytes),
            whose: RateSource::DefaultFitted,
        },
        _ => Unit {
            one,
            many,
            rate,
            whose: RateSource::Default,
        },
    }
}

/// The largest 1, 2 or 5 times a power of ten not above `x` (at least 1): a rate a reader
/// takes as a round figure, not a measurement.
fn round_down_1_2_5(x: f64) -> f64 {
    if x <= 1.0 {
        return 1.0;
    }
    let power = 10f64.powf(x.log10().floor());
    [5.0, 2.0, 1.0].into_iter().map(|m| m * power).find(|v| *v <= x).unwrap_or(power)
}

/// Rows under load (http) are ranked by the requests they serve per second, not by mean time.
fn by_load(kind: Kind) -> bool {
    kind.traits().row == RowMeasure::Request
}

/// The table's advice against its baseline and, where its kind gives a second baseline (a
/// stream table of a user's element type with a buffered typed row), the typed rows' advice
/// against that row.
fn advise_table(exp: &MeasuredTable, rates: &Rates) -> Vec<Advice> {
    let typed_base = kinds::view(exp.kind).second_baseline(exp);
    let mut out: Vec<Advice> = advise_against(exp, rates, typed_base.map(|_| Contract::TypedValue))
        .into_iter()
        .collect();
    if let Some(base) = typed_base {
        out.extend(advise_typed_stream(exp, base, rates));
    }
    out
}

/// The typed rows of a stream table against its buffered typed row: paired per round where
/// both rows were measured in the same rounds, else by their intervals.
fn advise_typed_stream(exp: &MeasuredTable, base: &Row, rates: &Rates) -> Option<Advice> {
    let against: Vec<Row> = exp
        .rows
        .iter()
        .filter(|r| r.is_ok() && r.mean_ns.is_some() && r.method != base.method && r.contract == Some(Contract::TypedValue))
        .map(|r| relative_to(base, r))
        .collect();
    let mut rows = vec![base.clone()];
    rows[0].baseline = true;
    rows[0].ratio_interval = None;
    rows.extend(against);
    let mut typed = MeasuredTable::new(exp.kind, exp.table.clone());
    typed.rows = rows;
    advise_against(&typed, rates, None)
}

/// `row` with its paired ratio to `base` instead of the table's baseline: from both rows'
/// rounds when they have the same ones, else none (their intervals decide).
fn relative_to(base: &Row, row: &Row) -> Row {
    let mut r = row.clone();
    r.baseline = false;
    r.ratio_interval = row.paired_ratio_to(base);
    r
}

/// The advice for `exp` against its baseline; `apart`: a contract advised on its own (the
/// stream's typed rows against their buffered typed row), so not listed as an "if you only
/// need ..." option here.
fn advise_against(exp: &MeasuredTable, rates: &Rates, apart: Option<Contract>) -> Option<Advice> {
    // Findings about hostile input, not a choice between strategies doing the same job; an
    // http A/B's two servers are decided by its own verdicts (`crate::ab`), not advised on.
    if !exp.kind.traits().advised {
        return None;
    }
    let base = exp.baseline()?;
    let kind = exp.kind;
    let advice = |kind: AdviceKind, candidate: Option<&Row>, text: String| Advice {
        experiment: exp.kind,
        table: exp.table.clone(),
        title: crate::view::title(exp),
        group: kinds::view(exp.kind).headline_group(exp),
        kind,
        baseline: base.method.clone(),
        candidate: candidate.map(|r| r.method.clone()),
        text,
        ladder: Vec::new(),
        baseline_figures: None,
        per_second: None,
        json_share: None,
        alternatives: Vec::new(),
        crossovers: Vec::new(),
    };
    if !base.is_ok() || base.mean_ns.is_none() {
        return Some(advice(
            AdviceKind::NotComparable,
            None,
            format!("The baseline {} failed, so there is nothing to compare against.", base.method),
        ));
    }
    // Candidates: every other correct, timed strategy; the store's floor reads no JSON at all, so
    // it is a reference, not a choice.
    let mut others: Vec<&Row> = exp
        .rows
        .iter()
        .filter(|r| r.is_ok() && r.mean_ns.is_some() && r.method != base.method)
        .filter(|r| !(kind.traits().floor && r.method == FLOOR) && r.contract != Some(Contract::Discarded))
        .collect();
    if by_load(kind) {
        others.sort_by(|a, b| throughput(b).total_cmp(&throughput(a)));
    } else {
        others.sort_by(|a, b| mean(a).total_cmp(&mean(b)));
    }
    let u = unit(exp, rates);
    // Like for like: only what delivers what the baseline does can replace it (rows of files
    // written before contracts were recorded all count as alike, as they were advised then).
    let (same, different): (Vec<&Row>, Vec<&Row>) = others.iter().partition(|r| stands_in(base, r));
    let different: Vec<&Row> = different
        .into_iter()
        .filter(|r| apart.is_none_or(|contract| r.contract != Some(contract)))
        .collect();
    let alternatives = alternatives(base, &different, kind, &u);
    let ladder = ladder(kind, base, &same);
    // The headline is the ladder's first step: the cheapest change that saves measurably.
    let first_step = ladder
        .iter()
        .find_map(|s| s.method.as_deref())
        .and_then(|m| same.iter().copied().find(|r| r.method == m));
    let mut a = match first_step.or(same.first().copied()) {
        None if others.is_empty() => advice(
            AdviceKind::NotComparable,
            None,
            format!("No other correct strategy to compare with {}.", base.method),
        ),
        None => advice(
            AdviceKind::NotComparable,
            None,
            format!(
                "No other correct strategy delivers what {} does ({}).",
                base.method,
                base.contract.map_or("unknown", Contract::need)
            ),
        ),
        Some(best) => {
            let (kind, text) = weigh(exp, base, best, &u);
            advice(kind, Some(best), text)
        }
    };
    a.alternatives = alternatives;
    a.baseline_figures = Some(figures(kind, base, &u));
    a.per_second = ladder_per_second(kind, base, &ladder, &same, &u);
    a.ladder = ladder;
    a.json_share = kinds::view(kind).json_share(exp);
    Some(a)
}

/// "9.733 µs and 7.48 KB per operation" (req/s and latency under load).
fn figures(kind: Kind, base: &Row, u: &Unit) -> String {
    let alloc = base
        .allocated_bytes
        .map_or(String::new(), |b| format!(" and {} allocated", units::bytes(b)));
    if by_load(kind) {
        format!(
            "{} req/s, mean latency {}{alloc} per {}",
            units::rate(throughput(base)),
            units::time(mean(base)),
            u.one
        )
    } else {
        format!("{}{alloc} per {}", units::time(mean(base)), u.one)
    }
}

/// What the ladder's steps save together at the table's rate: CPU as a share of a core and
/// allocation per second, from the baseline to the last step (each step's own saving is in its
/// line). Under load the server's CPU is not per step, so nothing is stated.
fn ladder_per_second(kind: Kind, base: &Row, ladder: &[Step], same: &[&Row], u: &Unit) -> Option<String> {
    if by_load(kind) {
        return None;
    }
    let last = ladder.iter().rev().find_map(|s| s.method.as_deref())?;
    let row = same.iter().copied().find(|r| r.method == last)?;
    let steps = ladder.iter().filter(|s| s.method.is_some()).count();
    let what = if steps == 1 {
        last.to_string()
    } else {
        format!("the {steps} steps to {last}")
    };
    let saved = match row.ratio_interval {
        Some(r) => mean(base) * (1.0 - r.estimate),
        None => mean(base) - mean(row),
    };
    let bytes = allocation(base, row).map(|(b, _)| b);
    let text = per_second(Some(saved), bytes, u, false);
    Some(format!("{what}, {}", text.trim_end_matches('.')) + ".")
}

/// Whether `row` can replace the baseline: it delivers the same, or (adopted at a rung above a
/// swap) the same values in a form the caller's code must change for
/// ([`Contract::stands_in_for`]). Rows of files without contracts or efforts compare as they
/// were advised then: by equal contracts.
fn stands_in(base: &Row, row: &Row) -> bool {
    match (base.contract, row.contract, row.effort) {
        (Some(b), Some(c), Some(effort)) if c != b => effort > Effort::Swap && c.stands_in_for(b),
        _ => row.contract == base.contract,
    }
}

/// The verdict by effort: for each rung the table has rows on, cheapest first, its fastest row
/// when it saves measurably on top of the step below and is measurably faster than every
/// cheaper rung's best (so a costlier change is never advised where a cheaper one is within
/// its interval); else a line saying the rung adds nothing. `same`: the rows that can replace
/// the baseline, fastest first. Empty for files written before efforts were recorded.
fn ladder(kind: Kind, base: &Row, same: &[&Row]) -> Vec<Step> {
    if same.iter().all(|r| r.effort.is_none()) {
        return Vec::new();
    }
    let mut steps = Vec::new();
    let mut below = base;
    let mut cheaper_best: Vec<&Row> = Vec::new();
    for rung in Effort::ALL {
        let Some(fastest) = same.iter().copied().find(|r| r.effort == Some(rung)) else {
            continue;
        };
        let best = least_allocating_alike(kind, fastest, same.iter().copied().filter(|r| r.effort == Some(rung)));
        let ratio = ratio_between(below, best);
        let beats_below = saves(kind, below, best, ratio);
        let rival = cheaper_best
            .iter()
            .copied()
            .find(|cheaper| cheaper.method != below.method && !saves(kind, cheaper, best, ratio_between(cheaper, best)));
        let step = match (beats_below, rival) {
            (true, None) => {
                let text = format!("{}: {}", best.method, step_text(kind, base, below, best, ratio));
                let s = Step {
                    effort: rung,
                    method: Some(best.method.clone()),
                    over: below.method.clone(),
                    ratio,
                    text,
                };
                below = best;
                s
            }
            (true, Some(cheaper)) => Step {
                effort: rung,
                method: None,
                over: below.method.clone(),
                ratio,
                text: format!(
                    "no step: {} is not measurably faster than {} ({})",
                    best.method,
                    cheaper.method,
                    cheaper.effort.map_or("a cheaper rung", Effort::as_str)
                ),
            },
            (false, _) => Step {
                effort: rung,
                method: None,
                over: below.method.clone(),
                ratio,
                text: no_step_text(kind, below, best, ratio),
            },
        };
        steps.push(step);
        cheaper_best.push(best);
    }
    steps
}

/// What a size sweep reuses of the advisor: which rows matter and how two compare.
pub const JUDGE: crate::sweep::Judge = crate::sweep::Judge {
    rung_contenders,
    ratio_between,
    saves,
};

/// The rows a size sweep follows in `exp`: its baseline and, for each rung of effort, the rows
/// that can replace it and are not slower than the rung's fastest by more than the sweep's
/// margin ([`crate::sweep::MARGIN`]); without efforts (older files), the fastest such rows.
/// Why not the rung's best alone: two rows that close trade places from one run to the next,
/// and a sweep following only the fastest follows one row in one run and the other in the next,
/// so its crossover sentences come and go. `None` when the baseline failed.
pub(crate) fn rung_contenders(exp: &MeasuredTable) -> Option<(&Row, Vec<&Row>)> {
    let base = exp.baseline()?;
    if !base.is_ok() || base.mean_ns.is_none() {
        return None;
    }
    let kind = exp.kind;
    let mut same: Vec<&Row> = exp
        .rows
        .iter()
        .filter(|r| r.is_ok() && r.mean_ns.is_some() && r.method != base.method)
        .filter(|r| !(kind.traits().floor && r.method == FLOOR) && r.contract != Some(Contract::Discarded))
        .filter(|r| stands_in(base, r))
        .collect();
    same.sort_by(|a, b| mean(a).total_cmp(&mean(b)));
    if same.iter().all(|r| r.effort.is_none()) {
        return Some((base, close_to_fastest(kind, same)));
    }
    let contenders = Effort::ALL
        .into_iter()
        .flat_map(|rung| close_to_fastest(kind, same.iter().copied().filter(|r| r.effort == Some(rung)).collect()))
        .collect();
    Some((base, contenders))
}

/// Of `rows`, fastest first, those not slower than the first by more than a sweep's margin.
fn close_to_fastest(kind: Kind, rows: Vec<&Row>) -> Vec<&Row> {
    let Some(&fastest) = rows.first() else {
        return Vec::new();
    };
    rows.into_iter().filter(|r| !slower_beyond_margin(kind, fastest, r)).collect()
}

/// `row` slower than `fastest` by more than a sweep's margin, read as a sweep reads a size.
fn slower_beyond_margin(kind: Kind, fastest: &Row, row: &Row) -> bool {
    crate::sweep::at_margin(kind, fastest, row, ratio_between(fastest, row), saves) == crate::sweep::SizeVerdict::Slower
}

/// Among a rung's rows that are not measurably slower than its fastest, the one that allocates
/// least: a row within the fastest's interval that allocates less is the better advice (the
/// allocation column "was the one that fixed our p99"). The fastest when none allocates less.
fn least_allocating_alike<'r>(kind: Kind, fastest: &'r Row, rung: impl Iterator<Item = &'r Row>) -> &'r Row {
    let alloc = |r: &Row| r.allocated_bytes.unwrap_or(f64::INFINITY);
    rung.filter(|r| r.method != fastest.method && alloc(r) < alloc(fastest))
        .filter(|r| !saves(kind, r, fastest, ratio_between(r, fastest)))
        .min_by(|a, b| alloc(a).total_cmp(&alloc(b)))
        .unwrap_or(fastest)
}

/// `row`'s time over `below`'s with its 99% interval: the table's paired ratio when `below` is
/// the baseline, else paired over the rounds the two rows share; `None` on a sequential table.
pub(crate) fn ratio_between(below: &Row, row: &Row) -> Option<Interval> {
    if below.baseline {
        row.ratio_interval.or_else(|| row.paired_ratio_to(below))
    } else {
        row.paired_ratio_to(below)
    }
}

/// Faster than `below` beyond the noise: the paired interval below 1, or without one both
/// means' intervals apart.
pub(crate) fn saves(kind: Kind, below: &Row, row: &Row, ratio: Option<Interval>) -> bool {
    match ratio {
        Some(r) => r.high < 1.0,
        None => better_by_means(kind, below, row) && beyond_intervals(below, row),
    }
}

/// "37.0% less time (99% interval 35.1–38.9%, paired) than typed/serde_json, the same
/// allocation (7.48 KB)"; the contract when it is not the baseline's.
fn step_text(kind: Kind, base: &Row, below: &Row, row: &Row, ratio: Option<Interval>) -> String {
    let time = match ratio {
        Some(r) if by_load(kind) => format!(
            "{} more requests/s (99% interval {}–{}, paired)",
            units::percent(1.0 / r.estimate - 1.0),
            units::percent(1.0 / r.high - 1.0),
            units::percent(1.0 / r.low - 1.0)
        ),
        Some(r) => format!(
            "{} less time (99% interval {}–{}, paired)",
            units::percent(1.0 - r.estimate),
            units::percent(1.0 - r.high),
            units::percent(1.0 - r.low)
        ),
        None => {
            let saved = mean(below) - mean(row);
            let half = saving_half_width(below, row).map_or(String::new(), |h| format!(" ± {}", units::time(h)));
            format!("{}{half} ({}) less time", units::time(saved), share(saved, mean(below)))
        }
    };
    let over = if below.baseline {
        String::new()
    } else {
        format!(" on top of {}", below.method)
    };
    let alloc = allocation(below, row).map_or(String::new(), |(_, phrase)| format!(", {phrase}"));
    let delivers = match row.contract {
        Some(c) if row.contract != base.contract => format!(" (delivers {})", c.need()),
        _ => String::new(),
    };
    format!("{time}{over}{alloc}{delivers}{}", fidelity_text(below, row))
}

/// Why a rung adds nothing: its best row is within the noise of, or slower than, the step below.
fn no_step_text(kind: Kind, below: &Row, best: &Row, ratio: Option<Interval>) -> String {
    let how = match ratio {
        Some(r) if r.low > 1.0 => format!(
            "slower than {} ({}×, 99% interval {}–{})",
            below.method,
            units::ratio(r.estimate),
            units::ratio(r.low),
            units::ratio(r.high)
        ),
        Some(r) => format!(
            "within the noise of {} ({}×, 99% interval {}–{})",
            below.method,
            units::ratio(r.estimate),
            units::ratio(r.low),
            units::ratio(r.high)
        ),
        None if better_by_means(kind, below, best) => format!("within the noise of {}", below.method),
        None => format!("slower than {}", below.method),
    };
    // The trade the time hides: a rung whose best allocates far less (streaming a body) says so.
    let trade = match (allocation(below, best), below.allocated_bytes) {
        (Some((saved, phrase)), Some(b)) if b > 0.0 && saved >= 0.1 * b => format!("; it has {phrase}"),
        _ => String::new(),
    };
    format!("no further saving: the best, {}, is {how}{trade}", best.method)
}

/// The baseline against the best strategy with its contract.
fn weigh(exp: &MeasuredTable, base: &Row, best: &Row, u: &Unit) -> (AdviceKind, String) {
    let kind = exp.kind;
    // Measured in the same interleaved rounds: the paired ratio's interval decides.
    if let Some(r) = best.ratio_interval {
        if r.contains(1.0) {
            let text = format!(
                "No measurable difference: {} is {} of the baseline {} per round (99% interval {}–{}).",
                best.method,
                units::ratio(r.estimate),
                base.method,
                units::ratio(r.low),
                units::ratio(r.high)
            );
            return (AdviceKind::NoMeasurableDifference, text + &fidelity_text(base, best));
        }
        if r.low > 1.0 {
            return (AdviceKind::KeepBaseline, keep_text(kind, base, best) + &fidelity_text(base, best));
        }
    }
    if interval(base).is_none() || interval(best).is_none() {
        let missing = if interval(base).is_none() { base } else { best };
        return (
            AdviceKind::NotComparable,
            format!(
                "Cannot tell {} from {}: {} has no confidence interval recorded.",
                best.method, base.method, missing.method
            ),
        );
    }
    if best.ratio_interval.is_none() && !beyond_intervals(base, best) {
        let text = format!(
            "No measurable difference: {} ({}) and the baseline {} ({}) overlap at {} confidence.",
            best.method,
            plus_minus(best),
            base.method,
            plus_minus(base),
            units::percent(CONFIDENCE)
        );
        return (AdviceKind::NoMeasurableDifference, text + &fidelity_text(base, best));
    }
    if !better(kind, base, best) {
        return (AdviceKind::KeepBaseline, keep_text(kind, base, best) + &fidelity_text(base, best));
    }
    let mut text = if by_load(kind) {
        format!("Use {} instead of {}: {}", best.method, base.method, http_text(base, best, u))
    } else {
        let mut text = format!("Use {} instead of {}: {}", best.method, base.method, saving_text(base, best, u));
        text.push_str(&kinds::view(kind).recommendation_note(exp, base, best));
        text
    };
    text.push_str(&fidelity_text(base, best));
    (AdviceKind::Recommend, text)
}

/// For each other contract, its cheapest strategy when it beats the baseline beyond both
/// intervals, cheapest first (`rows` come sorted).
fn alternatives(base: &Row, rows: &[&Row], kind: Kind, u: &Unit) -> Vec<Alternative> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for &r in rows {
        if seen.contains(&r.contract) {
            continue;
        }
        seen.push(r.contract);
        if !beats(kind, base, r) {
            continue;
        }
        let Some(contract) = r.contract else { continue };
        let body = if by_load(kind) {
            http_text(base, r, u)
        } else {
            saving_text(base, r, u)
        };
        out.push(Alternative {
            contract,
            method: r.method.clone(),
            text: format!(
                "If you only need {}: {} — {body}{}",
                contract.need(),
                r.method,
                fidelity_text(base, r)
            ),
        });
    }
    out
}

/// Faster beyond the noise: the paired per-round ratio's interval below 1 on an interleaved
/// table, else both intervals apart.
fn beats(kind: Kind, base: &Row, row: &Row) -> bool {
    match row.ratio_interval {
        Some(r) => r.high < 1.0,
        None => better(kind, base, row) && beyond_intervals(base, row),
    }
}

fn better(kind: Kind, base: &Row, row: &Row) -> bool {
    if let Some(r) = row.ratio_interval {
        return r.high < 1.0;
    }
    better_by_means(kind, base, row)
}

/// Faster (or serving more) by the means alone.
fn better_by_means(kind: Kind, base: &Row, row: &Row) -> bool {
    if by_load(kind) {
        throughput(row) > throughput(base)
    } else {
        mean(row) < mean(base)
    }
}

/// Both intervals known and apart (touching counts as overlapping).
fn beyond_intervals(base: &Row, row: &Row) -> bool {
    matches!((interval(base), interval(row)), (Some(b), Some(c)) if !overlap(b, c))
}

/// Half the 99.9% interval of the difference of two means: the half-widths added in quadrature
/// (independent samples, as Welch's test assumes).
fn saving_half_width(base: &Row, row: &Row) -> Option<f64> {
    let (b, c) = (interval(base)?, interval(row)?);
    Some((((b.1 - b.0) / 2.0).powi(2) + ((c.1 - c.0) / 2.0).powi(2)).sqrt())
}

/// " Fidelity: X exact; Y inexact floats: ...", when either output is not exact against the
/// reference or writes members in another order (nothing when both are faithful, or when
/// neither was checked).
fn fidelity_text(base: &Row, best: &Row) -> String {
    let (b, c) = (base.fidelity.as_ref(), best.fidelity.as_ref());
    if b.is_none_or(fidelity::is_faithful) && c.is_none_or(fidelity::is_faithful) {
        return String::new();
    }
    let one = |r: &Row| match &r.fidelity {
        Some(f) => format!("{} {}", r.method, fidelity::describe(f)),
        None => format!("{} not checked", r.method),
    };
    format!(" Fidelity: {}; {}.", one(best), one(base))
}

fn mean(row: &Row) -> f64 {
    row.mean_ns.unwrap_or(f64::INFINITY)
}

/// Requests per second, or for lack of it the inverse of the mean latency.
fn throughput(row: &Row) -> f64 {
    http_figure(row, |h| h.req_per_s).unwrap_or_else(|| 1e9 / mean(row))
}

fn overlap(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

fn plus_minus(row: &Row) -> String {
    let m = mean(row);
    match interval(row) {
        Some((lo, hi)) => format!("{} ± {}", units::time(m), units::time((hi - lo) / 2.0)),
        None => units::time(m),
    }
}

fn share(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        units::ABSENT.to_string()
    } else {
        units::percent(part / whole)
    }
}

/// "24 B (60.0%) less allocation" and the per-second bytes, signed so that positive saves.
fn allocation(base: &Row, best: &Row) -> Option<(f64, String)> {
    let (b, c) = (base.allocated_bytes?, best.allocated_bytes?);
    let saved = b - c;
    let phrase = if saved > 0.0 {
        format!("{} ({}) less allocation", units::bytes(saved), share(saved, b))
    } else if saved < 0.0 {
        format!("{} ({}) more allocation", units::bytes(-saved), share(-saved, b))
    } else {
        format!("the same allocation ({})", units::bytes(b))
    };
    Some((saved, phrase))
}

/// "at 2,000 reads/s (default rate): saves 0.0156 of a core and 14.21 MB/s of allocation."
/// CPU time saved per second is a share of one core; allocation per second a rate.
fn per_second(cpu_saved_ns: Option<f64>, bytes_saved: Option<f64>, u: &Unit, server: bool) -> String {
    let mut parts = Vec::new();
    if let Some(ns) = cpu_saved_ns {
        let cores = units::cores(ns * u.rate / 1e9);
        parts.push(if server { cores.replace("core", "server core") } else { cores });
    }
    let more = match bytes_saved {
        Some(b) if b > 0.0 => {
            parts.push(format!("{}/s of allocation", units::bytes(b * u.rate)));
            None
        }
        Some(b) if b < 0.0 => Some(format!("allocates {}/s more", units::bytes(-b * u.rate))),
        _ => None,
    };
    let mut text = format!("{}: ", u.at_rate());
    if parts.is_empty() {
        text.push_str(&more.unwrap_or_default());
    } else {
        text.push_str(&format!("saves {}", parts.join(" and ")));
        if let Some(more) = more {
            text.push_str(&format!(" but {more}"));
        }
    }
    text.push('.');
    text
}

/// "37.80 ns ± 2.121 ns (25.2%) less time and 80 B (200.0%) more allocation per operation; at ..."
/// With the interval the decision was made on: on an interleaved table the paired per-round
/// ratio's ("5.446 µs (17.7%; 99% interval 4.431 µs to 6.462 µs, paired per round) less time"), else
/// the two means' intervals in quadrature.
fn saving_text(base: &Row, best: &Row, u: &Unit) -> String {
    let alloc = allocation(base, best);
    let alloc_phrase = alloc.as_ref().map_or("allocation not measured".to_string(), |(_, p)| p.clone());
    let (saved, amount) = match best.ratio_interval {
        Some(r) => {
            // The ratio's estimate and ends, as time saved on the baseline's mean.
            let b = mean(base);
            let saved = b * (1.0 - r.estimate);
            let col = units::TimeColumn::fit([saved]);
            let amount = format!(
                "{} ({}; 99% interval {} to {}, paired per round)",
                col.format(saved),
                share(saved, b),
                col.format(b * (1.0 - r.high)),
                col.format(b * (1.0 - r.low))
            );
            (saved, amount)
        }
        None => {
            let saved = mean(base) - mean(best);
            // The saving and its interval in one unit.
            let col = units::TimeColumn::fit([saved]);
            let half = saving_half_width(base, best).map_or(String::new(), |h| format!(" ± {}", col.format(h)));
            (saved, format!("{}{half} ({})", col.format(saved), share(saved, mean(base))))
        }
    };
    format!(
        "{amount} less time and {} per {}; {}",
        alloc_phrase,
        u.one,
        per_second(Some(saved), alloc.map(|(b, _)| b), u, false)
    )
}

fn http_text(base: &Row, best: &Row, u: &Unit) -> String {
    let (rb, rc) = (throughput(base), throughput(best));
    let mut text = format!(
        "{} req/s instead of {} ({} more); mean latency {} → {}",
        units::rate(rc),
        units::rate(rb),
        share(rc - rb, rb),
        units::time(mean(base)),
        units::time(mean(best))
    );
    if let Some(r) = best.ratio_interval {
        // Sliced load: the decision's own figure, req/s paired round by round (the inverse of
        // the time-per-request ratio).
        text.push_str(&format!(
            " (paired over {} rounds: req/s ×{}, 99% interval {}–{})",
            r.n,
            units::ratio(1.0 / r.estimate),
            units::ratio(1.0 / r.high),
            units::ratio(1.0 / r.low)
        ));
    }
    if let (Some(b), Some(c)) = (http_figure(base, |h| h.p99_ns), http_figure(best, |h| h.p99_ns)) {
        text.push_str(&format!(", p99 {} → {}", units::time(b), units::time(c)));
    }
    let alloc = allocation(base, best);
    if let Some((_, phrase)) = &alloc {
        text.push_str(&format!("; {phrase} per request on the server"));
    }
    let cpu = match (
        http_figure(base, |h| h.server_cpu_ns_per_req),
        http_figure(best, |h| h.server_cpu_ns_per_req),
    ) {
        (Some(b), Some(c)) if b > c => Some(b - c),
        _ => None,
    };
    if cpu.is_some() || alloc.as_ref().is_some_and(|(b, _)| *b != 0.0) {
        text.push_str("; ");
        text.push_str(&per_second(cpu, alloc.map(|(b, _)| b), u, true));
    } else {
        text.push('.');
    }
    text
}

fn keep_text(kind: Kind, base: &Row, next: &Row) -> String {
    if by_load(kind) {
        let (rb, rn) = (throughput(base), throughput(next));
        format!(
            "Keep {}: it serves the most requests per second ({} req/s); the next, {}, serves {} ({} fewer).",
            base.method,
            units::rate(rb),
            next.method,
            units::rate(rn),
            share(rb - rn, rb)
        )
    } else {
        let d = mean(next) - mean(base);
        format!(
            "Keep {}: it is the fastest correct strategy; the next, {}, takes {} ({}) longer.",
            base.method,
            next.method,
            units::time(d),
            share(d, mean(base))
        )
    }
}
