//! The conductor of `--measure counts`: runs a counting build of the same command under
//! `valgrind --tool=callgrind` (collection off until a strategy's operations start: see
//! [`jsoncost_engine::counts`]), reads back one Callgrind dump per strategy, and puts each
//! row's counts per operation beside its time from the ordinary native run.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use jsoncost_engine::MeasuredTable;
use jsoncost_engine::counts::{self, COUNT_OPS_ENV, Counts};

use crate::error::{Error, Result};

/// Each counted row's counts, by (table, method).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counted(pub BTreeMap<(String, String), Counts>);

impl Counted {
    /// Fills the rows of `exp` that were counted; the others keep none.
    pub fn fill(&self, exp: &mut MeasuredTable) {
        for row in exp.rows.iter_mut() {
            if let Some(c) = self.0.get(&(exp.table.clone(), row.method.clone())) {
                row.counts = Some(c.clone());
            }
        }
    }

    /// Reads every labelled dump in `dir` (the dump at exit, unlabelled, is skipped).
    pub fn read_dir(dir: &Path) -> Result<Counted> {
        let unreadable = |e: std::io::Error| Error::environment(format!("cannot read Callgrind's dumps in {}: {e}", dir.display()));
        let mut out = BTreeMap::new();
        for entry in std::fs::read_dir(dir).map_err(unreadable)? {
            let path = entry.map_err(unreadable)?.path();
            let text = std::fs::read_to_string(&path).map_err(unreadable)?;
            let dump = counts::parse_dump(&text)
                .map_err(|e| Error::environment(format!("Callgrind's dump {} cannot be read: {e}", path.display())))?;
            let Some((table, method, ops)) = dump.label.as_deref().and_then(counts::split_label) else {
                continue;
            };
            let per_op = dump
                .events
                .per_op(ops)
                .ok_or_else(|| Error::environment(format!("Callgrind's dump {} counts no instructions (Ir)", path.display())))?;
            out.insert((table.to_string(), method.to_string()), per_op);
        }
        Ok(Counted(out))
    }
}

/// How the counted child is run.
#[derive(Debug, Clone)]
pub struct CountRun {
    /// The counting build of the program (x86-64-v3: see [`counts::COUNTING_TARGET_CPU`]).
    pub binary: PathBuf,
    /// Its arguments: the same command as the native run's.
    pub args: Vec<OsString>,
    /// Operations counted per strategy.
    pub ops: u64,
    /// The cache simulation (L1 and last-level misses, estimated cycles); slower.
    pub cache_sim: bool,
    /// The `valgrind` to run.
    pub valgrind: OsString,
}

/// What Valgrind says when the build has instructions it cannot decode (AVX-512's EVEX
/// prefix, in a build for a newer CPU than it knows).
const UNDECODABLE: &str = "unhandled instruction bytes";

impl CountRun {
    /// Runs the child under Callgrind and reads its counts. Valgrind missing, an instruction
    /// it cannot decode, or a child that fails are environment errors (exit 3), with the
    /// child's last words.
    pub fn run(&self) -> Result<Counted> {
        let started = std::time::Instant::now();
        let dir = tempfile::Builder::new()
            .prefix("jsoncost-counts-")
            .tempdir()
            .map_err(|e| Error::environment(format!("cannot make a directory for Callgrind's dumps: {e}")))?;
        let out_file = dir.path().join("callgrind.out.%p");
        let mut cmd = Command::new(&self.valgrind);
        cmd.arg("--tool=callgrind")
            .arg("--collect-atstart=no")
            .arg(format!("--cache-sim={}", if self.cache_sim { "yes" } else { "no" }))
            .arg(format!("--callgrind-out-file={}", out_file.display()))
            .arg(&self.binary)
            .args(&self.args)
            // The stack starts below the environment, so its size moves every stack address and
            // with them alignment-dependent paths (memcpy's): the child gets a fixed one.
            .env_clear()
            .env(COUNT_OPS_ENV, self.ops.to_string())
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(a) = std::env::var_os("JSONCOST_ALLOCATOR") {
            cmd.env("JSONCOST_ALLOCATOR", a);
        }
        // A killed conductor takes its counted child along, as every conductor's children.
        jsoncost_conductor::children::die_with_parent(&mut cmd);
        let output = match cmd.output() {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::environment(format!(
                    "--measure counts runs Valgrind, and {} was not found (install valgrind, e.g. `apt-get install valgrind`)",
                    Path::new(&self.valgrind).display()
                )));
            }
            Err(e) => {
                return Err(Error::environment(format!(
                    "cannot run {}: {e}",
                    Path::new(&self.valgrind).display()
                )));
            }
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains(UNDECODABLE) {
            let line = stderr.lines().find(|l| l.contains(UNDECODABLE)).unwrap_or_default();
            return Err(Error::environment(format!(
                "Valgrind cannot decode an instruction of {} (built for a CPU level it does not know, e.g. AVX-512; the counting build targets {}): {}",
                self.binary.display(),
                counts::COUNTING_TARGET_CPU,
                line.trim()
            )));
        }
        if !output.status.success() {
            let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = tail[tail.len().saturating_sub(5)..].join("\n");
            return Err(Error::environment(format!(
                "the counted run under Valgrind failed ({}):\n{tail}",
                output.status
            )));
        }
        let counted = Counted::read_dir(dir.path())?;
        eprintln!(
            "counted {} rows under Callgrind in {:.1} s",
            counted.0.len(),
            started.elapsed().as_secs_f64()
        );
        Ok(counted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::{ExperimentKind, Row};

    fn dump(label: &str, ir: u64) -> String {
        format!("version: 1\ndesc: Trigger: Client Request: {label}\nevents: Ir\nsummary: {ir}\n")
    }

    #[test]
    fn the_dumps_fill_the_rows_they_name_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("callgrind.out.1.1"),
            dump("data/deserialize\ttyped/serde_json\t100", 51_200),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("callgrind.out.1.2"),
            dump("data/serialize\ttyped/serde_json\t100", 9_900),
        )
        .unwrap();
        // The dump at exit: no label.
        std::fs::write(dir.path().join("callgrind.out.1"), "events: Ir\ntotals: 0\n").unwrap();
        let counted = Counted::read_dir(dir.path()).unwrap();
        assert_eq!(counted.0.len(), 2);
        let mut exp = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
        exp.rows = vec![Row::new("typed/serde_json"), Row::new("dom/serde_json")];
        counted.fill(&mut exp);
        assert_eq!(exp.rows[0].counts.as_ref().map(|c| (c.ops, c.instructions)), Some((100, 512.0)));
        assert_eq!(exp.rows[1].counts, None);
    }

    #[test]
    fn a_missing_valgrind_is_an_environment_error_that_says_so() {
        let run = CountRun {
            binary: "/bin/true".into(),
            args: Vec::new(),
            ops: 1,
            cache_sim: false,
            valgrind: "/nonexistent/valgrind".into(),
        };
        let e = run.run().unwrap_err();
        assert_eq!(e.exit_code(), 3);
        assert_eq!(
            e.to_string(),
            "--measure counts runs Valgrind, and /nonexistent/valgrind was not found (install valgrind, e.g. `apt-get install valgrind`)"
        );
    }
}
