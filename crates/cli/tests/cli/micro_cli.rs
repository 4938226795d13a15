//! `jsoncost micro` as a user runs it: exit codes and messages for bad input, and a real run.

use assert_cmd::Command;
use predicates::prelude::*;
use std::io::Write;

fn jsoncost() -> Command {
    let mut c = Command::cargo_bin("jsoncost").unwrap();
    c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(120));
    c
}

fn file_with(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f
}

#[test]
fn payload_that_is_not_json_names_file_line_and_column() {
    let f = file_with(b"{\n  \"a\": 1,\n  \"b\": tru\n}");
    let path = f.path().display().to_string();
    jsoncost()
        .args(["micro", "--payload", &path])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("payload {path} is not valid JSON")))
        .stderr(predicate::str::contains("expected ident at line 4 column 0"));
}

#[test]
fn empty_missing_directory_and_unreadable_payloads_are_clear_errors() {
    let empty = file_with(b"  \n");
    jsoncost()
        .args(["micro", "--payload"])
        .arg(empty.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is empty: it holds no JSON document"));
    jsoncost()
        .args(["micro", "--payload", "/nonexistent/doc.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot read payload /nonexistent/doc.json: No such file or directory",
        ));
    let dir = tempfile::tempdir().unwrap();
    jsoncost()
        .args(["micro", "--payload"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory, not a JSON file"));
    // Unreadable even for root: reading /proc/self/mem at offset 0 fails with EIO.
    jsoncost()
        .args(["micro", "--payload", "/proc/self/mem"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read payload /proc/self/mem"));
}

#[test]
fn deep_nesting_and_invalid_utf8_are_refused_without_a_crash() {
    let deep = file_with(&[vec![b'['; 100_000], vec![b']'; 100_000]].concat());
    jsoncost()
        .args(["micro", "--payload"])
        .arg(deep.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is valid JSON that serde_json refuses: recursion limit exceeded at line 1",
        ));
    let bad_utf8 = file_with(b"{\"a\": \"\xff\xfe\"}");
    jsoncost()
        .args(["micro", "--payload"])
        .arg(bad_utf8.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not valid JSON"));
}

#[test]
fn a_one_gigabyte_payload_is_refused_before_reading() {
    let f = tempfile::NamedTempFile::new().unwrap();
    f.as_file().set_len(1 << 30).unwrap(); // sparse: costs no disk
    jsoncost()
        .args(["micro", "--payload"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is 1024.0 MiB, over the 256 MiB limit (raise it with --max-payload-mib)",
        ));
}

#[test]
fn unknown_choices_are_usage_errors_listing_the_valid_ones() {
    jsoncost()
        .args(["micro", "--shape", "orders"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "possible values: data, order, order-large, item, items48, order-model, all",
        ));
    jsoncost()
        .args(["micro", "--format", "xml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values: table, markdown, json, csv, html, junit"));
    jsoncost()
        .args(["micro", "--shape", "data", "--filter", "nothing/*"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--filter \"nothing/*\" matches no strategy; the strategies are: borrowed/jiter, borrowed/serde_json",
        ));
}

#[test]
fn unwritable_out_fails_before_measuring() {
    jsoncost()
        .args(["micro", "--shape", "data", "--out", "/nonexistent-dir/results.json"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("cannot write results to /nonexistent-dir/results.json"));
}

#[test]
fn a_real_run_writes_schema_v1_results_and_json_on_stdout() {
    let doc = file_with(br#"{"user": {"id": 7, "name": "Ada"}, "tags": ["a", "b"], "score": 9.5}"#);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let assert = jsoncost()
        .args([
            "micro",
            "--quick",
            "--format",
            "json",
            "--field",
            "/user/id",
            "--filter",
            "{dom/*,lazy/*}",
            "--payload",
        ])
        .arg(doc.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).expect("stdout is exactly the JSON results");
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(stdout, file);
    assert_eq!(file["schema_version"], 1);
    assert_eq!(file["quick"], true);
    let tables = file["experiments"].as_array().unwrap();
    assert_eq!(tables.len(), 2);
    let de = &tables[0];
    assert_eq!(de["experiment"], "micro");
    let methods: Vec<&str> = de["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    let mut sorted = methods.clone();
    sorted.sort();
    // The glob is exact: dom-borrowed/* is not dom/*.
    assert_eq!(
        sorted,
        ["dom/jiter", "dom/serde_json", "dom/simd-json", "dom/sonic-rs", "lazy/sonic-rs"]
    );
    for row in de["rows"].as_array().unwrap() {
        assert_eq!(row["status"], "ok", "{row}");
        assert!(row["mean_ns"].as_f64().unwrap() > 0.0);
        assert!(row["allocated_bytes"].as_f64().is_some(), "the counting allocator is installed");
    }
    let base = de["rows"].as_array().unwrap().iter().find(|r| r["baseline"] == true).unwrap();
    assert_eq!(base["method"], "dom/serde_json");
}

/// A document of floats serde_json's default parser rounds 1 ulp off, and a `-0`: every row is
/// timed; sonic-rs and simd-json are exact on the floats, simd-json and sonic-rs lose the sign
/// of zero, serde_json is annotated with the exact count.
#[test]
fn inexact_floats_and_minus_zero_are_annotated_not_failed() {
    let f = file_with(br#"{"c": [[43.474709000000132, 50.090049175062276], [1.5, -2.25]], "z": -0}"#);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["micro", "--quick", "--payload"])
        .arg(f.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "Fidelity of dom/serde_json (the baseline: Ratio and Alloc Ratio stay relative to it): inexact floats: 2 of 5 numbers 1 ulp off (serde_json without float_roundtrip), first at /c/0/0 (exact 43.47470900000013, got 43.474709000000125), /c/0/1 (exact 50.090049175062276, got 50.09004917506227).",
        ))
        .stdout(predicate::str::contains(
            "Fidelity of dom/simd-json: sign of zero lost: 1 of 5 numbers (-0 read as 0), first at /z (exact -0.0, got 0).",
        ));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let mut seen = 0;
    for table in results["experiments"].as_array().unwrap() {
        for row in table["rows"].as_array().unwrap() {
            let method = row["method"].as_str().unwrap();
            assert_eq!(row["status"], "ok", "{row}");
            let f = &row["fidelity"];
            assert_eq!(f["numbers"], 5, "{method}");
            let (off, zero) = match method {
                // serde_json_borrow's tree is built by serde_json's parser.
                "dom/serde_json" | "dom-borrowed/serde_json_borrow" => (2, 0),
                // jiter reads -0 as the integer 0.
                "dom/sonic-rs" | "dom/simd-json" | "dom-borrowed/simd-json" => (0, 1),
                m if m.ends_with("/jiter") => (0, 1),
                _ => (0, 0),
            };
            assert_eq!(
                (f["floats_inexact"].as_u64(), f["zero_sign_lost"].as_u64()),
                (Some(off), Some(zero)),
                "{method}"
            );
            seen += 1;
        }
    }
    // deserialize: 4 DOMs, serde_json_borrow's and jiter's 4 + raw; serialize: 3 DOMs and
    // serde_json_borrow's.
    assert_eq!(seen, 14);
}

#[test]
fn a_number_beyond_f64_is_valid_json_that_serde_json_refuses() {
    let f = file_with(b"{\"a\": 1e400}");
    jsoncost()
        .args(["micro", "--payload"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is valid JSON that serde_json refuses: number out of range at line 1",
        ))
        .stderr(predicate::str::contains("not valid JSON").not());
}

/// A number one library cannot hold (simd-json and a 30-digit integer) fails that library's
/// rows, with its message, and the payload is measured by the others.
#[test]
fn a_number_one_library_cannot_hold_fails_only_its_rows() {
    let f = file_with(br#"{"id": 123456789012345678901234567890, "name": "a"}"#);
    let out = tempfile::tempdir().unwrap();
    let results = out.path().join("r.json");
    jsoncost()
        .args(["micro", "--quick", "--debug-mode", "--filter", "dom/*", "--payload"])
        .arg(f.path())
        .arg("--out")
        .arg(&results)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "simd-json cannot read the document into its DOM: InvalidNumber at character 27 ('1')",
        ));
    let written = crate::common::load_json(&results);
    let failed: Vec<(String, String)> = written["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| {
            t["rows"].as_array().unwrap().iter().filter(|r| r["status"] != "ok").map(|r| {
                (
                    t["table"].as_str().unwrap().to_string(),
                    r["strategy"]["library"].as_str().unwrap_or("").to_string(),
                )
            })
        })
        .collect();
    assert!(
        !failed.is_empty() && failed.iter().all(|(_, library)| library == "simd-json"),
        "{failed:?}"
    );
}

#[test]
fn a_byte_order_mark_gets_a_hint() {
    let f = file_with(b"\xEF\xBB\xBF{\"a\": 1}");
    jsoncost()
        .args(["micro", "--payload"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "payload {} starts with a UTF-8 byte order mark (bytes EF BB BF)",
            f.path().display()
        )));
}

#[test]
fn dev_zero_is_refused_once_the_limit_is_read() {
    // /dev/zero's size is 0: only a bound held while reading stops it.
    jsoncost()
        .timeout(std::time::Duration::from_secs(30))
        .args(["micro", "--payload", "/dev/zero", "--max-payload-mib", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "payload /dev/zero holds more than the 1 MiB limit; reading stopped there (raise it with --max-payload-mib)",
        ));
}

#[test]
fn a_fifo_that_never_ends_is_refused_once_the_limit_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("payload.fifo");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path in our own temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let writer_path = fifo.clone();
    // Writes spaces until the reader closes its end (the write then fails with EPIPE).
    std::thread::spawn(move || {
        let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&writer_path) else {
            return;
        };
        let chunk = vec![b' '; 64 * 1024];
        while w.write_all(&chunk).is_ok() {}
    });
    jsoncost()
        .timeout(std::time::Duration::from_secs(30))
        .args(["micro", "--max-payload-mib", "2", "--payload"])
        .arg(&fifo)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds more than the 2 MiB limit; reading stopped there"));
}

#[test]
fn sizes_that_do_not_fit_in_bytes_are_usage_errors() {
    jsoncost()
        .args(["micro", "--max-payload-mib", "17592186044416"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value '17592186044416' for '--max-payload-mib <MIB>': 17592186044416 MiB is more bytes than a 64-bit size holds; at most 17592186044415 MiB",
        ));
}

#[test]
fn an_invalid_pointer_escape_is_refused_saying_why() {
    let f = file_with(b"{\"a\": {\"~\": 1}}");
    jsoncost()
        .args(["micro", "--field", "/a~2", "--payload"])
        .arg(f.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid JSON pointer \"/a~2\": '~' at byte 2 must be followed by 0 or 1 (\"~0\" is '~', \"~1\" is '/', RFC 6901)",
        ));
}

#[test]
fn an_out_that_is_a_directory_fails_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    jsoncost()
        .args(["micro", "--shape", "data", "--out"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!(
            "cannot write results to {}: it is a directory; give a file path",
            dir.path().display()
        )));
}

#[test]
fn the_model_variants_table_gates_and_times_every_variant() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["micro", "--quick", "--shape", "order-model", "--format", "json", "--out"])
        .arg(&out)
        .assert()
        .success();
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let tables = file["experiments"].as_array().unwrap();
    assert_eq!(tables.len(), 1, "one table, deserialize only");
    let t = &tables[0];
    assert_eq!(t["table"], "order-model/variants");
    assert_eq!(t["params"]["shape"], "order-model");
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 24);
    for row in rows {
        let method = row["method"].as_str().unwrap();
        assert_eq!(row["status"], "ok", "{row}");
        assert!(row["mean_ns"].as_f64().unwrap() > 0.0, "{method}");
        let style = row["strategy"]["style"].as_str().unwrap();
        let contract = if ["borrowed-str", "datetime-cow", "lazy-value"].contains(&style) {
            "borrowed_value"
        } else if style == "plain" {
            "typed_value"
        } else {
            "other_model"
        };
        assert_eq!(row["contract"], contract, "{method}");
        assert_eq!(row["baseline"], method == "plain/serde_json", "{method}");
    }
    assert!(rows.iter().any(|r| r["method"] == "raw-value/serde_json"));
    assert!(
        !rows.iter().any(|r| r["method"] == "raw-value/sonic-rs"),
        "RawValue is serde_json's alone"
    );
}

