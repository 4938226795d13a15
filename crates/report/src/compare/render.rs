//! What every format shows of a comparison: its verdict cells and summary sentence.

use super::pairs::NotCompared;
use super::{Comparison, RowChange};
use crate::units;
use crate::verdicts::Verdicts;
use crate::view::Align;

const COLUMNS: [(&str, Align); 12] = [
    ("Table", Align::Left),
    ("Method", Align::Left),
    ("Base", Align::Right),
    ("New", Align::Right),
    ("Change", Align::Right),
    ("Beyond table", Align::Right),
    ("Resolves", Align::Right),
    ("Verdict", Align::Left),
    ("Alloc base", Align::Right),
    ("Alloc new", Align::Right),
    ("Alloc change", Align::Right),
    ("Gate", Align::Left),
];

/// The same with the counts' own columns, when rows were compared on them (the time columns
/// stay, as advice).
const COUNTED_COLUMNS: [(&str, Align); 15] = [
    ("Table", Align::Left),
    ("Method", Align::Left),
    ("Base", Align::Right),
    ("New", Align::Right),
    ("Change", Align::Right),
    ("Beyond table", Align::Right),
    ("Resolves", Align::Right),
    ("Verdict", Align::Left),
    ("Alloc base", Align::Right),
    ("Alloc new", Align::Right),
    ("Alloc change", Align::Right),
    ("Instr/op base", Align::Right),
    ("Instr/op new", Align::Right),
    ("Instr change", Align::Right),
    ("Gate", Align::Left),
];

impl Comparison {
    /// The gate's outcome and what was compared, in a sentence or three.
    pub fn summary(&self) -> String {
        let count = |v| self.rows.iter().filter(|r| r.verdict == v).count();
        let mut settings = format!(
            "threshold {}, beyond the table's shift and what the files resolve",
            units::percent(self.threshold)
        );
        if self.counted() {
            let counted = self.rows.iter().filter(|r| r.instructions.is_some()).count();
            settings = format!(
                "{} counted: instructions/op at {}, their time advice only; others: {settings}",
                rows(counted),
                units::percent(self.count_threshold)
            );
        }
        let tally = format!(
            "{} compared: {} faster, {} slower, {} within noise, {} unresolvable at {}; {} not compared",
            rows(self.rows.len()),
            count(super::spread::CompareVerdict::Faster),
            count(super::spread::CompareVerdict::Slower),
            count(super::spread::CompareVerdict::WithinNoise),
            count(super::spread::CompareVerdict::Unresolvable),
            units::percent(self.threshold),
            self.not_compared.len()
        );
        let regressions: Vec<&RowChange> = self.regressions().collect();
        let lost = match self.lost_rows() {
            0 => None,
            n => Some(format!(
                "{} ok in base {} in new",
                rows(n),
                if n == 1 { "failed or is missing" } else { "failed or are missing" }
            )),
        };
        let lost_list = || self.lost().map(lost_entry).collect::<Vec<_>>().join("; ");
        match (regressions.is_empty(), lost) {
            (true, None) => format!("No regression ({settings}). {tally}."),
            (true, Some(lost)) if self.allow_missing => {
                format!(
                    "No regression ({settings}). {lost}, allowed by --allow-missing: {}. {tally}.",
                    lost_list()
                )
            }
            (true, Some(lost)) => format!(
                "Regression ({settings}): {lost} (--allow-missing accepts that): {}. {tally}.",
                lost_list()
            ),
            (false, lost) => {
                let list: Vec<String> = regressions
                    .iter()
                    .map(|r| format!("{} {} {} ({})", r.experiment, r.table, r.method, r.gate()))
                    .collect();
                let lost = match lost {
                    None => String::new(),
                    Some(lost) if self.allow_missing => format!(" {lost}, allowed by --allow-missing: {}.", lost_list()),
                    Some(lost) => format!(" Also {lost} (--allow-missing accepts that): {}.", lost_list()),
                };
                format!(
                    "Regression in {} of {} ({settings}): {}.{lost} {tally}.",
                    regressions.len(),
                    rows(self.rows.len()),
                    list.join("; ")
                )
            }
        }
    }

