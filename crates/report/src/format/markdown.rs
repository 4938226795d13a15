//! Markdown (GitHub flavoured): report.md and PR comments.

use std::fmt::Write;

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results};

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::advisor;
use crate::allocators;
use crate::answer;
use crate::compare::Comparison;
use crate::export::Exporter;
use crate::notes::{INTERRUPTED_NOTE, QUICK_NOTE, features, simd_note};
use crate::sweep;
use crate::verdicts::Verdicts;
use crate::view::{Align, View};

/// Markdown: report.md, and a PR comment for `compare` and `ab`.
pub(crate) struct Markdown;

impl Exporter for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn prints_each_table(&self) -> bool {
        true
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        render(results)
    }

    fn experiment(&self, exp: &MeasuredTable, note: Option<&str>, _color: bool) -> String {
        render_experiment(exp, note)
    }

    fn advice(&self, advice: &[Advice]) -> String {
        let mut out = format!("## {}\n\n", advisor::TITLE);
        if advice.is_empty() {
            out.push_str("No tables to advise on.\n");
        }
        for a in advice {
            out.push_str(&verdict(a, true));
        }
        out
    }

    fn headline(&self, advice: &[Advice]) -> String {
        let mut out = format!("## {}\n\n{}\n{}\n\n", answer::HEADLINE, inline(&answer::legend()), answer::RULE);
        let shown = answer::headline_tables(advice);
        for a in &shown {
            out.push_str(&verdict(a, false));
        }
        if shown.is_empty() {
            out.push_str("No tables to advise on.\n");
        }
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

fn render(results: &Results) -> String {
    let m = &results.machine;
    let mut out = String::from("# jsoncost results\n\n");
    out.push_str(&format!("- **jsoncost**: {}\n", inline(&results.jsoncost_version)));
    out.push_str(&format!("- **Started**: {}\n", inline(&results.started_at)));
    out.push_str(&format!(
        "- **Machine**: {} ({} cores, {})\n",
        inline(&m.cpu),
        m.cores,
        inline(&m.os)
    ));
    out.push_str(&format!("- **rustc**: {}\n", inline(&m.rustc)));
    out.push_str(&format!("- **CPU features**: {}\n", inline(&features(&m.target_features))));
    let note = simd_note(m);
    if let Some(note) = &note {
        out.push_str(&format!("\n> **{}**\n", inline(note)));
    }
    if results.quick {
        out.push_str(&format!("\n> **{QUICK_NOTE}**\n"));
    }
    if results.interrupted {
        out.push_str(&format!("\n> **{}**\n", INTERRUPTED_NOTE));
    }
    let advice = advisor::advise(results);
    if !results.experiments.is_empty() {
        out.push('\n');
        out.push_str(&Markdown.headline(&advice));
    }
    for exp in &results.experiments {
        out.push('\n');
        out.push_str(&render_experiment(exp, note.as_deref()));
    }
    let sweeps = sweeps(results);
    if !sweeps.is_empty() {
        out.push('\n');
        out.push_str(&sweeps);
    }
    for c in &results.allocators {
        out.push('\n');
        out.push_str(&allocator_table(c));
    }
    out.push('\n');
    out.push_str(&Markdown.advice(&advice));
    out
}

/// The section of every sweep: its title, the grid and the crossover sentences; empty without
/// a sweep.
fn sweeps(results: &Results) -> String {
    let mut out = String::new();
    for s in sweep::sweeps(results, &advisor::JUDGE) {
        let _ = writeln!(out, "## Sizes: {}: {}\n", s.experiment, inline(&s.title()));
        let (header, lines) = sweep::grid(&s, &advisor::JUDGE);
        let names: Vec<(&str, Align)> = header.iter().map(|h| (h.as_str(), Align::Left)).collect();
        out.push_str(&table(&names, &lines));
        out.push_str("\nMean per operation; in brackets its time over the baseline's, with the 99% interval where paired.\n\n");
        for c in &s.crossings {
            let _ = writeln!(out, "- {}.", inline(&c.sentence));
        }
        out.push('\n');
    }
    out
}

/// One table's verdict: its title in bold, then a list of its lines.
fn verdict(a: &Advice, full: bool) -> String {
    let mut out = format!("- **{}**\n", inline(&answer::title(a)));
    for line in answer::lines(a, full) {
        if line.label.is_empty() {
            out.push_str(&format!("  - {}\n", inline(&line.text)));
        } else {
            out.push_str(&format!("  - *{}*: {}\n", line.label, inline(&line.text)));
        }
    }
    out
}

/// One table, with `note` (the build's, [`simd_note`]) under the heading.
fn render_experiment(exp: &MeasuredTable, note: Option<&str>) -> String {
    let view = View::of(exp);
    let mut out = format!("## {}\n\n", inline(&view.heading));
    if let Some(note) = note {
        out.push_str(&format!("> **{}**\n\n", inline(note)));
    }
    if !view.params.is_empty() {
        out.push_str(&format!("Params: {}\n\n", inline(&view.params)));
    }
    out.push_str(&table(
        &view.columns.iter().map(|c| (c.name, c.align)).collect::<Vec<_>>(),
        &view.text_cells(),
    ));
    for (method, message) in view.long_failures() {
        out.push_str(&format!("\n**{} failed:**\n\n{}", inline(method), code_block(message.trim())));
    }
    if !view.notes.is_empty() || !view.summary.is_empty() {
        out.push('\n');
        for sentence in view.notes.iter().chain(&view.summary) {
            out.push_str(&format!("{}\n", inline(sentence)));
        }
    }
    out
}

/// A pipe table; cells are escaped so a `|` or `<` in a message cannot break it.
fn table(columns: &[(&str, Align)], rows: &[Vec<String>]) -> String {
    let row = |cells: &mut dyn Iterator<Item = String>| format!("| {} |\n", cells.collect::<Vec<_>>().join(" | "));
    let mut out = row(&mut columns.iter().map(|(name, _)| inline(name)));
    out.push_str(&row(&mut columns.iter().map(|(_, align)| match align {
        Align::Left => ":---".to_string(),
        Align::Right => "---:".to_string(),
    })));
    for cells in rows {
        out.push_str(&row(&mut cells.iter().map(|c| inline(c))));
    }
    out
}

/// Escapes text for one line of markdown: pipes, angle brackets (raw HTML), emphasis markers
/// and line breaks.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '\\' => out.push_str("\\\\"),
            '*' => out.push_str("\\*"),
            '`' => out.push_str("\\`"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A fenced block longer than any backtick run inside the text, so the text cannot close it.
fn code_block(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{text}\n{fence}\n")
}

/// One allocator's table, its unpaired rows and its legend.
fn allocator_table(c: &AllocatorComparison) -> String {
    let mut out = format!("## {}: {}\n\n", allocators::TITLE, inline(&allocators::heading(c)));
    if !c.rows.is_empty() {
        let cols = allocators::columns(c);
        let names: Vec<(&str, Align)> = cols.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        let rows: Vec<Vec<String>> = c.rows.iter().map(|r| allocators::cells(c, r)).collect();
        out.push_str(&table(&names, &rows));
        out.push('\n');
    }
    for line in &c.not_compared {
        let _ = writeln!(out, "- Not compared: {}", inline(line));
    }
    let _ = writeln!(out, "{}", inline(&allocators::legend(c)));
    out
}

/// What `compare` and `ab` print, as a PR comment: verdict heading, summary, table, what was
/// not compared and the note.
fn verdicts(v: &Verdicts) -> String {
    let verdict = if v.regression { "**Regression**" } else { "**No regression**" };
    let mut out = format!("### jsoncost {}: {verdict}\n\n{}\n", v.command, inline(&v.summary));
    if !v.rows.is_empty() {
        out.push('\n');
        out.push_str(&table(v.columns, &v.rows));
    }
    if !v.not_compared.is_empty() {
        out.push_str("\n**Not compared**\n\n");
        for line in &v.not_compared {
            out.push_str(&format!("- {}\n", inline(line)));
        }
    }
    if let Some(note) = &v.note {
        out.push_str(&format!("\n{}\n", inline(note)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_cannot_break_a_table_row() {
        assert_eq!(inline("a|b <c> *d* `e`\nf"), "a\\|b &lt;c&gt; \\*d\\* \\`e\\` f");
    }

    #[test]
    fn a_failure_message_renders_as_text_in_a_markdown_viewer() {
        // A message comes from a library or a results file: whatever it holds, a viewer that
        // renders the report (CommonMark, as GitHub does) shows it as text, never as HTML.
        let hostile = "<script>alert(1)</script> ``` </pre><img src=x onerror=alert(2)>\n~~~\n<script>alert(3)</script>\n".repeat(3);
        let mut exp = MeasuredTable::new(jsoncost_engine::ExperimentKind::Micro, "t/op <script>alert(4)</script>");
        exp.rows.push(jsoncost_engine::Row::failed("typed/serde_json", hostile));
        let markdown = render_experiment(&exp, Some("<script>alert(5)</script>"));
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(&markdown));
        assert!(!html.contains("<script") && !html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(3)&lt;/script&gt;"), "{html}");
    }

    #[test]
    fn code_blocks_outgrow_backticks_inside() {
        assert_eq!(code_block("x"), "```text\nx\n```\n");
        assert_eq!(code_block("a ```` b"), "`````text\na ```` b\n`````\n");
    }
}
