//! Payload size as a dimension: the tables of one sweep (same subject and operation at several
//! sizes, told apart by their params `sweep`, `operation` and `size_target`/`payload_bytes`,
//! never by their names), the rows that matter in them (the baseline and, per rung of the
//! ladder, its fastest and the rows within the margin of it), and where each of those rows
//! becomes measurably faster or slower than the baseline. Every verdict is one size's own paired
//! interval (99%, per round), so a crossover is the sizes between which those verdicts change,
//! never a point where two means cross.

use jsoncost_engine::{ExperimentKind, Interval, MeasuredTable, Results, Row};

use crate::advice::{Advice, AdviceKind};
use crate::units;

/// A table's baseline and, per rung, the rows that can replace it within the margin of the
/// rung's fastest.
pub type RungContenders = for<'e> fn(&'e MeasuredTable) -> Option<(&'e Row, Vec<&'e Row>)>;

/// The advisor's judgement of rows, as a sweep reuses it (handed in by the advisor, which
/// owns it and calls this module: [`crate::advisor::JUDGE`]).
pub struct Judge {
    /// A table's baseline and, per rung, the rows that can replace it within the margin of
    /// the rung's fastest.
    pub rung_contenders: RungContenders,
    /// A row's time over another's with its 99% interval (paired), where known.
    pub ratio_between: fn(&Row, &Row) -> Option<Interval>,
    /// Whether a row is faster than another beyond the noise.
    pub saves: fn(ExperimentKind, &Row, &Row, Option<Interval>) -> bool,
}

/// The param naming a table's sweep (`order`).
pub const SWEEP_PARAM: &str = "sweep";
/// The param naming a table's operation (`deserialize`).
pub const OPERATION_PARAM: &str = "operation";
/// The param holding the size asked for, in bytes (generated documents only).
pub const SIZE_TARGET_PARAM: &str = "size_target";

/// The smallest difference a size's verdict counts, either way: half of `ab`'s threshold, as
/// `ab` calls a row slower or faster only when its interval lies beyond it. Why: a difference
/// of a few percent is below what a team acts on and what one process to the next reproduces
/// on a shared machine (`ab` of one build against itself moves rows by 2–3%), so a verdict on
/// whether an interval barely excludes 1 flickers from run to run and a crossover with it.
pub const MARGIN: f64 = crate::ab::DEFAULT_THRESHOLD / 2.0;

/// [`MARGIN`] in words: "2.5%".
fn margin() -> String {
    format!("{:.1}%", MARGIN * 100.0)
}

/// How a row compares with the baseline at one size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeVerdict {
    /// Its interval of time over the baseline's lies below 1 − [`MARGIN`].
    Faster,
    /// Its interval lies above 1 + [`MARGIN`].
    Slower,
    /// Its interval lies within 1 ± [`MARGIN`]: no difference beyond the margin shown (unpaired:
    /// neither faster nor slower beyond it).
    Same,
    /// Its interval reaches across 1 − [`MARGIN`] or 1 + [`MARGIN`]: a difference near the margin,
    /// which one run calls one way and the next the other. It neither starts nor ends a
    /// crossover.
    Undecided,
    /// Not compared at this size: the row failed, or was not measured.
    NotCompared,
}

impl SizeVerdict {
    /// A verdict a crossover can start or end at: faster, slower or no difference.
    fn decides(self) -> bool {
        matches!(self, SizeVerdict::Faster | SizeVerdict::Slower | SizeVerdict::Same)
    }

    fn phrase(self, base: &str) -> String {
        match self {
            SizeVerdict::Faster => format!("faster than {base}"),
            SizeVerdict::Slower => format!("slower than {base}"),
            SizeVerdict::Same | SizeVerdict::Undecided | SizeVerdict::NotCompared => self.word(),
        }
    }

    /// The verdict alone: "faster", "slower", "no difference beyond 2.5% shown", "undecided",
    /// "not compared".
    pub(crate) fn word(self) -> String {
        match self {
            SizeVerdict::Faster => "faster".to_string(),
            SizeVerdict::Slower => "slower".to_string(),
            SizeVerdict::Same => format!("no difference beyond {} shown", margin()),
            SizeVerdict::Undecided => "undecided".to_string(),
            SizeVerdict::NotCompared => "not compared".to_string(),
        }
    }
}

