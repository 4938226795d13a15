//! The console table (comfy-table), for people reading a terminal.

use std::fmt::Write;

#[cfg(feature = "color")]
use comfy_table::{Attribute, Color};
use comfy_table::{Cell, CellAlignment, Table, presets};
use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results};

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::advisor;
use crate::allocators;
use crate::answer;
use crate::compare::Comparison;
use crate::export::Exporter;
use crate::notes::{INTERRUPTED_NOTE, QUICK_NOTE, features, simd_note};
use crate::verdicts::Verdicts;
use crate::view::{Align, Line, View};

/// The console table: what a terminal shows, tables as they finish.
pub(crate) struct Console;

impl Exporter for Console {
    fn name(&self) -> &'static str {
        "table"
    }

    fn prints_each_table(&self) -> bool {
        true
    }

    fn results(&self, results: &Results, color: bool) -> String {
        render(results, color)
    }

    fn experiment(&self, exp: &MeasuredTable, note: Option<&str>, color: bool) -> String {
        render_experiment(exp, note, color)
    }

    /// Plain text lines for the console.
    fn advice(&self, advice: &[Advice]) -> String {
        let mut out = format!("{}\n", advisor::TITLE);
        if advice.is_empty() {
            out.push_str("No tables to advise on.\n");
        }
        for (i, a) in advice.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&verdict(a, true));
        }
        out
    }

    fn headline(&self, advice: &[Advice]) -> String {
        let mut out = format!("{}\n{}\n{}\n", answer::HEADLINE, answer::legend(), answer::RULE);
        let shown = answer::headline_tables(advice);
        for a in &shown {
            out.push('\n');
            out.push_str(&verdict(a, false));
        }
        if shown.is_empty() {
            out.push_str("\nNo tables to advise on.\n");
        }
        out.push_str(&format!(
            "\nEvery table's verdict, with what it saves per second and the options that deliver less, follows the tables ({}).\n",
            advisor::TITLE
        ));
        out
    }

    fn allocator_tables(&self, comparisons: &[AllocatorComparison]) -> String {
        comparisons.iter().map(allocator_table).collect::<Vec<_>>().join("\n")
    }

    fn comparison(&self, comparison: &Comparison) -> String {
        verdicts(&comparison.verdicts())
    }

    fn ab(&self, comparison: &AbComparison) -> String {
        verdicts(&comparison.verdicts())
    }
}

fn render(results: &Results, color: bool) -> String {
    let m = &results.machine;
    let mut out = format!("jsoncost {}, started {}\n", results.jsoncost_version, results.started_at);
    out.push_str(&format!("Machine: {} ({} cores, {}), rustc {}\n", m.cpu, m.cores, m.os, m.rustc));
    out.push_str(&format!("CPU features: {}\n", features(&m.target_features)));
    let note = simd_note(m);
    if let Some(note) = &note {
        out.push_str(note);
        out.push('\n');
    }
    if results.quick {
        out.push_str(QUICK_NOTE);
        out.push('\n');
    }
    if results.interrupted {
        out.push_str(INTERRUPTED_NOTE);
        out.push('\n');
    }
    let advice = advisor::advise(results);
    if !results.experiments.is_empty() {
        out.push('\n');
        out.push_str(&Console.headline(&advice));
    }
    for exp in &results.experiments {
        out.push('\n');
        out.push_str(&render_experiment(exp, note.as_deref(), color));
    }
    for c in &results.allocators {
        out.push('\n');
        out.push_str(&allocator_table(c));
    }
    out.push('\n');
    out.push_str(&Console.advice(&advice));
    out
}

/// One table's verdict: its title, then its lines under it, labels in one column.
fn verdict(a: &Advice, full: bool) -> String {
    let mut out = format!("{}\n", answer::title(a));
    let width = answer::label_width();
    for line in answer::lines(a, full) {
        if line.label.is_empty() {
            out.push_str(&format!("  {}\n", line.text));
        } else {
            out.push_str(&format!("  {:width$}  {}\n", line.label, line.text));
        }
    }
    out
}

