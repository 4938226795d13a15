//! Crafted bad inputs: every error names its kind, its exact absolute byte offset and, inside an
//! element, the element's index.

use crate::common;

use std::io::{self, Read};

use common::Pieces;
use jsoncost_shapes::{DEFAULT_SEED, Generator, Reading, write_telemetry};
use jsoncost_stream::{Config, Error, ErrorKind, Library};
use serde_json::Value;

/// The first error streaming `doc` gives, cut into `chunk`-byte pieces.
fn first_error<T: serde::de::DeserializeOwned>(config: &Config, doc: &[u8], chunk: usize) -> Error {
    let cuts: Vec<usize> = (chunk..doc.len()).step_by(chunk).collect();
    match config
        .clone()
        .chunk_size(chunk)
        .reader::<T, _>(Pieces::new(doc, &cuts))
        .find_map(Result::err)
    {
        Some(e) => e,
        None => panic!("no error for {:?}", String::from_utf8_lossy(doc)),
    }
}

/// The error for every library and for 1-byte, 7-byte and whole-document chunks, which must not
/// depend on the chunking.
fn errors<T: serde::de::DeserializeOwned>(pointer: &str, doc: &[u8]) -> Vec<(Library, Error)> {
    Library::ALL
        .into_iter()
        .map(|lib| {
            let config = Config::new(pointer).unwrap().library(lib);
            let e = first_error::<T>(&config, doc, doc.len().max(1));
            for chunk in [1, 7] {
                let other = first_error::<T>(&config, doc, chunk);
                assert_eq!(
                    (other.offset(), other.element(), other.to_string()),
                    (e.offset(), e.element(), e.to_string()),
                    "{lib}, chunk {chunk}"
                );
            }
            (lib, e)
        })
        .collect()
}

fn one(pointer: &str, doc: &str) -> Error {
    let mut all = errors::<Value>(pointer, doc.as_bytes());
    let (_, first) = all.remove(0);
    for (lib, e) in all {
        assert_eq!(
            (e.offset(), e.element()),
            (first.offset(), first.element()),
            "{lib} vs serde_json: {e} / {first}"
        );
    }
    first
}

#[test]
fn a_bad_token_in_element_500000_of_a_generated_document() {
    const N: u64 = 1_000_000;
    const BAD: u64 = 500_000;
    let mut doc = Vec::new();
    write_telemetry(&mut doc, N, DEFAULT_SEED).unwrap();
    // Where element 500,000 starts, from the generator alone: the head, then each reading's
    // JSON and a comma.
    let head = br#"{"DeviceId":"device-7f3a9c2e-0001","Readings":["#.len() as u64;
    let mut g = Generator::new(DEFAULT_SEED);
    let start = head
        + (0..BAD)
            .map(|i| serde_json::to_vec(&g.reading(i)).unwrap().len() as u64 + 1)
            .sum::<u64>();
    let element = serde_json::to_vec(&g.reading(BAD)).unwrap();
    assert_eq!(
        doc[start as usize..][..element.len()],
        element[..],
        "the offset arithmetic is right"
    );
    let value_at = start + (memchr_str(&element, b"\"Temperature\":") + 14) as u64;
    doc[value_at as usize] = b'x';

    for lib in Library::ALL {
        let config = Config::new("/Readings").unwrap().library(lib);
        let mut readings = config.reader::<Reading, _>(doc.as_slice());
        let good = (&mut readings).take(BAD as usize).filter(Result::is_ok).count();
        assert_eq!(good, BAD as usize, "{lib}: the elements before the bad one parse");
        let e = readings.next().unwrap().unwrap_err();
        assert_eq!((e.offset(), e.element()), (value_at, Some(BAD)), "{lib}: {e}");
        assert!(
            matches!(e.kind(), ErrorKind::BadToken { library: Some(l), .. } if *l == lib),
            "{lib}: {e:?}"
        );
        assert!(readings.next().is_none(), "an error ends the stream");
    }
    let e = first_error::<Reading>(&Config::new("/Readings").unwrap(), &doc, 65536);
    assert_eq!(
        e.to_string(),
        format!("bad token (serde_json): expected value at byte {value_at} (element {BAD})")
    );
}

fn memchr_str(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).expect("needle present")
}

