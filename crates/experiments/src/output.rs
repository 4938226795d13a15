//! Where results go, for the CLI and the bench harness alike: stdout carries exactly the
//! results (tables as each finishes then every table's verdict, or with the verdict first —
//! `run`, the harness — the headline, the held tables, then the verdicts; or the whole
//! `--format` output at the end; a write that
//! fails is the command's error, exit 3, a closed pipe only ends the printing), results.json
//! is written at the end through `files::write_output` (also when a run stops early, so
//! nothing measured is lost), and a run directory gets report.md and report.html.

mod build_check;

pub(crate) use build_check::warn_once as warn_about_the_build;

use std::io::Write;
use std::path::{Path, PathBuf};

use jsoncost_engine::lockstep::Lockstep;
use jsoncost_engine::{ExperimentKind, MeasuredTable, Results, Row, machine};
use jsoncost_report::{Format, advisor, files};

use crate::error::Error;
use crate::sink::Sink;

/// Colour on stdout only for a terminal and when NO_COLOR is unset (no-color.org).
pub fn use_color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
}

/// One command's results as they accumulate, and how they are shown.
pub struct Output {
    /// The results so far.
    pub results: Results,
    format: Format,
    color: bool,
    out: Option<PathBuf>,
    /// The first table whose every row failed, as the error the command ends with.
    all_failed: Option<Error>,
    /// Printing ended: stdout failed (its error, reported by [`Output::finish`]) or its
    /// reader went away (`None` inside).
    stdout_closed: Option<Option<Error>>,
    /// A table printed so far carried the build's note under its title: later ones need not.
    build_noted: bool,
    /// The answer first (`run`, the bench harness): tables are held, and the end prints the
    /// headline verdict, then the tables, then every table's verdict.
    verdict_first: bool,
    /// The tables held until the headline verdict is printed, as the format renders them.
    held: Vec<String>,
    /// Counts from a counted run (`--measure counts`), put on each table's rows as it arrives.
    counted: Option<crate::counts::Counted>,
}

impl Output {
    /// Starts an output; an `out` whose directory cannot be written fails now (exit 3), before
    /// anything is measured. In a `lockstep` (the one the program's engine settings take
    /// turns in) it first waits for its turn.
    pub fn new(format: Format, quick: bool, out: Option<PathBuf>, lockstep: &Lockstep) -> Result<Output, Error> {
        if let Some(path) = &out {
            check_writable(path)?;
        }
        // Under `ab` or `alloc` the program works only in its turns, from here on: what comes
        // before the first timed iteration (a stream body's check, the gates) is seconds of work,
        // and the pair's two programs doing it at once on one CPU would each wait for the CPU.
        lockstep.turn();
        let results = jsoncost_codecs::build::new_results(quick);
        build_check::warn_once(&results.machine);
        Ok(Output {
            results,
            format,
            color: use_color(),
            out,
            all_failed: None,
            stdout_closed: None,
            build_noted: false,
            verdict_first: false,
            held: Vec::new(),
            counted: None,
        })
    }

    /// Puts the answer first: a format that prints each table as it finishes holds them, and the
    /// end prints the headline verdict (one screen) before them.
    pub fn verdict_first(&mut self) {
        self.verdict_first = true;
    }

    /// What stdout carries.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Keeps an experiment's error in the results as a table of its own (`<experiment>: error`,
    /// one failed row named by `what` failed), so results.json says what stopped it and
    /// `compare` sees what is missing. Two failures of one name stay two rows (`what (2)`), as
    /// `compare` reads a row once. The error itself ends the command, with its own exit code.
    pub fn record_error(&mut self, kind: ExperimentKind, what: &str, message: String) {
        let taken = |method: &str| {
            self.results
                .experiments
                .iter()
                .any(|e| e.kind == kind && e.table == ERROR_TABLE && e.rows.iter().any(|r| r.method == method))
        };
        let method = std::iter::once(what.to_string())
            .chain((2..).map(|n| format!("{what} ({n})")))
            .find(|m| !taken(m))
            .expect("an unbounded sequence of names");
        let mut exp = MeasuredTable::new(kind, ERROR_TABLE);
        exp.rows.push(Row::failed(method, message));
        exp.finish();
        self.push(exp);
    }

    /// The command's outcome once its experiments returned without error: a table whose every
    /// row failed fails it (exit 2 for bad input, 3 for the environment).
    pub fn outcome(&mut self) -> Result<(), Error> {
        self.all_failed.take().map_or(Ok(()), Err)
    }

