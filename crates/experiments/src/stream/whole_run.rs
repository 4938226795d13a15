//! What the stream tables share: whole-run rows ([`WholeRun`]), their rounds ([`Runs`],
//! [`run_config`]), the buffered rows' size cap, and the checks and reads of the input file.

use jsoncost_codecs::gate::{Reference, Verdict};
use jsoncost_codecs::{Canonical, Contract, Effort, RunFailure, Strategy, StrategyId};
use jsoncost_engine::{Fidelity, MeasureConfig};
use jsoncost_report::files::{self, ReadError};
use jsoncost_stream::Library;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use crate::error::Error;
use crate::runner::Runner;

/// How many whole runs each strategy gets, in rounds that run every strategy once: at least
/// `min` rounds, then more (up to `max`, within the budget) until every strategy's paired ratio
/// to the first (or every mean) is known within 2%.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    /// At least this many whole runs.
    pub min: u32,
    /// At most this many.
    pub max: u32,
}

/// The most rounds a stream table runs unless told: the budget (8 s per strategy) usually ends
/// them first. A whole run of ~0.2 s is hit now and then by a slowdown of the machine of a
/// tenth of a second or more (+50% on one run, measured on a quiet 2-vCPU VM), so one round's
/// incremental/buffered ratio varies by ~12% there: ten rounds left the ratio ±4–20% from run
/// to run, the budget's ~25 rounds of the default table ±3% for sonic-rs and simd-json.
pub const DEFAULT_MAX_RUNS: u32 = 40;

impl Runs {
    /// At least `min` runs, at most [`DEFAULT_MAX_RUNS`] (or `min`, if more).
    pub fn at_least(min: u32) -> Runs {
        Runs {
            min,
            max: min.max(DEFAULT_MAX_RUNS),
        }
    }

    /// Exactly `n` runs (`jsoncost run`'s overview, where the table's time is the whole budget).
    pub fn exactly(n: u32) -> Runs {
        Runs { min: n, max: n }
    }
}

/// The default [`StreamOptions::max_buffered_mib`](super::StreamOptions::max_buffered_mib), micro's `--max-payload-mib` default.
pub const DEFAULT_MAX_BUFFERED_MIB: u64 = 256;

/// Why the buffered rows are not run on a file of `bytes`, when it is over `max_mib`.
pub(crate) fn over_buffered_cap(bytes: u64, max_mib: u64) -> Option<String> {
    (bytes > max_mib.saturating_mul(1 << 20)).then(|| {
        format!(
            "the file is {:.1} MiB, over the {max_mib} MiB the buffered strategies read whole (raise it with --max-buffered-mib); not run",
            bytes as f64 / (1 << 20) as f64
        )
    })
}

/// Skips the buffered rows with `why` and moves them after the others, so the table's baseline
/// is a row that runs.
pub(crate) fn skip_buffered<O>(list: &mut Vec<WholeRun<O>>, why: &str) {
    // buffered/* and buffered-typed/*: both read the whole file.
    let reads_whole = |id: &StrategyId| matches!(id.style(), "buffered" | "buffered-typed");
    for s in list.iter_mut().filter(|s| reads_whole(&s.id)) {
        s.refused = Some(why.to_string());
    }
    let (buffered, rest): (Vec<_>, Vec<_>) = list.drain(..).partition(|s| reads_whole(&s.id));
    list.extend(rest);
    list.extend(buffered);
}

/// A stream row: one whole run over the body per operation, which checks itself against the
/// file (`check`; the body is never held as one value). `O` is what a run yields.
pub(crate) struct WholeRun<O> {
    pub(crate) id: StrategyId,
    pub(crate) contract: Contract,
    pub(crate) effort: Effort,
    pub(crate) run: Box<dyn FnMut() -> Result<O, String>>,
    pub(crate) check: Box<dyn FnMut() -> Verdict>,
    pub(crate) bytes: u64,
    /// Why the depth guard refused the file for this strategy's library: the row fails with it
    /// and is never run.
    pub(crate) refused: Option<String>,
}