/// One table, with `note` (the build's, [`simd_note`]) under the title.
fn render_experiment(exp: &MeasuredTable, note: Option<&str>, color: bool) -> String {
    let view = View::of(exp);
    let mut out = view.title();
    out.push('\n');
    if let Some(note) = note {
        out.push_str(&format!("Note: {note}\n"));
    }
    out.push_str(&table(&view, color).to_string());
    out.push('\n');
    for (method, message) in view.long_failures() {
        out.push_str(&format!("{method} failed:\n"));
        for line in message.trim().lines() {
            out.push_str(&format!("    {line}\n"));
        }
    }
    for sentence in view.notes.iter().chain(&view.summary) {
        out.push_str(sentence);
        out.push('\n');
    }
    out
}

fn table(view: &View, color: bool) -> Table {
    let mut table = Table::new();
    // The caller decides on colour; never let comfy-table look at the terminal itself, so the
    // output is the same whether it goes to a tty, a pipe or a test.
    #[cfg(feature = "color")]
    table.force_no_tty();
    #[cfg(feature = "color")]
    if color {
        table.enforce_styling();
    }
    // Built without colour: the `color` argument asks for what is not there.
    #[cfg(not(feature = "color"))]
    let _ = color;
    table.load_style(presets::UTF8_FULL_CONDENSED);
    table.set_header(view.columns.iter().map(|c| {
        let cell = Cell::new(c.name);
        #[cfg(feature = "color")]
        let cell = if color { cell.add_attribute(Attribute::Bold) } else { cell };
        cell
    }));
    for (line, cells) in view.lines.iter().zip(view.text_cells()) {
        let failed = matches!(line, Line::Failed { .. });
        table.add_row(cells.into_iter().enumerate().map(|(i, text)| {
            let cell = Cell::new(text);
            #[cfg(feature = "color")]
            let cell = if color && failed && i == 1 { cell.fg(Color::Red) } else { cell };
            let _ = (failed, i);
            cell
        }));
    }
    for (i, col) in view.columns.iter().enumerate() {
        if let (Align::Right, Some(c)) = (col.align, table.column_mut(i)) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// A comfy-table with the condensed UTF-8 style, never looking at the terminal itself.
fn plain_table<S: ToString>(columns: &[(S, Align)], rows: impl IntoIterator<Item = Vec<String>>) -> Table {
    let mut table = Table::new();
    #[cfg(feature = "color")]
    table.force_no_tty();
    table.load_style(presets::UTF8_FULL_CONDENSED);
    table.set_header(columns.iter().map(|(name, _)| name.to_string()));
    for row in rows {
        table.add_row(row);
    }
    for (i, (_, align)) in columns.iter().enumerate() {
        if let (Align::Right, Some(c)) = (align, table.column_mut(i)) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// One allocator's table, its unpaired rows and its legend.
fn allocator_table(c: &AllocatorComparison) -> String {
    let mut out = format!("{}: {}\n", allocators::TITLE, allocators::heading(c));
    if !c.rows.is_empty() {
        let table = plain_table(&allocators::columns(c), c.rows.iter().map(|r| allocators::cells(c, r)));
        out.push_str(&table.to_string());
        out.push('\n');
    }
    for line in &c.not_compared {
        let _ = writeln!(out, "Not compared: {}", one_line(line));
    }
    out.push_str(&allocators::legend(c));
    out.push('\n');
    out
}

/// What `compare` and `ab` print: the verdict table, what was not compared, the summary and
/// the note.
fn verdicts(v: &Verdicts) -> String {
    let mut out = String::new();
    if !v.rows.is_empty() {
        out.push_str(&plain_table(v.columns, v.rows.iter().cloned()).to_string());
        out.push('\n');
    }
    if !v.not_compared.is_empty() {
        out.push_str("Not compared:\n");
        for line in &v.not_compared {
            out.push_str(&format!("- {}\n", one_line(line)));
        }
    }
    out.push_str(&v.summary);
    out.push('\n');
    if let Some(note) = &v.note {
        out.push_str(note);
        out.push('\n');
    }
    out
}

/// Multi-line failure messages on one line, so a list stays a list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
