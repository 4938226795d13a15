//! Two programs measured in lockstep (`engine::lockstep`), their rows paired per round: two
//! builds (`jsoncost ab`), or one binary under two global allocators (`jsoncost alloc`, the
//! allocator table of `jsoncost run`, a bench's `--allocators`). Both run at once, each told its
//! own socket; the [`conductor`] hands the turn back and forth, so only one works at a time and
//! every interleaved table runs the same rounds in both. Both get the same arguments (so the same
//! seed and payloads) and write their results with `--format json --out FILE`; each run's pair of
//! files is a [`Run`], which `jsoncost_report::ab` pairs row by row.

pub mod affinity;
pub mod conductor;

use affinity::allowed_cpus;

use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use jsoncost_engine::alloc::{self, Allocator};
use jsoncost_engine::{Results, lockstep, private_dir};
pub use jsoncost_report::ab::Run;
use jsoncost_report::ab::{AbComparison, RowSpread, ab_with};
use jsoncost_report::files;

use crate::Error;

/// A program to run: its path and leading arguments, what it is called in messages, and
/// variables added to its environment.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The program and its leading arguments (no shell runs them).
    pub words: Vec<String>,
    /// Its name in messages: `base`, `new`, or its allocator's.
    pub name: String,
    /// Added to the environment it inherits.
    pub env: Vec<(String, String)>,
}

impl Program {
    /// `words[0]` run with `words[1..]`, called `name` in messages.
    pub fn new(name: &str, words: Vec<String>) -> Program {
        Program {
            words,
            name: name.to_string(),
            env: Vec::new(),
        }
    }

    /// This very program (its executable, no arguments) under `allocator`, called by the
    /// allocator's name.
    pub fn this_under(allocator: Allocator) -> Result<Program, Error> {
        let exe = std::env::current_exe()
            .map_err(|e| Error::environment(format!("cannot find this program's executable to run it again: {e}")))?;
        let mut p = Program::new(allocator.as_str(), vec![exe.display().to_string()]);
        p.env.push((alloc::ENV.to_string(), allocator.env_value().to_string()));
        Ok(p)
    }

    fn shown(&self) -> String {
        self.words.join(" ")
    }

    /// Starts the program with `args`, its results going to `out`, its output to files beside
    /// it, and the lockstep socket `socket` named in its environment.
    fn spawn(&self, args: &[String], out: &Path, socket: &Path, cpu: Option<usize>) -> Result<Child, Error> {
        let log = |ext: &str| -> Result<std::fs::File, Error> {
            let path = out.with_extension(ext);
            std::fs::File::create(&path).map_err(|e| Error::environment(format!("cannot create {}: {e}", path.display())))
        };
        let mut command = Command::new(&self.words[0]);
        // SAFETY: `prepare_child` makes system calls only and touches nothing shared.
        unsafe { command.pre_exec(move || prepare_child(cpu)) };
        crate::children::die_with_parent(&mut command);
        command
            .args(&self.words[1..])
            .args(args)
            .args(["--format", "json", "--out"])
            .arg(out)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env(lockstep::ENV, socket)
            .stdin(Stdio::null())
            .stdout(log("stdout")?)
            .stderr(log("stderr")?)
            .spawn()
            .map_err(|e| Error::environment(format!("{} program {:?} cannot be started: {e}", self.name, self.shown())))
    }

    /// What the program's run came to: its results, or the error its exit code stands for.
    fn finish(&self, run: u32, status: ExitStatus, out: &Path) -> Result<Results, Error> {
        let (name, shown) = (&self.name, self.shown());
        let tail = || {
            let text = std::fs::read_to_string(out.with_extension("stderr")).unwrap_or_default();
            let lines: Vec<&str> = text.lines().rev().take(5).collect();
            lines.into_iter().rev().collect::<Vec<_>>().join("\n")
        };
        match status.code() {
            Some(0) => {}
            // Its own interruption (a signal to the process group): the caller names the signal.
            Some(130) => return Err(Error::Interrupted),
            Some(2) => {
                return Err(Error::usage(format!(
                    "{name} program {shown:?} refused the arguments (exit 2):\n{}",
                    tail()
                )));
            }
            code => {
                let how = code.map_or("was killed by a signal".to_string(), |c| format!("exited {c}"));
                return Err(Error::environment(format!(
                    "{name} program {shown:?} {how} in run {run}:\n{}",
                    tail()
                )));
            }
        }
        files::load(out).map_err(|e| {
            Error::environment(format!(
                "{name} program {shown:?} wrote no readable results to {}: {e}",
                out.display()
            ))
        })
    }
}

