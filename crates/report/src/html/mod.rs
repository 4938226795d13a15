//! The HTML report: one self-contained file (inline CSS, inline SVG charts, no script, no
//! network), readable on a laptop and a phone. Tables scroll sideways on narrow screens.

pub(crate) mod ab_http;
mod allocators;
mod answer;
pub(crate) mod charts;
mod curves;
mod escape;
mod experiment;
pub(crate) mod profile;
pub(crate) mod safety;
mod sweep;
mod verdicts;

pub(crate) use escape::{esc, slug};

use std::fmt::Write;

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results};

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::advisor;
use crate::compare::Comparison;
use crate::export::Exporter;
use crate::notes::{INTERRUPTED_NOTE, QUICK_NOTE, features, simd_note};
use crate::verdicts::Verdicts;
use crate::view::heading;

const STYLE: &str = include_str!("style.css");

/// The self-contained HTML report: one document, printed once at the end of a run.
pub(crate) struct Html;

impl Exporter for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn prints_each_table(&self) -> bool {
        false
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        render(results)
    }

    /// A document holding the table's section (the note, where given, above it).
    fn experiment(&self, exp: &MeasuredTable, note: Option<&str>, _color: bool) -> String {
        let mut body = String::new();
        if let Some(note) = note {
            let _ = writeln!(body, "<p class=\"note simd\">{}</p>", esc(note));
        }
        body.push_str(&experiment::render(exp, &format!("t1-{}", slug(&exp.table))));
        page(&heading(exp), &body)
    }

    fn advice(&self, advice: &[Advice]) -> String {
        page(advisor::TITLE, &advice_section(advice))
    }

    fn allocator_tables(&self, comparisons: &[AllocatorComparison]) -> String {
        page(
            crate::allocators::TITLE,
            &comparisons.iter().map(allocators::section).collect::<String>(),
        )
    }

    fn allocator_run(&self, results: &Results) -> String {
        render(results)
    }

    fn comparison(&self, comparison: &Comparison) -> String {
        verdicts_page(&comparison.verdicts())
    }

    fn ab(&self, comparison: &AbComparison) -> String {
        verdicts_page(&comparison.verdicts())
    }

    /// The report alone: each http A/B table's section ends with its verdicts.
    fn ab_http(&self, results: &Results, _comparison: &AbComparison, _color: bool) -> String {
        render(results)
    }
}

/// The whole report as one HTML document.
pub fn render(results: &Results) -> String {
    let m = &results.machine;
    let mut out = String::from("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>jsoncost report {}</title>", esc(&results.started_at));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>\n<main>");
    out.push_str("<header>\n<h1>jsoncost report</h1>\n<dl class=\"machine\">\n");
    for (name, value) in [
        ("Started", results.started_at.clone()),
        ("CPU", format!("{} ({} cores)", m.cpu, m.cores)),
        ("OS", m.os.clone()),
        ("rustc", m.rustc.clone()),
        ("jsoncost", results.jsoncost_version.clone()),
        ("CPU features", features(&m.target_features)),
    ] {
        // The feature list is long: it takes a line of its own rather than a narrow column.
        let class = if name == "CPU features" { " class=\"wide\"" } else { "" };
        let _ = writeln!(out, "<div{class}><dt>{}</dt><dd>{}</dd></div>", esc(name), esc(&value));
    }
    out.push_str("</dl>\n");
    if let Some(note) = simd_note(m) {
        let _ = writeln!(out, "<p class=\"note simd\">{}</p>", esc(&note));
    }
    if results.quick {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(QUICK_NOTE));
    }
    if results.interrupted {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(INTERRUPTED_NOTE));
    }
    out.push_str("</header>\n");

    let ids: Vec<String> = results
        .experiments
        .iter()
        .enumerate()
        .map(|(i, e)| format!("t{}-{}", i + 1, slug(&e.table)))
        .collect();
    // The answer first: the verdict and where the time goes, then the contents, then the
    // tables (the evidence), each folded under its title, then every table's verdict in full.
    let advice = advisor::advise(results);
    if !results.experiments.is_empty() {
        out.push_str(&answer::section(results, &advice, &ids));
        out.push_str(&sweep::section(results));
    }
    out.push_str("<nav>\n<h2>Contents</h2>\n<ul>\n");
    let _ = writeln!(out, "<li><a href=\"#verdict\">{}</a></li>", esc(crate::answer::HEADLINE));
    for (exp, id) in results.experiments.iter().zip(&ids) {
        let _ = writeln!(out, "<li><a href=\"#{id}\">{}</a></li>", esc(&heading(exp)));
    }
    for c in &results.allocators {
        let _ = writeln!(
            out,
            "<li><a href=\"#{}\">{}: {}</a></li>",
            esc(&allocators::id(c)),
            esc(crate::allocators::TITLE),
            esc(c.allocator.as_str())
        );
    }
    let _ = writeln!(out, "<li><a href=\"#advice\">{}</a></li>\n</ul>\n</nav>", esc(advisor::TITLE));

    for (exp, id) in results.experiments.iter().zip(&ids) {
        let _ = writeln!(out, "<details class=\"evidence\" open>\n<summary>{}</summary>", esc(&heading(exp)));
        out.push_str(&experiment::render(exp, id));
        out.push_str("</details>\n");
    }
    for c in &results.allocators {
        out.push_str(&allocators::section(c));
    }

    out.push_str(&advice_section(&advice));
    let _ = writeln!(out, "<footer>Generated by jsoncost {}.</footer>", esc(&results.jsoncost_version));
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// The advisor's section.
fn advice_section(advice: &[Advice]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<section id=\"advice\">\n<h2>{}</h2>\n<ul class=\"advice\">",
        esc(advisor::TITLE)
    );
    for a in advice {
        let class = answer::advice_class(a.kind);
        let _ = write!(
            out,
            "<li class=\"{class}\"><strong>{}: {}</strong> {}",
            esc(a.experiment.as_str()),
            esc(&a.table),
            esc(&a.text)
        );
        if !a.alternatives.is_empty() {
            out.push_str("\n<ul class=\"other-contracts\">\n");
            for alt in &a.alternatives {
                let _ = writeln!(out, "<li>{}</li>", esc(&alt.text));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n</section>\n");
    out
}

/// A whole document around `body`: the report's style, `title` as its heading.
fn page(title: &str, body: &str) -> String {
    let mut out = String::from("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>jsoncost: {}</title>", esc(title));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>\n<main>");
    let _ = writeln!(out, "<h1>jsoncost: {}</h1>", esc(title));
    out.push_str(body);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// What `compare` and `ab` print, as a document: summary, verdict table, what was not
/// compared and the note.
fn verdicts_page(v: &Verdicts) -> String {
    let verdict = if v.regression { "Regression" } else { "No regression" };
    page(&format!("{} {verdict}", v.command), &verdicts::body(v))
}
