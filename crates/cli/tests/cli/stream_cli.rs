//! `jsoncost stream` as a user runs it: a real small run with equal outputs, and exit 2 with the
//! byte offset and element index for bad bodies.

use assert_cmd::Command;
use predicates::prelude::*;
use std::io::Write;

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(180));
    c
}

fn telemetry(readings: u64) -> Vec<u8> {
    let mut v = Vec::new();
    jsoncost_shapes::write_telemetry(&mut v, readings, 7).unwrap();
    v
}

fn file_with(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f
}

#[test]
fn a_small_run_checks_every_strategy_and_reports_peaks() {
    let f = file_with(&telemetry(2_000));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["stream", "--quick", "--runs", "2", "--max-runs", "3", "--file"])
        .arg(f.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("incremental/sonic-rs: "))
        .stdout(predicate::str::contains(", paired per round), peak heap"));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = &results["experiments"][0];
    assert_eq!(table["experiment"], "stream");
    assert_eq!(table["params"]["readings"], 2000);
    // Whole runs in rounds: every row ran in the same rounds (2 or 3: --runs, --max-runs).
    assert_eq!(table["schedule"], "interleaved");
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    for peer in ["visitor/serde_json", "visitor-aggregate/serde_json", "struson/serde"] {
        assert!(rows.iter().any(|r| r["method"] == peer), "{peer} missing");
    }
    let rounds = rows[0]["rounds_ns"].as_array().unwrap().len();
    assert!((2..=3).contains(&rounds), "{rounds}");
    for row in rows {
        assert_eq!(row["status"], "ok", "{row}");
        assert_eq!(row["rounds_ns"].as_array().unwrap().len(), rounds, "{row}");
        assert_eq!(row["iterations"], rounds, "{row}");
        assert_eq!(row["ratio_interval"]["n"].as_u64().unwrap() as usize, rounds, "{row}");
        assert!(row["peak_bytes"].as_u64().is_some(), "{row}");
        let rss = &row["rss"];
        assert!(
            rss["peak_bytes"].as_u64().unwrap() >= rss["growth_bytes"].as_u64().unwrap(),
            "{row}"
        );
    }
    let base = rows.iter().find(|r| r["baseline"] == true).unwrap();
    assert_eq!(base["method"], "buffered/serde_json");
    // The summary's ratio is each library's paired one.
    let libraries = table["summary"]["libraries"].as_array().unwrap();
    assert_eq!(libraries.len(), 3);
    for l in libraries {
        assert_eq!(l["throughput_ratio"]["n"].as_u64().unwrap() as usize, rounds, "{l}");
    }
}

#[test]
fn sequential_stream_tables_run_each_strategy_alone_and_say_their_ratio_is_unpaired() {
    let f = file_with(&telemetry(500));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["stream", "--quick", "--runs", "2", "--max-runs", "2", "--schedule", "sequential"])
        .args(["--stream-filter", "{buffered,incremental}/serde_json", "--file"])
        .arg(f.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("× of buffered, from unpaired means), peak heap"));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = &results["experiments"][0];
    assert_eq!(table["schedule"], "sequential");
    for row in table["rows"].as_array().unwrap() {
        assert_eq!((row["iterations"].as_u64(), row.get("rounds_ns")), (Some(2), None), "{row}");
    }
}

/// Replaces the text of reading `index` (0-based) in a generated document.
fn corrupt_reading(doc: &[u8], index: usize, from: &str, to: &str) -> (Vec<u8>, usize) {
    let text = String::from_utf8(doc.to_vec()).unwrap();
    let start = text.match_indices("{\"Timestamp\"").nth(index).unwrap().0;
    let end = start + text[start..].find('}').unwrap();
    let element = text[start..=end].replacen(from, to, 1);
    let at = start + text[start..].find(from).unwrap();
    (format!("{}{}{}", &text[..start], element, &text[end + 1..]).into_bytes(), at)
}

