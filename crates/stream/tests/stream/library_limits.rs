//! What each library does on its own with a value nested 100,000 deep: the facts jsoncost's
//! depth guard (`jsoncost_stream::depth`) is built on. No library overflows its stack any more
//! (sonic-rs did before 0.5.12), so the guard is not a stack defence; it holds sonic-rs to
//! serde_json's 128. Each body runs in a child process, so a library that overflows its stack
//! fails its test by the signal instead of taking the runner down.

use serde::Deserialize;

const DEEP: usize = 100_000;

fn in_child(test: &str, body: impl FnOnce()) {
    if std::env::var_os("JSONCOST_TEST_CHILD").is_some() {
        body();
        return;
    }
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([&format!("library_limits::{test}"), "--exact", "--nocapture", "--test-threads", "1"])
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

fn arrays(depth: usize) -> Vec<u8> {
    let mut v = vec![b'['; depth];
    v.extend(std::iter::repeat_n(b']', depth));
    v
}

fn objects(depth: usize) -> Vec<u8> {
    let mut v = br#"{"a":"#.repeat(depth);
    v.push(b'1');
    v.extend(std::iter::repeat_n(b'}', depth));
    v
}

/// `{"x": <deep>, "y": 1}`: a deep field the shape below does not have.
fn unknown_field(deep: &[u8]) -> Vec<u8> {
    let mut v = br#"{"x":"#.to_vec();
    v.extend_from_slice(deep);
    v.extend_from_slice(br#","y":1}"#);
    v
}

#[derive(Debug, PartialEq, Deserialize)]
struct Y {
    y: u32,
}

#[test]
fn sonic_rs_dom_and_serde_parses_stop_at_255_levels() {
    in_child("sonic_rs_dom_and_serde_parses_stop_at_255_levels", || {
        for depth in [254, 255] {
            let doc = arrays(depth);
            let ok = depth < 255;
            assert_eq!(sonic_rs::from_slice::<sonic_rs::Value>(&doc).is_ok(), ok, "DOM, {depth}");
            assert_eq!(sonic_rs::from_slice::<serde_json::Value>(&doc).is_ok(), ok, "serde, {depth}");
        }
        for doc in [arrays(DEEP), objects(DEEP)] {
            // The message says 128 though the limit is 255.
            let dom = sonic_rs::from_slice::<sonic_rs::Value>(&doc).unwrap_err().to_string();
            let serde = sonic_rs::from_slice::<serde_json::Value>(&doc).unwrap_err().to_string();
            for e in [dom, serde] {
                assert!(
                    e.starts_with("Encountered nesting of JSON maps and arrays more than 128 layers deep"),
                    "{e}"
                );
            }
        }
    });
}

#[test]
fn sonic_rs_skips_a_deep_unknown_field_and_reads_lazily_at_any_depth() {
    in_child("sonic_rs_skips_a_deep_unknown_field_and_reads_lazily_at_any_depth", || {
        for doc in [arrays(DEEP), objects(DEEP)] {
            assert_eq!(sonic_rs::from_slice::<Y>(&unknown_field(&doc)).unwrap(), Y { y: 1 });
            let lazy = sonic_rs::from_slice::<sonic_rs::LazyValue>(&doc).unwrap();
            assert_eq!(lazy.as_raw_str().len(), doc.len());
        }
        assert_eq!(sonic_rs::get(&*arrays(DEEP), [0usize]).unwrap().as_raw_str().len(), 2 * (DEEP - 1));
        assert_eq!(
            sonic_rs::get(&*objects(DEEP), ["a"]).unwrap().as_raw_str().len(),
            objects(DEEP - 1).len()
        );
    });
}

#[test]
fn simd_json_stops_at_1024_levels_even_in_an_unknown_field() {
    in_child("simd_json_stops_at_1024_levels_even_in_an_unknown_field", || {
        assert!(simd_json::to_owned_value(&mut arrays(1024)).is_ok());
        for mut doc in [arrays(1025), arrays(DEEP), objects(DEEP)] {
            let e = simd_json::to_owned_value(&mut doc.clone()).unwrap_err();
            assert_eq!(e.error(), &simd_json::ErrorType::DepthLimitExceeded);
            let e = simd_json::serde::from_slice::<Y>(&mut unknown_field(&doc)).unwrap_err();
            assert_eq!(e.error(), &simd_json::ErrorType::DepthLimitExceeded);
            doc.clear();
        }
    });
}

#[test]
fn serde_json_stops_at_128_levels_and_skips_a_deep_unknown_field() {
    in_child("serde_json_stops_at_128_levels_and_skips_a_deep_unknown_field", || {
        assert!(serde_json::from_slice::<serde_json::Value>(&arrays(127)).is_ok());
        for doc in [arrays(128), arrays(DEEP), objects(DEEP)] {
            let e = serde_json::from_slice::<serde_json::Value>(&doc).unwrap_err().to_string();
            assert!(e.starts_with("recursion limit exceeded"), "{e}");
        }
        for doc in [arrays(DEEP), objects(DEEP)] {
            assert_eq!(serde_json::from_slice::<Y>(&unknown_field(&doc)).unwrap(), Y { y: 1 });
        }
    });
}
