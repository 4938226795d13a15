//! Markdown (GitHub flavoured): report.md and PR comments.

use jsoncost_engine::{Experiment, Results};

use crate::columns::{Align, View};
use crate::table::features;
use crate::{Format, QUICK_NOTE, advisor};

pub(crate) fn render(results: &Results) -> String {
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
    let note = crate::simd_note(m);
    if let Some(note) = &note {
        out.push_str(&format!("\n> **{}**\n", inline(note)));
    }
    if results.quick {
        out.push_str(&format!("\n> **{QUICK_NOTE}**\n"));
    }
    if results.interrupted {
        out.push_str(&format!("\n> **{}**\n", crate::INTERRUPTED_NOTE));
    }
    for exp in &results.experiments {
        out.push('\n');
        out.push_str(&render_experiment_noted(exp, note.as_deref()));
    }
    for c in &results.allocators {
        out.push('\n');
        out.push_str(&crate::allocators::render(std::slice::from_ref(c), Format::Markdown));
    }
    out.push('\n');
    out.push_str(&advisor::render(&advisor::advise(results), Format::Markdown));
    out
}

pub(crate) fn render_experiment(exp: &Experiment) -> String {
    render_experiment_noted(exp, None)
}

/// [`render_experiment`] with `note` (the build's, [`crate::simd_note`]) under the heading.
pub(crate) fn render_experiment_noted(exp: &Experiment, note: Option<&str>) -> String {
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
pub(crate) fn table(columns: &[(&str, Align)], rows: &[Vec<String>]) -> String {
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
pub(crate) fn inline(text: &str) -> String {
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
pub(crate) fn code_block(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{text}\n{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_cannot_break_a_table_row() {
        assert_eq!(inline("a|b <c> *d* `e`\nf"), "a\\|b &lt;c&gt; \\*d\\* \\`e\\` f");
    }

    #[test]
    fn code_blocks_outgrow_backticks_inside() {
        assert_eq!(code_block("x"), "```text\nx\n```\n");
        assert_eq!(code_block("a ```` b"), "`````text\na ```` b\n`````\n");
    }
}
