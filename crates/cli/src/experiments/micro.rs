//! `jsoncost micro`: its flags, turned into the library's options (the experiment itself is
//! `jsoncost::micro`).

use jsoncost::micro::MicroOptions;
use jsoncost_engine::{Config, ExperimentKind};
use jsoncost_shapes::{DEFAULT_SEED, ShapeName};
use std::path::PathBuf;

use super::table::{CliSink, Filter, runner};
use crate::args::Mebibytes;
use crate::failure::library;
use crate::progress::Progress;
use crate::session::Session;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShapeArg {
    Data,
    Order,
    OrderLarge,
    Item,
    Items48,
    /// The `order` document plus polymorphic events, through model variants (`order-model/variants`).
    OrderModel,
    All,
}

#[derive(Debug, Clone, clap::Args)]
pub struct MicroArgs {
    /// Shapes to measure (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["data", "order", "order-model"], conflicts_with = "payload")]
    pub shape: Vec<ShapeArg>,
    /// Measure any JSON document instead of a shape (the strategies that need no Rust type).
    #[arg(long, value_name = "FILE")]
    pub payload: Option<PathBuf>,
    /// A JSON pointer for `lazy/sonic-rs` with --payload (repeatable), e.g. /user/id.
    #[arg(long = "field", value_name = "POINTER", requires = "payload")]
    pub fields: Vec<String>,
    /// Only time strategies whose name matches this glob, e.g. 'typed/*' or '*sonic*'.
    #[arg(long, value_name = "GLOB")]
    pub filter: Option<String>,
    /// Largest --payload accepted, in MiB (the document is held in memory several times).
    #[arg(long, value_name = "MIB", default_value_t = Mebibytes::new(256))]
    pub max_payload_mib: Mebibytes,
    /// Seed of the payload generator.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

impl MicroArgs {
    fn shapes(&self) -> Vec<ShapeName> {
        let mut out = Vec::new();
        for s in &self.shape {
            let names: &[ShapeName] = match s {
                ShapeArg::Data => &[ShapeName::Data],
                ShapeArg::Order => &[ShapeName::Order],
                ShapeArg::OrderLarge => &[ShapeName::OrderLarge],
                ShapeArg::Item => &[ShapeName::Item],
                ShapeArg::Items48 => &[ShapeName::Items48],
                ShapeArg::OrderModel => &[ShapeName::OrderModel],
                ShapeArg::All => &ShapeName::MICRO,
            };
            for n in names {
                if !out.contains(n) {
                    out.push(*n);
                }
            }
        }
        out
    }

    pub fn options(&self) -> MicroOptions {
        MicroOptions {
            shapes: self.shapes(),
            payload: self.payload.clone(),
            fields: self.fields.clone(),
            max_payload_mib: self.max_payload_mib.mib(),
            seed: self.seed,
        }
    }
}

/// Runs the micro experiment into `session`.
pub fn run(args: &MicroArgs, config: &Config, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--filter", args.filter.as_deref())?;
    let mut sink = CliSink::new(ExperimentKind::Micro, session, progress);
    jsoncost::micro::run(&args.options(), &mut runner(config, &filter, &mut sink)).map_err(library)
}