    /// The verdicts every format lays out.
    pub(crate) fn verdicts(&self) -> Verdicts<'static> {
        // The build difference, tables that moved as a whole, then what unpaired runs cannot tell apart.
        // A build difference first: it moves rows for good, whatever the machine did.
        let mut note: Vec<String> = self.build_difference.iter().cloned().collect();
        note.extend(self.table_shifts.iter().map(|t| format!("{}.", t.note())));
        note.push(self.unpaired_note());
        Verdicts {
            command: "compare",
            columns: if self.counted() { &COUNTED_COLUMNS } else { &COLUMNS },
            rows: self
                .rows
                .iter()
                .map(|r| {
                    let mut cells = cells(r, self.threshold);
                    if self.counted() {
                        let gate = cells.pop().unwrap_or_default();
                        cells.extend(count_cells(r.instructions));
                        cells.push(gate);
                    }
                    cells
                })
                .collect(),
            not_compared: self.not_compared.iter().map(|n| self.not_compared_line(n)).collect(),
            summary: self.summary(),
            regression: self.has_regression(),
            note: Some(note.join(" ")),
        }
    }
}

fn rows(n: usize) -> String {
    if n == 1 { "1 row".to_string() } else { format!("{n} rows") }
}

fn cells(r: &RowChange, threshold: f64) -> Vec<String> {
    vec![
        format!("{} {}", r.experiment, r.table),
        r.method.clone(),
        units::time(r.base_mean_ns),
        units::time(r.new_mean_ns),
        signed_percent(r.time_change),
        signed_percent(r.own_change),
        r.resolution
            .map_or(units::ABSENT.to_string(), |x| format!("±{}", units::percent(x.half_width))),
        r.verdict_text(threshold),
        units::opt(r.base_allocated_bytes, units::bytes),
        units::opt(r.new_allocated_bytes, units::bytes),
        units::opt(r.allocation_change(), |d| {
            if d > 0.0 {
                format!("+{}", units::bytes(d))
            } else {
                units::bytes(d)
            }
        }),
        r.gate(),
    ]
}

/// A count's relative change as its columns show it: `+2.00%`.
pub(crate) fn signed_change(change: f64) -> String {
    format!("{}{:.2}%", if change > 0.0 { "+" } else { "" }, change * 100.0)
}

/// Base and new instructions per operation and their change, or absent marks.
pub(crate) fn count_cells(instructions: Option<super::CountChange>) -> [String; 3] {
    match instructions {
        Some(c) => [units::fixed(c.base, 1), units::fixed(c.new, 1), signed_change(c.change)],
        None => [units::ABSENT.to_string(), units::ABSENT.to_string(), units::ABSENT.to_string()],
    }
}

fn signed_percent(change: f64) -> String {
    if change > 0.0 {
        format!("+{}", units::percent(change))
    } else {
        units::percent(change)
    }
}

impl Comparison {
    /// One "not compared" entry, saying when it fails the gate.
    fn not_compared_line(&self, n: &NotCompared) -> String {
        let what = match &n.method {
            Some(m) => format!("{} {} {}: {}", n.experiment, n.table, m, n.reason),
            None => format!("{} {} (whole table): {}", n.experiment, n.table, n.reason),
        };
        match (n.lost, self.allow_missing) {
            (0, _) => what,
            (_, true) => format!("{what} [ok in base; allowed by --allow-missing]"),
            (_, false) => format!("{what} [ok in base: a regression]"),
        }
    }
}

/// `micro t m (failed in new)`, `micro t (whole table, 3 ok rows, missing from new)`.
fn lost_entry(n: &NotCompared) -> String {
    let how = match n.reason {
        super::pairs::Reason::Failed { .. } => "failed in new",
        _ => "missing from new",
    };
    match &n.method {
        Some(m) => format!("{} {} {m} ({how})", n.experiment, n.table),
        None => format!("{} {} (whole table, {} ok, {how})", n.experiment, n.table, rows(n.lost)),
    }
}

impl RowChange {
    /// The gate's outcome for this row: `ok`, or which regression.
    pub fn gate(&self) -> String {
        let work = match self.instructions {
            Some(c) => c.grew.then_some("instructions"),
            None => self.time_regression().then_some("time"),
        };
        let what: Vec<&str> = work.into_iter().chain(self.allocation_grew.then_some("allocation")).collect();
        if what.is_empty() {
            "ok".to_string()
        } else {
            format!("regression: {}", what.join(", "))
        }
    }
}
