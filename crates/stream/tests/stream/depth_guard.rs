//! A 100,000-deep value in a streamed body: sonic-rs, held to serde_json's limit, never sees
//! it, the stream reports the depth guard's error at the bracket's byte offset, and the
//! unguarded libraries answer as their own `from_slice` would. Each test body runs in a child process
//! (this test binary, run again for that one test), so a regression that overflows the stack
//! fails the test by its signal instead of taking the whole runner down.

use jsoncost_shapes::Reading;
use jsoncost_stream::{Config, ErrorKind, Library, MAX_DEPTH};

const DEEP: usize = 100_000;

/// Runs `body` in a child process of this test binary and asserts the child exited normally.
fn in_child(test: &str, body: impl FnOnce()) {
    if std::env::var_os("JSONCOST_TEST_CHILD").is_some() {
        body();
        return;
    }
    // Its output is shown only when it fails (its own test summary would read as this one's).
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads", "1"])
        .env("JSONCOST_TEST_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        child.status.success(),
        "{test} in a child process: {} (a signal means it aborted)\n{}\n{}",
        child.status,
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

const READING: &str = r#"{"Timestamp":"2025-01-01T00:00:00Z","Temperature":21.5,"Humidity":40.0"#;

/// A body whose second reading has an unknown field 100,000 arrays deep; the offset of the
/// bracket that opens level 128 of that reading.
fn deep_body() -> (String, u64) {
    let head = format!(r#"{{"DeviceId":"d-1","Readings":[{READING}}},{READING},"x":"#);
    // The reading's object is level 1, so its field's 127th bracket opens level 128.
    let offset = (head.len() + MAX_DEPTH - 2) as u64;
    (format!("{head}{}}}]}}", nested(DEEP)), offset)
}

#[test]
fn a_deep_element_is_refused_for_sonic_rs_at_its_offset() {
    in_child("a_deep_element_is_refused_for_sonic_rs_at_its_offset", || {
        let (body, offset) = deep_body();
        for chunk in [body.len(), 64 * 1024, 4096, 7] {
            let config = Config::new("/Readings").unwrap().library(Library::SonicRs).chunk_size(chunk);
            let results: Vec<_> = config.reader::<Reading, _>(body.as_bytes()).collect();
            assert_eq!(results.len(), 2, "chunk {chunk}: one reading, then the error");
            assert!(results[0].is_ok());
            let e = results[1].as_ref().unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::TooDeep {
                        library: Library::SonicRs,
                        limit: 128
                    }
                ),
                "{e:?}"
            );
            assert_eq!((e.offset(), e.element()), (offset, Some(1)), "chunk {chunk}");
            assert_eq!(
                e.to_string(),
                format!(
                    "sonic-rs would accept nesting past serde_json's limit: rejected by jsoncost's depth guard at 128 \
                     (nesting reaches 128 levels) at byte {offset} (element 1)"
                )
            );
        }
    });
}

#[test]
fn unguarded_libraries_answer_as_their_own_parse() {
    in_child("unguarded_libraries_answer_as_their_own_parse", || {
        let (body, _) = deep_body();
        // serde_json skips an unknown field without recursing: both readings parse.
        let serde: Result<Vec<Reading>, _> = Config::new("/Readings").unwrap().reader(body.as_bytes()).collect();
        assert_eq!(serde.unwrap().len(), 2);
        // simd-json stops at its own limit of 1024.
        let config = Config::new("/Readings").unwrap().library(Library::SimdJson);
        let e = config.reader::<Reading, _>(body.as_bytes()).find_map(Result::err).unwrap();
        assert!(e.to_string().contains("DepthLimitExceeded"), "{e}");
    });
}

#[test]
fn a_deep_field_outside_the_array_is_refused_for_sonic_rs() {
    in_child("a_deep_field_outside_the_array_is_refused_for_sonic_rs", || {
        let head = r#"{"Meta":"#;
        let body = format!(r#"{head}{},"DeviceId":"d","Readings":[]}}"#, nested(DEEP));
        let config = Config::new("/Readings").unwrap().library(Library::SonicRs);
        let e = config.reader::<Reading, _>(body.as_bytes()).find_map(Result::err).unwrap();
        assert!(matches!(e.kind(), ErrorKind::TooDeep { .. }), "{e:?}");
        // The field is checked on its own: its 128th bracket.
        assert_eq!((e.offset(), e.element()), ((head.len() + MAX_DEPTH - 1) as u64, None));
    });
}

#[test]
fn elements_just_under_the_limit_still_parse() {
    // 127 levels inside a reading (itself level 1) is what serde_json accepts as a document.
    let field = nested(MAX_DEPTH - 2);
    let body = format!(r#"{{"DeviceId":"d","Readings":[{READING},"x":{field}}}]}}"#);
    for lib in Library::ALL {
        let config = Config::new("/Readings").unwrap().library(lib);
        let readings: Result<Vec<Reading>, _> = config.reader(body.as_bytes()).collect();
        assert_eq!(readings.map(|r| r.len()).map_err(|e| e.to_string()), Ok(1), "{lib}");
    }
}
