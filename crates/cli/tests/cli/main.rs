//! The integration tests of cli, one binary (one link, one build of what they share).

mod ab_cli;
mod ab_http_cli;
mod alloc_cli;
mod common;
mod compare_cli;
mod counts_cli;
mod hostile_cli;
mod hostile_props;
mod http_cli;
mod io_cli;
mod levers_cli;
mod micro_cli;
mod orphans_cli;
mod private_dir_cli;
mod profile_cli;
mod report_cli;
mod run_cli;
mod safety_cli;
mod secrets_cli;
mod store_cli;
mod stream_cli;
