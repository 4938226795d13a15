//! `--measure counts`: the counting build (x86-64-v3, built on demand in a target directory of
//! its own and reused), the same command run under Callgrind, and its counts per row.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;
use jsoncost::counts::{CountRun, Counted};
use jsoncost_engine::ExperimentKind;
use jsoncost_engine::counts::{COUNTING_CODEGEN_UNITS, COUNTING_TARGET_CPU, COUNTING_TARGET_FEATURES};

use crate::failure;

/// What a measuring command measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Measure {
    /// Time and allocations, natively (the default).
    Time,
    /// Also instructions and simulated cache misses per operation under Valgrind's Callgrind,
    /// each row keeping its time from the native run (micro, store and stream).
    Counts,
}

/// How to count.
#[derive(Debug, Clone, clap::Args)]
pub struct MeasureArgs {
    /// `counts`: also count instructions, L1 and last-level misses and estimated cycles per
    /// operation under Callgrind (deterministic: a regression gate across runs and machines),
    /// from a build for x86-64-v3 made in target/counting (or JSONCOST_COUNTING_BINARY).
    #[arg(long, value_enum, default_value_t = Measure::Time)]
    pub measure: Measure,
    /// Operations counted per strategy (default 1000; 100 with --quick).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000), requires = "measure")]
    pub count_ops: Option<u64>,
    /// Count instructions only, without Callgrind's cache simulation (faster; no misses, no
    /// estimated cycles).
    #[arg(long, requires = "measure")]
    pub no_cache_sim: bool,
}

/// The counts of the command this process runs, from its counting build under Callgrind;
/// `None` unless `--measure counts` (or when this process is itself the counted child).
pub fn counted(kind: ExperimentKind, quick: bool, args: &MeasureArgs) -> anyhow::Result<Option<Counted>> {
    if args.measure != Measure::Counts || jsoncost_engine::counts::requested_ops().is_some() {
        return Ok(None);
    }
    // Micro's operations, the store's reads and stream's whole runs run in this process
    // between the client requests; http's work is a server's, safety's a verdict.
    if !matches!(kind, ExperimentKind::Micro | ExperimentKind::Store | ExperimentKind::Stream) {
        return Err(failure::usage(anyhow::anyhow!(
            "--measure counts counts micro, store and stream tables only; {kind} is measured by time"
        )));
    }
    let binary = counting_binary()?;
    let ops = args.count_ops.unwrap_or(if quick { 100 } else { 1000 });
    let what = match kind {
        // Stream's row is a whole run: counted once, whatever --count-ops says.
        ExperimentKind::Stream => {
            "one whole run per strategy (the kernel's page faults and I/O waits are not the process's instructions)".to_string()
        }
        _ => format!("{ops} operations per strategy"),
    };
    eprintln!(
        "counting {what} under Callgrind ({})",
        if args.no_cache_sim {
            "instructions"
        } else {
            "with the cache simulation"
        }
    );
    let run = CountRun {
        binary,
        // The same command: the child sees JSONCOST_COUNT_OPS under Valgrind and counts.
        args: std::env::args_os().skip(1).collect(),
        ops,
        cache_sim: !args.no_cache_sim,
        valgrind: std::env::var_os("JSONCOST_VALGRIND").unwrap_or_else(|| OsString::from("valgrind")),
    };
    let counted = run.run().map_err(failure::library)?;
    if counted.0.is_empty() {
        return Err(failure::environment(anyhow::anyhow!(
            "the counted run under Callgrind dumped no counts (was {} built from this source?)",
            run.binary.display()
        )));
    }
    Ok(Some(counted))
}

/// The counting build's compiler flags: the CPU level Valgrind decodes, and the source tree
/// and cargo's home remapped to fixed names. Panic locations embed their file's path; paths
/// of other lengths in two clones would move the binary's read-only constants, and with them
/// the alignment of what serializers copy from there, so the same source would count
/// differently from one directory to the next.
fn counting_rustflags(workspace: &Path) -> Vec<String> {
    let mut flags = vec![
        format!("-Ctarget-cpu={COUNTING_TARGET_CPU}"),
        format!("-Ctarget-feature={COUNTING_TARGET_FEATURES}"),
        format!("--remap-path-prefix={}=/jsoncost", workspace.display()),
    ];
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|home| home.join(".cargo")));
    if let Some(home) = cargo_home {
        flags.push(format!("--remap-path-prefix={}=/cargo", home.display()));
    }
    flags
}

/// The counting build: JSONCOST_COUNTING_BINARY when set, else this source tree's jsoncost
/// built for [`COUNTING_TARGET_CPU`] in `target/counting` (cargo reuses it when nothing
/// changed). `CARGO_ENCODED_RUSTFLAGS` outranks `.cargo/config.toml`'s `target-cpu=native`,
/// whose AVX-512 Valgrind cannot decode; its own target directory keeps the native build's.
/// One codegen unit per crate ([`COUNTING_CODEGEN_UNITS`]), paths remapped and the C build time
/// fixed: the same source counts the same whenever and wherever it is built.
fn counting_binary() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os("JSONCOST_COUNTING_BINARY") {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(failure::environment(anyhow::anyhow!(
                "JSONCOST_COUNTING_BINARY names {}, which is not a file",
                path.display()
            )));
        }
        return Ok(path);
    }
    let workspace = crate::source_tree::workspace();
    if !workspace.join("Cargo.toml").is_file() || !workspace.join("crates/cli").is_dir() {
        return Err(failure::environment(anyhow::anyhow!(
            "--measure counts builds jsoncost for {COUNTING_TARGET_CPU} from its source tree, which is not at {}; \
             set JSONCOST_COUNTING_BINARY to a jsoncost built with \
             RUSTFLAGS='-Ctarget-cpu={COUNTING_TARGET_CPU} -Ctarget-feature={COUNTING_TARGET_FEATURES}'",
            workspace.display()
        )));
    }
    let workspace = workspace.canonicalize().context("the source tree")?;
    let target = workspace.join("target").join("counting");
    eprintln!(
        "building jsoncost for {COUNTING_TARGET_CPU} ({COUNTING_TARGET_FEATURES}) in {} (reused when up to date)",
        target.display()
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let status = Command::new(&cargo)
        .current_dir(&workspace)
        .args(["build", "--release", "-p", "jsoncost-cli", "--bin", "jsoncost", "--target-dir"])
        .arg(&target)
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", COUNTING_CODEGEN_UNITS)
        // mimalloc's C source holds __DATE__ and __TIME__: the build's time among the read-only
        // strings would move the constants after it, and the counts with them. C compilers
        // take both from SOURCE_DATE_EPOCH when set.
        .env("SOURCE_DATE_EPOCH", "0")
        // Flags separated by 0x1f, as cargo reads this variable.
        .env("CARGO_ENCODED_RUSTFLAGS", counting_rustflags(&workspace).join("\x1f"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .map_err(|e| failure::environment(anyhow::anyhow!("cannot run cargo to make the counting build: {e}")))?;
    if !status.success() {
        return Err(failure::environment(anyhow::anyhow!("the counting build failed ({status})")));
    }
    Ok(target.join("release").join("jsoncost"))
}
