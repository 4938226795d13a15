//! The server's own allocations and CPU per request, counted with the counting allocator
//! installed in this test binary.

use std::sync::Arc;

use jsoncost_engine::alloc::CountingAllocator;
use jsoncost_http::row::http_row;
use jsoncost_http::server::{self, ServerConfig};
use jsoncost_http::verify::Route;
use jsoncost_http::{LoadSpec, MemorySource, ServeMode, ServerCost, loadgen};
use jsoncost_shapes::DEFAULT_SEED;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::system();

const REQUESTS: u64 = 300;

/// The enrolled-thread tally counts every server in the process: one test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn measure(srv: &jsoncost_http::RunningServer, route: Route, mode: ServeMode) -> (jsoncost_http::LoadReport, ServerCost) {
    let spec = LoadSpec::closed(srv.url(&route.path(mode)), REQUESTS, 4);
    // Warm the cache and the connections' first allocations outside the window.
    loadgen::run(&LoadSpec::closed(srv.url(&route.path(mode)), 20, 4)).unwrap();
    let (report, cost) = srv.measure(|| loadgen::run(&spec));
    (report.unwrap(), cost)
}

#[test]
fn typed_modes_allocate_more_per_request_than_passthrough() {
    let _g = serial();
    let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(10, 48, DEFAULT_SEED)));
    config.worker_threads = 2;
    let srv = server::start(config).unwrap();
    let base = srv.url("");
    for route in [Route::Item(1), Route::List(48)] {
        let bodies = jsoncost_http::verify::modes_agree_blocking(&base, route).unwrap();
        let body_len = bodies.last().expect("passthrough answers last").1.len() as f64;
        let mut per_mode = Vec::new();
        for mode in ServeMode::all() {
            let (report, cost) = measure(&srv, route, mode);
            assert_eq!((report.ok, cost.requests), (REQUESTS, REQUESTS), "{mode} {route:?}");
            let bytes = cost.bytes_per_request().expect("the counting allocator is installed");
            let allocs = cost.allocs_per_request().unwrap();
            let cpu = cost.cpu_ns_per_request().expect("thread CPU clocks on Linux");
            eprintln!(
                "{route:?} {mode}: {bytes:.0} B/req, {allocs:.1} allocs/req, {cpu:.0} ns CPU/req, {:.0} req/s",
                report.req_per_s()
            );
            assert!(cpu > 0.0);
            let row = http_row(&mode.name(), &report, Some(&cost));
            assert_eq!(row.allocated_bytes, Some(bytes));
            assert_eq!(row.http.as_ref().and_then(|h| h.server_cpu_ns_per_req), Some(cpu));
            assert_eq!(row.http.as_ref().and_then(|h| h.bytes_per_response), Some(body_len));
            per_mode.push((mode, bytes, allocs));
        }
        let (typed, passthrough) = per_mode.split_at(per_mode.len() - 1);
        let (_, pass_bytes, pass_allocs) = passthrough[0];
        assert_eq!(passthrough[0].0, ServeMode::Passthrough);
        for &(mode, bytes, allocs) in typed {
            // Typed decodes the stored document into owned strings and vectors, then encodes a
            // new body: at least one more body-sized buffer and ~10 more allocations per entry.
            let entries = if matches!(route, Route::List(n) if n > 1) { 48.0 } else { 1.0 };
            assert!(
                bytes >= pass_bytes + body_len,
                "{route:?} {mode}: {bytes} vs passthrough {pass_bytes}"
            );
            assert!(
                allocs >= pass_allocs + 10.0 * entries,
                "{route:?} {mode}: {allocs} vs passthrough {pass_allocs}"
            );
        }
        if let Route::List(_) = route {
            // Passthrough still builds the array: one buffer of the body's size.
            assert!(pass_bytes >= body_len, "{pass_bytes} < {body_len}");
        }
    }
    srv.shutdown().unwrap();
}

#[test]
fn incremental_telemetry_holds_far_less_than_the_body() {
    let _g = serial();
    let mut body = Vec::new();
    jsoncost_shapes::write_telemetry(&mut body, 150_000, DEFAULT_SEED).unwrap();
    let len = body.len() as u64;
    let mut peaks = Vec::new();
    for parse in [server::TelemetryParse::Buffered, server::TelemetryParse::Incremental] {
        let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(1, 1, DEFAULT_SEED)));
        config.telemetry = parse;
        let srv = server::start(config).unwrap();
        let spec = LoadSpec::closed(srv.url(jsoncost_http::mode::TELEMETRY_PATH), 3, 1).post(body.clone().into(), "application/json");
        let (report, cost) = srv.measure(|| loadgen::run(&spec));
        assert_eq!(report.unwrap().ok, 3);
        let peak = cost.peak_bytes.unwrap();
        eprintln!(
            "{parse:?}: body {len} B, peak {peak} B, {:.0} B/req",
            cost.bytes_per_request().unwrap()
        );
        peaks.push(peak);
        srv.shutdown().unwrap();
    }
    // Buffered holds the whole body at once; incremental one 64 KiB chunk plus hyper's read
    // buffers (which grow to ~400 KB each), whatever the body size.
    assert!(peaks[0] >= len, "buffered peak {} < body {len}", peaks[0]);
    assert!(peaks[1] < len / 4, "incremental peak {} vs body {len}", peaks[1]);
}

#[test]
fn incremental_telemetry_skips_a_million_siblings_in_bounded_memory() {
    let _g = serial();
    // `{"DeviceId":"a","0":0,"1":1, … ,"Readings":[one reading]}`: every member around the
    // array is one the summary does not need.
    let mut body = br#"{"DeviceId":"a","#.to_vec();
    for i in 0..1_000_000u32 {
        body.extend_from_slice(format!(r#""{i}":{},"#, i % 10).as_bytes());
    }
    body.extend_from_slice(br#""Readings":[{"Timestamp":"2025-01-01T00:00:00Z","Temperature":21.5,"Humidity":40.0}]}"#);
    let len = body.len() as u64;
    let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(1, 1, DEFAULT_SEED)));
    config.telemetry = server::TelemetryParse::Incremental;
    let srv = server::start(config).unwrap();
    let spec = LoadSpec::closed(srv.url(jsoncost_http::mode::TELEMETRY_PATH), 1, 1).post(body.into(), "application/json");
    let (report, cost) = srv.measure(|| loadgen::run(&spec));
    let report = report.unwrap();
    let peak = cost.peak_bytes.unwrap();
    eprintln!("siblings: body {len} B, peak {peak} B");
    assert_eq!((report.ok, report.errors.total()), (1, 0), "{:?}", report.status_codes);
    // One 64 KiB chunk, hyper's read buffers and the response: the same bound as any body.
    assert!(peak < 2 << 20, "peak {peak} B for a body of {len} B");
    srv.shutdown().unwrap();
}
