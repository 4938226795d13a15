//! The memory bound for what lies outside the streamed array: members around it are either
//! kept (up to `Config::max_kept_bytes`, a clear error past it) or, when the config names the
//! ones it needs, validated and dropped. Counted by the counting allocator installed in this test binary.

use std::io::{self, Read};

use crate::common::bounded_config as config;
use jsoncost_engine::alloc::{AllocStats, thread_measure};
use jsoncost_shapes::Reading;
use jsoncost_stream::{Config, DEFAULT_MAX_KEPT_BYTES, ErrorKind, FIELD_OVERHEAD, Library};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The framer's own bound for a 64 KiB chunk and 1 KiB elements (as `memory_bound.rs`).
const BOUND: u64 = 256 * 1024;
const READING: &str = r#"{"Timestamp":"2025-01-01T00:00:00Z","Temperature":21.5,"Humidity":40.0}"#;

/// `{"DeviceId":"a","0":0,"1":1, … ,"Readings":[R, R]}` with `members` siblings, generated
/// as it is read (the body is never in memory).
struct Siblings {
    members: u64,
    next: u64,
    pending: Vec<u8>,
    at: usize,
    done: bool,
}

impl Siblings {
    fn new(members: u64) -> Self {
        Siblings {
            members,
            next: 0,
            pending: br#"{"DeviceId":"a","#.to_vec(),
            at: 0,
            done: false,
        }
    }
}

