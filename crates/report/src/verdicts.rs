//! What `compare` and `ab` print alike: a table of per-row verdicts, the rows that could not be
//! compared, the summary and an optional note, as console text or as a markdown PR comment.

use comfy_table::{CellAlignment, Table, presets};

use crate::columns::Align;
use crate::markdown::{inline, table as markdown_table};

pub(crate) struct Verdicts<'a> {
    /// `compare`, `ab`: the markdown heading's command.
    pub command: &'static str,
    pub columns: &'a [(&'static str, Align)],
    pub rows: Vec<Vec<String>>,
    pub not_compared: Vec<String>,
    pub summary: String,
    pub regression: bool,
    /// A last paragraph (compare's note on unpaired comparisons).
    pub note: Option<String>,
}

impl Verdicts<'_> {
    pub(crate) fn console(&self) -> String {
        let mut out = String::new();
        if !self.rows.is_empty() {
            let mut table = Table::new();
            #[cfg(feature = "color")]
            table.force_no_tty();
            table.load_style(presets::UTF8_FULL_CONDENSED);
            table.set_header(self.columns.iter().map(|(name, _)| *name));
            for row in &self.rows {
                table.add_row(row.clone());
            }
            for (i, (_, align)) in self.columns.iter().enumerate() {
                if let (Align::Right, Some(c)) = (align, table.column_mut(i)) {
                    c.set_cell_alignment(CellAlignment::Right);
                }
            }
            out.push_str(&table.to_string());
            out.push('\n');
        }
        if !self.not_compared.is_empty() {
            out.push_str("Not compared:\n");
            for line in &self.not_compared {
                out.push_str(&format!("- {}\n", one_line(line)));
            }
        }
        out.push_str(&self.summary);
        out.push('\n');
        if let Some(note) = &self.note {
            out.push_str(note);
            out.push('\n');
        }
        out
    }

    pub(crate) fn markdown(&self) -> String {
        let verdict = if self.regression { "**Regression**" } else { "**No regression**" };
        let mut out = format!("### jsoncost {}: {verdict}\n\n{}\n", self.command, inline(&self.summary));
        if !self.rows.is_empty() {
            out.push('\n');
            out.push_str(&markdown_table(self.columns, &self.rows));
        }
        if !self.not_compared.is_empty() {
            out.push_str("\n**Not compared**\n\n");
            for line in &self.not_compared {
                out.push_str(&format!("- {}\n", inline(line)));
            }
        }
        if let Some(note) = &self.note {
            out.push_str(&format!("\n{}\n", inline(note)));
        }
        out
    }
}

/// Multi-line failure messages on one line, so the list stays a list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