/// One size of a sweep: its table and where it sits on the size axis.
#[derive(Debug, Clone)]
pub struct Point<'r> {
    /// The size as the sentences name it: `4 KB` (the size asked for, else the sample's).
    pub label: String,
    /// The document's size in bytes (the chart's x).
    pub bytes: f64,
    /// The table measured at this size.
    pub table: &'r MeasuredTable,
}

/// One row a sweep follows against the baseline, across the sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossing {
    /// The row (`typed/sonic-rs`).
    pub method: String,
    /// Its verdict at each size, smallest size first.
    pub verdicts: Vec<SizeVerdict>,
    /// Every compared size had a paired interval (interleaved rounds).
    pub paired: bool,
    /// The verdicts as one sentence.
    pub sentence: String,
}

impl Crossing {
    /// Where the verdict changes: the indices `(i, j)` of each two sizes with different
    /// verdicts that are neighbours once the sizes without one (undecided, not compared) are
    /// left out.
    pub fn changes(&self) -> Vec<(usize, usize)> {
        let decided: Vec<usize> = (0..self.verdicts.len()).filter(|&i| self.verdicts[i].decides()).collect();
        decided
            .windows(2)
            .filter(|w| self.verdicts[w[0]] != self.verdicts[w[1]])
            .map(|w| (w[0], w[1]))
            .collect()
    }
}

/// The tables of one sweep, smallest size first, with the rows that matter.
#[derive(Debug, Clone)]
pub struct Sweep<'r> {
    /// The experiment the tables are of.
    pub experiment: ExperimentKind,
    /// The sweep's name (`order`).
    pub name: String,
    /// The operation (`deserialize`).
    pub operation: String,
    /// One per size, smallest first.
    pub points: Vec<Point<'r>>,
    /// The baseline (the first table's).
    pub baseline: String,
    /// The rows followed: at any size, each rung's fastest and the rows within the margin of
    /// it, in the order first met (cheapest rung first), the baseline not among them.
    pub rows: Vec<String>,
    /// One per row of [`Sweep::rows`].
    pub crossings: Vec<Crossing>,
}

impl Sweep<'_> {
    /// "order, deserialize: 5 sizes, 1 KB to 1 MB"
    pub fn title(&self) -> String {
        let (first, last) = (&self.points[0].label, &self.points[self.points.len() - 1].label);
        format!("{}, {}: {} sizes, {first} to {last}", self.name, self.operation, self.points.len())
    }

    /// The sweep's key, as the advice's `table`: `order/deserialize`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.name, self.operation)
    }

    /// The rows charted: the baseline, then the rows followed.
    pub fn charted(&self) -> Vec<&str> {
        std::iter::once(self.baseline.as_str())
            .chain(self.rows.iter().map(String::as_str))
            .collect()
    }
}

fn param_str<'e>(exp: &'e MeasuredTable, key: &str) -> Option<&'e str> {
    exp.params.get(key).and_then(serde_json::Value::as_str)
}

fn param_u64(exp: &MeasuredTable, key: &str) -> Option<u64> {
    exp.params.get(key).and_then(serde_json::Value::as_u64)
}

/// A size as the sentences name it: a whole number of B, KB or MB when it is one (1024-based),
/// else as every other size is printed.
pub fn size_label(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KB", b >> 10),
        b if b < 1 << 10 => format!("{b} B"),
        b => units::bytes(b as f64),
    }
}

