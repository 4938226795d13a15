//! The safety tables as sections of the HTML report: the matrix (or a suite's disagreements)
//! with each cell coloured by its outcome and its message, time and peak heap as its tooltip.

use std::fmt::Write;

use jsoncost_engine::MeasuredTable;

use super::escape::esc;
use crate::safety::{Shade, breaking, detail, is_suite, matrix, outcome_text, shade, time_text, view};

/// The HTML section: the matrix (or the suite's disagreements) with coloured cells.
pub(crate) fn section(exp: &MeasuredTable, id: &str) -> String {
    let view = view(exp);
    let mut out = format!(
        "<section class=\"experiment safety\" id=\"{}\">\n<h2>{}</h2>\n",
        esc(id),
        esc(&view.heading)
    );
    if !view.params.is_empty() {
        let _ = writeln!(out, "<p class=\"params\">{}</p>", esc(&view.params));
    }
    out.push_str("<div class=\"table-wrap\">\n<table>\n<thead><tr>");
    for c in &view.columns {
        let _ = write!(out, "<th scope=\"col\">{}</th>", esc(c.name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    if is_suite(exp) {
        let rows = breaking(exp);
        for (i, line) in view.text_cells().into_iter().enumerate() {
            let class = class_of(rows.get(i).and_then(|r| shade(r)));
            let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(&line[0]));
            let _ = writeln!(
                out,
                "<td>{}</td><td class=\"{class}\">{}</td><td class=\"msg\">{}</td></tr>",
                esc(&line[1]),
                esc(&line[2]),
                esc(&line[3])
            );
        }
    } else {
        let (_, cases) = matrix(exp);
        for (case, rows) in cases {
            let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(case));
            for r in rows {
                match r {
                    None => out.push_str("<td class=\"absent\">-</td>"),
                    Some(r) => {
                        let text = outcome_text(r);
                        let _ = write!(
                            out,
                            "<td class=\"{}\" title=\"{}\">{} <small>{}</small></td>",
                            class_of(shade(r)),
                            esc(&detail(r)),
                            esc(&text),
                            esc(&time_text(r))
                        );
                    }
                }
            }
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    for (class, list) in [("notes", &view.notes), ("summary", &view.summary)] {
        if !list.is_empty() {
            let _ = writeln!(out, "<ul class=\"{class}\">");
            for n in list {
                let _ = writeln!(out, "<li>{}</li>", esc(n));
            }
            out.push_str("</ul>\n");
        }
    }
    out.push_str("</section>\n");
    out
}

fn class_of(shade: Option<Shade>) -> &'static str {
    match shade {
        Some(Shade::Crash) => "s-crash",
        Some(Shade::Differs) => "s-differs",
        Some(Shade::Changed) => "s-changed",
        Some(Shade::Accepted) => "s-accepted",
        Some(Shade::Rejected) | None => "s-rejected",
    }
}
