//! Where results go: stdout carries exactly the results (tables as each finishes, or the whole
//! `--format` output at the end); results.json is written atomically at the end, and also when
//! a run stops early, so nothing measured is lost. A table whose every row failed fails the
//! command (after everything is written): the one rule, here, for every experiment's tables.

use anyhow::{Context, anyhow};
use jsoncost_engine::{Experiment, Results, Row, SCHEMA_VERSION, machine};
use jsoncost_report::{Format, advisor, files};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::failure::{self, ExitCode, Failure};
use crate::interrupt;

/// Output options shared by every measuring command.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// What stdout carries.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Also write the results (results.json, schema version 1) to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Table,
    Markdown,
    Json,
    Csv,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
        }
    }
}

/// Colour on stdout only for a terminal and when NO_COLOR is unset (no-color.org).
pub fn use_color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
}

/// One command's results as they accumulate.
pub struct Session {
    pub results: Results,
    format: Format,
    color: bool,
    out: Option<PathBuf>,
    /// The first table whose every row failed: what it means (bad data or the environment) and
    /// why, as the error the command ends with.
    all_failed: Option<Failure>,
}

impl Session {
    /// Starts a session; an `--out` whose directory cannot be written fails now (exit 3),
    /// before any experiment runs.
    pub fn new(output: &OutputArgs, quick: bool) -> anyhow::Result<Session> {
        if let Some(path) = &output.out {
            check_writable(path)?;
        }
        Ok(Session {
            results: Results {
                schema_version: SCHEMA_VERSION,
                jsoncost_version: env!("CARGO_PKG_VERSION").to_string(),
                machine: machine::current(),
                started_at: machine::now_rfc3339(),
                quick,
                interrupted: false,
                experiments: Vec::new(),
            },
            format: output.format.into(),
            color: use_color(),
            out: output.out.clone(),
            all_failed: None,
        })
    }

    /// Adds a finished table; table and markdown formats print it at once. `if_all_failed` is
    /// what a table whose every row failed says: [`ExitCode::Usage`] for bad data (every
    /// strategy refused the input), [`ExitCode::Environment`] when what was measured failed
    /// (a server, a store).
    pub fn push(&mut self, exp: Experiment, if_all_failed: ExitCode) {
        if self.all_failed.is_none() && !exp.rows.is_empty() && exp.rows.iter().all(|r| !r.is_ok()) {
            let first = exp.rows[0]
                .error_message
                .as_deref()
                .and_then(|m| m.lines().next())
                .unwrap_or("no message");
            self.all_failed = Some(Failure {
                code: if_all_failed,
                error: anyhow!(
                    "every row of {}: {} failed ({}: {first}); see the table",
                    exp.experiment,
                    exp.table,
                    exp.rows[0].method
                ),
            });
        }
        self.add(exp);
    }

    fn add(&mut self, exp: Experiment) {
        if matches!(self.format, Format::Table | Format::Markdown) {
            let text = jsoncost_report::render_experiment(&exp, self.format, self.color);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        }
        self.results.experiments.push(exp);
    }

    /// Keeps an experiment's error in the results as a table of its own (`<experiment>: error`,
    /// one failed row), so results.json says what stopped it and `compare` sees what is missing.
    pub fn record_error(&mut self, experiment: &str, error: &anyhow::Error) {
        let mut exp = Experiment::new(experiment, "error");
        exp.rows.push(Row::failed(experiment, format!("{error:#}")));
        exp.finish();
        // Not through `push`: the error itself ends the command, with its own exit code.
        self.add(exp);
    }

    /// The command's outcome once its experiments returned without error: a table whose every
    /// row failed fails it (exit 2 for bad data, 3 for the environment).
    pub fn outcome(&mut self) -> anyhow::Result<()> {
        match self.all_failed.take() {
            Some(failure) => Err(failure.into()),
            None => Ok(()),
        }
    }

    /// Prints what is left (the advisor for tables; the whole output for json/csv) and writes
    /// results.json when asked, marked interrupted if it was. Called on success and on failure
    /// alike.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.results.interrupted = interrupt::interrupted();
        let text = match self.format {
            Format::Table | Format::Markdown if self.results.experiments.is_empty() => String::new(),
            Format::Table | Format::Markdown => {
                let advice = advisor::advise(&self.results);
                advisor::render(&advice, self.format)
            }
            Format::Json | Format::Csv => jsoncost_report::render(&self.results, self.format, false),
        };
        if !text.is_empty() {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        }
        if let Some(path) = &self.out {
            self.write_results(path)?;
            eprintln!("results written to {}", path.display());
        }
        Ok(())
    }

    pub fn write_results(&self, path: &Path) -> anyhow::Result<()> {
        let json = serde_json::to_vec_pretty(&self.results).context("serializing results")?;
        files::write_atomic(path, &json)
            .with_context(|| format!("writing {}", path.display()))
            .map_err(failure::environment)
    }
}

/// Fails before anything is measured: with exit 2 when `path` is a directory (a results file
/// goes there), with exit 3 when its directory does not exist or cannot be written.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        return Err(failure::usage(anyhow!(
            "cannot write results to {}: it is a directory; give a file path, e.g. {}",
            path.display(),
            path.join("results.json").display()
        )));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let probe = dir.join(format!(".jsoncost-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .with_context(|| {
            format!(
                "cannot write results to {}: directory {} is not writable",
                path.display(),
                dir.display()
            )
        })
        .map_err(failure::environment)?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}
