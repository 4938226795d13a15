//! JUnit XML, the test report CI systems read: each table a test suite and each row a test
//! case, a failed row (the gate refused it, or its run failed) a failure; for `compare` and
//! `ab`, each compared row a test case, a regression or a row lost in new a failure, a row that
//! could not be compared skipped. Figures and advice go in `system-out`.

use std::fmt::Write;

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results, Row};
use quick_xml::escape::escape;

use crate::ab::{self, AbComparison};
use crate::advice::Advice;
use crate::advisor;
use crate::allocators;
use crate::compare::{Comparison, NotCompared};
use crate::export::Exporter;
use crate::units;

/// JUnit XML, one document printed at the end of a run.
pub(crate) struct Junit;

impl Exporter for Junit {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn prints_each_table(&self) -> bool {
        false
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        document(&results_suites(results))
    }

    fn experiment(&self, exp: &MeasuredTable, _note: Option<&str>, _color: bool) -> String {
        document(&[table_suite(exp)])
    }

    fn advice(&self, advice: &[Advice]) -> String {
        document(&[advice_suite(advice)])
    }

    fn allocator_tables(&self, comparisons: &[AllocatorComparison]) -> String {
        document(&comparisons.iter().map(allocator_suite).collect::<Vec<_>>())
    }

    fn allocator_run(&self, results: &Results) -> String {
        let mut suites: Vec<Suite> = results.allocators.iter().map(allocator_suite).collect();
        suites.push(advice_suite(&allocators::advise(results)));
        document(&suites)
    }

    fn comparison(&self, c: &Comparison) -> String {
        let mut cases: Vec<Case> = c
            .rows
            .iter()
            .map(|r| {
                // A counted row's gate is its instructions: their figures beside the verdict.
                let figures = match r.instructions {
                    Some(n) => format!(
                        "{}; instructions/op {} → {} ({}, gate at {})",
                        r.verdict_text(c.threshold),
                        units::fixed(n.base, 1),
                        units::fixed(n.new, 1),
                        crate::compare::render::signed_change(n.change),
                        units::percent(c.count_threshold)
                    ),
                    None => r.verdict_text(c.threshold),
                };
                Case {
                    class: format!("compare.{} {}", r.experiment, r.table),
                    name: r.method.clone(),
                    outcome: if r.regression() {
                        Outcome::Failed {
                            message: r.gate(),
                            detail: figures.clone(),
                        }
                    } else {
                        Outcome::Passed
                    },
                    out: Some(figures),
                }
            })
            .collect();
        cases.extend(c.not_compared.iter().map(|n| not_compared("compare", n, c.allow_missing)));
        document(&[Suite {
            name: "compare".to_string(),
            cases,
            out: Some(c.summary()),
        }])
    }

    fn ab(&self, c: &AbComparison) -> String {
        document(&[ab_suite(c)])
    }

    /// One `<testsuites>`: the results' suites, then the verdicts' (`ab`'s suite).
    fn ab_http(&self, results: &Results, c: &AbComparison, _color: bool) -> String {
        let mut suites = results_suites(results);
        suites.push(ab_suite(c));
        document(&suites)
    }
}

/// A results file's suites: a table each, an allocator table each, the advice.
fn results_suites(results: &Results) -> Vec<Suite> {
    let mut suites: Vec<Suite> = results.experiments.iter().map(table_suite).collect();
    suites.extend(results.allocators.iter().map(allocator_suite));
    suites.push(advice_suite(&advisor::advise(results)));
    suites
}

/// `ab`'s verdicts: a case per compared row (a regression fails), the rows not compared.
fn ab_suite(c: &AbComparison) -> Suite {
    let mut cases: Vec<Case> = c
        .rows
        .iter()
        .map(|r| {
            let figures = format!(
                "{}: new/base {:.3} (99% interval {:.3}–{:.3}, {} pairs)",
                r.verdict, r.ratio.estimate, r.ratio.low, r.ratio.high, r.ratio.n
            );
            Case {
                class: format!("ab.{} {}", r.experiment, r.table),
                name: r.method.clone(),
                outcome: if r.regression() {
                    Outcome::Failed {
                        message: ab::gate(r).to_string(),
                        detail: figures.clone(),
                    }
                } else {
                    Outcome::Passed
                },
                out: Some(figures),
            }
        })
        .collect();
    cases.extend(c.not_compared.iter().map(|n| not_compared("ab", n, c.allow_missing)));
    Suite {
        name: "ab".to_string(),
        cases,
        out: Some(c.summary()),
    }
}

/// A test suite: a table, a comparison, the advice.
struct Suite {
    name: String,
    cases: Vec<Case>,
    out: Option<String>,
}

/// A test case: one row.
struct Case {
    class: String,
    name: String,
    outcome: Outcome,
    out: Option<String>,
}

enum Outcome {
    Passed,
    Failed { message: String, detail: String },
    Skipped(String),
}