impl<O> Strategy for WholeRun<O> {
    fn id(&self) -> &StrategyId {
        &self.id
    }
    fn contract(&self) -> Contract {
        self.contract
    }
    fn effort(&self) -> Effort {
        self.effort
    }
    fn check(&mut self) -> Result<Canonical, RunFailure> {
        Err(RunFailure::row("a stream strategy checks itself against the file (verify)"))
    }
    fn verify(&mut self, _reference: Option<&Reference>) -> Result<Fidelity, RunFailure> {
        if let Some(refused) = &self.refused {
            return Err(RunFailure::row(refused.clone()));
        }
        match (self.check)() {
            Verdict::Pass(fidelity) => Ok(fidelity),
            Verdict::Fail(message) => Err(RunFailure::row(message)),
        }
    }
    fn run(&mut self) -> Result<(), RunFailure> {
        (self.run)().map(drop).map_err(RunFailure::row)
    }
    fn payload_bytes(&self) -> Option<u64> {
        Some(self.bytes)
    }
}

pub(super) fn open(path: &Path) -> Result<File, String> {
    File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))
}

/// The whole file, which was `len` bytes when validated: a read that finds more stops there.
pub(super) fn read_all(path: &Path, len: u64) -> Result<Vec<u8>, String> {
    files::read_limited(path, len).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read {}: {e}", path.display()),
        ReadError::TooLarge { .. } => format!("{} grew past the {len} bytes validated", path.display()),
    })
}

/// Checks the whole file with the depth guard for `library`, reading it a chunk at a time (so
/// the check holds no copy of a large file): the row's message when it is refused.
pub(super) fn guard_file(path: &Path, library: Library) -> Result<Option<String>, Error> {
    let mut file = open(path).map_err(Error::Environment)?;
    let mut guard = jsoncost_stream::DepthGuard::new(library);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| Error::environment(format!("cannot read {}: {e}", path.display())))?;
        let verdict = if n == 0 { guard.clone().finish() } else { guard.feed(&buf[..n]) };
        match verdict {
            Err(deep) => return Ok(Some(format!("{deep}; not run"))),
            Ok(()) if n == 0 => return Ok(None),
            Ok(()) => {}
        }
    }
}

/// The file's size, once it is known to be a readable file (exit 2 otherwise).
pub(super) fn readable(path: &Path) -> Result<u64, Error> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| Error::usage(format!("cannot read telemetry file {shown}: {e}")))?;
    if meta.is_dir() {
        return Err(Error::usage(format!("telemetry file {shown} is a directory")));
    }
    // Every strategy reads the file again, whole or in chunks: a FIFO or a device gives
    // different bytes (or none, or no end) each time.
    if !meta.is_file() {
        return Err(Error::usage(format!(
            "telemetry file {shown} is not a regular file (a FIFO, a device ...): each strategy reads it again, so it must be a file"
        )));
    }
    let mut probe = Vec::new();
    open(path)
        .and_then(|f| f.take(3).read_to_end(&mut probe).map_err(|e| format!("cannot read {shown}: {e}")))
        .map_err(Error::Usage)?;
    if let Some(bom) = crate::input::bom_problem(&probe) {
        return Err(Error::usage(format!("telemetry file {shown} {bom}")));
    }
    Ok(meta.len())
}

/// Whole runs, at least `runs.min` of each strategy, within a budget per strategy; in the
/// rounds `runner`'s settings schedule (interleaved with its seed, unless sequential), in its
/// lockstep.
pub(super) fn run_config(runs: Runs, quick: bool, runner: &Runner<'_>) -> MeasureConfig {
    let budget = if quick { Duration::from_secs(2) } else { Duration::from_secs(8) };
    MeasureConfig {
        schedule: runner.config().schedule,
        seed: runner.config().seed,
        lockstep: runner.config().lockstep.clone(),
        ..MeasureConfig::whole_runs(runs.min, runs.max, budget, quick)
    }
}