    /// Adds a finished table; a format that prints each table (table, markdown) prints it at once.
    pub fn push(&mut self, mut exp: MeasuredTable) {
        if let Some(counted) = &self.counted {
            counted.fill(&mut exp);
        }
        if self.format.exporter().prints_each_table() {
            // The build's note under the first table's title only: once is enough to read.
            let text = if self.build_noted {
                jsoncost_report::render_experiment(&exp, self.format, self.color)
            } else {
                jsoncost_report::render_experiment_on(&exp, &self.results.machine, self.format, self.color)
            };
            self.build_noted = true;
            self.print_or_hold(text);
        }
        self.results.experiments.push(exp);
    }

    /// Adds allocator comparisons (`Results::allocators`); a format that prints each table
    /// prints them at once.
    pub fn push_allocators(&mut self, comparisons: Vec<jsoncost_engine::AllocatorComparison>) {
        let exporter = self.format.exporter();
        if exporter.prints_each_table() {
            let text = exporter.allocator_tables(&comparisons);
            self.print_or_hold(text);
        }
        self.results.allocators.extend(comparisons);
    }

    /// Whether finished tables are held for the end (the verdict first, in a format that prints
    /// each table): the caller then says on stderr that a table is done.
    pub fn holds_tables(&self) -> bool {
        self.verdict_first && self.format.exporter().prints_each_table()
    }

    /// Prints a finished table, or holds it when the verdict comes first.
    fn print_or_hold(&mut self, text: String) {
        if self.verdict_first {
            self.held.push(text);
        } else {
            self.print(&text);
        }
    }

    /// Puts `counted`'s counts on the rows of every table pushed from now on.
    pub fn count_with(&mut self, counted: crate::counts::Counted) {
        self.counted = Some(counted);
    }

    /// Prints `text` and a newline unless printing has ended.
    fn print(&mut self, text: &str) {
        if self.stdout_closed.is_some() {
            return;
        }
        match print_stdout(text) {
            Ok(Printed::All) => {}
            Ok(Printed::ReaderGone) => self.stdout_closed = Some(None),
            Err(e) => self.stdout_closed = Some(Some(e)),
        }
    }