/// One table: a case per row, a failed row a failure with its message.
fn table_suite(exp: &MeasuredTable) -> Suite {
    let class = format!("{} {}", exp.kind, exp.table);
    Suite {
        name: class.clone(),
        cases: exp
            .rows
            .iter()
            .map(|row| Case {
                class: class.clone(),
                name: row.method.clone(),
                outcome: match &row.error_message {
                    _ if row.is_ok() => Outcome::Passed,
                    Some(message) => Outcome::Failed {
                        message: message.lines().next().unwrap_or_default().to_string(),
                        detail: message.clone(),
                    },
                    None => Outcome::Failed {
                        message: "failed".to_string(),
                        detail: String::new(),
                    },
                },
                out: figures(row),
            })
            .collect(),
        out: None,
    }
}

/// An ok row's mean and allocation, as the console shows them.
fn figures(row: &Row) -> Option<String> {
    let mean = row.mean_ns?;
    let mut out = format!("mean {}", units::time(mean));
    if let Some(error) = row.error_ns {
        let _ = write!(out, " ± {}", units::time(error));
    }
    if let Some(bytes) = row.allocated_bytes {
        let _ = write!(out, ", allocated {}", units::bytes(bytes));
    }
    Some(out)
}

/// One allocator's table: a case per row (levers, not gates: none fails).
fn allocator_suite(c: &AllocatorComparison) -> Suite {
    Suite {
        name: format!("{}: {}", allocators::TITLE, allocators::heading(c)),
        cases: c
            .rows
            .iter()
            .map(|r| Case {
                class: format!("{} {} {}", c.allocator, r.experiment, r.table),
                name: r.method.clone(),
                outcome: Outcome::Passed,
                out: Some(format!(
                    "{}/{} {:.3} (99% interval {:.3}–{:.3})",
                    c.allocator, c.base, r.ratio.estimate, r.ratio.low, r.ratio.high
                )),
            })
            .collect(),
        out: Some(allocators::legend(c)),
    }
}

/// The advice: a passing case per table, its sentences as output.
fn advice_suite(advice: &[Advice]) -> Suite {
    Suite {
        name: advisor::TITLE.to_string(),
        cases: advice
            .iter()
            .map(|a| {
                let mut text = a.text.clone();
                for alt in &a.alternatives {
                    let _ = write!(text, "\n- {}", alt.text);
                }
                Case {
                    class: "advice".to_string(),
                    name: format!("{} {}", a.experiment, a.table),
                    outcome: Outcome::Passed,
                    out: Some(text),
                }
            })
            .collect(),
        out: None,
    }
}

/// A row or table not compared: a failure when it was ok in base and lost in new (unless
/// `--allow-missing`), skipped otherwise.
fn not_compared(command: &str, n: &NotCompared, allow_missing: bool) -> Case {
    let what = n.reason.to_string();
    Case {
        class: format!("{command}.{} {}", n.experiment, n.table),
        name: n.method.clone().unwrap_or_else(|| "(whole table)".to_string()),
        outcome: match (n.lost, allow_missing) {
            (0, _) => Outcome::Skipped(what),
            (_, true) => Outcome::Skipped(format!("{what} (allowed by --allow-missing)")),
            (_, false) => Outcome::Failed {
                message: format!("ok in base: {what}"),
                detail: what,
            },
        },
        out: None,
    }
}

/// The whole document: `<testsuites>` with each suite's counts.
fn document(suites: &[Suite]) -> String {
    let count = |s: &Suite, f: fn(&Outcome) -> bool| s.cases.iter().filter(|c| f(&c.outcome)).count();
    let failed = |o: &Outcome| matches!(o, Outcome::Failed { .. });
    let skipped = |o: &Outcome| matches!(o, Outcome::Skipped(_));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"jsoncost\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        suites.iter().map(|s| s.cases.len()).sum::<usize>(),
        suites.iter().map(|s| count(s, failed)).sum::<usize>(),
        suites.iter().map(|s| count(s, skipped)).sum::<usize>(),
    );
    for s in suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            text(&s.name),
            s.cases.len(),
            count(s, failed),
            count(s, skipped)
        );
        for c in &s.cases {
            let _ = write!(out, "    <testcase classname=\"{}\" name=\"{}\"", text(&c.class), text(&c.name));
            if matches!(c.outcome, Outcome::Passed) && c.out.is_none() {
                out.push_str("/>\n");
                continue;
            }
            out.push_str(">\n");
            match &c.outcome {
                Outcome::Passed => {}
                Outcome::Failed { message, detail } => {
                    let _ = writeln!(out, "      <failure message=\"{}\">{}</failure>", text(message), text(detail));
                }
                Outcome::Skipped(why) => {
                    let _ = writeln!(out, "      <skipped message=\"{}\"/>", text(why));
                }
            }
            if let Some(o) = &c.out {
                let _ = writeln!(out, "      <system-out>{}</system-out>", text(o));
            }
            out.push_str("    </testcase>\n");
        }
        if let Some(o) = &s.out {
            let _ = writeln!(out, "    <system-out>{}</system-out>", text(o));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text for an attribute or element: escaped, less the characters XML 1.0 cannot hold (control
/// characters other than tab and line breaks, U+FFFE, U+FFFF), so a library's error message
/// cannot make the document unreadable.
fn text(raw: &str) -> String {
    let kept: String = raw
        .chars()
        .filter(|&c| matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}'))
        .collect();
    escape(kept.as_str()).into_owned()
}