#[test]
fn truncated_documents_report_where_the_input_ended() {
    let mut doc = Vec::new();
    write_telemetry(&mut doc, 10, 1).unwrap();
    let text = String::from_utf8(doc).unwrap();
    let seventh = text.match_indices("{\"Timestamp\"").nth(7).unwrap().0;

    // Inside element 7.
    let e = one("/Readings", &text[..seventh + 20]);
    assert_eq!((e.offset(), e.element()), (seventh as u64 + 20, Some(7)));
    assert_eq!(
        e.to_string(),
        format!(
            "truncated document: the input ended inside element 7 at byte {} (element 7)",
            seventh + 20
        )
    );
    // After the comma that promises element 7.
    let e = one("/Readings", &text[..seventh]);
    assert_eq!((e.offset(), e.element()), (seventh as u64, Some(7)));
    // Right after element 6: between elements.
    let e = one("/Readings", &text[..seventh - 1]);
    assert_eq!((e.offset(), e.element()), (seventh as u64 - 1, None));
    assert!(
        matches!(e.kind(), ErrorKind::Truncated { inside } if inside == "the array at \"/Readings\""),
        "{e}"
    );
    // Inside the device id, before the array.
    let e = one("/Readings", &text[..18]);
    assert_eq!((e.offset(), e.element()), (18, None));
    assert!(
        matches!(e.kind(), ErrorKind::Truncated { inside } if inside == "the value at /DeviceId"),
        "{e}"
    );
    // After the array, before the closing brace.
    let e = one("/Readings", &text[..text.len() - 1]);
    assert_eq!((e.offset(), e.element()), (text.len() as u64 - 1, None));
    assert!(
        matches!(e.kind(), ErrorKind::Truncated { inside } if inside == "the object at the document root"),
        "{e}"
    );
    // Nothing at all.
    let e = one("/Readings", " \n");
    assert_eq!(
        (e.offset(), e.to_string().as_str()),
        (2, "truncated document: the input ended inside the document (no value) at byte 2")
    );
}

