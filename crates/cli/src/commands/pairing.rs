//! The flags of every command that runs two programs in lockstep (`ab`, `alloc`, `levers`), and
//! the `jsoncost_conductor::ab::Settings` they give.

use jsoncost_conductor::ab::{CpuChoice, Settings};

use crate::failure::library;

#[derive(Debug, Clone, clap::Args)]
pub struct Pairing {
    /// Runs of both programs, in lockstep; odd runs start with base, even ones with new. A
    /// table measured one strategy after another (`--schedule sequential`, `http --target`)
    /// pairs once per run, so it needs 5 or more.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// The CPU both programs are pinned to, or `none` (the OS places them). Default: the last
    /// CPU ab may run on. Only one of them works at a time, so they lose nothing by sharing it,
    /// and both sides of a pair then run on one core: on a VM each virtual CPU has its own
    /// speed of the moment (measured here: the same `micro` run at 240 ns on one and 375 ns on
    /// the other, ~1.5× apart, for seconds at a time), which would otherwise land on one side
    /// of the pair only. An http experiment's server and load generator then share that CPU
    /// too.
    #[arg(long, value_name = "N|none", default_value = "auto", value_parser = clap::value_parser!(CpuChoice))]
    pub cpu: CpuChoice,
    /// The longest ab waits for a program's next step, in seconds: to join the lockstep or
    /// exit (one that never joins, an older build, runs its whole experiment in this time),
    /// to ask for its next turn, to exit. Then both programs are killed and ab exits 3 naming
    /// the program. A program seen stopped (SIGSTOP) for 5 s fails at once.
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Other programs' CPU time on the CPU the two programs share (every CPU, unpinned), as a
    /// share of the two's own, past which no row's time is judged (exit 3; allocation still
    /// is): another program's work lands on one side of a pair and not on the other, and does
    /// not even out. Each program's own threads are its own work. Quiet, the share measured
    /// 0.0–1.1%; beside a busy loop on the CPU, 85%.
    #[arg(long, value_name = "SHARE", default_value = "5%", value_parser = jsoncost::flags::time_share, alias = "max-cpu-wait")]
    pub max_other_cpu: f64,
}

impl Pairing {
    /// The settings these flags give; the command sets its rounds, scratch, arguments and label.
    pub fn settings(&self) -> anyhow::Result<Settings> {
        Ok(Settings {
            rounds: 0,
            runs: self.runs,
            first_run: 1,
            cpu: self.cpu.resolve().map_err(library)?,
            timeout: std::time::Duration::from_secs(self.timeout),
            keep: None,
            args: Vec::new(),
            max_other_cpu: self.max_other_cpu,
            label: String::new(),
        })
    }
}