/// Where both programs run: `--cpu N|none|auto`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CpuChoice {
    /// The last CPU this process may run on.
    Auto,
    /// The OS places them.
    Unpinned,
    /// This CPU.
    Cpu(usize),
}

impl std::str::FromStr for CpuChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<CpuChoice, String> {
        match text {
            "auto" => Ok(CpuChoice::Auto),
            "none" => Ok(CpuChoice::Unpinned),
            n => n
                .parse()
                .map(CpuChoice::Cpu)
                .map_err(|_| format!("{n:?} is not a CPU number or `none`")),
        }
    }
}

impl CpuChoice {
    /// The CPU to pin both programs to; an error names the CPUs there are.
    pub fn resolve(self) -> Result<Option<usize>, Error> {
        if self == CpuChoice::Unpinned {
            return Ok(None);
        }
        let allowed = allowed_cpus().map_err(|e| Error::environment(format!("cannot read this process's CPU affinity: {e}")))?;
        match self {
            CpuChoice::Cpu(c) if !allowed.contains(&c) => Err(Error::usage(format!(
                "--cpu {c}: this process may run on CPUs {}",
                allowed.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
            ))),
            CpuChoice::Cpu(c) => Ok(Some(c)),
            _ => Ok(allowed.last().copied()),
        }
    }
}

/// Prepares the child between fork and exec (only async-signal-safe system calls): turns off
/// address-space randomisation for it, as `setarch -R` does, so two runs of one binary get
/// one memory layout (measured: with it, rows of the same build differed by up to 1.7% per
/// process; without, by up to 1.4% over 300 rounds), and pins it to `cpu`. Randomisation
/// stays on where the kernel refuses (a seccomp profile): more noise, not a wrong figure.
fn prepare_child(cpu: Option<usize>) -> std::io::Result<()> {
    // SAFETY: personality(0xffffffff) only reads the persona; setting it changes this
    // process's next exec.
    unsafe {
        let current = libc::personality(0xffff_ffff);
        if current != -1 {
            libc::personality((current as libc::c_ulong) | libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
        }
    }
    match cpu {
        // Builds the set on the stack and makes one system call: async-signal-safe.
        Some(cpu) => affinity::pin_current(&affinity::set_of(&[cpu])),
        None => Ok(()),
    }
}

/// How two programs are run in lockstep.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Rounds of every interleaved table, in both programs; each round is one pair.
    pub rounds: u64,
    /// Runs of both programs; odd runs start with the first program, even ones with the
    /// second. A table measured one strategy after another pairs once per run.
    pub runs: u32,
    /// The number of the first run (1; `ab`'s confirming pair goes on from the last run's):
    /// it names the run's directory (`run-002`) and says which program leads.
    pub first_run: u32,
    /// The CPU both are pinned to ([`CpuChoice::resolve`]).
    pub cpu: Option<usize>,
    /// The longest the conductor waits for a program's next step.
    pub timeout: Duration,
    /// Keep every run's files here (`run-001/b.json` ...); else a temporary directory, removed.
    pub keep: Option<PathBuf>,
    /// The experiment and its flags, given to both (`--format json --out FILE` is added).
    pub args: Vec<String>,
    /// What progress lines on stderr start with (`ab`, `alloc`).
    pub label: String,
    /// Other programs' CPU time on the pair's CPU, over the pair's own, past which the run's
    /// time is not judged ([`jsoncost_engine::OtherCpu`]).
    pub max_other_cpu: f64,
}

/// How long a program may be seen stopped before the run is given up.
const STOPPED_LIMIT: Duration = Duration::from_secs(5);

/// Removes the scratch directory (the sockets, and the runs' files unless kept) however the
/// runs end; one left by a conductor that was killed is removed by a later run
/// ([`private_dir::reclaim`]: its name holds the dead pid).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The names of `ab`'s scratch directories in the private directory: `ab-<pid>-<n>`.
const SCRATCH_PREFIX: &str = "ab";

/// Where a run's sockets and its files (results, output, the turn log) go.
struct Dirs {
    sockets: PathBuf,
    files: PathBuf,
}

fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::environment(format!("cannot create {}: {e}", dir.display())))
}

/// Refuses arguments the runs set themselves.
pub fn check_args(args: &[String], label: &str) -> Result<(), Error> {
    match args.iter().find(|a| matches!(a.as_str(), "--format" | "--out")) {
        Some(bad) => Err(Error::usage(format!(
            "{bad} is set by {label} itself (each run writes JSON results to its own file)"
        ))),
        None => Ok(()),
    }
}

/// `comparison` (of `programs` under `settings`, judged with `spread`) with its flagged rows
/// measured again by a second pair of processes, when it needs one
/// ([`AbComparison::needs_confirmation`]): as many runs again, numbered after the last, so
/// that after one run the new program leads (what depends on which process goes first falls
/// the other way). Unchanged when it needs none.
pub fn confirmed(
    comparison: AbComparison,
    settings: &Settings,
    programs: [&Program; 2],
    spread: RowSpread,
    interrupted: &dyn Fn() -> bool,
) -> Result<AbComparison, Error> {
    if !comparison.needs_confirmation() {
        return Ok(comparison);
    }
    let flagged = comparison.flagged().count();
    eprintln!(
        "{}: {flagged} row{} called slower or faster; measuring again with a second pair of processes to confirm",
        settings.label,
        if flagged == 1 { "" } else { "s" }
    );
    let settings = Settings {
        first_run: settings.first_run + settings.runs,
        ..settings.clone()
    };
    let runs = run(&settings, programs, interrupted)?;
    let second = ab_with(&runs, comparison.threshold, spread);
    Ok(comparison.confirm(&second))
}

/// Runs `programs` (base, new) `settings.runs` times in lockstep and returns each run's pair of
/// results. `interrupted` is polled while they run: once it says so, both are told (SIGINT)
/// and let go, and the runs end with [`Error::Interrupted`].
pub fn run(settings: &Settings, programs: [&Program; 2], interrupted: &dyn Fn() -> bool) -> Result<Vec<Run>, Error> {
    check_args(&settings.args, &settings.label)?;
    // The sockets always live in the private directory: a Unix socket's path is limited to
    // 107 bytes, which a deep `keep` directory would exceed. The scratch directory is made
    // anew there (private, named with this pid), so no other user can plant a file or a link
    // in it, nor forge a program's results.
    let private = private_dir::dir().map_err(|e| Error::environment(e.to_string()))?;
    private_dir::reclaim(&private, SCRATCH_PREFIX);
    let scratch = Scratch(
        private_dir::scratch_dir(&private, SCRATCH_PREFIX)
            .map_err(|e| Error::environment(format!("cannot create a directory in {}: {e}", private.display())))?,
    );
    let dirs = Dirs {
        sockets: scratch.0.clone(),
        files: settings.keep.clone().unwrap_or_else(|| scratch.0.clone()),
    };
    create_dir(&dirs.files)?;
    let mut runs = Vec::new();
    let last = settings.first_run + settings.runs - 1;
    for k in settings.first_run..=last {
        if interrupted() {
            return Err(Error::Interrupted);
        }
        let on = settings.cpu.map(|c| format!(" on CPU {c}")).unwrap_or_default();
        eprintln!(
            "{}: run {k}/{last}: {} and {} in lockstep{on}, {} rounds per interleaved table",
            settings.label, programs[0].name, programs[1].name, settings.rounds
        );
        runs.push(run_both(settings, programs, &dirs, k, interrupted)?);
    }
    Ok(runs)
}