/// Every sweep in `results`: tables of one experiment sharing `sweep` and `operation` params,
/// two sizes or more, in the order the first of each ran.
pub fn sweeps<'r>(results: &'r Results, judge: &Judge) -> Vec<Sweep<'r>> {
    let mut groups: Vec<(ExperimentKind, &str, &str, Vec<&MeasuredTable>)> = Vec::new();
    for exp in &results.experiments {
        let (Some(name), Some(op)) = (param_str(exp, SWEEP_PARAM), param_str(exp, OPERATION_PARAM)) else {
            continue;
        };
        if param_u64(exp, "payload_bytes").is_none() {
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == exp.kind && g.1 == name && g.2 == op) {
            Some(g) => g.3.push(exp),
            None => groups.push((exp.kind, name, op, vec![exp])),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.3.len() >= 2)
        .filter_map(|(kind, name, op, tables)| sweep(kind, name, op, tables, judge))
        .collect()
}

fn sweep<'r>(experiment: ExperimentKind, name: &str, operation: &str, tables: Vec<&'r MeasuredTable>, judge: &Judge) -> Option<Sweep<'r>> {
    let mut points: Vec<Point<'r>> = tables
        .into_iter()
        .map(|t| {
            let bytes = param_u64(t, "payload_bytes").unwrap_or(0);
            let label = size_label(param_u64(t, SIZE_TARGET_PARAM).unwrap_or(bytes));
            Point {
                label,
                bytes: bytes as f64,
                table: t,
            }
        })
        .collect();
    points.sort_by(|a, b| a.bytes.total_cmp(&b.bytes));
    let baseline = points[0].table.baseline()?.method.clone();
    let mut rows: Vec<String> = Vec::new();
    for p in &points {
        if let Some((_, contenders)) = (judge.rung_contenders)(p.table) {
            for r in contenders {
                if r.method != baseline && !rows.contains(&r.method) {
                    rows.push(r.method.clone());
                }
            }
        }
    }
    let labels: Vec<&str> = points.iter().map(|p| p.label.as_str()).collect();
    let crossings = rows
        .iter()
        .map(|method| {
            let compared: Vec<(SizeVerdict, bool)> = points.iter().map(|p| verdict(p.table, &baseline, method, judge)).collect();
            let verdicts: Vec<SizeVerdict> = compared.iter().map(|c| c.0).collect();
            let paired = compared.iter().all(|(v, paired)| *paired || *v == SizeVerdict::NotCompared);
            Crossing {
                sentence: sentence(method, &baseline, &labels, &verdicts, paired),
                method: method.clone(),
                verdicts,
                paired,
            }
        })
        .collect();
    Some(Sweep {
        experiment,
        name: name.to_string(),
        operation: operation.to_string(),
        points,
        baseline,
        rows,
        crossings,
    })
}

fn row<'e>(exp: &'e MeasuredTable, method: &str) -> Option<&'e Row> {
    exp.rows.iter().find(|r| r.method == method && r.is_ok() && r.mean_ns.is_some())
}

/// The row's time over the baseline's at one size, with its interval: paired where the table
/// was interleaved.
pub fn ratio(exp: &MeasuredTable, base: &str, method: &str, judge: &Judge) -> Option<Interval> {
    let (base, row) = (row(exp, base)?, row(exp, method)?);
    (judge.ratio_between)(base, row)
}

/// One size's verdict, and whether a paired interval decided it (else the means' intervals,
/// as the advisor decides a sequential table).
fn verdict(exp: &MeasuredTable, base: &str, method: &str, judge: &Judge) -> (SizeVerdict, bool) {
    let (Some(b), Some(r)) = (row(exp, base), row(exp, method)) else {
        return (SizeVerdict::NotCompared, false);
    };
    let ratio = (judge.ratio_between)(b, r);
    (at_margin(exp.kind, b, r, ratio, judge.saves), ratio.is_some())
}

