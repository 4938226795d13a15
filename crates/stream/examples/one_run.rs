//! One way of reading a telemetry file, run `REPEAT` times: for counting what each costs with a
//! tool that measures one process (`valgrind --tool=callgrind` counts instructions, repeatable
//! on a busy machine; `/usr/bin/time` gives page faults and system time).
//!
//! `cargo build --release -p jsoncost-stream --example one_run`, then
//! `target/release/examples/one_run MODE LIBRARY FILE [REPEAT]`, MODE one of `buffered` (the
//! whole file read, then the library's `from_slice` into `Telemetry`), `incremental` (the
//! stream into `Vec<Reading>`, 64 KiB chunks), `aggregate` (the stream folded into running
//! stats), `read` (the file read, nothing parsed). LIBRARY: serde_json, sonic-rs, simd-json.

use std::fs::File;

use jsoncost_shapes::{Reading, Telemetry};
use jsoncost_stream::{Config, Library, TelemetryAggregate};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: one_run buffered|incremental|aggregate|read serde_json|sonic-rs|simd-json FILE [REPEAT]";
    let mode = args.next().expect(usage);
    let lib: Library = args.next().expect(usage).parse().expect("a library");
    let path = args.next().expect(usage);
    let repeat: usize = args.next().map_or(1, |r| r.parse().expect("REPEAT is a number"));
    let config = Config::new("/Readings").expect("pointer").library(lib).keep(["/DeviceId"]);
    let mut seen = 0u64;
    for _ in 0..repeat {
        seen += match mode.as_str() {
            "buffered" => {
                let bytes = std::fs::read(&path).expect("readable file");
                let t: Telemetry = match lib {
                    Library::SerdeJson => serde_json::from_slice(&bytes).expect("valid"),
                    Library::SonicRs => sonic_rs::from_slice(&bytes).expect("valid"),
                    Library::SimdJson => simd_json::serde::from_slice(&mut bytes.clone()).expect("valid"),
                };
                t.readings.len() as u64
            }
            "incremental" => config
                .reader::<Reading, _>(File::open(&path).expect("readable file"))
                .collect::<Result<Vec<_>, _>>()
                .expect("valid")
                .len() as u64,
            "aggregate" => {
                let mut agg = TelemetryAggregate::default();
                for r in config.reader::<Reading, _>(File::open(&path).expect("readable file")) {
                    agg.push(&r.expect("valid"));
                }
                agg.count()
            }
            "read" => std::fs::read(&path).expect("readable file").len() as u64,
            other => panic!("{usage} (not {other})"),
        };
    }
    println!("{seen}");
}
