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

/// Gates, measures and orders one table. The first strategy is the baseline and the gate's
/// reference even when the filter leaves it out. A fatal failure (e.g. the server went away)
/// stops the table; its message is returned beside the rows measured so far.
pub fn measure_table(
    experiment: &str,
    table: &str,
    params: Map<String, Value>,
    mut strategies: Vec<BoxedStrategy<'_>>,
    filter: &Filter,
    config: &Config,
    progress: &Progress,
) -> (Experiment, Option<String>) {
    let mut exp = Experiment::new(experiment, table);
    exp.params = params;
    let reference = match strategies.first_mut() {
        Some(first) => gate::reference(first.as_mut()),
        None => return (exp, None),
    };
    let mut fatal = None;
    for (i, s) in strategies.iter_mut().enumerate() {
        if !filter.matches(s.name()) || interrupt::interrupted() {
            continue;
        }
        progress.start(&format!("{experiment} {table}: {}", s.name()));
        let verdict = match &reference {
            Err(e) => Verdict::Fail(format!("the baseline failed, nothing to compare with: {e}")),
            Ok(_) if i == 0 => Verdict::Pass,
            Ok(r) => gate::verify(s.as_mut(), r),
        };
        let mut row = match verdict {
            Verdict::Fail(message) => {
                if let Some(f) = s.failure().filter(|f| f.fatal) {
                    fatal = Some(format!("{}: {}", s.name(), f.message));
                }
                Row::failed(s.name(), message)
            }
            Verdict::Pass => {
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
    (exp, fatal)
}
