//! The allocator tables as sections of the HTML report.

use std::fmt::Write;

use jsoncost_engine::AllocatorComparison;

use super::escape::esc;
use crate::allocators::{Change, TITLE, cells, change, columns, heading, legend};
use crate::view::Align;

/// The section id of comparison `c`.
pub(super) fn id(c: &AllocatorComparison) -> String {
    format!("allocator-{}-{}", c.allocator, c.base)
}

/// One comparison as a section of the report.
pub(super) fn section(c: &AllocatorComparison) -> String {
    let mut out = format!(
        "<section class=\"experiment allocator\" id=\"{}\">\n<h2>{}: {}</h2>\n",
        esc(&id(c)),
        esc(TITLE),
        esc(&heading(c))
    );
    let cols = columns(c);
    out.push_str("<div class=\"table-wrap\">\n<table>\n<thead><tr>");
    for (name, align) in &cols {
        let class = if *align == Align::Right { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{class}>{}</th>", esc(name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &c.rows {
        let class = match change(c, r) {
            Change::Less { .. } => "less",
            Change::More { .. } => "more",
            Change::Small { .. } | Change::Inconclusive { .. } | Change::None | Change::Busy => "same",
        };
        let _ = write!(out, "<tr class=\"{class}\">");
        for (i, (cell, (_, align))) in cells(c, r).iter().zip(&cols).enumerate() {
            if i == 1 {
                let _ = write!(out, "<th scope=\"row\">{}</th>", esc(cell));
            } else if *align == Align::Right {
                let _ = write!(out, "<td class=\"num\">{}</td>", esc(cell));
            } else {
                let _ = write!(out, "<td>{}</td>", esc(cell));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n<ul class=\"notes\">\n");
    for line in &c.not_compared {
        let _ = writeln!(out, "<li>Not compared: {}</li>", esc(line));
    }
    let _ = writeln!(out, "<li>{}</li>\n</ul>\n</section>", esc(&legend(c)));
    out
}
