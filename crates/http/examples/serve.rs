//! Starts the reference API alone and serves for a while, for an external load tool (wrk, ab)
//! or the `load` example.
//! `cargo run --release -p jsoncost-http --example serve -- [seconds] [port] [redis://HOST:PORT]`

use std::time::Duration;

use jsoncost_http::server::{self, CacheConfig, ServerConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(60);
    let port: u16 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(0);
    let mut config = ServerConfig {
        addr: ([127, 0, 0, 1], port).into(),
        ..ServerConfig::default()
    };
    if let Some(url) = args.next() {
        config.cache = CacheConfig::redis(url);
    }
    let srv = server::start(config)?;
    println!("serving on {} for {seconds} s", srv.addr());
    std::thread::sleep(Duration::from_secs(seconds.min(3600)));
    srv.shutdown()?;
    Ok(())
}
