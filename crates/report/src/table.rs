//! The console table (comfy-table), for people reading a terminal.

#[cfg(feature = "color")]
use comfy_table::{Attribute, Color};
use comfy_table::{Cell, CellAlignment, Table, presets};
use jsoncost_engine::{Experiment, Results};

use crate::columns::{Align, Line, View};
use crate::{QUICK_NOTE, advisor};

pub(crate) fn render(results: &Results, color: bool) -> String {
    let m = &results.machine;
    let mut out = format!("jsoncost {}, started {}\n", results.jsoncost_version, results.started_at);
    out.push_str(&format!("Machine: {} ({} cores, {}), rustc {}\n", m.cpu, m.cores, m.os, m.rustc));
    out.push_str(&format!("CPU features: {}\n", features(&m.target_features)));
    let note = crate::simd_note(m);
    if let Some(note) = &note {
        out.push_str(note);
        out.push('\n');
    }
    if results.quick {
        out.push_str(QUICK_NOTE);
        out.push('\n');
    }
    if results.interrupted {
        out.push_str(crate::INTERRUPTED_NOTE);
        out.push('\n');
    }
    for exp in &results.experiments {
        out.push('\n');
        out.push_str(&render_experiment_noted(exp, note.as_deref(), color));
    }
    for c in &results.allocators {
        out.push('\n');
        out.push_str(&crate::allocators::render(std::slice::from_ref(c), crate::Format::Table));
    }
    out.push('\n');
    out.push_str(&advisor::render(&advisor::advise(results), crate::Format::Table));
    out
}

pub(crate) fn features(list: &[String]) -> String {
    if list.is_empty() {
        "none recorded".to_string()
    } else {
        list.join(", ")
    }
}

pub(crate) fn render_experiment(exp: &Experiment, color: bool) -> String {
    render_experiment_noted(exp, None, color)
}

/// [`render_experiment`] with `note` (the build's, [`crate::simd_note`]) under the title.
pub(crate) fn render_experiment_noted(exp: &Experiment, note: Option<&str>, color: bool) -> String {
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