#[test]
fn an_out_that_is_the_payload_is_refused_and_the_payload_kept() {
    let f = file_with(b"{\"a\": [1, 2, 3]}");
    let path = f.path().display().to_string();
    jsoncost()
        .args(["micro", "--quick", "--payload", &path, "--out", &path])
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "error: --out {path} is --payload {path}: writing it would replace an input; give another path\n"
        ));
    assert_eq!(std::fs::read(f.path()).unwrap(), b"{\"a\": [1, 2, 3]}");
}

/// A payload whose tables would need more memory than the process may have is refused before
/// any table, naming both figures (exit 3), instead of an allocation failure minutes in.
#[test]
fn a_payload_too_large_for_the_memory_is_refused_up_front() {
    // 20,000,001 bytes: ten million small numbers, held about 60 times over (1.1 GiB).
    let mut doc = b"[1".to_vec();
    doc.extend(b",1".repeat(9_999_999));
    doc.push(b']');
    let f = file_with(&doc);
    let path = f.path().display().to_string();
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("jsoncost"));
    c.args(["micro", "--quick", "--payload", &path]);
    crate::common::limit_address_space(&mut c, 768 << 20);
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: payload {path} is 19.1 MiB; its tables hold it about 60 times over (about 1.1 GiB), more than the "
        )) && stderr.contains(" this process can use ("),
        "{stderr}"
    );
}

