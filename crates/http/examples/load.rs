//! Load-tests any http:// URL with jsoncost's generator, as `jsoncost http --target` will.
//! `cargo run --release -p jsoncost-http --example load -- URL [requests] [connections]`

use jsoncost_http::{LoadSpec, loadgen};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("usage: load URL [requests] [connections]")?;
    let n = args.next().map(|a| a.parse()).transpose()?.unwrap_or(5000);
    let c = args.next().map(|a| a.parse()).transpose()?.unwrap_or(100);
    let r = loadgen::run(&LoadSpec::closed(&url, n, c))?;
    let q = |q: f64| r.quantile_ns(q).unwrap_or(0) as f64 / 1e3;
    println!(
        "{url}: {} requests in {:.2?}, {:.0} req/s, mean {:.1} µs, p50 {:.1} µs, p99 {:.1} µs, p99.9 {:.1} µs, max {:.1} µs, {:.0} B/response, errors {:?}",
        r.requests,
        r.elapsed,
        r.req_per_s(),
        r.mean_ns().unwrap_or(0.0) / 1e3,
        q(0.5),
        q(0.99),
        q(0.999),
        r.max_ns().unwrap_or(0) as f64 / 1e3,
        r.bytes_per_response().unwrap_or(0.0),
        r.errors
    );
    Ok(())
}