#[test]
fn a_missing_pointer_is_reported_where_it_is_known_to_be_missing() {
    let e = one("/Readings", r#"{"DeviceId":"d"}"#);
    assert_eq!(
        e.to_string(),
        "pointer \"/Readings\" not found: the document root has no member \"Readings\" at byte 15"
    );
    let e = one("/a/c", r#"{"a":{"b":1}}"#);
    assert_eq!((e.offset(), e.to_string().contains(r#""/a" has no member "c""#)), (11, true), "{e}");
    let e = one("/a/5", r#"{"a":[1,2]}"#);
    assert_eq!((e.offset(), e.to_string().contains(r#""/a" has 2 elements"#)), (9, true), "{e}");
    let e = one("/a/0", r#"{"a":[]}"#);
    assert_eq!((e.offset(), e.to_string().contains(r#""/a" has 0 elements"#)), (6, true), "{e}");
    let e = one("/a/b", r#"{"a":3}"#);
    assert_eq!(
        (e.offset(), e.to_string().contains(r#""/a" is a number, which has no members"#)),
        (5, true),
        "{e}"
    );
    let e = one("/Readings", "[1]");
    assert_eq!(
        (
            e.offset(),
            e.to_string()
                .contains(r#"the document root is an array and "Readings" is not an array index"#)
        ),
        (0, true),
        "{e}"
    );
    assert!(matches!(e.kind(), ErrorKind::PointerNotFound { .. }));
}

#[test]
fn a_pointer_to_something_else_than_an_array_says_what_it_found() {
    let e = one("/Readings", r#"{"Readings":{"a":1}}"#);
    assert_eq!(e.to_string(), "pointer \"/Readings\" names an object, not an array at byte 12");
    let e = one("/Readings", r#"{"DeviceId":"d", "Readings" : "x"}"#);
    assert_eq!((e.offset(), e.to_string().contains("names a string")), (30, true), "{e}");
    let e = one("", "{}");
    assert!(
        matches!(e.kind(), ErrorKind::NotAnArray { found: "an object", .. }) && e.offset() == 0,
        "{e}"
    );
}

#[test]
fn an_element_of_the_wrong_shape_is_a_data_error_with_its_index() {
    let doc = r#"{"Readings":[{"Timestamp":"2025-01-01T00:00:00Z","Temperature":1.5,"Humidity":2.5},
{"Timestamp":"2025-01-01T00:00:01Z","Temperature":"hot","Humidity":2.5}]}"#;
    let second = doc.find("{\"Timestamp\":\"2025-01-01T00:00:01Z\"").unwrap() as u64;
    let hot_end = (doc.find("\"hot\"").unwrap() + 5) as u64;
    let errs = errors::<Reading>("/Readings", doc.as_bytes());
    // Each library reports its own position: serde_json and sonic-rs the last byte of the value
    // that did not fit, simd-json (whose serde errors carry no position) the element's start.
    let invalid = r#"invalid type: string "hot", expected f64"#;
    let expected = [
        (Library::SerdeJson, hot_end - 1, invalid),
        (Library::SonicRs, hot_end - 1, invalid),
        (Library::SimdJson, second, "ExpectedFloat"),
    ];
    for ((lib, e), (lib2, offset, text)) in errs.iter().zip(expected) {
        assert_eq!(*lib, lib2);
        assert_eq!((e.offset(), e.element()), (offset, Some(1)), "{lib}: {e}");
        assert!(
            matches!(e.kind(), ErrorKind::WrongShape { library, message } if *library == *lib && message == text),
            "{lib}: {e}"
        );
    }
    // A missing field.
    let doc = r#"[{"Timestamp":"2025-01-01T00:00:00Z","Temperature":1.5}]"#;
    for (lib, e) in errors::<Reading>("", doc.as_bytes()) {
        assert_eq!(e.element(), Some(0), "{lib}");
        assert!(
            matches!(e.kind(), ErrorKind::WrongShape { message, .. } if message.contains("Humidity")),
            "{lib}: {e}"
        );
    }
}

#[test]
fn invalid_utf8_inside_a_string_is_reported_at_the_bad_byte() {
    // In element 2, in a field the element type reads.
    let mut doc = br#"{"DeviceId":"d","Readings":[{"a":"x"},{"a":"y"},{"a":"ab?c"}]}"#.to_vec();
    let bad = doc.iter().position(|&b| b == b'?').unwrap();
    doc[bad] = 0xFF;
    for (lib, e) in errors::<Value>("/Readings", &doc) {
        assert_eq!((e.offset(), e.element()), (bad as u64, Some(2)), "{lib}: {e}");
        assert!(matches!(e.kind(), ErrorKind::InvalidUtf8), "{lib}: {e}");
    }
    // In a field an element type ignores: still reported, though the parser skips it.
    let mut doc = br#"[{"Timestamp":"2025-01-01T00:00:00Z","Temperature":1.5,"Humidity":2.5,"Note":"?"}]"#.to_vec();
    let bad = doc.iter().position(|&b| b == b'?').unwrap();
    doc[bad] = 0xC3; // a lead byte with no continuation
    for (lib, e) in errors::<Reading>("", &doc) {
        assert_eq!((e.offset(), e.element()), (bad as u64, Some(0)), "{lib}: {e}");
        assert!(matches!(e.kind(), ErrorKind::InvalidUtf8), "{lib}: {e}");
    }
    // In the device id, before the array.
    let mut doc = br#"{"DeviceId":"d?","Readings":[]}"#.to_vec();
    doc[14] = 0xFF;
    let e = one_bytes("/Readings", &doc);
    assert_eq!(
        (e.offset(), e.element(), e.to_string().as_str()),
        (14, None, "invalid UTF-8 inside a string at byte 14")
    );
    // Outside a string it is a bad token, found by the parser.
    let mut doc = br#"[{"a":1 ?}]"#.to_vec();
    doc[8] = 0xFF;
    for (lib, e) in errors::<Value>("", &doc) {
        assert_eq!((e.offset(), e.element()), (8, Some(0)), "{lib}: {e}");
        assert!(matches!(e.kind(), ErrorKind::BadToken { .. }), "{lib}: {e}");
    }
}

fn one_bytes(pointer: &str, doc: &[u8]) -> Error {
    let mut all = errors::<Value>(pointer, doc);
    all.remove(0).1
}

#[test]
fn an_element_over_the_maximum_is_an_error_at_its_start_never_a_bigger_buffer() {
    // Element 1 is exactly 100 bytes, element 2 is 101.
    let e100 = format!(r#"{{"s":"{}"}}"#, "a".repeat(92));
    let e101 = format!(r#"{{"s":"{}"}}"#, "a".repeat(93));
    assert_eq!((e100.len(), e101.len()), (100, 101));
    let doc = format!("[1,{e100},{e101}]");
    for lib in Library::ALL {
        for chunk in [1, 7, 64, 4096] {
            let config = Config::new("").unwrap().library(lib).max_element_bytes(100).chunk_size(chunk);
            let mut it = config.reader::<Value, _>(doc.as_bytes());
            assert_eq!(it.next().unwrap().unwrap(), Value::from(1));
            assert_eq!(it.next().unwrap().unwrap().to_string().len(), 100, "{lib}, chunk {chunk}");
            let e = it.next().unwrap().unwrap_err();
            assert_eq!((e.offset(), e.element()), (104, Some(2)), "{lib}, chunk {chunk}");
            assert_eq!(
                e.to_string(),
                "element 2 is larger than the maximum of 100 bytes at byte 104 (element 2)"
            );
        }
    }
    // A 10 MB element with a 1 KiB maximum and 64 KiB chunks: the error comes after one chunk.
    let huge = format!(r#"{{"DeviceId":"d","Readings":[{{"s":"{}"}}]}}"#, "a".repeat(10_000_000));
    let config = Config::new("/Readings").unwrap().max_element_bytes(1024);
    let mut it = config.reader::<Value, _>(huge.as_bytes());
    let e = it.next().unwrap().unwrap_err();
    assert_eq!((e.offset(), e.element()), (28, Some(0)));
    assert!(it.bytes_read() <= 65536, "read {} bytes", it.bytes_read());
    assert!(it.buffer_len() <= 65536 + 1024 + 128, "buffer {}", it.buffer_len());
    // A key or a field over the maximum.
    let e = first_error::<Value>(
        &Config::new("/Readings").unwrap().max_element_bytes(8),
        br#"{"Id":"0123456789","Readings":[]}"#,
        4,
    );
    assert_eq!(
        (e.offset(), e.to_string().as_str()),
        (6, "the value at /Id is larger than the maximum of 8 bytes at byte 6")
    );
    let e = first_error::<Value>(
        &Config::new("/Readings").unwrap().max_element_bytes(8),
        br#"{"DeviceIdentifier":1,"Readings":[]}"#,
        4,
    );
    assert_eq!(
        (e.offset(), e.to_string().as_str()),
        (1, "an object key is larger than the maximum of 8 bytes at byte 1")
    );
}

/// A reader that fails after `ok` bytes.
struct FailingReader<'a> {
    data: &'a [u8],
    ok: usize,
}

impl Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ok == 0 {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "peer went away"));
        }
        let n = buf.len().min(self.ok).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.ok -= n;
        Ok(n)
    }
}

#[test]
fn an_io_error_is_reported_with_where_the_input_stopped() {
    let doc = br#"{"DeviceId":"d","Readings":[{"a":1},{"a":2}]}"#;
    let config = Config::new("/Readings").unwrap();
    let mut it = config.reader::<Value, _>(FailingReader { data: doc, ok: 40 });
    assert_eq!(it.next().unwrap().unwrap(), serde_json::json!({"a": 1}));
    let e = it.next().unwrap().unwrap_err();
    assert_eq!((e.offset(), e.element()), (40, Some(1)));
    assert_eq!(e.to_string(), "I/O error reading the input: peer went away at byte 40 (element 1)");
    assert!(!e.is_bad_input());
    assert!(it.next().is_none());
}

#[test]
fn the_structure_around_the_elements_is_validated() {
    let cases: [(&str, &str, u64, Option<u64>, &str); 8] = [
        ("", "[1 2]", 3, None, "expected ',' or ']' after element 0, found '2'"),
        ("", "[1,]", 3, Some(1), "expected an array element, found ']'"),
        ("", "[,1]", 1, Some(0), "expected an array element, found ','"),
        (
            "/Readings",
            r#"{"Readings":[]} x"#,
            16,
            None,
            "trailing characters after the document: 'x'",
        ),
        ("/Readings", r#"{"DeviceId" "x"}"#, 12, None, "expected ':', found '\"'"),
        (
            "/Readings",
            r#"{"Readings":[{"a":1}}"#,
            20,
            None,
            "expected ',' or ']' after element 0, found '}'",
        ),
        ("/Readings", r#"{"a":1,}"#, 7, None, "expected '\"' (a key), found '}'"),
        ("/b", r#"{"a":1 "b":[]}"#, 7, None, "expected ',' or '}', found '\"'"),
    ];
    for (pointer, doc, offset, element, message) in cases {
        let e = one(pointer, doc);
        assert_eq!((e.offset(), e.element()), (offset, element), "{doc}: {e}");
        assert!(
            matches!(e.kind(), ErrorKind::BadToken { library: None, message: m } if m == message),
            "{doc}: {e:?}"
        );
    }
    // Inside an element, the library finds it.
    for (lib, e) in errors::<Value>("", br#"[{"a":1},{"a":1,}]"#) {
        assert_eq!(e.element(), Some(1), "{lib}");
        assert!(
            matches!(e.kind(), ErrorKind::BadToken { library: Some(l), .. } if *l == lib),
            "{lib}: {e}"
        );
    }
}

#[test]
fn the_async_stream_reports_the_same_errors() {
    use futures::StreamExt;
    let doc = br#"{"DeviceId":"d","Readings":[{"a":1},{"a":tru}]}"#;
    let chunks = Pieces::chunks(doc, &[5, 30, 38]);
    let source = futures::stream::iter(chunks.into_iter().map(Ok::<_, io::Error>));
    let mut s = Config::new("/Readings").unwrap().stream::<Value, _>(source);
    let got: Vec<_> = futures::executor::block_on(async { (&mut s).collect::<Vec<_>>().await });
    assert_eq!(got.len(), 2);
    let e = got[1].as_ref().unwrap_err();
    let sync = first_error::<Value>(&Config::new("/Readings").unwrap(), doc, doc.len());
    assert_eq!(
        (e.offset(), e.element(), e.to_string()),
        (sync.offset(), sync.element(), sync.to_string())
    );
    // A failing source.
    let source = futures::stream::iter(vec![Ok(bytes::Bytes::from_static(b"[1,")), Err(io::Error::other("reset"))]);
    let mut s = Config::new("").unwrap().stream::<Value, _>(source);
    let got: Vec<_> = futures::executor::block_on(async { (&mut s).collect::<Vec<_>>().await });
    assert_eq!(got[0].as_ref().unwrap(), &Value::from(1));
    let e = got[1].as_ref().unwrap_err();
    assert_eq!(
        (e.offset(), e.element(), e.to_string().as_str()),
        (3, Some(1), "I/O error reading the input: reset at byte 3 (element 1)")
    );
}

/// The typed `from_slice` rejects a repeat of the streamed key ("duplicate field `Readings`"),
/// so the stream does too, at the repeated key, whatever the chunking.
#[test]
fn a_repeated_streamed_key_is_rejected_where_it_repeats() {
    let doc = r#"{"DeviceId":"d","Readings":[{"a":1},{"a":2}],"Readings":[]}"#;
    let at = doc.rfind("\"Readings\"").unwrap() as u64;
    let e = one("/Readings", doc);
    assert_eq!((e.offset(), e.element()), (at, None));
    assert_eq!(
        e.to_string(),
        format!("duplicate key \"Readings\": the object holding \"/Readings\" has it twice at byte {at}")
    );
    // Nested: the key on the path one level up repeats.
    let doc = r#"{"a":{"b":[1]},"a":{"b":[]}}"#;
    let e = one("/a/b", doc);
    assert_eq!(e.offset(), doc.rfind("\"a\"").unwrap() as u64);
    assert!(matches!(e.kind(), ErrorKind::DuplicateKey { key, .. } if key == "a"), "{e}");
    // typed from_slice agrees that the document is bad.
    let typed = serde_json::from_str::<jsoncost_shapes::Telemetry>(r#"{"DeviceId":"d","Readings":[],"Readings":[]}"#);
    assert!(typed.unwrap_err().to_string().starts_with("duplicate field `Readings`"));
    // Other repeated keys around the array are kept as fields (not compared with from_slice).
    let doc = r#"{"DeviceId":"d","DeviceId":"e","Readings":[{"a":1}]}"#;
    let config = Config::new("/Readings").unwrap();
    let mut elements = config.reader::<Value, _>(doc.as_bytes());
    assert_eq!((&mut elements).filter(Result::is_ok).count(), 1);
    assert_eq!(elements.fields().len(), 2);
}

/// sonic-rs parses an element with the elements after it in the buffer (so its SIMD loads are
/// not cut short at the element's end); an element it refuses is parsed again alone, so the
/// error is the element's own, the same with the document in one chunk as in 1-byte and 7-byte
/// chunks (`errors` checks that), where sonic-rs's own `from_slice` of the element puts it.
#[test]
fn an_element_parsed_with_the_next_ones_in_the_buffer_reports_its_own_error() {
    let element = "{\"b\":\"y\u{1}\"}";
    let doc = format!("[{{\"a\":\"x\"}},{element},{{\"c\":\"z\"}}]");
    let alone = sonic_rs::from_slice::<Value>(element.as_bytes()).unwrap_err();
    for (lib, e) in errors::<Value>("", doc.as_bytes()) {
        if lib == Library::SonicRs {
            assert_eq!((e.offset(), e.element()), (11 + alone.offset() as u64, Some(1)), "{e}");
            assert_eq!(e.offset(), 17, "{e}");
        }
    }
    // A value of the wrong shape in an element with more after it: the data error, element 1.
    type Counts = std::collections::BTreeMap<String, Vec<u32>>;
    let doc = "[{\"n\":[1,2]},{\"n\":[3,\"x\"]},{\"n\":[4]}]";
    for (lib, e) in errors::<Counts>("", doc.as_bytes()) {
        assert_eq!(e.element(), Some(1), "{lib}: {e}");
        assert!(matches!(e.kind(), ErrorKind::WrongShape { .. }), "{lib}: {e}");
    }
}