#[test]
fn a_bad_token_deep_in_the_body_names_offset_and_element() {
    let (bad, at) = corrupt_reading(&telemetry(3_000), 2_500, "\"Humidity\":", "\"Humidity\":x");
    let f = file_with(&bad);
    jsoncost()
        .args(["stream", "--quick", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("(element 2500)"))
        .stderr(predicate::str::contains(format!("at byte {}", at + "\"Humidity\":".len())));
}

#[test]
fn bad_documents_are_usage_errors_with_positions() {
    let doc = telemetry(10);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (doc[..doc.len() - 30].to_vec(), "truncated document"),
        (br#"{"DeviceId":"d","Other":[]}"#.to_vec(), "pointer \"/Readings\" not found"),
        (br#"{"DeviceId":"d","Readings":{}}"#.to_vec(), "not an array"),
        (
            corrupt_reading(&doc, 3, "\"Temperature\":", "\"Temperature\":\"hot\",\"x\":").0,
            "(element 3)",
        ),
        (
            br#"{"DeviceId":"d","Readings":[{"Timestamp":"2025-01-01T00:00:00Z","Temperature":1.0,"Humidity":"#
                .iter()
                .chain(b"\"\xff\"}]}")
                .copied()
                .collect(),
            "invalid UTF-8",
        ),
    ];
    for (bytes, expected) in cases {
        let f = file_with(&bytes);
        jsoncost()
            .args(["stream", "--quick", "--file"])
            .arg(f.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains(expected))
            .stderr(predicate::str::contains("at byte"));
    }
    let big = corrupt_reading(&doc, 5, "\"Humidity\":", &format!("\"Pad\":\"{}\",\"Humidity\":", "x".repeat(2000))).0;
    let f = file_with(&big);
    jsoncost()
        .args(["stream", "--quick", "--max-element-bytes", "1024", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("larger than the maximum of 1024 bytes"))
        .stderr(predicate::str::contains("(element 5)"));
}

#[test]
fn missing_or_unreadable_files_exit_2() {
    jsoncost()
        .args(["stream", "--file", "/nonexistent/telemetry.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read telemetry file /nonexistent/telemetry.json"));
    let dir = tempfile::tempdir().unwrap();
    jsoncost()
        .args(["stream", "--file"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
    jsoncost()
        .args(["stream", "--file", "/proc/self/mem"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/proc/self/mem"));
}

/// How many of the body's numbers serde_json's default parser reads other than std's
/// correctly rounded `f64::from_str` (the texts are the readings' Temperature and Humidity).
fn serde_json_misses(body: &str) -> (u64, u64) {
    let re = regex_lite_numbers(body);
    let misses = re
        .iter()
        .filter(|t| serde_json::from_str::<f64>(t).unwrap() != t.parse::<f64>().unwrap())
        .count();
    (misses as u64, re.len() as u64)
}

/// The number texts after `"Temperature":` and `"Humidity":`.
fn regex_lite_numbers(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for key in ["\"Temperature\":", "\"Humidity\":"] {
        for (at, _) in body.match_indices(key) {
            let rest = &body[at + key.len()..];
            let end = rest.find([',', '}']).unwrap();
            out.push(&rest[..end]);
        }
    }
    out
}

/// A body with temperatures whose correctly rounded value serde_json (without float_roundtrip)
/// misses: every row is timed; sonic-rs and simd-json are exact, serde_json's rows are
/// annotated with the exact count.
#[test]
fn inexact_floats_in_a_body_are_annotated_not_failed() {
    let mut body = String::from_utf8(telemetry(300)).unwrap();
    for (i, text) in ["43.474709000000132", "50.090049175062276", "30.34630005927809121"]
        .iter()
        .enumerate()
    {
        let (bytes, _) = corrupt_reading(
            body.as_bytes(),
            i * 100,
            "\"Temperature\":",
            &format!("\"Temperature\":{text},\"Was\":"),
        );
        body = String::from_utf8(bytes).unwrap();
    }
    // The old value is now under "Was", which Reading ignores; only Temperature's are counted.
    let (misses, numbers) = serde_json_misses(&body);
    assert!(misses >= 3, "{misses}");
    assert_eq!(numbers, 600);
    let f = file_with(body.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["stream", "--quick", "--debug-mode", "--file"])
        .arg(f.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Fidelity of buffered/serde_json (the baseline: Ratio and Alloc Ratio stay relative to it): inexact floats: {misses} of 600 numbers 1 ulp off (serde_json without float_roundtrip), first at /Readings/"
        )));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let rows = results["experiments"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    for peer in ["visitor/serde_json", "visitor-aggregate/serde_json", "struson/serde"] {
        assert!(rows.iter().any(|r| r["method"] == peer), "{peer} missing");
    }
    for row in rows {
        let method = row["method"].as_str().unwrap();
        assert_eq!(row["status"], "ok", "{row}");
        let off = if row["strategy"]["library"] == "serde_json" { misses } else { 0 };
        assert_eq!(row["fidelity"]["numbers"], 600, "{method}");
        assert_eq!(row["fidelity"]["floats_inexact"], off, "{method}");
    }
}

/// The typed `from_slice` of the baseline rejects a repeated "Readings": the body is bad input
/// (exit 2 with the baseline's error and where the incremental parser stops), and nothing is
/// measured against another reference.
#[test]
fn a_baseline_that_fails_on_the_body_exits_2_with_its_error() {
    let doc = String::from_utf8(telemetry(50)).unwrap();
    let repeated = format!("{},\"Readings\":[]}}", doc.trim_end().strip_suffix('}').unwrap());
    let at = repeated.rfind("\"Readings\"").unwrap();
    let f = file_with(repeated.as_bytes());
    jsoncost()
        .args(["stream", "--quick", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the baseline buffered/serde_json fails on it, so nothing is measured: duplicate field `Readings`"))
        .stderr(predicate::str::contains(format!(
            "(the incremental parser: telemetry file {}: duplicate key \"Readings\": the object holding \"/Readings\" has it twice at byte {at})",
            f.path().display()
        )));
    // A repeated DeviceId: the baseline refuses it, and the incremental parser (which keeps
    // DeviceId only, as Telemetry's field) places the repeat.
    let twice = doc.replacen("{\"DeviceId\":", "{\"DeviceId\":\"x\",\"DeviceId\":", 1);
    let f = file_with(twice.as_bytes());
    jsoncost()
        .args(["stream", "--quick", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the baseline buffered/serde_json fails on it, so nothing is measured: duplicate field `DeviceId`",
        ))
        .stderr(predicate::str::contains("(the incremental parser: telemetry file "))
        .stderr(predicate::str::contains(
            "duplicate key \"DeviceId\": the object holding \"/DeviceId\" has it twice at byte 16)",
        ));
}

#[test]
fn a_fifo_or_a_device_is_refused_as_a_telemetry_file() {
    // Every strategy reads the file again: a FIFO would give its bytes once, /dev/zero never ends.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("body.fifo");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path in our own temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    for path in [fifo.as_path(), std::path::Path::new("/dev/zero")] {
        jsoncost()
            .timeout(std::time::Duration::from_secs(30))
            .args(["stream", "--file"])
            .arg(path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "telemetry file {} is not a regular file (a FIFO, a device ...)",
                path.display()
            )));
    }
}

#[test]
fn a_byte_order_mark_gets_a_hint() {
    let f = file_with(&[b"\xEF\xBB\xBF".as_slice(), &telemetry(10)].concat());
    jsoncost()
        .args(["stream", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("starts with a UTF-8 byte order mark (bytes EF BB BF)"));
}

#[test]
fn readings_with_a_file_is_a_usage_error_but_run_passes_its_default() {
    let f = file_with(&telemetry(10));
    jsoncost()
        .args(["stream", "--readings", "5", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the argument '--readings <READINGS>' cannot be used with '--file <PATH>'",
        ));
    // `run` carries the default --readings along with --file: no conflict, the file is read
    // (and here refused, being empty of readings' shape).
    let bad = file_with(br#"{"DeviceId":"d","Other":[]}"#);
    let dir = tempfile::tempdir().unwrap();
    jsoncost()
        .current_dir(dir.path())
        .args(["run", "--only", "stream", "--file"])
        .arg(bad.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pointer \"/Readings\" not found"));
}

#[test]
fn a_zero_element_limit_and_an_unknown_filter_are_usage_errors_naming_their_flags() {
    jsoncost()
        .args(["stream", "--readings", "10", "--max-element-bytes", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value '0' for '--max-element-bytes <MAX_ELEMENT_BYTES>'",
        ));
    jsoncost()
        .args(["stream", "--readings", "10", "--stream-filter", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--stream-filter \"nope\" matches no strategy"));
}

#[test]
fn an_element_of_the_wrong_shape_is_quoted_short() {
    // A 200 KB string where a number belongs: the message keeps its start and end, not all of it.
    let doc = telemetry(10);
    let long = format!("\"Temperature\":\"{}\",\"x\":", "h".repeat(200_000));
    let (bad, _) = corrupt_reading(&doc, 3, "\"Temperature\":", &long);
    let f = file_with(&bad);
    let assert = jsoncost()
        .args(["stream", "--file"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("element of the wrong shape"))
        .stderr(predicate::str::contains("bytes, shortened)"))
        .stderr(predicate::str::contains("(element 3)"));
    let stderr = &assert.get_output().stderr;
    assert!(stderr.len() < 2_000, "{} bytes of stderr", stderr.len());
}

/// A document that is no telemetry body: an array of mixed records under `/data/items`, with
/// floats serde_json rounds 1 ulp off, a -0, strings with escapes and nested arrays.
fn any_document(n: usize) -> Vec<u8> {
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id":{i},"name":"item \"{i}\"\n","price":{}.{:03}e-2,"tags":["a","b{}"],"z":-0.0,"nested":[[{i}],{{"k":null}}]}}"#,
                i * 7919 % 100_000,
                i % 1000,
                i % 3
            )
        })
        .collect();
    format!(r#"{{"meta":{{"count":{n}}},"data":{{"items":[{}]}}}}"#, items.join(",")).into_bytes()
}

#[test]
fn any_array_of_any_document_streams_with_every_library_through_the_gate() {
    let f = file_with(&any_document(500));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["stream", "--quick", "--debug-mode", "--pointer", "/data/items", "--file"])
        .arg(f.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let table = &results["experiments"][0];
    assert_eq!(
        (table["experiment"].as_str(), table["table"].as_str()),
        (Some("stream"), Some("array"))
    );
    assert_eq!(table["params"]["elements"], 500);
    assert_eq!(table["params"]["pointer"], "/data/items");
    let methods: Vec<&str> = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    let mut sorted = methods.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "buffered/serde_json",
            "buffered/simd-json",
            "buffered/sonic-rs",
            "incremental-skip/serde_json",
            "incremental-skip/simd-json",
            "incremental-skip/sonic-rs",
            "incremental/serde_json",
            "incremental/simd-json",
            "incremental/sonic-rs",
        ]
    );
    for row in table["rows"].as_array().unwrap() {
        assert_eq!(row["status"], "ok", "{row}");
    }
}

#[test]
fn a_pointer_to_no_array_is_exit_2_naming_the_pointer() {
    let f = file_with(&any_document(3));
    for (pointer, says) in [
        ("/meta", "names no array"),
        ("/nothing", "not found"),
        ("meta", "--pointer \"meta\""),
    ] {
        let out = jsoncost()
            .args(["stream", "--quick", "--runs", "2", "--pointer", pointer, "--file"])
            .arg(f.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{pointer}: {stderr}");
        assert!(stderr.contains(says), "{pointer}: {stderr}");
    }
}

#[test]
fn a_pointer_needs_a_file() {
    let out = jsoncost().args(["stream", "--pointer", "/a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--file"));
}

#[test]
fn a_file_over_the_buffered_cap_skips_the_buffered_rows_with_the_reason_and_streams_the_rest() {
    // A valid telemetry body padded to 2 MiB with whitespace, against a 1 MiB cap.
    let mut body = telemetry(200);
    body.resize(2 << 20, b' ');
    let f = file_with(&body);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["stream", "--quick", "--debug-mode", "--max-buffered-mib", "1", "--file"])
        .arg(f.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let rows = results["experiments"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    for row in rows {
        if row["strategy"]["style"] == "buffered" {
            assert_eq!(row["status"], "failed", "{row}");
            assert_eq!(
                row["error_message"],
                "the file is 2.0 MiB, over the 1 MiB the buffered strategies read whole (raise it with --max-buffered-mib); not run",
                "{row}"
            );
        } else {
            assert_eq!(row["status"], "ok", "{row}");
        }
    }
}
