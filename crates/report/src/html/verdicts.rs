//! The verdicts of `compare` and `ab` as HTML: the body of their page, and the end of an http
//! A/B table's section (so the section does not reach back into the report's root).

use std::fmt::Write;

use super::escape::esc;
use crate::verdicts::Verdicts;
use crate::view::Align;

/// The summary, the verdict table, what was not compared and the note (a page's body, or an
/// http A/B's section's end).
pub(super) fn body(v: &Verdicts) -> String {
    let mut body = format!("<p class=\"note\">{}</p>\n", esc(&v.summary));
    if !v.rows.is_empty() {
        body.push_str("<div class=\"table-wrap\">\n<table class=\"verdicts\">\n<thead><tr>");
        for (name, align) in v.columns {
            let class = if *align == Align::Right { " class=\"num\"" } else { "" };
            let _ = write!(body, "<th scope=\"col\"{class}>{}</th>", esc(name));
        }
        body.push_str("</tr></thead>\n<tbody>\n");
        for row in &v.rows {
            body.push_str("<tr>");
            for (cell, (_, align)) in row.iter().zip(v.columns) {
                let class = if *align == Align::Right { " class=\"num\"" } else { "" };
                let _ = write!(body, "<td{class}>{}</td>", esc(cell));
            }
            body.push_str("</tr>\n");
        }
        body.push_str("</tbody>\n</table>\n</div>\n");
    }
    if !v.not_compared.is_empty() || v.note.is_some() {
        body.push_str("<ul class=\"notes\">\n");
        for line in &v.not_compared {
            let _ = writeln!(body, "<li>Not compared: {}</li>", esc(line));
        }
        if let Some(note) = &v.note {
            let _ = writeln!(body, "<li>{}</li>", esc(note));
        }
        body.push_str("</ul>\n");
    }
    body
}