/// `row` against `below` at the margin: from `ratio` (row's time over below's, paired) when
/// there is one, else (a sequential table) from the means' intervals (`saves`) and the ratio of
/// the means beyond the margin. The one reading of the margin: a size's verdict and the rows a
/// sweep follows ([`crate::advisor::JUDGE`]) both come from it.
pub(crate) fn at_margin(
    kind: ExperimentKind,
    below: &Row,
    row: &Row,
    ratio: Option<Interval>,
    saves: fn(ExperimentKind, &Row, &Row, Option<Interval>) -> bool,
) -> SizeVerdict {
    let of_means = row.mean_ns.zip(below.mean_ns).map(|(r, b)| r / b);
    match ratio {
        Some(i) if i.high < 1.0 - MARGIN => SizeVerdict::Faster,
        Some(i) if i.low > 1.0 + MARGIN => SizeVerdict::Slower,
        Some(i) if i.low >= 1.0 - MARGIN && i.high <= 1.0 + MARGIN => SizeVerdict::Same,
        Some(_) => SizeVerdict::Undecided,
        None if saves(kind, below, row, None) && of_means.is_some_and(|x| x < 1.0 - MARGIN) => SizeVerdict::Faster,
        None if saves(kind, row, below, None) && of_means.is_some_and(|x| x > 1.0 + MARGIN) => SizeVerdict::Slower,
        None => SizeVerdict::Same,
    }
}

/// "at 4 KB", "from 4 KB to 1 MB"
fn range(labels: &[&str]) -> String {
    match labels {
        [one] => format!("at {one}"),
        [first, .., last] => format!("from {first} to {last}"),
        [] => String::new(),
    }
}

/// The verdicts at each size as one sentence: "typed/sonic-rs is faster than typed/serde_json
/// from about 4 KB up (by more than 2.5%, 99% intervals at each size); at 1 KB and below no
/// difference beyond 2.5% shown".
/// Sizes where the verdict is undecided are left out of the sentence's runs and named after it:
/// "…; at 4 KB undecided (its interval reaches across 1 ± 2.5%)".
pub fn sentence(method: &str, base: &str, labels: &[&str], verdicts: &[SizeVerdict], paired: bool) -> String {
    let undecided: Vec<&str> = (0..verdicts.len())
        .filter(|&i| verdicts[i] == SizeVerdict::Undecided)
        .map(|i| labels[i])
        .collect();
    if undecided.is_empty() {
        return runs_sentence(method, base, labels, verdicts, paired, "measured");
    }
    let (labels, verdicts): (Vec<&str>, Vec<SizeVerdict>) = labels
        .iter()
        .zip(verdicts)
        .filter(|(_, v)| **v != SizeVerdict::Undecided)
        .map(|(l, v)| (*l, *v))
        .unzip();
    let sizes = match undecided.as_slice() {
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => unreachable!(),
    };
    if verdicts.is_empty() {
        return format!(
            "{method}: undecided against {base} at every size (each interval reaches across 1 ± {})",
            margin()
        );
    }
    format!(
        "{}; at {sizes} undecided (its interval reaches across 1 ± {})",
        runs_sentence(method, base, &labels, &verdicts, paired, "decided"),
        margin()
    )
}

/// [`sentence`] over sizes that each have a verdict other than undecided; `every` says which
/// sizes "every size" counts ("measured", "decided").
fn runs_sentence(method: &str, base: &str, labels: &[&str], verdicts: &[SizeVerdict], paired: bool, every: &str) -> String {
    let how = if paired {
        format!("by more than {}, 99% intervals at each size", margin())
    } else {
        format!("by more than {}, each size's confidence intervals", margin())
    };
    // Runs of one verdict, smallest sizes first: (verdict, first index, last index).
    let mut runs: Vec<(SizeVerdict, usize, usize)> = Vec::new();
    for (i, v) in verdicts.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.0 == *v => run.2 = i,
            _ => runs.push((*v, i, i)),
        }
    }
    let decided = |v: SizeVerdict| matches!(v, SizeVerdict::Faster | SizeVerdict::Slower);
    let all = range(labels);
    match runs.as_slice() {
        [] => format!("{method}: no sizes"),
        [(v, ..)] if decided(*v) && labels.len() == 1 => format!("{method} is {} {all} ({how})", v.phrase(base)),
        [(v, ..)] if decided(*v) => format!("{method} is {} at every size {every}, {all} ({how})", v.phrase(base)),
        [(SizeVerdict::Same, ..)] => format!(
            "{method}: no difference from {base} beyond {} shown at any size {every}, {all} (99% intervals at each size)",
            margin()
        ),
        [(..)] => format!("{method}: not compared with {base} at any size (it failed or was not measured)"),
        [(lo, _, lo_end), (hi, hi_start, _)] if decided(*hi) && *lo != SizeVerdict::NotCompared => {
            let below = match lo {
                SizeVerdict::Same => lo.word(),
                v => format!("it is {}", v.phrase(base)),
            };
            format!(
                "{method} is {} from about {} up ({how}); at {} and below {below}",
                hi.phrase(base),
                labels[*hi_start],
                labels[*lo_end]
            )
        }
        [(lo, _, lo_end), (SizeVerdict::Same, hi_start, _)] if decided(*lo) => format!(
            "{method} is {} up to about {} ({how}); from {} up {}",
            lo.phrase(base),
            labels[*lo_end],
            labels[*hi_start],
            SizeVerdict::Same.word()
        ),
        _ => {
            let parts: Vec<String> = runs
                .iter()
                .map(|(v, first, last)| format!("{} {}", v.word(), range(&labels[*first..=*last])))
                .collect();
            format!("{method} against {base} ({how}): {}", parts.join("; "))
        }
    }
}

