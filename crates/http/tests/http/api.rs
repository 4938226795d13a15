//! The reference API through a real socket: routes, headers, status codes and error bodies.

use crate::common;

use std::sync::Arc;

use common::{get, post, raw_request};
use jsoncost_http::mode::{HEALTH_PATH, TELEMETRY_PATH};
use jsoncost_http::server::{self, SERVER_NAME, ServerConfig, TelemetryParse, TelemetrySummary};

const PARSES: [TelemetryParse; 2] = [TelemetryParse::Incremental, TelemetryParse::Buffered];
use jsoncost_http::verify::{self, Route};
use jsoncost_http::{MemorySource, RunningServer, ServeMode};
use jsoncost_shapes::{DEFAULT_SEED, Generator, Item, ListItem};

const ITEMS: u64 = 20;
const LIST: usize = 60;

fn start(body_limit: u64) -> RunningServer {
    start_parsing(body_limit, TelemetryParse::Incremental)
}

fn start_parsing(body_limit: u64, telemetry: TelemetryParse) -> RunningServer {
    let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(ITEMS, LIST, DEFAULT_SEED)));
    config.body_limit = body_limit;
    config.telemetry = telemetry;
    config.worker_threads = 2;
    server::start(config).expect("server starts")
}

fn assert_error(r: &common::RawResponse, status: u16, kind: &str) -> serde_json::Value {
    assert_eq!(r.status, status, "body: {}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.headers.get("content-type").map(String::as_str), Some("application/json"));
    let v = r.json();
    assert_eq!(v["error"], kind, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    v
}

#[test]
fn item_routes_answer_the_stored_item_with_all_headers() {
    let srv = start(1 << 20);
    let want: Item = Generator::new(DEFAULT_SEED).item(1);
    for mode in ServeMode::all() {
        let r = get(srv.addr(), &mode.item_path(1));
        assert_eq!(r.status, 200, "{mode}");
        assert_eq!(r.headers["content-type"], "application/json");
        assert_eq!(r.headers["content-length"], r.body.len().to_string());
        assert_eq!(r.headers["server"], SERVER_NAME);
        assert!(r.headers.contains_key("date"), "{:?}", r.headers);
        let got: Item = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(got, want, "{mode}");
        // ~1.7 KB within 10%.
        assert!((1530..=1870).contains(&r.body.len()), "item is {} bytes", r.body.len());
    }
    srv.shutdown().unwrap();
}

#[test]
fn every_mode_returns_equal_documents() {
    let srv = start(1 << 20);
    let base = srv.url("");
    for route in [
        Route::Item(1),
        Route::Item(ITEMS),
        Route::List(1),
        Route::List(48),
        Route::List(LIST),
    ] {
        let bodies = verify::modes_agree_blocking(&base, route).unwrap_or_else(|e| panic!("{route:?}: {e}"));
        let names: Vec<String> = bodies.iter().map(|(mode, _)| mode.name()).collect();
        assert_eq!(names, ["typed/serde_json", "typed/sonic-rs", "typed/simd-json", "passthrough"]);
    }
    let r = get(srv.addr(), &"typed/sonic-rs".parse::<ServeMode>().unwrap().list_path(48));
    let list: Vec<ListItem> = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(list, Generator::new(DEFAULT_SEED + 1).items48(1));
    // 48 entries are ~36.6 KB within 10%.
    assert!((32_940..=40_260).contains(&r.body.len()), "list is {} bytes", r.body.len());
    let default = get(srv.addr(), "/passthrough/items");
    assert_eq!(
        serde_json::from_slice::<Vec<ListItem>>(&default.body).unwrap().len(),
        server::DEFAULT_LIST_COUNT
    );
    srv.shutdown().unwrap();
}

#[test]
fn bad_gets_answer_json_errors_and_the_server_keeps_serving() {
    let srv = start(1 << 20);
    let a = srv.addr();
    for mode in ServeMode::all() {
        assert_error(&get(a, &mode.item_path(ITEMS + 1)), 404, "item_not_found");
        assert_error(&get(a, &format!("/{mode}/items/abc")), 400, "bad_id");
        assert_error(&get(a, &format!("/{mode}/items/0")), 400, "bad_id");
        for count in ["0", "-1", "abc", &(LIST + 1).to_string()] {
            let v = assert_error(&get(a, &format!("/{mode}/items?count={count}")), 400, "count_out_of_range");
            assert!(v["message"].as_str().unwrap().contains(&format!("1..={LIST}")), "{v}");
        }
    }
    assert_error(&get(a, "/nope"), 404, "no_route");
    assert_error(&get(a, "/typed/jiter/items/1"), 404, "no_route");
    assert_error(
        &raw_request(a, "DELETE /passthrough/items/1 HTTP/1.1", b""),
        405,
        "method_not_allowed",
    );
    assert_error(&get(a, TELEMETRY_PATH), 405, "method_not_allowed");
    let health = get(a, HEALTH_PATH);
    assert_eq!((health.status, health.json()), (200, serde_json::json!({"status": "ok"})));
    assert_eq!(get(a, &ServeMode::Passthrough.item_path(2)).status, 200);
    srv.shutdown().unwrap();
}

fn expected_summary(n: u64) -> TelemetrySummary {
    let t = Generator::new(DEFAULT_SEED).telemetry(n);
    let stats = |f: fn(&jsoncost_shapes::Reading) -> f64| {
        let v: Vec<f64> = t.readings.iter().map(f).collect();
        server::FieldStats {
            min: v.iter().copied().reduce(f64::min),
            max: v.iter().copied().reduce(f64::max),
            mean: (n > 0).then(|| v.iter().sum::<f64>() / n as f64),
        }
    };
    TelemetrySummary {
        device_id: t.device_id.clone(),
        count: n,
        temperature: stats(|r| r.temperature),
        humidity: stats(|r| r.humidity),
    }
}

#[test]
fn telemetry_is_summarised_small_and_large() {
    for parse in PARSES {
        telemetry_summaries(parse);
    }
}

fn telemetry_summaries(parse: TelemetryParse) {
    let srv = start_parsing(4 << 20, parse);
    // 1,000 readings parse inline; 30,000 (~2 MB) parse on the blocking pool.
    for n in [0u64, 1_000, 30_000] {
        let mut body = Vec::new();
        jsoncost_shapes::write_telemetry(&mut body, n, DEFAULT_SEED).unwrap();
        let r = post(srv.addr(), TELEMETRY_PATH, &body);
        assert_eq!(r.status, 200, "{parse:?}: {}", String::from_utf8_lossy(&r.body));
        let got: TelemetrySummary = serde_json::from_slice(&r.body).unwrap();
        let want = expected_summary(n);
        assert_eq!((got.device_id.as_str(), got.count), (want.device_id.as_str(), n));
        for (g, w) in [(got.temperature, want.temperature), (got.humidity, want.humidity)] {
            assert_eq!((g.min, g.max), (w.min, w.max));
            let close = match (g.mean, w.mean) {
                (Some(a), Some(b)) => (a - b).abs() < 1e-9,
                (a, b) => a == b,
            };
            assert!(close, "{g:?} vs {w:?}");
        }
    }
    srv.shutdown().unwrap();
}

#[test]
fn bad_posts_answer_400_with_the_byte_offset() {
    for parse in PARSES {
        bad_posts(parse);
    }
}

fn bad_posts(parse: TelemetryParse) {
    eprintln!("{parse:?}");
    let srv = start_parsing(1 << 20, parse);
    let a = srv.addr();
    let v = assert_error(
        &post(
            a,
            TELEMETRY_PATH,
            br#"{"DeviceId":"d","Readings":[{"Timestamp":"2025-01-01T00:00:00Z",,]}"#,
        ),
        400,
        "malformed_json",
    );
    assert_eq!(v["offset"], 64, "{v}");
    let v = assert_error(
        &post(
            a,
            TELEMETRY_PATH,
            br#"{"DeviceId":"d","Readings":[{"Timestamp":"2025-01-01T00:00:00Z","Temperature":"hot","Humidity":1}]}"#,
        ),
        400,
        "wrong_shape",
    );
    assert_eq!(v["offset"], 82, "{v}");
    let v = assert_error(&post(a, TELEMETRY_PATH, br#"{"DeviceId":"d","Readings":[]"#), 400, "malformed_json");
    assert_eq!(v["offset"], 29, "{v}");
    let v = assert_error(&post(a, TELEMETRY_PATH, b"[1,2]"), 400, "wrong_shape");
    assert_eq!(v["offset"], 0, "{v}");
    // A repeated field is refused whichever it is, as serde refuses a duplicate field.
    for (body, field) in [
        (&br#"{"DeviceId":"d","Readings":[],"DeviceId":"e"}"#[..], "DeviceId"),
        (br#"{"DeviceId":"d","DeviceId":"e","Readings":[]}"#, "DeviceId"),
        (br#"{"DeviceId":"d","Readings":[],"Readings":[]}"#, "Readings"),
    ] {
        let v = assert_error(&post(a, TELEMETRY_PATH, body), 400, "wrong_shape");
        let message = v["message"].as_str().unwrap();
        assert!(message.contains("duplicate") && message.contains(field), "{parse:?}: {v}");
    }
    assert_eq!(get(a, HEALTH_PATH).status, 200);
    srv.shutdown().unwrap();
}

#[test]
fn bodies_over_the_limit_answer_413() {
    for parse in PARSES {
        over_the_limit(parse);
    }
}

fn over_the_limit(parse: TelemetryParse) {
    eprintln!("{parse:?}");
    let srv = start_parsing(1024, parse);
    let a = srv.addr();
    let big = vec![b' '; 2048];
    let v = assert_error(&post(a, TELEMETRY_PATH, &big), 413, "body_too_large");
    assert!(v["message"].as_str().unwrap().contains("1024"), "{v}");
    // Without a Content-Length the limit is enforced while reading.
    let chunk = vec![b' '; 1000];
    let mut chunked = Vec::new();
    for _ in 0..2 {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(&chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = raw_request(a, "POST /telemetry HTTP/1.1\r\nTransfer-Encoding: chunked", &chunked);
    assert_error(&r, 413, "body_too_large");
    // At the limit is fine.
    let mut ok = br#"{"DeviceId":"d","Readings":[]}"#.to_vec();
    ok.resize(1024, b' ');
    assert_eq!(post(a, TELEMETRY_PATH, &ok).status, 200);
    assert_eq!(get(a, HEALTH_PATH).status, 200);
    srv.shutdown().unwrap();
}

#[test]
fn binding_a_taken_address_is_a_typed_error_naming_it() {
    let srv = start(1024);
    let mut config = ServerConfig::with_source(Arc::new(MemorySource::generate(1, 1, 1)));
    config.addr = srv.addr();
    let err = server::start(config).err().expect("the address is taken");
    assert!(matches!(err, server::ServerError::Bind { addr, .. } if addr == srv.addr()), "{err}");
    assert!(err.to_string().contains(&srv.addr().to_string()));
    srv.shutdown().unwrap();
}
