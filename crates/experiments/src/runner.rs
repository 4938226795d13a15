//! The one Runner every table goes through: the correctness gate (untimed), the engine's
//! stages, the Allocation pass, the baseline, fatal failures and cancellation, in one loop.

use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::{BoxedStrategy, Contract, RunFailure, Strategy};
use jsoncost_engine::{
    Blame, ExperimentKind, Fidelity, Lineup, MeasureConfig, MeasuredTable, Row, Schedule, Stage, measure_interleaved, try_measure_staged,
};
use serde_json::{Map, Value};

use crate::cancel::Cancel;
use crate::error::Error;
use crate::filter::Filter;
use crate::sink::Sink;
use crate::summary::{self, Summarize};

/// One table to measure: every strategy is checked against the exact `reference` (the source
/// text's exact parse, or the value a serialize table writes). The first strategy is the
/// baseline, the rows' Ratio.
pub struct Table<'a> {
    /// Which experiment measures it.
    pub kind: ExperimentKind,
    /// Its name, e.g. `order/deserialize`.
    pub name: String,
    /// What it was measured with (`shape`, `payload_bytes` ...): `compare` pairs tables by it.
    pub params: Map<String, Value>,
    /// `None`: each strategy checks itself against its source ([`Strategy::verify`]).
    pub reference: Option<Reference>,
    /// Its strategies, the baseline first.
    pub strategies: Vec<BoxedStrategy<'a>>,
    /// The baseline's fidelity when the caller already verified it (before validating the
    /// input, to report a failing baseline as such): it is not checked again.
    pub baseline_verified: Option<Fidelity>,
    /// What it means when every row fails: the command's error once everything is written.
    pub if_all_failed: AllFailed,
    /// Its summary, computed once the table is finished (`None`: the table has none).
    pub summarize: Option<Summarize>,
}

/// What a table whose every row failed says about the run (the one rule for every table, so a
/// broken run never exits 0): the input is bad (exit 2), or what was measured failed (exit 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllFailed {
    /// Every strategy refused the input (a document, a body, a sample).
    BadInput,
    /// What was measured failed: a server, a store.
    Environment,
}

impl AllFailed {
    /// The default for a kind of table, as its traits blame ([`jsoncost_engine::KindTraits::all_failed`]):
    /// an http table measures a server, the others data.
    pub fn of(kind: ExperimentKind) -> AllFailed {
        match kind.traits().all_failed {
            Blame::Environment => AllFailed::Environment,
            Blame::Input => AllFailed::BadInput,
        }
    }

    /// The error a command ends with for `exp`, every row of which failed (but a floor,
    /// which does none of the work: see [`Ran`]). Names the first failed row's reason.
    pub fn error(self, exp: &MeasuredTable) -> Error {
        let first = exp.rows.iter().find(|r| !r.is_ok()).unwrap_or(&exp.rows[0]);
        let why = first
            .error_message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or("no message");
        let ok: Vec<&str> = exp.rows.iter().filter(|r| r.is_ok()).map(|r| r.method.as_str()).collect();
        let but = if ok.is_empty() {
            String::new()
        } else {
            format!(" but {}", ok.join(", "))
        };
        let message = format!(
            "every row of {}: {}{but} failed ({}: {why}); see the table",
            exp.kind, exp.table, first.method
        );
        match self {
            AllFailed::BadInput => Error::Usage(message),
            AllFailed::Environment => Error::Environment(message),
        }
    }
}

impl<'a> Table<'a> {
    /// A table whose strategies are checked against `reference`.
    pub fn new(
        kind: ExperimentKind,
        name: impl Into<String>,
        params: Map<String, Value>,
        reference: Reference,
        strategies: Vec<BoxedStrategy<'a>>,
    ) -> Self {
        Table {
            kind,
            name: name.into(),
            params,
            reference: Some(reference),
            strategies,
            baseline_verified: None,
            if_all_failed: AllFailed::of(kind),
            summarize: None,
        }
    }

    /// A table whose strategies check themselves against their source (no shared reference).
    pub fn self_checked(
        kind: ExperimentKind,
        name: impl Into<String>,
        params: Map<String, Value>,
        strategies: Vec<BoxedStrategy<'a>>,
    ) -> Self {
        Table {
            kind,
            name: name.into(),
            params,
            reference: None,
            strategies,
            baseline_verified: None,
            if_all_failed: AllFailed::of(kind),
            summarize: None,
        }
    }

    /// The table with its summary computed by `summarize` once it is finished.
    pub fn summarized_by(self, summarize: Summarize) -> Self {
        Table {
            summarize: Some(summarize),
            ..self
        }
    }
}

/// Why a table stopped before its last strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableStop {
    /// A failure the rest of the run cannot survive (the server went away): `method: message`.
    Fatal(String),
    /// The cancel flag was set; the current strategy was finished first.
    Cancelled,
    /// The baseline fails on the input (an error, or values other than the reference's): the
    /// table has nothing to be relative to, so it is not measured. Bad input, with its message.
    BadBaseline(String),
}

/// Why a table stopped early, as the error its experiment returns.
impl From<TableStop> for Error {
    fn from(stop: TableStop) -> Error {
        match stop {
            TableStop::Cancelled => Error::Interrupted,
            TableStop::Fatal(m) => Error::Environment(m),
            TableStop::BadBaseline(m) => Error::Usage(m),
        }
    }
}

/// What a table that ran to its end measured: its rows that do the table's work (all but a
/// store's floor, which discards what it read), and how many of them failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ran {
    /// Rows shown (ok or failed).
    pub rows: usize,
    /// Of which failed.
    pub failed: usize,
}

impl Ran {
    /// Rows were shown and every one failed.
    pub fn all_failed(&self) -> bool {
        self.rows > 0 && self.failed == self.rows
    }
}

/// What the Runner does with each table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunMode {
    /// Gate, then time every strategy that passed (the default).
    #[default]
    Measure,
    /// The gate alone: each strategy once, untimed, its row ok or failed (a bench harness's
    /// test mode, as divan runs each benchmark once under `cargo test`).
    Gate,
    /// Nothing run: each strategy the filter lets through is named to [`Sink::listed`].
    List,
    /// The gate, then each strategy's operations counted under Callgrind (this process is the
    /// counted child of `--measure counts`: [`jsoncost_engine::counts::requested_ops`]), that
    /// many each; no timing, no allocation pass. The counts are read from Callgrind's dumps
    /// by the conductor, not from the rows.
    Count(u64),
}