/// Run `k` of both programs in lockstep: their results, and whether both joined it.
fn run_both(settings: &Settings, programs: [&Program; 2], dirs: &Dirs, k: u32, interrupted: &dyn Fn() -> bool) -> Result<Run, Error> {
    // One directory per run, the sides' files named alike and of one length (`b.json`,
    // `n.json`): a program's arguments and environment sit on its stack, so paths of other
    // lengths would move its stack's alignment between the two sides.
    let run_dir = dirs.files.join(format!("run-{k:03}"));
    create_dir(&run_dir)?;
    let file = |side: usize, ext: &str| run_dir.join(format!("{}.{ext}", &conductor::SIDES[side][..1]));
    let mut listeners = Vec::new();
    for side in 0..2 {
        let socket = dirs.sockets.join(format!("run-{k:03}-{}.sock", &conductor::SIDES[side][..1]));
        let listener = conductor::listen(&socket).map_err(|e| Error::environment(format!("cannot listen on {}: {e}", socket.display())))?;
        listeners.push((listener, socket));
    }
    let base = programs[0].spawn(&settings.args, &file(0, "json"), &listeners[0].1, settings.cpu)?;
    let new = match programs[1].spawn(&settings.args, &file(1, "json"), &listeners[1].1, settings.cpu) {
        Ok(child) => child,
        Err(e) => {
            let mut base = base;
            let _ = base.kill();
            let _ = base.wait();
            return Err(e);
        }
    };
    let listeners: [(UnixListener, PathBuf); 2] = listeners.try_into().map_err(|_| Error::environment("two sides"))?;
    // Odd runs lead with the first program, even runs with the second (ABBA over runs too).
    let first = usize::from(k.is_multiple_of(2));
    let limits = conductor::Limits {
        timeout: settings.timeout,
        stopped: STOPPED_LIMIT,
    };
    let names = programs.map(|p| p.name.as_str());
    let conducted = conductor::conduct([base, new], listeners, settings.rounds, first, settings.cpu, limits, interrupted)
        .map_err(|e| Error::environment(format!("run {k}: {}", e.naming(names))))?;
    if settings.keep.is_some() {
        let log: String = conducted
            .log
            .iter()
            .map(|(side, ask, grant)| format!("{} {} {}", conductor::SIDES[*side], ask.line().trim_end(), grant.line()))
            .collect();
        let path = run_dir.join("lockstep.log");
        std::fs::write(&path, log).map_err(|e| Error::environment(format!("cannot write {}: {e}", path.display())))?;
    }
    // A side that exited with an error names it; one killed by a signal (as the conductor
    // kills the other side of a failure) only echoes it, and a success has none.
    let mut order = [0, 1];
    order.sort_by_key(|&side| match conducted.status[side].code() {
        Some(0) => 2,
        Some(_) => 0,
        None => 1,
    });
    let mut results: [Option<Results>; 2] = [None, None];
    for side in order {
        results[side] = Some(programs[side].finish(k, conducted.status[side], &file(side, "json"))?);
    }
    for (program, joined) in programs.iter().zip(conducted.joined) {
        if !joined {
            eprintln!(
                "{}: warning: the {} program did not join the lockstep (a build without it?): it ran alone, and its rows pair once per run",
                settings.label, program.name
            );
        }
    }
    let [Some(base), Some(new)] = results else {
        unreachable!("both sides were read")
    };
    Ok(Run {
        base,
        new,
        lockstep: conducted.joined.iter().all(|j| *j),
        other_cpu: conducted.other_cpu.map(|share| jsoncost_engine::OtherCpu {
            run: k as usize,
            share,
            limit: settings.max_other_cpu,
        }),
    })
}

/// The allocator dimension of one experiment: `args` (an experiment and its flags) run by this
/// very program under `base` and under each of `others`, each pair in lockstep as [`run`]
/// runs it, and each row's time under the other allocator paired with its time under `base`
/// (`jsoncost_report::allocators::compare`).
#[derive(Debug, Clone)]
pub struct AllocatorPlan {
    /// The allocator every other is paired with (the system's, as a program has it unless told).
    pub base: Allocator,
    /// The allocators paired with `base`, one after another (`base` again: an A/A check).
    pub others: Vec<Allocator>,
    /// The smallest change of time a row is called on (a fraction; `ab`'s rule).
    pub threshold: f64,
    /// Everything but `args` and `keep`, which come from each experiment.
    pub settings: Settings,
}

