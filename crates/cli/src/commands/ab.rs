//! `jsoncost ab --base CMD --new CMD -- EXPERIMENT ARGS`: a paired A/B of two builds. The two
//! programs (two jsoncost binaries, or two `cargo bench` harness binaries of the user's own
//! types) run at once in lockstep (`conductor`, `engine::lockstep`): only one works at a time,
//! they take turns before every timed iteration, and every interleaved table runs `--rounds`
//! rounds in both, so its rows pair round by round. Both get the same arguments, so the same
//! seed and payloads; each writes its results with `--format json --out FILE`, and every row
//! is decided from its paired ratios (`jsoncost_report::ab`). Exit codes as `compare`: 0 no
//! regression, 1 regression, 2 bad input (also a program that exits 2), 3 environment (a
//! program that cannot start, fails otherwise, or writes no results), 130 interrupted.

mod conductor;

use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use anyhow::{Context, anyhow};
use jsoncost_engine::lockstep;
use jsoncost_report::ab::{self, Run};
use jsoncost_report::files;

use super::compare::parse_threshold;
use crate::failure::{ExitCode, Failure, environment, usage};
use crate::interrupt;
use crate::session::{FormatArg, print_stdout};

#[derive(Debug, Clone, clap::Args)]
pub struct AbArgs {
    /// The base program and its leading arguments, e.g. `./old/jsoncost` or
    /// `target/bench-base/json-1a2b` (split as a shell would; no shell runs it).
    #[arg(long, value_name = "CMD")]
    pub base: String,
    /// The new program, as --base.
    #[arg(long, value_name = "CMD")]
    pub new: String,
    /// Rounds of every interleaved table, in both programs (each round: one timed iteration
    /// of every strategy, base's and new's in turn; a stream round is a whole run of each);
    /// each round is one pair.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub rounds: u64,
    /// Runs of both programs, in lockstep; odd runs start with base, even ones with new. A
    /// table measured one strategy after another (http, `--schedule sequential`)
    /// pairs once per run, so it needs 5 or more.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// The CPU both programs are pinned to, or `none` (the OS places them). Default: the last
    /// CPU ab may run on. Only one of them works at a time, so they lose nothing by sharing it,
    /// and both sides of a pair then run on one core: on a VM each virtual CPU has its own
    /// speed of the moment (measured here: one 1.5× slower than the other for seconds), which
    /// would otherwise land on one side of the pair only. An http experiment's server and
    /// load generator then share that CPU too.
    #[arg(long, value_name = "N|none", default_value = "auto", value_parser = parse_cpu)]
    pub cpu: CpuChoice,
    /// Smallest time change to detect, e.g. 5% or 0.05: a row fails when it is slower for sure
    /// and by at least half of this.
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    pub threshold: f64,
    /// The longest ab waits for a program's next step, in seconds: to join the lockstep or
    /// exit (one that never joins, an older build, runs its whole experiment in this time),
    /// to ask for its next turn, to exit. Then both programs are killed and ab exits 3 naming
    /// the program. A program seen stopped (SIGSTOP) for 5 s fails at once.
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Accept rows that were ok in base and failed or are missing in new (as `compare`).
    #[arg(long)]
    pub allow_missing: bool,
    /// What stdout carries (markdown suits PR comments).
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Keep every run's files in this directory: `run-001/b.json` and `n.json` (base's and
    /// new's results), their `.stderr` and `.stdout`, and `lockstep.log` (every turn given).
    /// Default: a temporary directory, removed.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// The experiment and its flags, given to both programs, e.g. `micro --quick --shape data`
    /// (jsoncost) or `--bench --quick` (a harness). `--format json --out FILE` is added.
    #[arg(last = true, value_name = "EXPERIMENT ARGS")]
    pub args: Vec<String>,
}

/// `--cpu`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CpuChoice {
    Auto,
    Unpinned,
    Cpu(usize),
}

fn parse_cpu(text: &str) -> Result<CpuChoice, String> {
    match text {
        "auto" => Ok(CpuChoice::Auto),
        "none" => Ok(CpuChoice::Unpinned),
        n => n
            .parse()
            .map(CpuChoice::Cpu)
            .map_err(|_| format!("{n:?} is not a CPU number or `none`")),
    }
}

/// The CPUs this process may run on (its affinity mask).
fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set, filled by the call.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

