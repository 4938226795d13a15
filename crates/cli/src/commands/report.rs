//! `jsoncost report RESULTS.json`: re-renders a saved run (tables on stdout, HTML to a file).

use anyhow::Context;
use jsoncost_report::{files, html};
use std::path::PathBuf;

use crate::failure::{environment, usage};
use crate::session::{FormatArg, use_color};

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
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
}

pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let results = files::load(&args.results).map_err(usage)?;
    if let Some(path) = &args.html {
        files::write_atomic(path, html::render(&results).as_bytes())
            .with_context(|| format!("writing {}", path.display()))
            .map_err(environment)?;
        eprintln!("HTML report written to {}", path.display());
    }
    if let Some(path) = &args.markdown {
        let md = jsoncost_report::render(&results, jsoncost_report::Format::Markdown, false);
        files::write_atomic(path, md.as_bytes())
            .with_context(|| format!("writing {}", path.display()))
            .map_err(environment)?;
        eprintln!("markdown report written to {}", path.display());
    }
    println!("{}", jsoncost_report::render(&results, args.format.into(), use_color()));
    Ok(())
}
