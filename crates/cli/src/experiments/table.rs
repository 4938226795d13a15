//! Measures one table: the correctness gate first, then the engine, then ratios and order.

use globset::GlobMatcher;
use jsoncost_codecs::BoxedStrategy;
use jsoncost_codecs::gate::{self, Verdict};
use jsoncost_engine::{Config, Experiment, Row, Stage, measure_staged};
use serde_json::{Map, Value};

use crate::interrupt;
use crate::progress::Progress;

/// Which strategies of a table to time.
#[derive(Clone)]
pub struct Filter {
    /// The flag it came from (`--filter`, `--store-filter` ...), for its errors.
    flag: &'static str,
    glob: Option<(String, GlobMatcher)>,
}

impl Filter {
    /// The filter given with `flag`, if any.
    pub fn new(flag: &'static str, pattern: Option<&str>) -> anyhow::Result<Filter> {
        match pattern {
            None => Ok(Filter { flag, glob: None }),
            Some(p) => {
                let glob = globset::Glob::new(p).map_err(|e| crate::failure::usage(anyhow::anyhow!("invalid {flag} {p:?}: {e}")))?;
                Ok(Filter {
                    flag,
                    glob: Some((p.to_string(), glob.compile_matcher())),
                })
            }
        }
    }

    pub fn matches(&self, method: &str) -> bool {
        self.glob.as_ref().is_none_or(|(_, g)| g.is_match(method))
    }

    /// Usage error when the filter matches none of `methods`, listing them.
    pub fn check_matches_any<'a>(&self, methods: impl IntoIterator<Item = &'a str>) -> anyhow::Result<()> {
        let Some((pattern, _)) = &self.glob else { return Ok(()) };
        let mut all: Vec<&str> = methods.into_iter().collect();
        if all.iter().any(|m| self.matches(m)) {
            return Ok(());
        }
        all.sort();
        all.dedup();
        Err(crate::failure::usage(anyhow::anyhow!(
            "{} {pattern:?} matches no strategy; the strategies are: {}",
            self.flag,
            all.join(", ")
        )))
    }
}

/// Gates, measures and orders one table. Every strategy, the baseline (the first) too, is
/// checked against the exact `reference`; the baseline is checked first and even when the
/// filter leaves it out, because a baseline that fails on the input leaves the table nothing to
/// be relative to: that is bad input (exit 2 with its error), never a cue to pick another
/// baseline. A fatal failure (e.g. the server went away) stops the table; its message is
/// returned beside the rows measured so far.
#[allow(clippy::too_many_arguments)]
pub fn measure_table(
    experiment: &str,
    table: &str,
    params: Map<String, Value>,
    reference: &gate::Reference,
    mut strategies: Vec<BoxedStrategy<'_>>,
    filter: &Filter,
    config: &Config,
    progress: &Progress,
) -> anyhow::Result<(Experiment, Option<String>)> {
    let mut exp = Experiment::new(experiment, table);
    exp.params = params;
    let Some(first) = strategies.first_mut() else {
        return Ok((exp, None));
    };
    let mut baseline = Some(gate::verify(first.as_mut(), reference));
    if let Some(Verdict::Fail(message)) = &baseline {
        if let Some(f) = first.failure().filter(|f| f.fatal) {
            return Ok((exp, Some(format!("{}: {}", first.name(), f.message))));
        }
        return Err(crate::failure::usage(anyhow::anyhow!(
            "{experiment} {table}: the baseline {} fails on this input, so the table is not measured: {message}",
            first.name()
        )));
    }
    let mut fatal = None;
    for (i, s) in strategies.iter_mut().enumerate() {
        if !filter.matches(s.name()) || interrupt::interrupted() {
            continue;
        }
        progress.start(&format!("{experiment} {table}: {}", s.name()));
        let verdict = match baseline.take() {
            Some(v) if i == 0 => v,
            _ => gate::verify(s.as_mut(), reference),
        };
        let mut row = match verdict {
            Verdict::Fail(message) => {
                if let Some(f) = s.failure().filter(|f| f.fatal) {
                    fatal = Some(format!("{}: {}", s.name(), f.message));
                }
                Row::failed(s.name(), message)
            }
            Verdict::Pass(fidelity) => {
                let mut counting = false;
                let m = measure_staged(config, |stage| {
                    if stage == Stage::Allocation && !counting {
                        counting = true;
                        s.begin_allocation_pass();
                    }
                    s.run()
                });
                match s.failure() {
                    Some(f) => {
                        if f.fatal {
                            fatal = Some(format!("{}: {}", s.name(), f.message));
                        }
                        Row::failed(s.name(), f.message)
                    }
                    None => {
                        let mut row = Row::new(s.name());
                        m.fill(&mut row, s.payload_bytes());
                        row.fidelity = Some(fidelity);
                        row
                    }
                }
            }
        };
        row.baseline = i == 0;
        exp.rows.push(row);
        progress.done_one();
        if fatal.is_some() {
            break;
        }
    }
    exp.finish();
    Ok((exp, fatal))
}