/// What this program must be for [`allocators`]: counting over a `SelectedAllocator`, built
/// with every allocator asked for.
pub fn check_allocators(wanted: &[Allocator]) -> Result<(), Error> {
    if !alloc::is_selectable() {
        return Err(Error::usage(
            "this program cannot choose its allocator: install the counting allocator over the selected one \
             (#[global_allocator] static ALLOC: jsoncost::CountingAllocator<jsoncost::SelectedAllocator> = \
             jsoncost::CountingAllocator::selected();) and build with jsoncost's cargo feature `allocators`",
        ));
    }
    let missing: Vec<&str> = wanted.iter().filter(|a| !a.is_built()).map(|a| a.as_str()).collect();
    if !missing.is_empty() {
        return Err(Error::usage(format!(
            "this build has no {} (it has {}): build with the cargo feature `allocators`",
            missing.join(", "),
            Allocator::built().iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// What [`allocators`] measured, and the error that stopped it: the comparisons finished
/// before an error are kept.
#[derive(Debug)]
pub struct AllocatorRuns {
    /// The results of the first run under `plan.base` (its tables are the base allocator's),
    /// with one `AllocatorComparison` per other allocator compared; `None` when none was.
    pub results: Option<Results>,
    /// What stopped the runs, if anything did.
    pub error: Option<Error>,
}

/// Runs `plan` for one experiment (`args`, with `runs` runs of both programs; its files under
/// `keep/<allocator>/` when kept), one other allocator after another.
pub fn allocators(plan: &AllocatorPlan, args: &[String], runs: u32, interrupted: &dyn Fn() -> bool) -> AllocatorRuns {
    let mut results: Option<Results> = None;
    let error = (|| {
        let mut wanted = vec![plan.base];
        wanted.extend(&plan.others);
        check_allocators(&wanted)?;
        if plan.others.is_empty() {
            return Err(Error::usage(format!(
                "only {} named: name the allocators to pair with it after it (e.g. {0},mimalloc), or {0},{0} to pair it with itself",
                plan.base
            )));
        }
        let base = Program::this_under(plan.base)?;
        for &other in &plan.others {
            let mut candidate = Program::this_under(other)?;
            if other == plan.base {
                // The same allocator on both sides (an A/A check of the noise): told apart in messages.
                candidate.name = format!("{other} (again)");
            }
            let settings = Settings {
                args: args.to_vec(),
                runs,
                keep: plan.settings.keep.as_ref().map(|k| k.join(other.as_str())),
                ..plan.settings.clone()
            };
            let pairs = run(&settings, [&base, &candidate], interrupted)?;
            for (side, want) in pairs.iter().flat_map(|r| [(&r.base, plan.base), (&r.new, other)]) {
                if side.machine.allocator != Some(want) {
                    return Err(Error::environment(format!(
                        "the program asked to run {want} ran {}: it does not choose its allocator from {}",
                        side.machine
                            .allocator
                            .map_or("an allocator of its own".to_string(), |a| a.to_string()),
                        alloc::ENV
                    )));
                }
            }
            let comparison = jsoncost_report::allocators::compare(plan.base, other, &pairs, settings.cpu, plan.threshold);
            let first = pairs.into_iter().next().ok_or_else(|| Error::usage("no run: give at least one"))?;
            results.get_or_insert(first.base).allocators.push(comparison);
        }
        Ok(())
    })()
    .err();
    AllocatorRuns { results, error }
}

/// Joins the results of several experiments' allocator runs into one file: the first's
/// header, every table and every comparison.
pub fn merge(parts: Vec<Results>) -> Option<Results> {
    let mut parts = parts.into_iter();
    let mut all = parts.next()?;
    for p in parts {
        all.experiments.extend(p.experiments);
        for c in p.allocators {
            match all.allocators.iter_mut().find(|a| a.base == c.base && a.allocator == c.allocator) {
                Some(a) => {
                    a.rows.extend(c.rows);
                    a.not_compared.extend(c.not_compared);
                }
                None => all.allocators.push(c),
            }
        }
    }
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_parse_and_a_cpu_this_process_may_not_use_is_a_usage_error() {
        assert_eq!("none".parse(), Ok(CpuChoice::Unpinned));
        assert_eq!("3".parse(), Ok(CpuChoice::Cpu(3)));
        assert!("x".parse::<CpuChoice>().unwrap_err().contains("not a CPU number"));
        assert_eq!(CpuChoice::Cpu(100_000).resolve().unwrap_err().exit_code(), 2);
        let last = *allowed_cpus().unwrap().last().unwrap();
        assert_eq!(CpuChoice::Auto.resolve().unwrap(), Some(last));
    }

    #[test]
    fn the_runs_set_format_and_out_themselves() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check_args(&args(&["micro", "--quick"]), "ab").is_ok());
        assert_eq!(
            check_args(&args(&["micro", "--out", "f.json"]), "alloc").unwrap_err().to_string(),
            "--out is set by alloc itself (each run writes JSON results to its own file)"
        );
    }
}