    /// Prints what is left (the advice after tables printed as they finished; else the whole
    /// output) and writes
    /// results.json when asked, marked `interrupted` if the run was. Called on success and on
    /// failure alike. A failed stdout is its error once the file is written (exit 3).
    pub fn finish(&mut self, interrupted: bool) -> Result<(), Error> {
        self.results.interrupted = interrupted;
        let exporter = self.format.exporter();
        let text = if !exporter.prints_each_table() {
            exporter.results(&self.results, false)
        } else if self.results.experiments.is_empty() {
            String::new()
        } else {
            let advice = advisor::advise(&self.results);
            if self.verdict_first {
                let headline = exporter.headline(&advice);
                self.print(&headline);
                for table in std::mem::take(&mut self.held) {
                    self.print(&table);
                }
            }
            exporter.advice(&advice)
        };
        if !text.is_empty() {
            self.print(&text);
        }
        if let Some(path) = &self.out {
            self.write_results(path)?;
            eprintln!("results written to {}", path.display());
        }
        match self.stdout_closed.take() {
            Some(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// Writes results.json to `path` (`files::write_output`; exit 3 on failure).
    pub fn write_results(&self, path: &Path) -> Result<(), Error> {
        write_results_of(&self.results, path)
    }

    /// Writes the self-contained HTML report to `path`.
    pub fn write_html(&self, path: &Path) -> Result<(), Error> {
        write_html_of(&self.results, path)
    }

    /// Writes report.md and report.html into `dir`.
    pub fn write_reports(&self, dir: &Path) -> Result<(), Error> {
        write_reports_of(&self.results, dir)
    }
}

/// An output is where a runner's tables go; notes go to stderr.
impl Sink for Output {
    fn table_done(&mut self, table: MeasuredTable) {
        self.push(table);
    }
    fn all_failed(&mut self, why: Error) {
        self.all_failed.get_or_insert(why);
    }
    fn note(&mut self, line: &str) {
        eprintln!("{line}");
    }
    fn strategy_started(&mut self, table: &str, method: &str) {
        eprintln!("jsoncost: {table}: {method}");
    }
}

/// Writes `results` to `path` as results.json (`files::write_output`; exit 3 on failure), and
/// beside it each profiled server's flamegraph (`Row::profile`, `flamegraph-*.svg`).
pub fn write_results_of(results: &Results, path: &Path) -> Result<(), Error> {
    files::write_results(path, results).map_err(|e| write_error(path, e))?;
    write_flamegraphs(results, path.parent().unwrap_or(Path::new("")))
}

/// Each profiled row's flamegraph, into `dir` under the name its profile records.
#[cfg(feature = "http")]
fn write_flamegraphs(results: &Results, dir: &Path) -> Result<(), Error> {
    for exp in &results.experiments {
        for p in exp.rows.iter().filter_map(|r| r.profile.as_deref()) {
            let (Some(file), Some(svg)) = (&p.flamegraph, jsoncost_report::flamegraph::svg(p, &exp.table)) else {
                continue;
            };
            let path = dir.join(file);
            files::write_output(&path, svg.as_bytes()).map_err(|e| write_error(&path, e))?;
        }
    }
    Ok(())
}

#[cfg(not(feature = "http"))]
fn write_flamegraphs(_results: &Results, _dir: &Path) -> Result<(), Error> {
    Ok(())
}

/// Writes the self-contained HTML report of `results` to `path`.
pub fn write_html_of(results: &Results, path: &Path) -> Result<(), Error> {
    let html = Format::Html.exporter().results(results, false);
    files::write_output(path, html.as_bytes()).map_err(|e| write_error(path, e))
}

/// Writes report.md and report.html of `results` into `dir`.
pub fn write_reports_of(results: &Results, dir: &Path) -> Result<(), Error> {
    for (name, format) in [("report.md", Format::Markdown), ("report.html", Format::Html)] {
        let path = dir.join(name);
        let text = format.exporter().results(results, false);
        files::write_output(&path, text.as_bytes()).map_err(|e| write_error(&path, e))?;
    }
    Ok(())
}

/// How a print to stdout ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    /// Everything was printed.
    All,
    /// Its reader went away (a closed pipe, `| head`): the rest is not wanted, and nothing is
    /// said about it.
    ReaderGone,
}

/// Prints `text` and a newline to stdout, flushed: an error (a full disk, a device that
/// refuses) is the environment's (exit 3); a closed pipe is not an error.
pub fn print_stdout(text: &str) -> Result<Printed, Error> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => Ok(Printed::All),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Printed::ReaderGone),
        Err(e) => Err(Error::environment(format!("cannot write the results to stdout: {e}"))),
    }
}

/// The table an experiment's error is kept in ([`Output::record_error`]).
pub const ERROR_TABLE: &str = "error";

/// The results file a run writes into its output directory.
pub const RESULTS_FILE: &str = "results.json";

/// A failed write of `path`: a directory is a usage error (exit 2), anything else the
/// environment's (exit 3).
fn write_error(path: &Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::IsADirectory {
        Error::usage(format!(
            "cannot write {}: it is a directory; give a file path, e.g. {}",
            path.display(),
            path.join(RESULTS_FILE).display()
        ))
    } else {
        Error::environment(format!("writing {}: {e}", path.display()))
    }
}

/// Fails before anything is measured (`files::check_output`): with exit 2 when `path` is a
/// directory, with exit 3 when its directory does not exist or cannot be written, or a device
/// cannot be opened for writing.
pub fn check_writable(path: &Path) -> Result<(), Error> {
    refuse_dash(path, "results")?;
    files::check_output(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::IsADirectory => Error::usage(format!(
            "cannot write results to {}: it is a directory; give a file path, e.g. {}",
            path.display(),
            path.join(RESULTS_FILE).display()
        )),
        _ => Error::environment(format!("cannot write results to {}: {e}", path.display())),
    })
}

/// Refuses (exit 2) `-` as an output path: it is not stdout here (stdout carries `--format`'s
/// output), and a file named `-` is never what was meant.
pub fn refuse_dash(path: &Path, what: &str) -> Result<(), Error> {
    if path == Path::new("-") {
        return Err(Error::usage(format!(
            "cannot write {what} to -: - is not stdout here (stdout carries the --format output); give a file path, or /dev/stdout"
        )));
    }
    Ok(())
}

/// Refuses (exit 2) an output that is one of the command's inputs (the same file, also through
/// a link): writing it would replace what is being read. `output` and each input come with the
/// flag that named them, e.g. `("--out", path)`, `("--payload", path)`.
pub fn refuse_input_as_output(output: (&str, &Path), inputs: &[(&str, &Path)]) -> Result<(), Error> {
    match inputs.iter().find(|(_, input)| files::same_file(output.1, input)) {
        Some((flag, input)) => Err(Error::usage(format!(
            "{} {} is {flag} {}: writing it would replace an input; give another path",
            output.0,
            output.1.display(),
            input.display()
        ))),
        None => Ok(()),
    }
}