impl CpuChoice {
    /// The CPU to pin both programs to; an error names the CPUs there are.
    fn resolve(self) -> anyhow::Result<Option<usize>> {
        if self == CpuChoice::Unpinned {
            return Ok(None);
        }
        let allowed = allowed_cpus()
            .context("cannot read this process's CPU affinity")
            .map_err(environment)?;
        match self {
            CpuChoice::Cpu(c) if !allowed.contains(&c) => Err(usage(anyhow!(
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
    let Some(cpu) = cpu else { return Ok(()) };
    // SAFETY: as in `allowed_cpus`; CPU_SET writes inside the set for cpu < CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A program to run: its path and leading arguments.
#[derive(Debug, Clone, PartialEq)]
struct Program {
    words: Vec<String>,
}

impl Program {
    fn parse(flag: &str, spec: &str) -> anyhow::Result<Program> {
        let words = shlex::split(spec).ok_or_else(|| usage(anyhow!("{flag} {spec:?}: unbalanced quotes")))?;
        if words.is_empty() {
            return Err(usage(anyhow!(
                "{flag} is empty: give a program, e.g. {flag} ./target/release/jsoncost"
            )));
        }
        Ok(Program { words })
    }

    /// Starts the program with `args`, its results going to `out`, its output to files beside
    /// it, and the lockstep socket `socket` named in its environment.
    fn spawn(&self, side: &str, args: &[String], out: &Path, socket: &Path, cpu: Option<usize>) -> anyhow::Result<Child> {
        let shown = self.words.join(" ");
        let log = |ext: &str| -> anyhow::Result<std::fs::File> {
            let path = out.with_extension(ext);
            std::fs::File::create(&path)
                .with_context(|| format!("cannot create {}", path.display()))
                .map_err(environment)
        };
        let mut command = Command::new(&self.words[0]);
        // SAFETY: `prepare_child` makes system calls only and touches nothing shared.
        unsafe { command.pre_exec(move || prepare_child(cpu)) };
        command
            .args(&self.words[1..])
            .args(args)
            .args(["--format", "json", "--out"])
            .arg(out)
            .env(lockstep::ENV, socket)
            .stdin(Stdio::null())
            .stdout(log("stdout")?)
            .stderr(log("stderr")?)
            .spawn()
            .with_context(|| format!("{side} program {shown:?} cannot be started"))
            .map_err(environment)
    }

    /// What the program's run came to: its results, or the error its exit code stands for.
    fn finish(&self, side: &str, run: u32, status: ExitStatus, out: &Path) -> anyhow::Result<jsoncost_engine::Results> {
        let shown = self.words.join(" ");
        let tail = || {
            let text = std::fs::read_to_string(out.with_extension("stderr")).unwrap_or_default();
            let lines: Vec<&str> = text.lines().rev().take(5).collect();
            lines.into_iter().rev().collect::<Vec<_>>().join("\n")
        };
        match status.code() {
            Some(0) => {}
            Some(130) => {
                return Err(Failure {
                    code: ExitCode::Interrupted,
                    error: anyhow!("{side} program was interrupted in run {run}"),
                }
                .into());
            }
            Some(2) => {
                return Err(usage(anyhow!(
                    "{side} program {shown:?} refused the arguments (exit 2):\n{}",
                    tail()
                )));
            }
            code => {
                let how = code.map_or("was killed by a signal".to_string(), |c| format!("exited {c}"));
                return Err(environment(anyhow!("{side} program {shown:?} {how} in run {run}:\n{}", tail())));
            }
        }
        files::load(out)
            .with_context(|| format!("{side} program {shown:?} wrote no readable results to {}", out.display()))
            .map_err(environment)
    }
}

/// How long a program may be seen stopped before the run is given up.
const STOPPED_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Removes the temporary directory (the sockets, and the runs' files unless `--keep`) when
/// `ab` ends, however it ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where a run's sockets and its files (results, output, the turn log) go.
struct Dirs {
    sockets: PathBuf,
    files: PathBuf,
}

/// Run `k` of both programs in lockstep: their results, and whether both joined it.
fn run_both(args: &AbArgs, programs: [&Program; 2], dirs: &Dirs, k: u32, cpu: Option<usize>) -> anyhow::Result<Run> {
    // One directory per run, the sides' files named alike and of one length (`b.json`,
    // `n.json`): a program's arguments and environment sit on its stack, so paths of other
    // lengths would move its stack's alignment between the two sides.
    let run_dir = dirs.files.join(format!("run-{k:03}"));
    std::fs::create_dir_all(&run_dir)
        .with_context(|| format!("cannot create {}", run_dir.display()))
        .map_err(environment)?;
    let file = |side: &str, ext: &str| run_dir.join(format!("{}.{ext}", &side[..1]));
    let mut listeners = Vec::new();
    for side in conductor::SIDES {
        let socket = dirs.sockets.join(format!("run-{k:03}-{}.sock", &side[..1]));
        let listener = conductor::listen(&socket)
            .with_context(|| format!("cannot listen on {}", socket.display()))
            .map_err(environment)?;
        listeners.push((listener, socket));
    }
    let base = programs[0].spawn("base", &args.args, &file("base", "json"), &listeners[0].1, cpu)?;
    let new = match programs[1].spawn("new", &args.args, &file("new", "json"), &listeners[1].1, cpu) {
        Ok(child) => child,
        Err(e) => {
            let mut base = base;
            let _ = base.kill();
            let _ = base.wait();
            return Err(e);
        }
    };
    let listeners: [(UnixListener, PathBuf); 2] = listeners.try_into().map_err(|_| anyhow!("two sides"))?;
    // Odd runs lead with base, even runs with new (ABBA over runs too).
    let first = usize::from(k.is_multiple_of(2));
    let limits = conductor::Limits {
        timeout: std::time::Duration::from_secs(args.timeout),
        stopped: STOPPED_LIMIT,
    };
    let conducted = conductor::conduct([base, new], listeners, args.rounds, first, limits, interrupt::interrupted)
        .map_err(|e| environment(anyhow!("run {k}: {e}")))?;
    if args.keep.is_some() {
        let log: String = conducted
            .log
            .iter()
            .map(|(side, ask, grant)| format!("{} {} {}", conductor::SIDES[*side], ask.line().trim_end(), grant.line()))
            .collect();
        let path = run_dir.join("lockstep.log");
        std::fs::write(&path, log)
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(environment)?;
    }
    // A side that exited with an error names it; one killed by a signal (as the conductor
    // kills the other side of a failure) only echoes it, and a success has none.
    let mut order = [0, 1];
    order.sort_by_key(|&side| match conducted.status[side].code() {
        Some(0) => 2,
        Some(_) => 0,
        None => 1,
    });
    let mut results: [Option<jsoncost_engine::Results>; 2] = [None, None];
    for side in order {
        results[side] = Some(programs[side].finish(
            conductor::SIDES[side],
            k,
            conducted.status[side],
            &file(conductor::SIDES[side], "json"),
        )?);
    }
    for side in 0..2 {
        if !conducted.joined[side] {
            eprintln!(
                "ab: warning: the {} program did not join the lockstep (a build without it?): it ran alone, and its rows pair once per run",
                conductor::SIDES[side]
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
    })
}

pub fn run(args: &AbArgs) -> anyhow::Result<()> {
    let base = Program::parse("--base", &args.base)?;
    let new = Program::parse("--new", &args.new)?;
    if let Some(bad) = args.args.iter().find(|a| matches!(a.as_str(), "--format" | "--out")) {
        return Err(usage(anyhow!(
            "{bad} is set by ab itself (each run writes JSON results to its own file)"
        )));
    }
    let cpu = args.cpu.resolve()?;
    // The sockets always live in the temporary directory: a Unix socket's path is limited to
    // 107 bytes, which a deep `--keep` directory would exceed.
    let scratch = Scratch(std::env::temp_dir().join(format!("jsoncost-ab-{}", std::process::id())));
    let dirs = Dirs {
        sockets: scratch.0.clone(),
        files: args.keep.clone().unwrap_or_else(|| scratch.0.clone()),
    };
    for dir in [&dirs.sockets, &dirs.files] {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create {}", dir.display()))
            .map_err(environment)?;
    }
    let mut runs = Vec::new();
    for k in 1..=args.runs {
        if interrupt::interrupted() {
            return Err(Failure {
                code: ExitCode::Interrupted,
                error: anyhow!("interrupted after {} runs", k - 1),
            }
            .into());
        }
        let on = cpu.map(|c| format!(" on CPU {c}")).unwrap_or_default();
        eprintln!(
            "ab: run {k}/{}: base and new in lockstep{on}, {} rounds per interleaved table",
            args.runs, args.rounds
        );
        runs.push(run_both(args, [&base, &new], &dirs, k, cpu)?);
    }
    let comparison = ab::ab(&runs, args.threshold).allowing_missing(args.allow_missing).on_cpu(cpu);
    print_stdout(&comparison.render(args.format.into()))?;
    if comparison.rows.is_empty() {
        return Err(usage(anyhow!(
            "no row was timed in both programs: nothing to compare (see \"Not compared\")"
        )));
    }
    if comparison.has_regression() {
        return Err(Failure {
            code: ExitCode::Regression,
            error: anyhow!("{}", comparison.summary()),
        }
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_split_as_a_shell_would_and_empty_ones_are_usage_errors() {
        assert_eq!(
            Program::parse("--base", "'./old build/jsoncost' --quiet").unwrap().words,
            ["./old build/jsoncost", "--quiet"]
        );
        assert_eq!(parse_cpu("none"), Ok(CpuChoice::Unpinned));
        assert_eq!(parse_cpu("3"), Ok(CpuChoice::Cpu(3)));
        assert!(parse_cpu("x").unwrap_err().contains("not a CPU number"));
        let e = CpuChoice::Cpu(100_000).resolve().unwrap_err();
        assert_eq!(crate::failure::exit_code_of(&e), 2);
        let last = *allowed_cpus().unwrap().last().unwrap();
        assert_eq!(CpuChoice::Auto.resolve().unwrap(), Some(last));
        let e = Program::parse("--new", "  ").unwrap_err();
        assert_eq!(crate::failure::exit_code_of(&e), 2);
        assert_eq!(crate::failure::exit_code_of(&Program::parse("--new", "'x").unwrap_err()), 2);
    }
}
