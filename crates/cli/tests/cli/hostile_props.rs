//! Generated hostile documents through every strategy, as the product runs them: nesting up to
//! 100,000 deep (arrays, objects, in an unknown field or in place of a known one), long
//! strings, numbers past f64 and u64 (1e400, 2^64), invalid UTF-8 and lone surrogate escapes,
//! fed to the document tables (`micro --payload`), to a typed shape read from a store (`store`,
//! the `order` shape) and to a stream body (`stream --file`). Whatever the input, each run
//! ends with an exit code (no signal, no panic) and every row is ok or failed.
//!
//! Each case runs the binary as a child process under a 4 GiB address-space limit, so an
//! abort or a runaway allocation fails the case instead of the test runner or the machine.
//! Bounded: 24 cases (and 4 shrinking steps), each run within 120 s. Every run is
//! `--quick --debug-mode`: every stage of every strategy (gate, warm-up, timed iterations,
//! allocation pass) on the hostile input, with the fewest iterations, since what is asserted
//! is how each run ends and what each row says, not its figures.

use jsoncost_engine::{Results, Status};
use jsoncost_shapes::{DEFAULT_SEED, ORDER_LINES};
use jsoncost_stores::{OpenOptions, OrderDocs, ensure_loaded, open};
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const MEMORY_LIMIT: u64 = 4 << 30;
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// One hostile JSON value, as bytes (not always valid JSON, not always UTF-8).
fn hostile_value() -> impl Strategy<Value = Vec<u8>> {
    // Weighted to the depth that overflows a recursive parser's stack (8 MiB on the main
    // thread), and to the edges of serde_json's (128) and simd-json's (1024) limits.
    let depth = prop_oneof![
        6 => Just(100_000usize),
        1 => Just(1024),
        1 => Just(128),
        1 => Just(127),
        1 => 1usize..3000,
    ];
    let nested = (depth, prop::bool::ANY).prop_map(|(depth, arrays)| {
        let (open, close): (&[u8], &[u8]) = if arrays { (b"[", b"]") } else { (br#"{"a":"#, b"}") };
        let mut v = open.repeat(depth);
        v.push(b'1');
        v.extend(close.repeat(depth));
        v
    });
    let long_string = (1usize..(1 << 20)).prop_map(|n| {
        let mut v = vec![b'"'];
        v.extend(std::iter::repeat_n(b'a', n));
        v.push(b'"');
        v
    });
    let big_number = prop::sample::select(vec![
        "1e400",
        "-1e400",
        "18446744073709551616",
        "-9223372036854775809",
        "1e-400",
        "123456789012345678901234567890.5",
    ])
    .prop_map(|s| s.as_bytes().to_vec());
    let bad_utf8 =
        prop::sample::select(vec![&b"\"\xff\""[..], b"\"a\xc3\"", b"\"\xed\xa0\x80\"", b"\"\xc0\xaf\""]).prop_map(<[u8]>::to_vec);
    let lone_surrogate = prop::sample::select(vec![r#""\ud800""#, r#""\udc00""#, r#""\ud800\u0041""#, r#""\udbff\udbff""#])
        .prop_map(|s| s.as_bytes().to_vec());
    prop_oneof![4 => nested, 1 => long_string, 1 => big_number, 1 => bad_utf8, 1 => lone_surrogate]
}

/// Where the value goes in a document that has a shape.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A field the shape does not know: `{"x": V, ...}`.
    Unknown,
    /// In place of a known field's value (Order's `total`, Reading's `Temperature`).
    Known,
}

fn place() -> impl Strategy<Value = Place> {
    // A known field's bad value fails the serde_json baseline, and then nothing else runs: an
    // unknown one reaches every strategy.
    prop_oneof![2 => Just(Place::Unknown), 1 => Just(Place::Known)]
}

/// `object` (a JSON object's bytes) with `value` put at `place`; `known` is the known field's
/// key, whose number value is replaced.
fn put(object: &[u8], value: &[u8], place: Place, known: &str) -> Vec<u8> {
    match place {
        Place::Unknown => {
            let mut doc = br#"{"x":"#.to_vec();
            doc.extend_from_slice(value);
            doc.push(b',');
            doc.extend_from_slice(&object[1..]);
            doc
        }
        Place::Known => {
            let key = format!("\"{known}\":");
            let text = object;
            let at = text
                .windows(key.len())
                .position(|w| w == key.as_bytes())
                .unwrap_or_else(|| panic!("no {key} in the document"))
                + key.len();
            let end = at + text[at..].iter().position(|&b| b == b',' || b == b'}').unwrap();
            let mut doc = text[..at].to_vec();
            doc.extend_from_slice(value);
            doc.extend_from_slice(&text[end..]);
            doc
        }
    }
}

/// Runs jsoncost with `args` as a child under the memory limit: its exit code (a signal fails)
/// and the first document its errors name.
fn jsoncost(args: &[&str], tmp: &Path) -> (i32, Option<String>) {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env("TMPDIR", tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    crate::common::limit_address_space(&mut cmd, MEMORY_LIMIT);
    let mut child = cmd.spawn().unwrap();
    // Drained as it comes: an error may quote a long input, and a full pipe would stall the child.
    let mut pipe = child.stderr.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = std::io::Read::read_to_end(&mut pipe, &mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            panic!("jsoncost {args:?} ran past {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = drain.join().unwrap();
    let code = status
        .code()
        .unwrap_or_else(|| panic!("jsoncost {args:?} was killed by a signal: {status}\n{stderr}"));
    assert!(code == 0 || code == 2, "jsoncost {args:?} exited {code}:\n{stderr}");
    (code, first_order_id(&stderr))
}

/// Every row of a results file is ok or failed, and a failed one says why.
fn rows_ok_or_failed(path: &Path) {
    let results: Results = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for e in &results.experiments {
        for r in &e.rows {
            match r.status {
                Status::Ok => assert!(r.mean_ns.is_some(), "{}: {} ok without a time", e.table, r.method),
                Status::Failed => assert!(r.error_message.is_some(), "{}: {} failed silently", e.table, r.method),
            }
        }
    }
}

fn check(args: &[&str], out: &Path, tmp: &Path) {
    let _ = std::fs::remove_file(out);
    if jsoncost(args, tmp).0 == 0 {
        rows_ok_or_failed(out);
    }
}

/// Three order documents carrying `value` at `place`, but for `clean`.
fn load(url: &str, value: &[u8], place: Place, clean: Option<&str>) {
    let docs = OrderDocs {
        count: 3,
        lines: ORDER_LINES,
        seed: DEFAULT_SEED,
    };
    let mut store = open(url, &OpenOptions::default()).unwrap();
    ensure_loaded(store.as_mut(), "order", &docs.marker(), true, || {
        docs.documents().map(|(id, body)| {
            let body = if clean == Some(id.as_str()) {
                body
            } else {
                put(&body, value, place, "total")
            };
            (id, body)
        })
    })
    .unwrap();
}

/// The first `order-NNNNNNNN` id in `text`.
fn first_order_id(text: &str) -> Option<String> {
    let at = text.find("order-")?;
    let id = text.get(at..at + 14)?;
    id[6..].bytes().all(|b| b.is_ascii_digit()).then(|| id.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, max_shrink_iters: 4, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hostile_documents_fail_rows_never_the_process(value in hostile_value(), place in place(), whole in prop::bool::ANY) {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path();
        let out = tmp.join("out.json");
        let out_s = out.to_str().unwrap();

        // The document tables: the value itself, or inside an object.
        let payload = tmp.join("payload.json");
        std::fs::write(&payload, if whole { value.clone() } else { put(br#"{"Total":1}"#, &value, place, "Total") }).unwrap();
        check(&["micro", "--quick", "--debug-mode", "--payload", payload.to_str().unwrap(), "--field", "/x", "--out", out_s], &out, tmp);

        // A typed shape read from a store: every document carries the value; then, if the gate
        // refused its own document (named in the error), every other one, so the values reach
        // the timed reads of every strategy.
        let url = format!("redb:{}", tmp.join("hostile.redb").display());
        let store_args = ["store", "--quick", "--debug-mode", "--docs", "3", "--store", &url, "--out", out_s];
        load(&url, &value, place, None);
        if let (2, Some(gated)) = jsoncost(&store_args, tmp) {
            load(&url, &value, place, Some(&gated));
        }
        check(&store_args, &out, tmp);

        // A stream body: the second of three readings carries the value.
        let reading = br#"{"Timestamp":"2025-01-01T00:00:00Z","Temperature":21.5,"Humidity":40.0}"#;
        let mut body = br#"{"DeviceId":"d-1","Readings":["#.to_vec();
        body.extend_from_slice(reading);
        body.push(b',');
        body.extend(put(reading, &value, place, "Temperature"));
        body.push(b',');
        body.extend_from_slice(reading);
        body.extend_from_slice(b"]}");
        let file = tmp.join("telemetry.json");
        std::fs::write(&file, &body).unwrap();
        check(&["stream", "--quick", "--debug-mode", "--file", file.to_str().unwrap(), "--out", out_s], &out, tmp);
    }
}
