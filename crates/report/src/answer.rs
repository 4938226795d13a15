//! The answer first: a table's verdict as lines — its title with the baseline's figures, how
//! much of the work is JSON where a floor tells, then one line per rung of effort — which the
//! reader's formats (console, markdown) print, and the run's headline: one screen that holds a
//! verdict for every experiment that ran, before any table.

use jsoncost_engine::{Effort, ExperimentKind};

use crate::advice::{Advice, AdviceKind};

/// The headline's title.
pub const HEADLINE: &str = "Verdict: what moves the number, cheapest change first";

/// What the rungs mean, in one line under the headline's title.
pub fn legend() -> String {
    let rungs: Vec<String> = Effort::ALL.iter().map(|e| format!("{} = {}", e, e.means())).collect();
    format!("Rungs: {}.", rungs.join("; "))
}

/// How a step is kept, in one line under the legend.
pub const RULE: &str = "A step is kept only when its 99% interval excludes no change; each saves on top of the step above it.";

/// The most tables of one experiment the headline shows; the others' verdicts follow the tables.
pub const HEADLINE_TABLES_PER_EXPERIMENT: usize = 2;

/// One line of a verdict: a label (the rung, or what the line is) and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// "swap", "model", "JSON share", "apart", "per second" ... ; empty for the text of a
    /// table without a ladder.
    pub label: String,
    /// The line itself.
    pub text: String,
}

/// "micro: order (4,148 bytes), deserialize — baseline typed/serde_json, 9.733 µs and 7.48 KB
/// allocated per operation"
pub fn title(a: &Advice) -> String {
    let base = match &a.baseline_figures {
        Some(f) => format!(" — baseline {}: {f}", a.baseline),
        None => String::new(),
    };
    format!("{}: {}{base}", a.experiment, a.title)
}

/// The verdict's lines; `full` adds the "if you only need ..." options and the per-second
/// figures (the headline leaves them to the full verdict below the tables).
pub fn lines(a: &Advice, full: bool) -> Vec<Line> {
    let line = |label: &str, text: &str| Line {
        label: label.to_string(),
        text: text.to_string(),
    };
    let mut out = Vec::new();
    if let Some(share) = &a.json_share {
        out.push(line("JSON share", share));
    }
    if !a.crossovers.is_empty() {
        out.extend(a.crossovers.iter().map(|c| line("sizes", &format!("{c}."))));
    } else if a.ladder.is_empty() || a.kind == AdviceKind::NotComparable {
        out.push(line("", &a.text));
    } else {
        out.extend(a.ladder.iter().map(|s| line(s.effort.as_str(), &s.text)));
    }
    if full {
        out.extend(a.alternatives.iter().map(|alt| line("apart", &alt.text)));
        if let Some(p) = &a.per_second {
            out.push(line("per second", p));
        }
    }
    out
}

/// The tables the headline shows: for each experiment, in the order they ran, its size sweeps
/// (their crossovers say more than any one size), else the first table with a step of each of
/// its groups (a shape, a route), else its first tables with any advice; at most
/// [`HEADLINE_TABLES_PER_EXPERIMENT`]. Allocator levers are left to the full verdict.
pub fn headline_tables(advice: &[Advice]) -> Vec<&Advice> {
    let mut kinds: Vec<ExperimentKind> = Vec::new();
    for a in advice {
        if !kinds.contains(&a.experiment) {
            kinds.push(a.experiment);
        }
    }
    let mut out = Vec::new();
    for kind in kinds {
        let of_kind = || {
            advice
                .iter()
                .filter(move |a| a.experiment == kind && a.kind != AdviceKind::AllocatorChange)
        };
        let sweeps: Vec<&Advice> = of_kind().filter(|a| a.kind == AdviceKind::SizeSweep).collect();
        let mut chosen: Vec<&Advice> = Vec::new();
        for a in of_kind().filter(|a| a.ladder.iter().any(|s| s.method.is_some())) {
            if !chosen.iter().any(|c| c.group == a.group) {
                chosen.push(a);
            }
        }
        if !sweeps.is_empty() {
            chosen = sweeps;
        } else if chosen.is_empty() {
            chosen = of_kind().collect();
        }
        out.extend(chosen.into_iter().take(HEADLINE_TABLES_PER_EXPERIMENT));
    }
    out
}

/// A rung's label padded to the widest, so the lines' texts start in one column.
pub fn label_width() -> usize {
    Effort::ALL
        .iter()
        .map(|e| e.as_str().len())
        .chain(["JSON share", "apart", "per second", "sizes"].map(str::len))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::ExperimentKind;

    use crate::advice::Step;

    fn advice(kind: ExperimentKind, table: &str, step: bool) -> Advice {
        Advice {
            experiment: kind,
            table: table.into(),
            title: table.into(),
            group: table.into(),
            kind: AdviceKind::Recommend,
            baseline: "typed/serde_json".into(),
            candidate: None,
            text: "text".into(),
            ladder: vec![Step {
                effort: Effort::Swap,
                method: step.then(|| "typed/sonic-rs".to_string()),
                over: "typed/serde_json".into(),
                ratio: None,
                text: "typed/sonic-rs: 10.0% less time".into(),
            }],
            baseline_figures: Some("1 µs per operation".into()),
            per_second: Some("saves 0.01 of a core".into()),
            json_share: None,
            alternatives: Vec::new(),
            crossovers: Vec::new(),
        }
    }

    #[test]
    fn the_headline_takes_one_table_of_each_group() {
        let mut a = advice(ExperimentKind::Micro, "data/deserialize", true);
        let mut b = advice(ExperimentKind::Micro, "data/serialize", true);
        let mut c = advice(ExperimentKind::Micro, "order/deserialize", true);
        a.group = "data".into();
        b.group = "data".into();
        c.group = "order".into();
        let all = [a, b, c];
        let tables: Vec<&str> = headline_tables(&all).iter().map(|a| a.table.as_str()).collect();
        assert_eq!(tables, ["data/deserialize", "order/deserialize"]);
    }

    #[test]
    fn the_headline_takes_each_experiments_first_tables_with_a_step() {
        let all = [
            advice(ExperimentKind::Micro, "a", false),
            advice(ExperimentKind::Micro, "b", true),
            advice(ExperimentKind::Micro, "c", true),
            advice(ExperimentKind::Micro, "d", true),
            advice(ExperimentKind::Store, "s", false),
        ];
        let tables: Vec<&str> = headline_tables(&all).iter().map(|a| a.table.as_str()).collect();
        assert_eq!(tables, ["b", "c", "s"]);
    }

    #[test]
    fn a_verdict_is_its_title_then_one_line_per_rung_and_in_full_its_rate() {
        let a = advice(ExperimentKind::Micro, "data (75 bytes), deserialize", true);
        assert_eq!(
            title(&a),
            "micro: data (75 bytes), deserialize — baseline typed/serde_json: 1 µs per operation"
        );
        let short: Vec<(String, String)> = lines(&a, false).into_iter().map(|l| (l.label, l.text)).collect();
        assert_eq!(short, [("swap".to_string(), "typed/sonic-rs: 10.0% less time".to_string())]);
        let full = lines(&a, true);
        assert_eq!(full.last().unwrap().label, "per second");
        assert_eq!(label_width(), "architecture".len());
    }
}
