//! A table ready to print, whatever its experiment: heading, params, columns and lines of
//! text, notes and summary. Every renderer (console, markdown, HTML) lays out the same view,
//! so the formats cannot drift apart; each experiment kind's view ([`crate::kinds`]) builds it.

use jsoncost_engine::MeasuredTable;
use serde_json::Value;

use crate::units::ABSENT;

/// Shown for a failed row that carries no message.
pub(crate) const NO_MESSAGE: &str = "(no message)";

/// Longest failure message shown inside a table cell; longer ones are given in full below it.
const FAILED_CELL_CHARS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    pub name: &'static str,
    pub align: Align,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    /// One cell per column, the method first.
    Ok(Vec<String>),
    Failed {
        method: String,
        message: String,
    },
}

/// A table ready to print.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct View {
    /// `micro: data/deserialize`
    pub heading: String,
    /// `shape=data, payload_bytes=71`, empty when there are no params.
    pub params: String,
    pub columns: Vec<Column>,
    pub lines: Vec<Line>,
    /// Sentences under the table: rows whose output is not exact against the reference, one
    /// each, then how the times were read when not by the wall clock alone.
    pub notes: Vec<String>,
    pub summary: Vec<String>,
}

impl View {
    /// `micro: data (71 bytes), deserialize` and, on a line of its own, the parameters.
    pub(crate) fn title(&self) -> String {
        if self.params.is_empty() {
            self.heading.clone()
        } else {
            format!("{}\n  {}", self.heading, self.params)
        }
    }

    /// Cells of every line for a text table: a failed row reads `failed: <first line>` after its
    /// method, and "-" in the other columns.
    pub(crate) fn text_cells(&self) -> Vec<Vec<String>> {
        self.lines
            .iter()
            .map(|line| match line {
                Line::Ok(cells) => cells.clone(),
                Line::Failed { method, message } => {
                    let mut cells = vec![method.clone(), format!("failed: {}", short_message(message).0)];
                    cells.resize(self.columns.len().max(2), ABSENT.to_string());
                    cells
                }
            })
            .collect()
    }

    /// Failures whose message did not fit in the table, as (method, full message).
    pub(crate) fn long_failures(&self) -> Vec<(&str, &str)> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                Line::Failed { method, message } if short_message(message).1 => Some((method.as_str(), message.as_str())),
                _ => None,
            })
            .collect()
    }
}

/// The first line of a failure message, cut to fit a cell; true when something was left out.
fn short_message(message: &str) -> (String, bool) {
    let trimmed = message.trim();
    let first = trimmed.lines().next().unwrap_or("").trim_end();
    let shortened = first.chars().count() > FAILED_CELL_CHARS || first.len() < trimmed.len();
    let mut cell: String = first.chars().take(FAILED_CELL_CHARS).collect();
    if cell.is_empty() && !shortened {
        cell = NO_MESSAGE.to_string();
    }
    if shortened {
        cell.push('…');
    }
    (cell, shortened)
}

pub(crate) fn heading(exp: &MeasuredTable) -> String {
    format!("{}: {}", exp.kind, title(exp))
}

/// The table as a sentence: "order (4,148 bytes), deserialize" where the table has a shape and
/// an operation, else its name, with its payload's size when known ("store/order (4,148
/// bytes)"). The raw parameters go on a line of their own under it.
pub(crate) fn title(exp: &MeasuredTable) -> String {
    let text = |key: &str| exp.params.get(key).and_then(Value::as_str);
    let size = exp
        .params
        .get("payload_bytes")
        .and_then(Value::as_f64)
        .map_or(String::new(), |b| format!(" ({} bytes)", crate::units::fixed(b, 0)));
    match (text("shape"), text("operation")) {
        (Some(shape), Some(operation)) => format!("{shape}{size}, {operation}"),
        _ => format!("{}{size}", exp.table),
    }
}

/// Params as `key=value` in the file's order; strings unquoted.
pub(crate) fn params(exp: &MeasuredTable) -> String {
    exp.params
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_messages_are_cut_to_their_first_line() {
        assert_eq!(short_message("boom"), ("boom".to_string(), false));
        assert_eq!(short_message("first\nsecond"), ("first…".to_string(), true));
        let long = "x".repeat(40);
        assert_eq!(short_message(&long), (format!("{}…", "x".repeat(32)), true));
        assert_eq!(short_message(""), ("(no message)".to_string(), false));
    }
}