/// The sweeps' advice, one per sweep: its crossover sentences; each size's own verdict stays
/// its table's.
pub fn advise(results: &Results, judge: &Judge) -> Vec<Advice> {
    sweeps(results, judge)
        .iter()
        .map(|s| {
            let crossovers: Vec<String> = s.crossings.iter().map(|c| c.sentence.clone()).collect();
            let text = if crossovers.is_empty() {
                format!("No row replaces {} at any size, so there is no crossover to state.", s.baseline)
            } else {
                let sentences: Vec<String> = crossovers.iter().map(|c| format!("{c}.")).collect();
                format!("{} Each size's own verdict is its table's.", sentences.join(" "))
            };
            Advice {
                experiment: s.experiment,
                table: s.key(),
                kind: AdviceKind::SizeSweep,
                baseline: s.baseline.clone(),
                candidate: None,
                title: s.title(),
                group: s.key(),
                text,
                ladder: Vec::new(),
                baseline_figures: None,
                per_second: None,
                json_share: None,
                alternatives: Vec::new(),
                crossovers,
            }
        })
        .collect()
}

/// A sweep as a small table, size × row → mean and ratio to the baseline (with its 99%
/// interval where paired): the header and one line of cells per size.
pub fn grid(s: &Sweep<'_>, judge: &Judge) -> (Vec<String>, Vec<Vec<String>>) {
    let charted = s.charted();
    let mut header = vec!["size".to_string(), "bytes".to_string()];
    header.extend(charted.iter().map(|m| m.to_string()));
    let lines = s
        .points
        .iter()
        .map(|p| {
            let mut cells = vec![p.label.clone(), units::count(p.bytes)];
            for (i, m) in charted.iter().enumerate() {
                let cell = match row(p.table, m) {
                    None => units::ABSENT.to_string(),
                    Some(r) if i == 0 => units::time(r.mean_ns.unwrap_or(f64::NAN)),
                    Some(r) => {
                        let mean = units::time(r.mean_ns.unwrap_or(f64::NAN));
                        match ratio(p.table, &s.baseline, m, judge) {
                            Some(i) => format!(
                                "{mean} ({}×, {}–{})",
                                units::ratio(i.estimate),
                                units::ratio(i.low),
                                units::ratio(i.high)
                            ),
                            None => format!("{mean} ({}×)", units::ratio(r.ratio.unwrap_or(f64::NAN))),
                        }
                    }
                };
                cells.push(cell);
            }
            cells
        })
        .collect();
    (header, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use SizeVerdict::*;

    const LABELS: [&str; 5] = ["1 KB", "4 KB", "16 KB", "64 KB", "1 MB"];

    fn say(v: &[SizeVerdict]) -> String {
        sentence("typed/sonic-rs", "typed/serde_json", &LABELS[..v.len()], v, true)
    }

    #[test]
    fn a_threshold_reads_from_about_a_size_up() {
        assert_eq!(
            say(&[Same, Same, Faster, Faster, Faster]),
            "typed/sonic-rs is faster than typed/serde_json from about 16 KB up (by more than 2.5%, 99% intervals at each size); at 4 KB and below no difference beyond 2.5% shown"
        );
        assert_eq!(
            say(&[Slower, Faster, Faster]),
            "typed/sonic-rs is faster than typed/serde_json from about 4 KB up (by more than 2.5%, 99% intervals at each size); at 1 KB and below it is slower than typed/serde_json"
        );
        assert_eq!(
            say(&[Faster, Faster, Same]),
            "typed/sonic-rs is faster than typed/serde_json up to about 4 KB (by more than 2.5%, 99% intervals at each size); from 16 KB up no difference beyond 2.5% shown"
        );
    }

    #[test]
    fn one_verdict_everywhere_and_anything_else_by_ranges() {
        assert_eq!(
            say(&[Faster, Faster, Faster, Faster, Faster]),
            "typed/sonic-rs is faster than typed/serde_json at every size measured, from 1 KB to 1 MB (by more than 2.5%, 99% intervals at each size)"
        );
        assert_eq!(
            say(&[Same, Same]),
            "typed/sonic-rs: no difference from typed/serde_json beyond 2.5% shown at any size measured, from 1 KB to 4 KB (99% intervals at each size)"
        );
        assert_eq!(
            say(&[Faster, Same, Faster, Slower]),
            "typed/sonic-rs against typed/serde_json (by more than 2.5%, 99% intervals at each size): faster at 1 KB; no difference beyond 2.5% shown at 4 KB; faster at 16 KB; slower at 64 KB"
        );
        assert_eq!(
            sentence("a", "b", &LABELS[..2], &[Same, Faster], false),
            "a is faster than b from about 4 KB up (by more than 2.5%, each size's confidence intervals); at 1 KB and below no difference beyond 2.5% shown"
        );
    }

    /// A size whose interval reaches across the margin is named apart and decides nothing: the
    /// same row faster everywhere else reads the same whether the near-margin size comes out
    /// one way or the other in a run.
    #[test]
    fn an_undecided_size_neither_starts_nor_ends_a_crossover() {
        assert_eq!(
            say(&[Faster, Undecided, Faster, Faster, Faster]),
            "typed/sonic-rs is faster than typed/serde_json at every size decided, from 1 KB to 1 MB (by more than 2.5%, 99% intervals at each size); at 4 KB undecided (its interval reaches across 1 ± 2.5%)"
        );
        assert_eq!(
            say(&[Same, Undecided, Faster, Undecided]),
            "typed/sonic-rs is faster than typed/serde_json from about 16 KB up (by more than 2.5%, 99% intervals at each size); at 1 KB and below no difference beyond 2.5% shown; at 4 KB and 64 KB undecided (its interval reaches across 1 ± 2.5%)"
        );
        assert_eq!(
            say(&[Faster, Undecided]),
            "typed/sonic-rs is faster than typed/serde_json at 1 KB (by more than 2.5%, 99% intervals at each size); at 4 KB undecided (its interval reaches across 1 ± 2.5%)"
        );
        assert_eq!(
            say(&[Undecided, Undecided]),
            "typed/sonic-rs: undecided against typed/serde_json at every size (each interval reaches across 1 ± 2.5%)"
        );
        let crossing = |verdicts: Vec<SizeVerdict>| Crossing {
            method: "m".into(),
            sentence: String::new(),
            paired: true,
            verdicts,
        };
        assert_eq!(crossing(vec![Faster, Undecided, Faster]).changes(), []);
        assert_eq!(crossing(vec![Same, Undecided, NotCompared, Faster]).changes(), [(0, 3)]);
        assert_eq!(crossing(vec![Same, Faster]).changes(), [(0, 1)]);
    }

    #[test]
    fn sizes_are_labelled_in_whole_units_where_they_are_one() {
        assert_eq!(size_label(100), "100 B");
        assert_eq!(size_label(4096), "4 KB");
        assert_eq!(size_label(1 << 20), "1 MB");
        assert_eq!(size_label(1536), "1.50 KB");
    }
}