/// Named baselines: `--save-baseline NAME` keeps a results file under
/// `jsoncost-results/baselines/NAME.json`; `compare` takes a results file, a run's directory or such a name.
pub mod baselines {
    use std::path::{Path, PathBuf};

    use super::RESULTS_FILE;
    use crate::error::Error;

    /// Where results and baselines go unless `--out` says otherwise.
    pub const RESULTS_DIR: &str = "jsoncost-results";

    /// Where named baselines are kept.
    pub fn baseline_dir() -> PathBuf {
        Path::new(RESULTS_DIR).join("baselines")
    }

    /// Checks a baseline name: it becomes a file name.
    pub fn check_name(name: &str) -> Result<(), Error> {
        let ok = !name.is_empty()
            && name.len() <= 100
            && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && !name.starts_with('.');
        if ok {
            Ok(())
        } else {
            Err(Error::usage(format!(
                "invalid baseline name {name:?}: use letters, digits, '-', '_' and '.'"
            )))
        }
    }

    /// A baseline's file.
    pub fn path_of(name: &str) -> PathBuf {
        baseline_dir().join(format!("{name}.json"))
    }

    /// Creates the baseline directory and checks `name`'s file can be written (before any
    /// measurement).
    pub fn prepare(name: &str) -> Result<PathBuf, Error> {
        check_name(name)?;
        std::fs::create_dir_all(baseline_dir())
            .map_err(|e| Error::environment(format!("cannot create {}: {e}", baseline_dir().display())))?;
        let path = path_of(name);
        super::check_writable(&path)?;
        Ok(path)
    }

    /// A results file, a run's output directory (its `results.json`), or the name of a saved
    /// baseline. A directory without `results.json` does not hide a baseline of its name.
    pub fn resolve(arg: &str) -> Result<PathBuf, Error> {
        let as_path = PathBuf::from(arg);
        let in_directory = as_path.join(RESULTS_FILE);
        if as_path.is_dir() && in_directory.is_file() {
            return Ok(in_directory);
        }
        if as_path.exists() && !as_path.is_dir() {
            return Ok(as_path);
        }
        if check_name(arg).is_ok() && path_of(arg).exists() {
            return Ok(path_of(arg));
        }
        let saved = saved_names();
        let known = if saved.is_empty() {
            "no baselines are saved".to_string()
        } else {
            format!("saved baselines: {}", saved.join(", "))
        };
        let what = if as_path.is_dir() {
            format!("a directory without {RESULTS_FILE}, and not a saved baseline")
        } else {
            "neither a results file nor a saved baseline".to_string()
        };
        Err(Error::usage(format!("{arg:?} is {what} ({known} in {})", baseline_dir().display())))
    }

    /// The names of the saved baselines (`NAME.json` files, not temporary ones), sorted.
    fn saved_names() -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(baseline_dir())
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
                    .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .filter(|name| check_name(name).is_ok())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

/// `jsoncost-results/<UTC timestamp>`: a run's directory.
pub fn timestamp_dir() -> PathBuf {
    // "2026-11-30T12:00:00Z" -> "20261130-120000"
    let digits: String = machine::now_rfc3339().chars().filter(char::is_ascii_digit).collect();
    let name = match digits.get(..14) {
        Some(d) => format!("{}-{}", &d[..8], &d[8..]),
        None => "run".to_string(),
    };
    PathBuf::from(baselines::RESULTS_DIR).join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_errors_of_one_kind_are_two_rows_compare_can_read() {
        let mut output = Output::new(Format::Json, true, None, &Lockstep::alone()).unwrap();
        output.record_error(ExperimentKind::Stream, "stream readings", "no such file".into());
        output.record_error(ExperimentKind::Stream, "stream readings", "no such file".into());
        output.record_error(ExperimentKind::Stream, "stream events", "no such file".into());
        let methods: Vec<&str> = output
            .results
            .experiments
            .iter()
            .flat_map(|e| &e.rows)
            .map(|r| r.method.as_str())
            .collect();
        assert_eq!(methods, ["stream readings", "stream readings (2)", "stream events"]);
        jsoncost_report::compare::check_rows(Path::new("r.json"), &output.results).unwrap();
    }
}