impl Read for Siblings {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.pending.len() {
            self.pending.clear();
            self.at = 0;
            while self.pending.len() < 8192 && self.next < self.members {
                use std::io::Write;
                write!(self.pending, r#""{}":{},"#, self.next, self.next % 10)?;
                self.next += 1;
            }
            if self.pending.is_empty() {
                if self.done {
                    return Ok(0);
                }
                self.done = true;
                self.pending
                    .extend_from_slice(format!(r#""Readings":[{READING},{READING}]}}"#).as_bytes());
            }
        }
        let n = (self.pending.len() - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_million_siblings_kept_by_default_stop_at_the_cap_within_a_bounded_heap() {
    // Each sibling `"i":d` is charged its pointer `/i`, its text `d` and the field's size.
    let charge = |i: usize| FIELD_OVERHEAD + 1 + i.to_string().len() + 1;
    let device = FIELD_OVERHEAD + "/DeviceId".len() + r#""a""#.len();
    let mut kept = 0;
    let mut total = device;
    while total + charge(kept) <= DEFAULT_MAX_KEPT_BYTES {
        total += charge(kept);
        kept += 1;
    }
    for lib in Library::ALL {
        let ((e, fields), stats) = thread_measure(|| {
            let mut it = config(lib).reader::<Reading, _>(Siblings::new(1_000_000));
            let e = it.find_map(Result::err);
            (e, it.fields().len())
        });
        let e = e.unwrap_or_else(|| panic!("{lib}: a million kept siblings were accepted, peak heap {} bytes", stats.peak_bytes));
        eprintln!("{lib}: {e}; {fields} fields kept; peak {} bytes", stats.peak_bytes);
        assert_eq!(fields, kept + 1, "{lib}");
        assert_eq!(
            e.to_string(),
            format!(
                "the values kept outside the array would exceed the maximum of {DEFAULT_MAX_KEPT_BYTES} bytes with the value at \"/{kept}\" ({} kept before it) at byte {}",
                kept + 1,
                e.offset()
            )
        );
        assert!(matches!(e.kind(), ErrorKind::KeptTooLarge { .. }), "{lib}: {e}");
        // The buffer's bound, the kept fields and as much again for the list's spare slots.
        let bound = BOUND + 2 * DEFAULT_MAX_KEPT_BYTES as u64;
        assert!(stats.peak_bytes < bound, "{lib}: peak {} bytes, bound {bound}", stats.peak_bytes);
    }
}

#[test]
fn a_million_siblings_a_type_does_not_need_are_skipped_within_the_chunk_bound() {
    for lib in Library::ALL {
        let ((readings, device, fields), stats) = thread_measure(|| {
            let mut it = config(lib).keep(["/DeviceId"]).reader::<Reading, _>(Siblings::new(1_000_000));
            let readings = (&mut it).collect::<Result<Vec<_>, _>>().expect("valid document");
            let device = it.field("/DeviceId").map(|f| f.parse::<String>().unwrap());
            (readings.len(), device, it.fields().len())
        });
        eprintln!("{lib}: peak {} bytes", stats.peak_bytes);
        assert_eq!((readings, device.as_deref(), fields), (2, Some("a"), 1), "{lib}");
        assert!(stats.peak_bytes < BOUND, "{lib}: peak {} bytes", stats.peak_bytes);
    }
}

#[test]
fn a_98_mb_body_of_nine_million_siblings_keeps_the_heap_bounded() {
    // The body that took `serve` to 1.09 GB: generated as it is read, never held.
    let mut body = Siblings::new(9_000_000);
    let mut counted = Counted {
        inner: &mut body,
        bytes: 0,
    };
    let ((readings, bytes), stats) = thread_measure(|| {
        let mut it = config(Library::SerdeJson).keep(["/DeviceId"]).reader::<Reading, _>(&mut counted);
        let n = (&mut it).inspect(|r| assert!(r.is_ok(), "{r:?}")).count();
        (n, it.bytes_read())
    });
    assert_eq!(readings, 2);
    assert!(bytes > 98_000_000, "the body is {bytes} bytes");
    assert!(stats.peak_bytes < BOUND, "peak {} bytes", stats.peak_bytes);
}

struct Counted<'a, R> {
    inner: &'a mut R,
    bytes: u64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

#[test]
fn a_repeated_kept_key_is_rejected_like_a_duplicate_field() {
    let doc = r#"{"DeviceId":"d","Readings":[],"DeviceId":"e"}"#;
    let at = doc.rfind("\"DeviceId\"").unwrap() as u64;
    for lib in Library::ALL {
        let e = Config::new("/Readings")
            .unwrap()
            .library(lib)
            .keep(["/DeviceId"])
            .reader::<Value, _>(doc.as_bytes())
            .find_map(Result::err)
            .expect("an error");
        assert_eq!(
            e.to_string(),
            format!("duplicate key \"DeviceId\": the object holding \"/DeviceId\" has it twice at byte {at}"),
            "{lib}"
        );
    }
    // A member not kept may repeat (a type ignoring it ignores both), as with serde_json.
    let doc = r#"{"DeviceId":"d","x":1,"x":2,"Readings":[1]}"#;
    let mut it = Config::new("/Readings")
        .unwrap()
        .keep(["/DeviceId"])
        .reader::<Value, _>(doc.as_bytes());
    assert_eq!((&mut it).map(Result::unwrap).count(), 1);
    assert_eq!(it.fields().len(), 1);
}

// ---- the property: any number of siblings and nested decoys, a heap bounded by the config ----

const P_CHUNK: usize = 4096;
const P_MAX: usize = 2048;
const P_KEPT: usize = 8192;
/// What one library allocates to build or validate one value (an element, a field) of up to
/// `P_MAX` bytes of text: at most 48 bytes per byte (a DOM of `[[[…]]]` or `[0,0,…]`).
const PER_VALUE: usize = 48 * P_MAX;
/// The framer's buffer (chunk, largest value, block slack, first-fill slack), its span queue,
/// the kept fields with as much again for their list's spare slots, and one value's parse.
const P_BOUND: usize = P_CHUNK + P_MAX + 256 + 4096 + 4096 + 2 * P_KEPT + PER_VALUE;

/// A nested decoy: objects and arrays holding `Readings` and `DeviceId` keys of their own.
fn decoy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![Just("Readings".to_string()), Just("DeviceId".to_string()), "[a-z]{1,4}"],
                    inner
                ),
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[derive(Debug, Clone)]
struct Doc {
    /// The top-level members in order, as (key, value text).
    members: Vec<(String, String)>,
    readings: Vec<Value>,
}

fn document() -> impl Strategy<Value = Doc> {
    (
        prop::collection::vec(decoy(), 0..40),
        0usize..20_000,
        0usize..=40,
        0usize..=40,
        prop::collection::vec(any::<i16>(), 0..12),
    )
        .prop_map(|(decoys, bulk, readings_at, device_at, temps)| {
            let mut members: Vec<(String, String)> = decoys.iter().enumerate().map(|(i, d)| (format!("d{i}"), d.to_string())).collect();
            let readings: Vec<Value> = temps
                .iter()
                .map(|t| json!({"Timestamp": "2025-01-01T00:00:00Z", "Temperature": t, "Humidity": 1.5, "Readings": [t]}))
                .collect();
            let at = readings_at.min(members.len());
            members.insert(at, ("Readings".into(), Value::Array(readings.clone()).to_string()));
            let at = device_at.min(members.len());
            members.insert(at, ("DeviceId".into(), r#""dev""#.into()));
            // Many small siblings in one run (their position among the rest does not matter).
            let at = members.len() / 2;
            members.splice(at..at, (0..bulk).map(|i| (format!("n{i}"), (i % 10).to_string())));
            Doc { members, readings }
        })
}

fn text(doc: &Doc) -> Vec<u8> {
    let mut s = String::from("{");
    for (i, (k, v)) in doc.members.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("{}:{v}", Value::from(k.as_str())));
    }
    s.push('}');
    s.into_bytes()
}

/// What one stream gave (its elements or error, and the kept fields' pointers), and its heap.
type Streamed = ((Result<Vec<Value>, jsoncost_stream::Error>, Vec<String>), AllocStats);

fn stream(config: &Config, body: &[u8]) -> Streamed {
    thread_measure(|| {
        let mut it = config.reader::<Value, _>(body);
        let got = (&mut it).collect::<Result<Vec<_>, _>>();
        (got, it.fields().iter().map(|f| f.pointer.clone()).collect())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn siblings_and_decoys_stream_exactly_within_the_documented_heap(doc in document(), lib in 0usize..3) {
        let lib = Library::ALL[lib];
        let body = text(&doc);
        let base = Config::new("/Readings").unwrap().library(lib).chunk_size(P_CHUNK).max_element_bytes(P_MAX).max_kept_bytes(P_KEPT);

        // Only DeviceId kept: every document streams, whatever it holds around the array.
        let ((got, fields), stats) = stream(&base.clone().keep(["/DeviceId"]), &body);
        prop_assert_eq!(got.map_err(|e| TestCaseError::fail(e.to_string()))?, doc.readings.clone());
        prop_assert_eq!(fields, vec!["/DeviceId".to_string()]);
        prop_assert!(stats.peak_bytes < P_BOUND as u64, "{}: peak {} bytes, bound {}", lib, stats.peak_bytes, P_BOUND);

        // Everything kept: the members up to the cap, then the cap's error at the one past it.
        let mut charged = 0;
        let mut fits = Vec::new();
        let mut over = None;
        for (k, v) in doc.members.iter().filter(|(k, _)| k != "Readings") {
            let charge = FIELD_OVERHEAD + 1 + k.len() + v.len();
            if charged + charge > P_KEPT {
                over = Some(format!("/{k}"));
                break;
            }
            charged += charge;
            fits.push(format!("/{k}"));
        }
        let ((got, fields), stats) = stream(&base, &body);
        prop_assert_eq!(&fields, &fits);
        match (got, over) {
            (Ok(readings), None) => prop_assert_eq!(readings, doc.readings.clone()),
            (Err(e), Some(pointer)) => {
                let kept = fits.len();
                prop_assert!(
                    matches!(e.kind(), ErrorKind::KeptTooLarge { pointer: p, kept: k, max: P_KEPT } if *p == pointer && *k == kept),
                    "{}", e
                );
            }
            (got, over) => prop_assert!(false, "{:?} with the cap passed at {:?}", got.map(|r| r.len()), over),
        }
        prop_assert!(stats.peak_bytes < P_BOUND as u64, "{}: peak {} bytes, bound {}", lib, stats.peak_bytes, P_BOUND);
    }
}
