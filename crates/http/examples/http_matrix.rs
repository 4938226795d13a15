//! A quick look at the http experiment without the CLI: starts the reference API, checks the
//! modes agree, and runs each GET route × mode (closed model) and POST /telemetry, printing
//! req/s, latency percentiles and the server's cost per request.
//!
//! `cargo run --release -p jsoncost-http --example http_matrix -- [requests] [connections] [serve-seconds]`
//! With serve-seconds > 0 the server then stays up that long (for an external tool like wrk).

use std::time::Duration;

use jsoncost_engine::alloc::CountingAllocator;
use jsoncost_http::mode::TELEMETRY_PATH;
use jsoncost_http::row::http_row;
use jsoncost_http::server::{self, ServerConfig};
use jsoncost_http::verify::{Route, modes_agree_blocking};
use jsoncost_http::{LoadSpec, ServeMode, loadgen};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let (n, c, serve) = (
        args.first().copied().unwrap_or(5000),
        args.get(1).copied().unwrap_or(100) as usize,
        args.get(2).copied().unwrap_or(0),
    );
    let srv = server::start(ServerConfig::default())?;
    println!("server on {}", srv.addr());
    println!(
        "{:<28} {:>9} {:>9} {:>9} {:>9} {:>9} {:>12} {:>11} {:>9}",
        "route/mode", "req/s", "mean µs", "p50 µs", "p99 µs", "p99.9 µs", "srv B/req", "srv allocs", "CPU µs"
    );
    let mut specs = Vec::new();
    for route in [Route::Item(1), Route::List(48)] {
        modes_agree_blocking(&srv.url(""), route)?;
        for mode in ServeMode::all() {
            specs.push((format!("{route:?} {mode}"), LoadSpec::closed(srv.url(&route.path(mode)), n, c)));
        }
    }
    let mut body = Vec::new();
    jsoncost_shapes::write_telemetry(&mut body, 100_000, jsoncost_shapes::DEFAULT_SEED)?;
    specs.push((
        "POST telemetry 100k".into(),
        LoadSpec::closed(srv.url(TELEMETRY_PATH), 20, 2).post(body.into(), jsoncost_http::mode::JSON_CONTENT_TYPE),
    ));
    for (name, spec) in specs {
        loadgen::run(&LoadSpec {
            model: jsoncost_http::Model::Closed { requests: 200.min(n) },
            ..spec.clone()
        })?;
        let (report, cost) = srv.measure(|| loadgen::run(&spec));
        let report = report?;
        let row = http_row(&name, &report, Some(&cost));
        let figures = row.http.clone().unwrap_or_default();
        let us = |v: Option<f64>| v.unwrap_or(f64::NAN) / 1e3;
        println!(
            "{name:<28} {:>9.0} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>12.0} {:>11.1} {:>9.1}",
            report.req_per_s(),
            report.mean_ns().unwrap_or(f64::NAN) / 1e3,
            us(figures.p50_ns),
            us(figures.p99_ns),
            us(figures.p999_ns),
            row.allocated_bytes.unwrap_or(f64::NAN),
            row.allocs.unwrap_or(f64::NAN),
            us(figures.server_cpu_ns_per_req),
        );
        if report.errors.total() > 0 {
            println!("  errors: {:?}", report.errors);
        }
    }
    if serve > 0 {
        println!("serving on {} for {serve} s", srv.addr());
        std::thread::sleep(Duration::from_secs(serve));
    }
    srv.shutdown()?;
    Ok(())
}
