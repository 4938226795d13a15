//! `jsoncost report RESULTS.json`: re-renders a saved run (tables on stdout, HTML to a file).

use anyhow::Context;
use jsoncost_report::{Format, files};
use std::path::{Path, PathBuf};

use crate::failure::{self, environment, usage};
use crate::session::{format_parser, print_stdout, use_color};

#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// A results.json written by jsoncost.
    pub results: PathBuf,
    /// Write the self-contained HTML report to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write the markdown report to this file.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// What stdout carries.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
}

pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let results = files::load(&args.results).map_err(usage)?;
    for (path, what, flag) in [
        (&args.html, "the HTML report", "--html"),
        (&args.markdown, "the markdown report", "--markdown"),
    ] {
        if let Some(path) = path {
            jsoncost::output::refuse_input_as_output((flag, path), &[("the results file", &args.results)]).map_err(failure::library)?;
            check_output(path, what)?;
        }
    }
    for (path, format, what) in [
        (&args.html, Format::Html, "HTML report"),
        (&args.markdown, Format::Markdown, "markdown report"),
    ] {
        if let Some(path) = path {
            files::write_output(path, format.exporter().results(&results, false).as_bytes())
                .with_context(|| format!("writing {}", path.display()))
                .map_err(environment)?;
            eprintln!("{what} written to {}", path.display());
        }
    }
    // An http A/B's file prints as `ab --http` printed it (one document per format), its
    // verdicts decided again from its slices at its recorded threshold.
    let exporter = args.format.exporter();
    let text = match jsoncost_report::ab_http::comparison(&results.experiments) {
        Some(comparison) => exporter.ab_http(&results, &comparison, use_color()),
        None => exporter.results(&results, use_color()),
    };
    print_stdout(&text)?;
    Ok(())
}

/// Fails before anything is written: exit 2 for a directory, 3 when the file cannot be.
fn check_output(path: &Path, what: &str) -> anyhow::Result<()> {
    jsoncost::output::refuse_dash(path, what).map_err(failure::library)?;
    files::check_output(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::IsADirectory => usage(anyhow::anyhow!(
            "cannot write {what} to {}: it is a directory; give a file path",
            path.display()
        )),
        _ => environment(anyhow::anyhow!("writing {}: {e}", path.display())),
    })
}