/// Runs tables through the gate and the engine, reporting to a [`Sink`].
pub struct Runner<'s> {
    config: MeasureConfig,
    filter: Filter,
    cancel: Cancel,
    sink: &'s mut dyn Sink,
    mode: RunMode,
}

impl<'s> Runner<'s> {
    /// A runner measuring with `config`, the strategies `filter` lets through, until `cancel`.
    pub fn new(config: MeasureConfig, filter: Filter, cancel: Cancel, sink: &'s mut dyn Sink) -> Self {
        Runner {
            config,
            filter,
            cancel,
            sink,
            // Under Callgrind, asked by the conductor: every Runner counts, the CLI's and a
            // bench harness's alike.
            mode: jsoncost_engine::counts::requested_ops().map_or(RunMode::Measure, RunMode::Count),
        }
    }

    /// The same runner, doing `mode` with each table.
    pub fn with_mode(mut self, mode: RunMode) -> Self {
        self.mode = mode;
        self
    }

    /// What it does with each table.
    pub fn mode(&self) -> RunMode {
        self.mode
    }

    /// The engine settings it measures with.
    pub fn config(&self) -> &MeasureConfig {
        &self.config
    }

    /// The same runner with other engine settings (the stream experiment times whole runs).
    pub fn with_config<R>(&mut self, config: MeasureConfig, f: impl FnOnce(&mut Runner<'_>) -> R) -> R {
        let saved = std::mem::replace(&mut self.config, config);
        let r = f(self);
        self.config = saved;
        r
    }

    /// Which strategies it lets through.
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    /// The same runner letting `filter` through (a study's unit, its filter inside its tables).
    pub fn with_filter<R>(&mut self, filter: Filter, f: impl FnOnce(&mut Runner<'_>) -> R) -> R {
        let saved = std::mem::replace(&mut self.filter, filter);
        let r = f(self);
        self.filter = saved;
        r
    }

    /// The flag that stops it between strategies.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Whether that flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Where progress and tables go.
    pub fn sink(&mut self) -> &mut dyn Sink {
        &mut *self.sink
    }

    /// How many of `strategies` the filter lets through (for the progress total).
    pub fn timed_count(&self, strategies: &[BoxedStrategy<'_>]) -> u64 {
        strategies.iter().filter(|s| self.filter.matches(s.name())).count() as u64
    }

    /// Gates, times and orders one table, hands it to the sink (also when it stopped early,
    /// with the rows measured so far), and says why it stopped early, if it did.
    pub fn run(&mut self, table: Table<'_>) -> Result<Ran, TableStop> {
        // Inside the table, a harness's filter also matches its name.
        let filter = self.filter.in_tables(std::slice::from_ref(&table.name));
        self.with_filter(filter, |runner| runner.run_table(table))
    }

    fn run_table(&mut self, table: Table<'_>) -> Result<Ran, TableStop> {
        let Table {
            kind,
            name,
            params,
            reference,
            mut strategies,
            baseline_verified,
            if_all_failed,
            summarize,
        } = table;
        if self.mode == RunMode::List {
            for s in strategies.iter().filter(|s| self.filter.matches(s.name())) {
                self.sink.listed(&name, s.name());
            }
            return Ok(Ran::default());
        }
        let mut exp = MeasuredTable::new(kind, &name);
        exp.params = params;
        let mut stop = None;
        // Every failure so far said the input is wrong (see `RunFailure::bad_input`).
        let mut only_bad_input = true;
        // The baseline is checked first, even when the filter leaves it out: a baseline that
        // fails on the input is bad input, never a cue to pick another one.
        let mut baseline = match strategies.first_mut() {
            None => return Ok(Ran::default()),
            Some(first) => match baseline_verified.map_or_else(|| first.verify(reference.as_ref()), Ok) {
                Ok(fidelity) => Some(fidelity),
                Err(f) if f.fatal => return Err(TableStop::Fatal(format!("{}: {}", first.name(), f.message))),
                Err(f) => {
                    return Err(TableStop::BadBaseline(format!(
                        "{kind} {name}: the baseline {} fails on this input, so the table is not measured: {}",
                        first.name(),
                        f.message
                    )));
                }
            },
        };
        // Gate mode: the sequential loop, each strategy checked and not timed.
        let gate_only = self.mode == RunMode::Gate;
        // Count mode: the sequential loop too, each strategy checked, then counted.
        // Load rows (which measure themselves) are not counted: their work is a server's.
        // A whole run (stream) is one operation: counted once, after one run uncounted.
        let count_ops = match self.mode {
            RunMode::Count(_) if kind.traits().measures_itself => None,
            RunMode::Count(_) if kind.traits().row == jsoncost_engine::RowMeasure::WholeRun => Some(1),
            RunMode::Count(ops) => Some(ops),
            _ => None,
        };
        let untimed_table = gate_only || matches!(self.mode, RunMode::Count(_));
        // Load rows measure themselves (an http table's modes together, in slices).
        let interleave = !untimed_table && self.config.schedule == Schedule::Interleaved && !kind.traits().measures_itself;
        if interleave {
            exp.schedule = Schedule::Interleaved;
            let (why, bad_input) = self.interleaved(&name, &mut strategies, baseline.take(), reference.as_ref(), &mut exp);
            stop = why;
            only_bad_input = bad_input;
        } else {
            for (i, s) in strategies.iter_mut().enumerate() {
                if self.cancel.is_cancelled() {
                    stop = Some(TableStop::Cancelled);
                    break;
                }
                if !self.filter.matches(s.name()) {
                    continue;
                }
                self.sink.strategy_started(&name, s.name());
                let verdict = match baseline.take() {
                    Some(fidelity) if i == 0 => Ok(fidelity),
                    _ => s.verify(reference.as_ref()),
                };
                let measured = verdict.and_then(|fidelity| {
                    if let Some(ops) = count_ops {
                        count(&name, ops, s.as_mut(), fidelity)
                    } else if untimed_table {
                        Ok(untimed(s.name(), fidelity))
                    } else {
                        time(&self.config, s.as_mut(), fidelity)
                    }
                });
                let row = match measured {
                    Ok(row) => row,
                    Err(f) => {
                        if f.fatal {
                            stop = Some(TableStop::Fatal(format!("{}: {}", s.name(), f.message)));
                        }
                        only_bad_input &= f.bad_input;
                        failed_row(s.name(), f)
                    }
                };
                let mut row = of_strategy(row, s.as_ref());
                row.baseline = i == 0;
                self.sink.strategy_done(&name, &row);
                exp.rows.push(row);
                if stop.is_some() {
                    break;
                }
            }
        }
        // Load rows measured together in slices (http) carry their rounds: they pair round by
        // round as an interleaved table's rows do.
        if kind.traits().measures_itself && exp.rows.iter().any(|r| !r.rounds_ns.is_empty()) {
            exp.schedule = Schedule::Interleaved;
        }
        // A row that discards what it read (a store's floor) does none of the work a table
        // measures: a table whose every other row failed measured nothing, whatever the floor did.
        let working = || exp.rows.iter().filter(|r| r.contract != Some(Contract::Discarded));
        let ran = Ran {
            rows: working().count(),
            failed: working().filter(|r| !r.is_ok()).count(),
        };
        // A table the filter left empty measured nothing: it is not shown. Gate mode hands the
        // rows over as the gate left them (no timing, so no order, ratios or summary).
        if untimed_table && !exp.rows.is_empty() {
            self.sink.table_done(exp);
        } else if !exp.rows.is_empty() {
            exp.finish();
            summary::finish(&mut exp, summarize);
            let means = if only_bad_input { AllFailed::BadInput } else { if_all_failed };
            let all_failed = ran.all_failed().then(|| means.error(&exp));
            self.sink.table_done(exp);
            if let Some(error) = all_failed {
                self.sink.all_failed(error);
            }
        }
        stop.map_or(Ok(ran), Err)
    }

    /// The interleaved schedule: every strategy through the gate first (untimed), then the ones
    /// that passed measured together in rounds (`engine::measure_interleaved`); rows are pushed
    /// in table order. A fatal failure stops the rounds: the rows keep the complete rounds
    /// before it. Cancellation ends the rounds after the current one (the Allocation passes
    /// still run, as a cancelled sequential strategy finishes its own). The rounds' run-queue
    /// wait, when the times leave it out, goes with the rows. Returns why it stopped early, and
    /// whether every failure said the input is wrong.
    fn interleaved(
        &mut self,
        table: &str,
        strategies: &mut [BoxedStrategy<'_>],
        mut baseline: Option<Fidelity>,
        reference: Option<&Reference>,
        exp: &mut MeasuredTable,
    ) -> (Option<TableStop>, bool) {
        let mut stop = None;
        let mut only_bad_input = true;
        // (index in the table, fidelity) of the strategies that passed the gate.
        let mut passed: Vec<(usize, Fidelity)> = Vec::new();
        // Rows in table order: None for a strategy still to be measured.
        let mut slots: Vec<(usize, Option<Row>)> = Vec::new();
        for (i, s) in strategies.iter_mut().enumerate() {
            if self.cancel.is_cancelled() {
                stop = Some(TableStop::Cancelled);
                break;
            }
            if !self.filter.matches(s.name()) {
                continue;
            }
            self.sink.strategy_started(table, s.name());
            let verdict = match baseline.take() {
                Some(fidelity) if i == 0 => Ok(fidelity),
                _ => s.verify(reference),
            };
            match verdict {
                Ok(fidelity) => {
                    passed.push((i, fidelity));
                    slots.push((i, None));
                }
                Err(f) => {
                    only_bad_input &= f.bad_input;
                    let fatal = f.fatal.then(|| TableStop::Fatal(format!("{}: {}", s.name(), f.message)));
                    let row = failed_row(s.name(), f);
                    self.sink.strategy_done(table, &row);
                    slots.push((i, Some(row)));
                    if fatal.is_some() {
                        stop = fatal;
                        break;
                    }
                }
            }
        }
        let mut measured: Vec<Option<Row>> = vec![None; strategies.len()];
        if stop.is_none() && !passed.is_empty() {
            self.sink
                .status(&format!("{table}: {} strategies in interleaved rounds", passed.len()));
            let mut lineup = Together {
                members: passed.iter().map(|&(i, _)| i).collect(),
                strategies: &mut *strategies,
                counting: vec![false; passed.len()],
                first_failure: vec![None; passed.len()],
                cancel: &self.cancel,
                progress: &mut *self.sink,
                table,
            };
            let result = measure_interleaved(&self.config, &mut lineup);
            exp.run_queue_wait = result.run_queue_wait;
            let Together {
                members, first_failure, ..
            } = lineup;
            let mut stopped = result.stopped.map(|(k, f)| {
                let name = strategies[members[k]].name().to_string();
                stop = Some(TableStop::Fatal(format!("{name}: {}", f.message)));
                (k, f)
            });
            let mut first_failure = first_failure;
            for (k, m) in result.measurements.into_iter().enumerate() {
                let s = &strategies[members[k]];
                let message = stopped.as_ref().map(|(_, f)| f.message.clone());
                let row = match (stopped.take_if(|(who, _)| *who == k), first_failure[k].take(), m) {
                    (Some((_, f)), _, _) | (None, Some(f), _) => {
                        only_bad_input &= f.bad_input;
                        failed_row(s.name(), f)
                    }
                    (None, None, Some(m)) => {
                        let mut row = Row::new(s.name());
                        m.fill(&mut row, s.payload_bytes());
                        row.fidelity = Some(passed[k].1.clone());
                        row
                    }
                    (None, None, None) => match &message {
                        Some(message) => Row::failed(s.name(), format!("not measured: the rounds stopped at a failure ({message})")),
                        None => Row::failed(s.name(), "not measured: the rounds stopped before two were complete"),
                    },
                };
                measured[members[k]] = Some(row);
            }
            if stop.is_none() && self.cancel.is_cancelled() {
                stop = Some(TableStop::Cancelled);
            }
        }
        for (i, slot) in slots {
            let row = match slot {
                Some(row) => row,
                None => match measured[i].take() {
                    Some(row) => {
                        self.sink.strategy_done(table, &row);
                        row
                    }
                    // Passed the gate, but the cancel flag came before the rounds began: not
                    // measured, so not shown (as a sequential table leaves out what it did
                    // not start).
                    None if stop == Some(TableStop::Cancelled) => continue,
                    // Passed the gate, but a fatal failure in a later gate stopped the table.
                    None => {
                        let row = Row::failed(strategies[i].name(), "not measured: the table stopped at a failure");
                        self.sink.strategy_done(table, &row);
                        row
                    }
                },
            };
            let mut row = of_strategy(row, strategies[i].as_ref());
            row.baseline = i == 0;
            exp.rows.push(row);
        }
        (stop, only_bad_input)
    }
}

/// `row` as `s`'s, whoever made it (the engine, a failure, a load run): its identity, what it
/// delivers and what adopting it takes, recorded in one place for every schedule and mode.
fn of_strategy(mut row: Row, s: &dyn Strategy) -> Row {
    row.method = s.name().to_string();
    row.strategy = s.id().clone();
    row.contract = Some(s.contract());
    row.effort = Some(s.effort());
    row
}

/// A strategy's row in gate mode: passed, with its fidelity, and no timing.
fn untimed(method: &str, fidelity: Fidelity) -> Row {
    let mut row = Row::new(method);
    row.fidelity = Some(fidelity);
    row
}

/// A strategy's row in count mode: its operations counted under Callgrind between client
/// requests ([`jsoncost_engine::counts::count_pass`]); the row itself carries no figure.
fn count(table: &str, ops: u64, s: &mut dyn Strategy, fidelity: Fidelity) -> Result<Row, RunFailure> {
    let label = jsoncost_engine::counts::label(table, s.name(), ops);
    jsoncost_engine::counts::count_pass(&label, ops, || s.run())?;
    Ok(untimed(s.name(), fidelity))
}

/// The row a failure leaves: the one it measured (a load run's error counts), else its message.
fn failed_row(method: &str, f: RunFailure) -> Row {
    match f.row {
        Some(row) => *row,
        None => Row::failed(method, f.message),
    }
}

/// The strategies that passed the gate, as the engine's [`Lineup`]: one-operation failures are
/// kept to fail the row (the rounds go on, as sequential timing does); fatal ones stop them.
struct Together<'t, 'a> {
    /// Index in `strategies` of each member.
    members: Vec<usize>,
    strategies: &'t mut [BoxedStrategy<'a>],
    counting: Vec<bool>,
    first_failure: Vec<Option<RunFailure>>,
    cancel: &'t Cancel,
    /// Told each round done (a table of whole runs spends seconds per round).
    progress: &'t mut dyn Sink,
    table: &'t str,
}

impl Lineup for Together<'_, '_> {
    type Error = RunFailure;

    fn len(&self) -> usize {
        self.members.len()
    }

    fn begin_round(&mut self, k: usize, round: u64) {
        self.strategies[self.members[k]].begin_round(round);
    }

    fn should_stop(&self) -> bool {
        self.cancel.is_cancelled()
    }

    fn round_done(&mut self, rounds: u64) {
        let (table, n) = (self.table, self.members.len());
        self.progress
            .status(&format!("{table}: {n} strategies in interleaved rounds, {rounds} done"));
    }

    fn op(&mut self, k: usize, stage: Stage) -> Result<(), RunFailure> {
        let s = &mut self.strategies[self.members[k]];
        if stage == Stage::Allocation && !self.counting[k] {
            self.counting[k] = true;
            s.begin_allocation_pass();
        }
        match s.run() {
            Err(f) if f.fatal => Err(f),
            Err(f) => {
                self.first_failure[k].get_or_insert(f);
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }
}

/// The engine's stages on `s`; the Allocation pass starts with `begin_allocation_pass`, so a
/// strategy walking a sequence restarts it and two runs count the same operations. A fatal
/// failure stops the timing at once; a failure of one operation (a corrupt document among
/// those a read visits) fails the row but the timing goes on, so a fatal one met later (the
/// server died) is still seen and stops the run.
fn time(config: &MeasureConfig, s: &mut dyn Strategy, fidelity: Fidelity) -> Result<Row, RunFailure> {
    if let Some(row) = s.measure() {
        return row;
    }
    let mut counting = false;
    let mut first_failure = None;
    let m = try_measure_staged(config, |stage| {
        if stage == Stage::Allocation && !counting {
            counting = true;
            s.begin_allocation_pass();
        }
        match s.run() {
            Err(f) if f.fatal => Err(f),
            Err(f) => {
                first_failure.get_or_insert(f);
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    })?;
    if let Some(f) = first_failure {
        return Err(f);
    }
    let mut row = Row::new(s.name());
    m.fill(&mut row, s.payload_bytes());
    row.fidelity = Some(fidelity);
    Ok(row)
}

#[cfg(test)]
mod tests {
    //! The Runner with mock strategies (hyperfine's MockExecutor is the model): no JSON, and
    //! no timing in the assertions.

    use super::*;
    use crate::sink::{Event, Recorder};
    use jsoncost_codecs::Canonical;
    use jsoncost_engine::Status;
    use serde_json::json;
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// What a mock saw: its check and run calls, and every run's cursor around the
    /// allocation pass.
    #[derive(Debug, Default)]
    struct Calls {
        checks: u32,
        runs: u32,
        begins: u32,
        /// The cursor each run saw, with `None` marking `begin_allocation_pass`.
        cursors: Vec<Option<u32>>,
        /// The rounds `begin_round` announced.
        rounds: Vec<u64>,
    }

    struct Mock {
        name: &'static str,
        /// Its name taken whole.
        id: jsoncost_codecs::StrategyId,
        output: Result<Canonical, RunFailure>,
        /// The run call (1-based) that fails, and how.
        fail_on_run: Option<(u32, RunFailure)>,
        cursor: u32,
        calls: Rc<RefCell<Calls>>,
        /// Set when this strategy's first run happens (a Ctrl-C during it).
        cancel_on_run: Option<Arc<AtomicBool>>,
        /// Set when this strategy is checked (a Ctrl-C during the gate).
        cancel_on_check: Option<Arc<AtomicBool>>,
        contract: jsoncost_codecs::Contract,
        /// Where every run of any mock sharing it is named, in order.
        log: Option<Rc<RefCell<Vec<&'static str>>>>,
    }

    impl Mock {
        fn new(name: &'static str, value: i64) -> (Mock, Rc<RefCell<Calls>>) {
            let calls = Rc::new(RefCell::new(Calls::default()));
            let m = Mock {
                name,
                id: jsoncost_codecs::StrategyId::named(name),
                output: Ok(Canonical::Full(json!({ "v": value }))),
                fail_on_run: None,
                cursor: 0,
                calls: calls.clone(),
                cancel_on_run: None,
                cancel_on_check: None,
                contract: jsoncost_codecs::Contract::TypedValue,
                log: None,
            };
            (m, calls)
        }
    }

    impl Strategy for Mock {
        fn id(&self) -> &jsoncost_codecs::StrategyId {
            &self.id
        }
        fn contract(&self) -> jsoncost_codecs::Contract {
            self.contract
        }
        fn effort(&self) -> jsoncost_codecs::Effort {
            jsoncost_codecs::Effort::Swap
        }
        fn check(&mut self) -> Result<Canonical, RunFailure> {
            self.calls.borrow_mut().checks += 1;
            if let Some(flag) = &self.cancel_on_check {
                flag.store(true, Ordering::SeqCst);
            }
            self.output.clone()
        }
        fn run(&mut self) -> Result<(), RunFailure> {
            if let Some(log) = &self.log {
                log.borrow_mut().push(self.name);
            }
            let mut c = self.calls.borrow_mut();
            c.runs += 1;
            c.cursors.push(Some(self.cursor));
            self.cursor += 1;
            if let Some(flag) = &self.cancel_on_run {
                flag.store(true, Ordering::SeqCst);
            }
            match &self.fail_on_run {
                Some((n, f)) if c.runs == *n => Err(f.clone()),
                _ => Ok(()),
            }
        }
        fn begin_round(&mut self, round: u64) {
            self.calls.borrow_mut().rounds.push(round);
        }
        fn begin_allocation_pass(&mut self) {
            self.cursor = 0;
            let mut c = self.calls.borrow_mut();
            c.begins += 1;
            c.cursors.push(None);
        }
    }

    /// One strategy after another, a few runs each.
    fn config() -> MeasureConfig {
        MeasureConfig {
            alloc_ops: 3,
            budget: Duration::from_secs(5),
            warmup_iterations: 1,
            schedule: Schedule::Sequential,
            ..MeasureConfig::whole_runs(3, 4, Duration::from_secs(5), true)
        }
    }

    fn table(strategies: Vec<Mock>) -> Table<'static> {
        Table::new(
            ExperimentKind::Micro,
            "t/op",
            Map::new(),
            Reference::of(&json!({ "v": 1 })).unwrap(),
            strategies.into_iter().map(|m| Box::new(m) as BoxedStrategy<'static>).collect(),
        )
    }

    fn run(strategies: Vec<Mock>, filter: Filter, cancel: Cancel) -> (Result<Ran, TableStop>, Recorder) {
        run_with(config(), strategies, filter, cancel)
    }

    fn run_with(config: MeasureConfig, strategies: Vec<Mock>, filter: Filter, cancel: Cancel) -> (Result<Ran, TableStop>, Recorder) {
        let mut rec = Recorder::default();
        let r = Runner::new(config, filter, cancel, &mut rec).run(table(strategies));
        (r, rec)
    }

    fn interleaved() -> MeasureConfig {
        MeasureConfig {
            schedule: Schedule::Interleaved,
            ..config()
        }
    }

    fn row<'e>(e: &'e MeasuredTable, method: &str) -> &'e Row {
        e.rows.iter().find(|r| r.method == method).unwrap()
    }

    #[test]
    fn a_strategy_that_disagrees_is_never_timed_and_its_row_says_why() {
        let (base, _) = Mock::new("base", 1);
        let (wrong, wrong_calls) = Mock::new("wrong", 2);
        let (right, right_calls) = Mock::new("right", 1);
        let (r, rec) = run(vec![base, wrong, right], Filter::default(), Cancel::never());
        assert_eq!(r, Ok(Ran { rows: 3, failed: 1 }));
        let e = &rec.tables[0];
        let w = row(e, "wrong");
        assert_eq!(w.status, Status::Failed);
        assert_eq!(
            w.error_message.as_deref(),
            Some("output differs from the exact reference at /v: expected 1, got 2")
        );
        assert_eq!(w.mean_ns, None);
        assert_eq!((wrong_calls.borrow().checks, wrong_calls.borrow().runs), (1, 0));
        assert!(right_calls.borrow().runs > 0);
        assert_eq!(row(e, "right").status, Status::Ok);
        // Every row, failed or timed, records what its strategy delivers.
        assert!(e.rows.iter().all(|r| r.contract == Some(jsoncost_codecs::Contract::TypedValue)));
    }

    fn run_in(mode: RunMode, strategies: Vec<Mock>, filter: Filter) -> (Result<Ran, TableStop>, Recorder) {
        let mut rec = Recorder::default();
        let r = Runner::new(config(), filter, Cancel::never(), &mut rec)
            .with_mode(mode)
            .run(table(strategies));
        (r, rec)
    }

    /// Every row carries its strategy's own identity, whichever schedule or mode made it and
    /// whether it passed: the Runner never reads it back from a name (two strategies with one
    /// name keep their own).
    #[test]
    fn each_row_carries_its_strategys_identity_in_every_schedule_and_mode() {
        use jsoncost_codecs::StrategyId;
        let ids = || {
            [
                StrategyId::new("typed", "a"),
                StrategyId::new("typed/odd", "b"),
                StrategyId::named("typed/odd/b"),
                StrategyId::new("dom", "a"),
            ]
        };
        let mocks = || {
            ids()
                .into_iter()
                .zip([1, 1, 1, 2])
                .map(|(id, value)| {
                    let (mut m, _) = Mock::new("unused", value);
                    m.id = id;
                    m
                })
                .collect::<Vec<_>>()
        };
        let runs = [
            run_with(config(), mocks(), Filter::default(), Cancel::never()),
            run_with(interleaved(), mocks(), Filter::default(), Cancel::never()),
            run_in(RunMode::Gate, mocks(), Filter::default()),
        ];
        for (_, rec) in runs {
            let e = &rec.tables[0];
            let mut got: Vec<(StrategyId, String, Status)> =
                e.rows.iter().map(|r| (r.strategy.clone(), r.method.clone(), r.status)).collect();
            got.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.style().cmp(b.0.style())));
            let mut want: Vec<(StrategyId, String, Status)> = ids()
                .into_iter()
                .map(|id| {
                    let status = if id.style() == "dom" { Status::Failed } else { Status::Ok };
                    (id.clone(), id.name().to_string(), status)
                })
                .collect();
            want.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.style().cmp(b.0.style())));
            assert_eq!(got, want);
        }
    }

    #[test]
    fn gate_mode_checks_every_strategy_once_and_never_runs_one() {
        let (base, base_calls) = Mock::new("base", 1);
        let (wrong, wrong_calls) = Mock::new("wrong", 2);
        let (right, right_calls) = Mock::new("right", 1);
        let (r, rec) = run_in(RunMode::Gate, vec![base, wrong, right], Filter::default());
        assert_eq!(r, Ok(Ran { rows: 3, failed: 1 }));
        for calls in [&base_calls, &wrong_calls, &right_calls] {
            assert_eq!((calls.borrow().checks, calls.borrow().runs), (1, 0));
        }
        let e = &rec.tables[0];
        assert_eq!(
            e.rows.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
            ["base", "wrong", "right"]
        );
        assert!(e.rows[0].baseline && e.rows[0].fidelity.is_some() && e.rows[0].mean_ns.is_none());
        assert_eq!(
            row(e, "wrong").error_message.as_deref(),
            Some("output differs from the exact reference at /v: expected 1, got 2")
        );
        assert!(e.rows.iter().all(|r| r.contract == Some(jsoncost_codecs::Contract::TypedValue)));
    }

    #[test]
    fn list_mode_names_what_the_filter_lets_through_and_runs_nothing() {
        let (base, base_calls) = Mock::new("typed/a", 1);
        let (other, _) = Mock::new("dom/a", 1);
        let filter = Filter::new("--filter", Some("typed/*")).unwrap();
        let (r, rec) = run_in(RunMode::List, vec![base, other], filter);
        assert_eq!(r, Ok(Ran::default()));
        assert_eq!((base_calls.borrow().checks, base_calls.borrow().runs), (0, 0));
        assert!(rec.tables.is_empty());
        assert_eq!(
            rec.events,
            [Event::Listed {
                table: "t/op".into(),
                method: "typed/a".into()
            }]
        );
    }

    #[test]
    fn a_failing_check_fails_the_row_with_its_message_untimed() {
        let (base, _) = Mock::new("base", 1);
        let (mut broken, calls) = Mock::new("broken", 1);
        broken.output = Err(RunFailure::row("missing field `Name`"));
        let (_, rec) = run(vec![base, broken], Filter::default(), Cancel::never());
        assert_eq!(row(&rec.tables[0], "broken").error_message.as_deref(), Some("missing field `Name`"));
        assert_eq!(calls.borrow().runs, 0);
    }

    #[test]
    fn a_fatal_failure_stops_the_table_and_keeps_the_rows_before_it() {
        let (base, _) = Mock::new("base", 1);
        let (mut dying, _) = Mock::new("dying", 1);
        dying.fail_on_run = Some((2, RunFailure::fatal("lost the connection")));
        let (after, after_calls) = Mock::new("after", 1);
        let (r, rec) = run(vec![base, dying, after], Filter::default(), Cancel::never());
        assert_eq!(r, Err(TableStop::Fatal("dying: lost the connection".into())));
        let e = &rec.tables[0];
        assert_eq!(e.rows.len(), 2);
        assert_eq!(row(e, "base").status, Status::Ok);
        assert_eq!(row(e, "dying").error_message.as_deref(), Some("lost the connection"));
        assert_eq!((after_calls.borrow().checks, after_calls.borrow().runs), (0, 0));
    }

    #[test]
    fn a_fatal_failure_in_the_gate_stops_the_table_too() {
        let (base, _) = Mock::new("base", 1);
        let (mut gone, _) = Mock::new("gone", 1);
        gone.output = Err(RunFailure::fatal("server closed the connection"));
        let (after, after_calls) = Mock::new("after", 1);
        let (r, rec) = run(vec![base, gone, after], Filter::default(), Cancel::never());
        assert_eq!(r, Err(TableStop::Fatal("gone: server closed the connection".into())));
        assert_eq!(rec.tables[0].rows.len(), 2);
        assert_eq!(after_calls.borrow().checks, 0);
    }

    #[test]
    fn a_failure_while_timed_fails_only_that_row() {
        let (base, _) = Mock::new("base", 1);
        let (mut corrupt, corrupt_calls) = Mock::new("corrupt", 1);
        corrupt.fail_on_run = Some((2, RunFailure::row("document o-7: expected value at line 1")));
        let (after, _) = Mock::new("after", 1);
        let (r, rec) = run(vec![base, corrupt, after], Filter::default(), Cancel::never());
        assert_eq!(r, Ok(Ran { rows: 3, failed: 1 }));
        let e = &rec.tables[0];
        assert_eq!(
            row(e, "corrupt").error_message.as_deref(),
            Some("document o-7: expected value at line 1")
        );
        assert_eq!(row(e, "corrupt").mean_ns, None);
        // Timing went on past it (a lost server met later must still stop the run).
        assert!(corrupt_calls.borrow().runs > 2);
        assert_eq!(row(e, "after").status, Status::Ok);
    }

    #[test]
    fn a_table_whose_every_row_but_a_discarding_one_failed_fails_the_run() {
        for config in [config(), interleaved()] {
            let (mut base, _) = Mock::new("base", 1);
            base.fail_on_run = Some((1, RunFailure::row("document o-7: expected value at line 1")));
            let (mut other, _) = Mock::new("other", 1);
            other.fail_on_run = Some((1, RunFailure::row("document o-7: expected ident")));
            let (mut floor, _) = Mock::new("floor", 1);
            floor.contract = jsoncost_codecs::Contract::Discarded;
            let (r, rec) = run_with(config, vec![base, other, floor], Filter::default(), Cancel::never());
            assert_eq!(r, Ok(Ran { rows: 2, failed: 2 }));
            assert_eq!(row(&rec.tables[0], "floor").status, Status::Ok);
            let failed: Vec<String> = rec
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::AllFailed(e) => Some(e.to_string()),
                    _ => None,
                })
                .collect();
            assert_eq!(
                failed,
                ["every row of micro: t/op but floor failed (base: document o-7: expected value at line 1); see the table"]
            );
        }
    }

    #[test]
    fn cancellation_stops_after_the_current_strategy() {
        let flag = Arc::new(AtomicBool::new(false));
        let (base, _) = Mock::new("base", 1);
        let (mut second, second_calls) = Mock::new("second", 1);
        second.cancel_on_run = Some(flag.clone());
        let (third, third_calls) = Mock::new("third", 1);
        let (r, rec) = run(vec![base, second, third], Filter::default(), Cancel::flag(flag));
        assert_eq!(r, Err(TableStop::Cancelled));
        let e = &rec.tables[0];
        // The strategy running when the flag was set finished (its allocation pass too) and
        // kept its row; the next one was not started.
        let mut methods: Vec<&str> = e.rows.iter().map(|r| r.method.as_str()).collect();
        methods.sort();
        assert_eq!(methods, ["base", "second"]);
        assert_eq!(row(e, "second").status, Status::Ok);
        assert_eq!(second_calls.borrow().begins, 1);
        assert_eq!((third_calls.borrow().checks, third_calls.borrow().runs), (0, 0));
        assert_eq!(rec.events.last(), Some(&Event::Table("t/op".into())));
    }

    #[test]
    fn the_baseline_is_marked_once_and_is_the_reference_even_when_filtered_out() {
        let (base, base_calls) = Mock::new("typed/base", 1);
        let (wrong, _) = Mock::new("dom/wrong", 2);
        let (right, _) = Mock::new("dom/right", 1);
        let (_, rec) = run(
            vec![base, wrong, right],
            Filter::new("--filter", Some("dom/*")).unwrap(),
            Cancel::never(),
        );
        let e = &rec.tables[0];
        assert_eq!(e.rows.iter().filter(|r| r.baseline).count(), 1);
        assert!(!e.rows.iter().any(|r| r.method == "typed/base"));
        // Checked once for the reference, never timed.
        assert_eq!((base_calls.borrow().checks, base_calls.borrow().runs), (1, 0));
        assert_eq!(row(e, "dom/wrong").status, Status::Failed);

        let (base, _) = Mock::new("base", 1);
        let (other, _) = Mock::new("other", 1);
        let (_, rec) = run(vec![base, other], Filter::default(), Cancel::never());
        let marked: Vec<&str> = rec.tables[0]
            .rows
            .iter()
            .filter(|r| r.baseline)
            .map(|r| r.method.as_str())
            .collect();
        assert_eq!(marked, ["base"]);
    }

    #[test]
    fn a_baseline_that_fails_on_the_input_is_bad_input_and_nothing_is_measured() {
        for (output, why) in [
            (
                Err(RunFailure::row("expected value at line 1 column 1")),
                "expected value at line 1 column 1",
            ),
            (
                Ok(Canonical::Full(json!({ "v": 2 }))),
                "output differs from the exact reference at /v: expected 1, got 2",
            ),
        ] {
            let (mut base, _) = Mock::new("base", 1);
            base.output = output;
            let (other, other_calls) = Mock::new("other", 1);
            // Even filtered out, the baseline is checked first.
            let (r, rec) = run(vec![base, other], Filter::new("--filter", Some("other")).unwrap(), Cancel::never());
            assert_eq!(
                r,
                Err(TableStop::BadBaseline(format!(
                    "micro t/op: the baseline base fails on this input, so the table is not measured: {why}"
                )))
            );
            assert!(rec.tables.is_empty());
            assert_eq!((other_calls.borrow().checks, other_calls.borrow().runs), (0, 0));
        }
        let (mut base, _) = Mock::new("base", 1);
        base.output = Err(RunFailure::fatal("connection refused"));
        let (r, _) = run(vec![base], Filter::default(), Cancel::never());
        assert_eq!(r, Err(TableStop::Fatal("base: connection refused".into())));
    }

    #[test]
    fn the_allocation_pass_restarts_sequences() {
        let (base, calls) = Mock::new("base", 1);
        let _ = run(vec![base], Filter::default(), Cancel::never());
        let c = calls.borrow();
        assert_eq!(c.begins, 1);
        let at = c.cursors.iter().position(Option::is_none).unwrap();
        // Runs before the pass walked the sequence; the pass starts it again from 0.
        assert!(at > 1 && c.cursors[at - 1] == Some(at as u32 - 1));
        assert_eq!(c.cursors[at + 1..].iter().map(|x| x.unwrap()).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn the_sink_sees_every_strategy_start_and_finish_then_the_table() {
        let (a, _) = Mock::new("a", 1);
        let (b, _) = Mock::new("b", 1);
        let (_, rec) = run(vec![a, b], Filter::default(), Cancel::never());
        let started = |m: &str| Event::Started {
            table: "t/op".into(),
            method: m.into(),
        };
        let done = |m: &str| Event::Done {
            table: "t/op".into(),
            method: m.into(),
        };
        assert_eq!(
            rec.events,
            [started("a"), done("a"), started("b"), done("b"), Event::Table("t/op".into())]
        );
    }

    #[test]
    fn interleaved_every_strategy_that_passed_runs_the_same_rounds_and_rows_pair_up() {
        let (base, base_calls) = Mock::new("base", 1);
        let (wrong, wrong_calls) = Mock::new("wrong", 2);
        let (other, other_calls) = Mock::new("other", 1);
        let (r, rec) = run_with(interleaved(), vec![base, wrong, other], Filter::default(), Cancel::never());
        assert_eq!(r, Ok(Ran { rows: 3, failed: 1 }));
        let e = &rec.tables[0];
        assert_eq!(e.schedule, Schedule::Interleaved);
        // The gate came first and the one that disagrees was never timed.
        assert_eq!((wrong_calls.borrow().runs, wrong_calls.borrow().rounds.len()), (0, 0));
        let (b, o) = (base_calls.borrow(), other_calls.borrow());
        assert!(b.rounds.len() >= 3);
        assert_eq!(b.rounds, o.rounds);
        assert_eq!(b.rounds, (0..b.rounds.len() as u64).collect::<Vec<_>>());
        let (rb, ro) = (row(e, "base"), row(e, "other"));
        assert_eq!(rb.rounds_ns.len(), b.rounds.len());
        assert_eq!(ro.rounds_ns.len(), b.rounds.len());
        // Paired: the ratio has its interval, and rows keep the fidelity the gate found.
        assert!(ro.ratio_interval.is_some());
        assert!(ro.fidelity.is_some());
        assert_eq!(
            e.rows.iter().filter(|r| r.baseline).map(|r| r.method.as_str()).collect::<Vec<_>>(),
            ["base"]
        );
        // Each had its own Allocation pass, restarting its sequence.
        assert_eq!((b.begins, o.begins), (1, 1));
        // Started in the gate's order, done after the rounds, then the table.
        let started = |m: &str| Event::Started {
            table: "t/op".into(),
            method: m.into(),
        };
        let done = |m: &str| Event::Done {
            table: "t/op".into(),
            method: m.into(),
        };
        let events: Vec<&Event> = rec.events.iter().filter(|e| !matches!(e, Event::Status(_))).collect();
        assert_eq!(
            events,
            [
                &started("base"),
                &started("wrong"),
                &done("wrong"),
                &started("other"),
                &done("base"),
                &done("other"),
                &Event::Table("t/op".into())
            ]
        );
    }

    #[test]
    fn whole_runs_go_in_rounds_each_strategy_once_a_round_in_the_order_the_seed_gives() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mocks: Vec<Mock> = ["buffered/a", "incremental/a", "buffered/b"]
            .into_iter()
            .map(|name| {
                let (mut m, _) = Mock::new(name, 1);
                m.log = Some(log.clone());
                m
            })
            .collect();
        // What the stream experiment measures with: exactly three rounds here.
        let config = MeasureConfig::whole_runs(3, 3, Duration::from_secs(60), true);
        assert_eq!(config.schedule, Schedule::Interleaved);
        let (r, rec) = run_with(config, mocks, Filter::default(), Cancel::never());
        assert_eq!(r, Ok(Ran { rows: 3, failed: 0 }));
        // The gate's check runs are not runs; then the rounds in the default seed's orders
        // (1 2 0, 1 0 2, 2 1 0), then one run each in its Allocation pass, in table order.
        assert_eq!(
            *log.borrow(),
            [
                "incremental/a",
                "buffered/b",
                "buffered/a",
                "incremental/a",
                "buffered/a",
                "buffered/b",
                "buffered/b",
                "incremental/a",
                "buffered/a",
                "buffered/a",
                "incremental/a",
                "buffered/b"
            ]
        );
        let e = &rec.tables[0];
        assert_eq!(e.schedule, Schedule::Interleaved);
        // Timed less the measuring thread's run-queue wait, and the table says how much.
        let wait = e.run_queue_wait.expect("this kernel counts the run-queue wait");
        assert!(wait.wall_ns > 0.0 && (0.0..=wait.wall_ns).contains(&wait.waited_ns), "{wait:?}");
        for r in &e.rows {
            assert_eq!(
                (r.iterations, r.rounds_ns.len(), r.ops_per_iteration),
                (Some(3), 3, Some(1)),
                "{}",
                r.method
            );
            // Paired to the baseline, round by round (the baseline to itself).
            assert_eq!(r.ratio_interval.map(|i| i.n), Some(3), "{}", r.method);
        }
        // Progress after each round.
        let statuses: Vec<&str> = rec
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Status(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            statuses,
            [
                "t/op: 3 strategies in interleaved rounds",
                "t/op: 3 strategies in interleaved rounds, 1 done",
                "t/op: 3 strategies in interleaved rounds, 2 done",
                "t/op: 3 strategies in interleaved rounds, 3 done"
            ]
        );
    }

    #[test]
    fn interleaved_a_fatal_failure_stops_the_rounds_and_fails_only_its_row() {
        let (base, _) = Mock::new("base", 1);
        let (mut dying, _) = Mock::new("dying", 1);
        // Warmup is its first run, so the fourth is round 3's: two rounds completed before it.
        dying.fail_on_run = Some((4, RunFailure::fatal("lost the connection")));
        let (r, rec) = run_with(interleaved(), vec![base, dying], Filter::default(), Cancel::never());
        assert_eq!(r, Err(TableStop::Fatal("dying: lost the connection".into())));
        let e = &rec.tables[0];
        assert_eq!(row(e, "dying").error_message.as_deref(), Some("lost the connection"));
        let b = row(e, "base");
        assert_eq!(b.status, Status::Ok);
        assert_eq!(b.rounds_ns.len(), 2);
        assert_eq!(b.allocated_bytes, None);
    }

    #[test]
    fn interleaved_cancellation_in_the_gate_shows_only_what_was_measured() {
        let flag = Arc::new(AtomicBool::new(false));
        let (base, base_calls) = Mock::new("base", 1);
        let (mut second, second_calls) = Mock::new("second", 1);
        let (third, third_calls) = Mock::new("third", 1);
        // Ctrl-C while the second is checked: the two that passed the gate are not measured,
        // and a table of nothing measured is not shown; the third is not even checked.
        second.cancel_on_check = Some(flag.clone());
        let (r, rec) = run_with(interleaved(), vec![base, second, third], Filter::default(), Cancel::flag(flag));
        assert_eq!(r, Err(TableStop::Cancelled));
        assert!(rec.tables.is_empty());
        assert_eq!((base_calls.borrow().runs, second_calls.borrow().runs), (0, 0));
        assert_eq!(third_calls.borrow().checks, 0);
    }

    #[test]
    fn interleaved_cancellation_ends_the_rounds_and_keeps_the_rows() {
        let flag = Arc::new(AtomicBool::new(false));
        let (base, _) = Mock::new("base", 1);
        let (mut second, second_calls) = Mock::new("second", 1);
        second.cancel_on_run = Some(flag.clone());
        let (r, rec) = run_with(interleaved(), vec![base, second], Filter::default(), Cancel::flag(flag));
        assert_eq!(r, Err(TableStop::Cancelled));
        let e = &rec.tables[0];
        assert_eq!(row(e, "second").rounds_ns.len(), 2);
        assert_eq!(row(e, "base").status, Status::Ok);
        assert_eq!(second_calls.borrow().begins, 1);
    }
}
