//! Comparison output: console table, markdown for PR comments, JSON and CSV.

use comfy_table::{CellAlignment, Table, presets};

use super::{Comparison, NotCompared, RowChange, SIGNIFICANCE};
use crate::columns::Align;
use crate::markdown::{inline, table as markdown_table};
use crate::{Format, json, units};

const COLUMNS: [(&str, Align); 11] = [
    ("Table", Align::Left),
    ("Method", Align::Left),
    ("Base", Align::Right),
    ("New", Align::Right),
    ("Change", Align::Right),
    ("p", Align::Right),
    ("Verdict", Align::Left),
    ("Alloc base", Align::Right),
    ("Alloc new", Align::Right),
    ("Alloc change", Align::Right),
    ("Gate", Align::Left),
];

impl Comparison {
    /// The comparison in `format`; markdown is meant for a PR comment.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => self.render_table(),
            Format::Markdown => self.render_markdown(),
            Format::Json => json::pretty(self),
            Format::Csv => self.render_csv(),
        }
    }

    /// One sentence: the gate's outcome and what was compared.
    pub fn summary(&self) -> String {
        let count = |v| self.rows.iter().filter(|r| r.verdict == v).count();
        let settings = format!("threshold {}, significant at p < {SIGNIFICANCE}", units::percent(self.threshold));
        let tally = format!(
            "{} compared: {} faster, {} slower, {} within noise; {} not compared",
            rows(self.rows.len()),
            count(super::Verdict::Faster),
            count(super::Verdict::Slower),
            count(super::Verdict::WithinNoise),
            self.not_compared.len()
        );
        let regressions: Vec<&RowChange> = self.regressions().collect();
        if regressions.is_empty() {
            format!("No regression ({settings}). {tally}.")
        } else {
            let list: Vec<String> = regressions
                .iter()
                .map(|r| format!("{} {} {} ({})", r.experiment, r.table, r.method, gate(r)))
                .collect();
            format!(
                "Regression in {} of {} ({settings}): {}. {tally}.",
                regressions.len(),
                rows(self.rows.len()),
                list.join("; ")
            )
        }
    }

    fn render_table(&self) -> String {
        let mut table = Table::new();
        table.force_no_tty();
        table.load_style(presets::UTF8_FULL_CONDENSED);
        table.set_header(COLUMNS.iter().map(|(name, _)| *name));
        for row in &self.rows {
            table.add_row(cells(row));
        }
        for (i, (_, align)) in COLUMNS.iter().enumerate() {
            if let (Align::Right, Some(c)) = (align, table.column_mut(i)) {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
        let mut out = String::new();
        if !self.rows.is_empty() {
            out.push_str(&table.to_string());
            out.push('\n');
        }
        if !self.not_compared.is_empty() {
            out.push_str("Not compared:\n");
            for n in &self.not_compared {
                out.push_str(&format!("- {}\n", one_line(&not_compared(n))));
            }
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }

    fn render_markdown(&self) -> String {
        let verdict = if self.has_regression() {
            "**Regression**"
        } else {
            "**No regression**"
        };
        let mut out = format!("### jsoncost compare: {verdict}\n\n{}\n", inline(&self.summary()));
        if !self.rows.is_empty() {
            out.push('\n');
            out.push_str(&markdown_table(&COLUMNS, &self.rows.iter().map(cells).collect::<Vec<_>>()));
        }
        if !self.not_compared.is_empty() {
            out.push_str("\n**Not compared**\n\n");
            for n in &self.not_compared {
                out.push_str(&format!("- {}\n", inline(&not_compared(n))));
            }
        }
        out
    }

    fn render_csv(&self) -> String {
        let header = [
            "experiment",
            "table",
            "method",
            "base_mean_ns",
            "new_mean_ns",
            "time_change",
            "p_value",
            "verdict",
            "base_allocated_bytes",
            "new_allocated_bytes",
            "allocation_grew",
            "regression",
        ];
        let num = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut records = vec![header.map(String::from).to_vec()];
        for r in &self.rows {
            records.push(vec![
                r.experiment.to_string(),
                r.table.clone(),
                r.method.clone(),
                r.base_mean_ns.to_string(),
                r.new_mean_ns.to_string(),
                r.time_change.to_string(),
                num(r.p_value),
                r.verdict.key().to_string(),
                num(r.base_allocated_bytes),
                num(r.new_allocated_bytes),
                r.allocation_grew.to_string(),
                r.regression().to_string(),
            ]);
        }
        for r in records {
            // Writing to a Vec cannot fail.
            w.write_record(&r).expect("CSV into memory");
        }
        String::from_utf8(w.into_inner().expect("CSV into memory")).expect("CSV of strings is UTF-8")
    }
}

fn rows(n: usize) -> String {
    if n == 1 { "1 row".to_string() } else { format!("{n} rows") }
}

fn cells(r: &RowChange) -> Vec<String> {
    vec![
        format!("{} {}", r.experiment, r.table),
        r.method.clone(),
        units::time(r.base_mean_ns),
        units::time(r.new_mean_ns),
        signed_percent(r.time_change),
        match r.p_value {
            None => units::ABSENT.to_string(),
            Some(p) if p < 0.001 => "<0.001".to_string(),
            Some(p) => format!("{p:.3}"),
        },
        r.verdict.to_string(),
        units::opt(r.base_allocated_bytes, units::bytes),
        units::opt(r.new_allocated_bytes, units::bytes),
        units::opt(r.allocation_change(), |d| {
            if d > 0.0 {
                format!("+{}", units::bytes(d))
            } else {
                units::bytes(d)
            }
        }),
        gate(r),
    ]
}

fn gate(r: &RowChange) -> String {
    match (r.time_regression(), r.allocation_grew) {
        (true, true) => "regression: time, allocation",
        (true, false) => "regression: time",
        (false, true) => "regression: allocation",
        (false, false) => "ok",
    }
    .to_string()
}

fn signed_percent(change: f64) -> String {
    if change > 0.0 {
        format!("+{}", units::percent(change))
    } else {
        units::percent(change)
    }
}

fn not_compared(n: &NotCompared) -> String {
    match &n.method {
        Some(m) => format!("{} {} {}: {}", n.experiment, n.table, m, n.reason),
        None => format!("{} {} (whole table): {}", n.experiment, n.table, n.reason),
    }
}

/// Multi-line failure messages on one line, so the list stays a list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
