//! jsoncost's http experiment as a library: the reference JSON API ([`server`]), its own load
//! generator ([`loadgen`]), the server's cost per request ([`cost`]) and the bridge into the
//! result model ([`row`]).
//!
//! Typical use from sync code (the `jsoncost http` command):
//! ```no_run
//! use jsoncost_http::{loadgen, mode::ServeMode, row, server};
//! let srv = server::start(server::ServerConfig::default()).unwrap();
//! let url = srv.url(&ServeMode::Passthrough.item_path(1));
//! let spec = loadgen::LoadSpec::closed(url, 5000, 100);
//! let (report, cost) = srv.measure(|| loadgen::run(&spec));
//! let row = row::http_row("passthrough", &report.unwrap(), Some(&cost));
//! srv.shutdown().unwrap();
//! # let _ = row;
//! ```
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! Above engine, shapes, stores and stream (the server's sources and its telemetry route);
//! `jsoncost`'s http experiment and `ab --http` drive it.
//!
//! # Modules
//!
//! [`server`] (the reference API), [`fds`] (open files against the process's limit), [`mode`] (its serialization modes and their paths),
//! [`source`] and [`store_source`] (where its documents come from: memory or a jsoncost store),
//! [`verify`] (every mode answers the same document before anything is timed), [`loadgen`]
//! (the load generator and the slice scheduler), [`cost`] (the in-process server's cost per
//! request) and [`proc_probe`] (an external server's: CPU from its process CPU clock, children
//! it has waited for and RSS from `/proc`), [`row`] (load reports into result rows).

#![deny(missing_docs)]

pub mod cost;
pub mod fds;
pub mod loadgen;
pub mod mode;
pub mod proc_probe;
pub mod row;
pub mod server;
pub mod source;
pub mod store_source;
pub mod verify;

pub use cost::ServerCost;
pub use loadgen::{LoadError, LoadReport, LoadSpec, Model};
pub use mode::ServeMode;
pub use server::{CacheConfig, RunningServer, ServerConfig, ServerError};
pub use source::{ItemSource, MemorySource, SourceError};
pub use store_source::{StoreData, StoreSource};