/// `--sizes`: the order document once per size, each table carrying the sweep as params; a size
/// the order cannot reach, or a shape that cannot be sized, is a usage error naming why.
#[test]
fn a_size_sweep_is_a_table_pair_per_size_with_typed_params() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    jsoncost()
        .args(["micro", "--quick", "--debug-mode", "--shape", "order", "--sizes", "4KB,1KB"])
        .args(["--filter", "typed/{serde_json,sonic-rs}", "--format", "json", "--out"])
        .arg(&out)
        .assert()
        .success();
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let tables: Vec<(&str, &serde_json::Value)> = file["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["table"].as_str().unwrap(), &t["params"]))
        .collect();
    let names: Vec<&str> = tables.iter().map(|t| t.0).collect();
    assert_eq!(
        names,
        [
            "order-1KB/deserialize",
            "order-1KB/serialize",
            "order-4KB/deserialize",
            "order-4KB/serialize"
        ]
    );
    let p = tables[2].1;
    assert_eq!(
        (&p["sweep"], &p["operation"], &p["size_target"], &p["payload_bytes"]),
        (&"order".into(), &"deserialize".into(), &4096.into(), &4148.into())
    );
    assert_eq!(tables[0].1["payload_bytes"], 1042);

    jsoncost()
        .args(["micro", "--shape", "order", "--sizes", "100B,1KB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--sizes 100B: an order cannot be as small as 100 bytes: with no lines it is 685 bytes",
        ));
    jsoncost()
        .args(["micro", "--shape", "data", "--sizes", "1KB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--sizes sweeps the order shape only (data is not sized); give --shape order",
        ));
    jsoncost()
        .args(["micro", "--shape", "order", "--sizes", "4GB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid size \"4GB\": unknown unit"));
}
