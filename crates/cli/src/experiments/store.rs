//! `jsoncost store`: its flags, turned into the library's options (the experiment itself is
//! `jsoncost::store`).

use jsoncost::store::{StoreOptions, StoreShape};
use jsoncost_engine::{Config, ExperimentKind};
use jsoncost_shapes::DEFAULT_SEED;
use jsoncost_stores::{Existing, PgColumn};

use super::table::{CliSink, Filter, runner};
use crate::args::Mebibytes;
use crate::failure::library;
use crate::progress::Progress;
use crate::session::Session;

/// `--store-shape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StoreShapeArg {
    Order,
    OrderLarge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PgColumnArg {
    Json,
    Jsonb,
}

#[derive(Debug, Clone, clap::Args)]
pub struct StoreArgs {
    /// The store: redb:PATH (default: a file under the temp dir), sqlite:PATH, redis://HOST:PORT,
    /// redis+cluster://HOST:PORT,HOST:PORT,..., postgres://USER@HOST:PORT/DB.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// PostgreSQL: read the `json` or the `jsonb` table.
    #[arg(long, value_enum, default_value_t = PgColumnArg::Json)]
    pub pg_column: PgColumnArg,
    /// Distinct documents in the store.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub docs: u64,
    /// The document shape: order (~4 KB) or order-large (~40 KB).
    #[arg(long = "store-shape", visible_alias = "doc-shape", value_enum, default_value_t = StoreShapeArg::Order)]
    pub store_shape: StoreShapeArg,
    /// Load the documents again even if the store already holds them.
    #[arg(long)]
    pub reload: bool,
    /// Only time strategies whose name matches this glob.
    #[arg(long = "store-filter", value_name = "GLOB")]
    pub store_filter: Option<String>,
    /// Seed of the document generator and of the id sequence.
    #[arg(long = "store-seed", default_value_t = DEFAULT_SEED)]
    pub store_seed: u64,
    /// Read your own documents instead, in Redis: the keys matching this pattern (SCAN MATCH),
    /// up to --docs of them.
    #[arg(long, value_name = "PATTERN", conflicts_with_all = ["table", "reload"])]
    pub keys: Option<String>,
    /// Read your own documents instead: this table (SQLite and PostgreSQL with --column; redb alone).
    #[arg(long, value_name = "NAME", conflicts_with = "reload")]
    pub table: Option<String>,
    /// With --table, in SQLite or PostgreSQL: the column holding the JSON document.
    #[arg(long, value_name = "NAME", requires = "table")]
    pub column: Option<String>,
    /// With --table and --column: the key column (text or integer).
    #[arg(long, value_name = "NAME", default_value = "id", requires = "column")]
    pub key_column: String,
    /// With --keys or --table: a JSON pointer lazy/sonic-rs projects (repeat it for more fields).
    #[arg(long = "store-field", value_name = "POINTER")]
    pub store_fields: Vec<String>,
    /// With --keys or --table: the largest document read, in MiB; a larger one fails the rows
    /// that read it (parsing holds a document several times over).
    #[arg(long, value_name = "MIB", default_value_t = Mebibytes::new(jsoncost::store::DEFAULT_MAX_DOC_MIB))]
    pub max_doc_mib: Mebibytes,
}

impl StoreArgs {
    /// Where the user's own documents are, when a flag names them.
    fn existing(&self) -> Option<Existing> {
        match (&self.keys, &self.table, &self.column) {
            (Some(pattern), _, _) => Some(Existing::Keys { pattern: pattern.clone() }),
            (None, Some(table), Some(column)) => Some(Existing::Rows {
                table: table.clone(),
                key: self.key_column.clone(),
                column: column.clone(),
            }),
            (None, Some(table), None) => Some(Existing::Table { table: table.clone() }),
            (None, None, _) => None,
        }
    }

    pub fn options(&self) -> StoreOptions {
        StoreOptions {
            url: self.store.clone(),
            pg_column: match self.pg_column {
                PgColumnArg::Json => PgColumn::Json,
                PgColumnArg::Jsonb => PgColumn::Jsonb,
            },
            docs: self.docs,
            shape: match self.store_shape {
                StoreShapeArg::Order => StoreShape::Order,
                StoreShapeArg::OrderLarge => StoreShape::OrderLarge,
            },
            reload: self.reload,
            seed: self.store_seed,
            existing: self.existing(),
            fields: self.store_fields.clone(),
            max_doc_bytes: self.max_doc_mib.bytes(),
        }
    }
}

/// Runs the store experiment into `session`.
pub fn run(args: &StoreArgs, config: &Config, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--store-filter", args.store_filter.as_deref())?;
    let mut sink = CliSink::new(ExperimentKind::Store, session, progress);
    jsoncost::store::run(&args.options(), &mut runner(config, &filter, &mut sink)).map_err(library)
}
