//! One experiment's section of the HTML report: its table, summary and charts, as its kind's
//! view ([`crate::kinds`]) gives them.

use std::fmt::Write;

use jsoncost_engine::{MeasuredTable, Row};

use super::escape::esc;
use crate::kinds;
use crate::view::{Align, Line, NO_MESSAGE, View};

pub(super) fn render(exp: &MeasuredTable, id: &str) -> String {
    let kind = kinds::view(exp.kind);
    if let Some(section) = kind.html_section(exp, id) {
        return section;
    }
    let view = kind.table(exp);
    let mut out = format!(
        "<section class=\"experiment\" id=\"{}\">\n<h2>{}</h2>\n",
        esc(id),
        esc(&view.heading)
    );
    if !view.params.is_empty() {
        let _ = writeln!(out, "<p class=\"params\">{}</p>", esc(&view.params));
    }
    out.push_str(&table(exp, &view));
    if !view.notes.is_empty() {
        out.push_str("<ul class=\"notes\">\n");
        for n in &view.notes {
            let _ = writeln!(out, "<li>{}</li>", esc(n));
        }
        out.push_str("</ul>\n");
    }
    if !view.summary.is_empty() {
        out.push_str("<ul class=\"summary\">\n");
        for s in &view.summary {
            let _ = writeln!(out, "<li>{}</li>", esc(s));
        }
        out.push_str("</ul>\n");
    }
    let ok: Vec<&Row> = exp.rows.iter().filter(|r| r.is_ok()).collect();
    let charts: Vec<_> = kind.charts(exp, &ok).into_iter().flatten().collect();
    if !charts.is_empty() {
        out.push_str("<div class=\"charts\">\n");
        for c in charts {
            out.push_str(&c.render());
        }
        out.push_str("</div>\n");
    }
    out.push_str(&kind.html_after_charts(exp));
    out.push_str("</section>\n");
    out
}

fn table(exp: &MeasuredTable, view: &View) -> String {
    let mut out = String::from("<div class=\"table-wrap\">\n<table>\n<thead><tr>");
    for c in &view.columns {
        let class = if c.align == Align::Right { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{class}>{}</th>", esc(c.name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    // View lines follow the experiment's rows one for one.
    for (line, row) in view.lines.iter().zip(&exp.rows) {
        let tag = if row.baseline { " <span class=\"tag\">baseline</span>" } else { "" };
        match line {
            Line::Ok(cells) => {
                let class = if row.baseline { " class=\"baseline\"" } else { "" };
                let _ = write!(out, "<tr{class}>");
                for (i, (cell, col)) in cells.iter().zip(&view.columns).enumerate() {
                    if i == 0 {
                        let _ = write!(out, "<th scope=\"row\">{}{tag}</th>", esc(cell));
                    } else if col.align == Align::Right {
                        let _ = write!(out, "<td class=\"num\">{}</td>", esc(cell));
                    } else {
                        let _ = write!(out, "<td>{}</td>", esc(cell));
                    }
                }
                out.push_str("</tr>\n");
            }
            Line::Failed { method, message } => {
                let _ = writeln!(
                    out,
                    "<tr class=\"failed\"><th scope=\"row\">{}{tag}</th><td class=\"msg\" colspan=\"{}\">failed: {}</td></tr>",
                    esc(method),
                    view.columns.len().saturating_sub(1).max(1),
                    esc(if message.trim().is_empty() { NO_MESSAGE } else { message.trim() })
                );
            }
        }
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    out
}
