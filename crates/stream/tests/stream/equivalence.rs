//! The stream yields exactly what the same library's `from_slice` of the whole document gives,
//! however the input is cut into chunks, through the sync and the async front ends.

use crate::common;

use common::{Pieces, reference, stream_async, stream_sync, whole};
use jsoncost_stream::{Config, Library};
use proptest::prelude::*;
use serde_json::Value;

/// A JSON value with the freedom of how to write it.
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    /// Hundredths, written as a decimal fraction.
    Fixed(i32),
    /// Written with an exponent.
    Exp(i16, i8),
    /// The text, and whether to write non-ASCII characters as `\u` escapes.
    Str(String, bool),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

const WS: [&str; 5] = ["", " ", "\n", "\t", "\r\n  "];

/// Writes JSON with whitespace taken in turn from `ws` between tokens.
struct Writer<'a> {
    out: String,
    ws: &'a [u8],
    next: usize,
}

impl Writer<'_> {
    fn ws(&mut self) {
        if !self.ws.is_empty() {
            self.out.push_str(WS[self.ws[self.next % self.ws.len()] as usize % WS.len()]);
            self.next += 1;
        }
    }

    fn string(&mut self, s: &str, escape_unicode: bool) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04x}", c as u32)),
                c if escape_unicode && !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        self.out.push_str(&format!("\\u{u:04X}"));
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn value(&mut self, j: &J) {
        match j {
            J::Null => self.out.push_str("null"),
            J::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            J::Int(i) => self.out.push_str(&i.to_string()),
            J::Fixed(h) => {
                let sign = if *h < 0 { "-" } else { "" };
                self.out
                    .push_str(&format!("{sign}{}.{:02}", h.unsigned_abs() / 100, h.unsigned_abs() % 100));
            }
            J::Exp(m, e) => self.out.push_str(&format!("{m}e{e}")),
            J::Str(s, esc) => self.string(s, *esc),
            J::Arr(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    self.ws();
                    if i > 0 {
                        self.out.push(',');
                        self.ws();
                    }
                    self.value(item);
                }
                self.ws();
                self.out.push(']');
            }
            J::Obj(members) => {
                self.out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    self.ws();
                    if i > 0 {
                        self.out.push(',');
                        self.ws();
                    }
                    self.string(k, false);
                    self.ws();
                    self.out.push(':');
                    self.ws();
                    self.value(v);
                }
                self.ws();
                self.out.push('}');
            }
        }
    }

    fn member(&mut self, key: &str, write: impl FnOnce(&mut Self)) {
        self.ws();
        self.string(key, false);
        self.ws();
        self.out.push(':');
        self.ws();
        write(self);
        self.ws();
    }
}

fn text() -> impl Strategy<Value = String> {
    let c = prop::sample::select(vec![
        '"', '\\', '/', 'a', 'Z', ' ', '{', '}', '[', ']', ',', ':', 'é', '€', '😀', '\n', '\u{1}', '\u{7f}',
    ]);
    prop::collection::vec(c, 0..8).prop_map(|v| v.into_iter().collect())
}

fn scalar() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(J::Int),
        any::<i32>().prop_map(J::Fixed),
        (any::<i16>(), -20i8..20).prop_map(|(m, e)| J::Exp(m, e)),
        (text(), any::<bool>()).prop_map(|(s, e)| J::Str(s, e)),
    ]
}

fn value() -> impl Strategy<Value = J> {
    scalar().prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(J::Arr),
            prop::collection::vec((text(), inner), 0..5).prop_map(J::Obj),
        ]
    })
}

/// Elements are mostly objects (the fast path), with arrays and scalars mixed in.
fn element() -> impl Strategy<Value = J> {
    prop_oneof![
        4 => prop::collection::vec((text(), value()), 0..5).prop_map(J::Obj),
        1 => prop::collection::vec(value(), 0..4).prop_map(J::Arr),
        1 => scalar(),
    ]
}

/// Where the streamed array sits in the document.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// `[...]`, pointer "".
    Root,
    /// `{"Before": v, "Readings": [...], "After": v}`.
    Member,
    /// `{"meta": v, "data": [v, {"x": v, "items": [...]}, v]}`, pointer `/data/1/items`.
    Nested,
}

impl Layout {
    fn pointer(self) -> &'static str {
        match self {
            Layout::Root => "",
            Layout::Member => "/Readings",
            Layout::Nested => "/data/1/items",
        }
    }

    /// The fields the stream must report.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Layout::Root => &[],
            Layout::Member => &["/Before", "/After"],
            Layout::Nested => &["/meta", "/data/0", "/data/1/x", "/data/2"],
        }
    }
}

#[derive(Debug, Clone)]
struct Doc {
    layout: Layout,
    text: Vec<u8>,
}

fn document() -> impl Strategy<Value = Doc> {
    let layout = prop_oneof![Just(Layout::Root), Just(Layout::Member), Just(Layout::Nested)];
    let elements = prop_oneof![
        1 => Just(vec![]),
        1 => element().prop_map(|e| vec![e]),
        6 => prop::collection::vec(element(), 2..12),
        // Long runs of elements, for the batch framing across blocks and chunks.
        2 => prop::collection::vec(element(), 12..80),
    ];
    let ws = prop::collection::vec(0u8..5, 0..6);
    (layout, elements, prop::collection::vec(value(), 4), ws).prop_map(|(layout, elements, others, ws)| {
        let mut w = Writer {
            out: String::new(),
            ws: &ws,
            next: 0,
        };
        let array = |w: &mut Writer| w.value(&J::Arr(elements.clone()));
        w.ws();
        match layout {
            Layout::Root => array(&mut w),
            Layout::Member => {
                w.out.push('{');
                w.member("Before", |w| w.value(&others[0]));
                w.out.push(',');
                w.member("Readings", array);
                w.out.push(',');
                w.member("After", |w| w.value(&others[1]));
                w.out.push('}');
            }
            Layout::Nested => {
                w.out.push('{');
                w.member("meta", |w| w.value(&others[0]));
                w.out.push(',');
                w.member("data", |w| {
                    w.out.push('[');
                    w.value(&others[1]);
                    w.out.push(',');
                    w.ws();
                    w.out.push('{');
                    w.member("x", |w| w.value(&others[2]));
                    w.out.push(',');
                    w.member("items", array);
                    w.out.push('}');
                    w.out.push(',');
                    w.value(&others[3]);
                    w.ws();
                    w.out.push(']');
                });
                w.out.push('}');
            }
        }
        w.ws();
        Doc {
            layout,
            text: w.out.into_bytes(),
        }
    })
}

/// Checks one document cut at `cuts`, with `chunk_size`, for every library, sync and async.
fn check(doc: &Doc, cuts: &[usize], chunk_size: usize) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(&doc.text);
    for lib in Library::ALL {
        let config = Config::new(doc.layout.pointer())
            .expect("pointer")
            .library(lib)
            .chunk_size(chunk_size);
        let expected = reference(lib, &doc.text, doc.layout.pointer());
        let whole_doc: Value = whole(lib, &doc.text).expect("valid");

        let (got, fields) = stream_sync(&config, Pieces::new(&doc.text, cuts));
        let got = got.map_err(|e| TestCaseError::fail(format!("{lib}: {e}\n{text}\ncuts {cuts:?}")))?;
        prop_assert_eq!(&got, &expected, "{} sync, cuts {:?}\n{}", lib, cuts, text);
        let pointers: Vec<&str> = fields.iter().map(|f| f.pointer.as_str()).collect();
        prop_assert_eq!(pointers, doc.layout.fields().to_vec());
        for f in &fields {
            prop_assert_eq!(
                Some(&f.parse::<Value>().expect("field parses")),
                whole_doc.pointer(&f.pointer),
                "{}",
                f.pointer
            );
            prop_assert_eq!(&doc.text[f.offset as usize..f.offset as usize + f.raw.len()], f.raw.as_bytes());
        }

        let (got_async, fields_async) = stream_async(&config, Pieces::chunks(&doc.text, cuts));
        let got_async = got_async.map_err(|e| TestCaseError::fail(format!("{lib} async: {e}")))?;
        prop_assert_eq!(&got_async, &expected, "{} async", lib);
        prop_assert_eq!(fields_async, fields);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_cuts_give_what_from_slice_gives(
        doc in document(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        chunk_size in prop_oneof![1usize..24, Just(4096)],
    ) {
        let cuts: Vec<usize> = cuts.iter().map(|i| i.index(doc.text.len() + 1)).collect();
        check(&doc, &cuts, chunk_size)?;
    }
}

/// Bytes that break JSON in interesting ways when inserted or swapped in.
const MUTANTS: &[u8] = b"\"\\{}[],: \n0-.eatnu\x01\x7f\xff\xc3\xa9";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// One byte changed, inserted or removed: the stream fails exactly when the library's
    /// `from_slice` of the whole document fails (or the pointer no longer names an array), and
    /// otherwise yields the same elements. This is what says the structure around the
    /// elements is validated, not only the elements.
    #[test]
    fn mutated_documents_fail_exactly_when_from_slice_fails(
        doc in document(),
        at in any::<prop::sample::Index>(),
        op in 0..3u8,
        byte in prop::sample::select(MUTANTS.to_vec()),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut text = doc.text.clone();
        let i = at.index(text.len());
        match op {
            0 => text[i] = byte,
            1 => text.insert(i, byte),
            _ => { text.remove(i); }
        }
        let cuts: Vec<usize> = cuts.iter().map(|c| c.index(text.len() + 1)).collect();
        for lib in Library::ALL {
            let expected = whole::<Value>(lib, &text).ok().and_then(|v| v.pointer(doc.layout.pointer()).cloned());
            let config = Config::new(doc.layout.pointer()).expect("pointer").library(lib);
            let (got, _) = stream_sync(&config, Pieces::new(&text, &cuts));
            let shown = String::from_utf8_lossy(&text);
            match (expected, got) {
                (Some(Value::Array(items)), Ok(got)) => prop_assert_eq!(got, items, "{}: {}", lib, shown),
                (Some(Value::Array(_)), Err(e)) => prop_assert!(false, "{}: stream failed on a valid document: {}\n{}", lib, e, shown),
                (_, Ok(_)) => prop_assert!(false, "{}: stream accepted what from_slice rejects\n{}", lib, shown),
                (_, Err(_)) => {}
            }
        }
    }
}

/// A small document with everything at once: escapes, unicode (raw and escaped), nesting,
/// brackets and commas inside strings, scalars, whitespace of every kind.
const SMALL: &str = "{\"Before\":{\"k\\\"}\":[1,{\"]\":\"\\\\\"}]},\r\n \"Readings\" :\t[ {\"a\":\"x\\\"y\\\\\",\"b\":[1,[2,{}]],\"é\":\"\\u00e9€😀\\ud83d\\ude00\"} ,\n\
\"s\\\"]\" , -1.5e3,[],{}, [\"[\",{\"}\":null}] ,true,{\"c\":{\"d\":[false]}}\n] ,\"After\":\"\\\\\"}";

#[test]
fn every_single_cut_of_a_small_document_gives_what_from_slice_gives() {
    let doc = Doc {
        layout: Layout::Member,
        text: SMALL.as_bytes().to_vec(),
    };
    assert_eq!(
        reference(Library::SerdeJson, &doc.text, "/Readings").len(),
        8,
        "the document is what this test means"
    );
    for cut in 0..=doc.text.len() {
        check(&doc, &[cut], 4096).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
    }
}

#[test]
fn one_byte_chunks_and_every_pair_of_cuts_give_what_from_slice_gives() {
    let doc = Doc {
        layout: Layout::Member,
        text: SMALL.as_bytes().to_vec(),
    };
    check(&doc, &[], 1).unwrap();
    let all: Vec<usize> = (1..doc.text.len()).collect();
    check(&doc, &all, 4096).unwrap();
    for a in (0..doc.text.len()).step_by(3) {
        for b in (a..doc.text.len()).step_by(5) {
            check(&doc, &[a, b], 4096).unwrap_or_else(|e| panic!("cuts at {a}, {b}: {e}"));
        }
    }
}

#[test]
fn telemetry_streams_like_from_slice_for_each_library_and_chunk_size() {
    let mut doc = Vec::new();
    jsoncost_shapes::write_telemetry(&mut doc, 2_000, 42).unwrap();
    for lib in Library::ALL {
        let expected: jsoncost_shapes::Telemetry = whole(lib, &doc).unwrap();
        for chunk in [1, 63, 64, 65, 71, 72, 73, 4096, 65536] {
            let config = Config::new("/Readings")
                .unwrap()
                .library(lib)
                .chunk_size(chunk)
                .max_element_bytes(128);
            let mut it = config.reader::<jsoncost_shapes::Reading, _>(doc.as_slice());
            let got: Vec<_> = (&mut it)
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{lib}, chunk {chunk}: {e}"));
            assert_eq!(got, expected.readings, "{lib}, chunk {chunk}");
            assert_eq!(it.field("/DeviceId").unwrap().parse::<String>().unwrap(), expected.device_id);
            assert_eq!(it.bytes_read(), doc.len() as u64);
            assert_eq!(it.elements_read(), 2_000);
        }
    }
}

#[test]
fn pretty_printed_telemetry_streams_like_from_slice() {
    let t = jsoncost_shapes::Generator::new(5).telemetry(3_000);
    let doc = serde_json::to_vec_pretty(&t).unwrap();
    for lib in Library::ALL {
        for chunk in [1, 100, 4096, 65536] {
            let config = Config::new("/Readings").unwrap().library(lib).chunk_size(chunk);
            let got: Vec<jsoncost_shapes::Reading> = config
                .reader(doc.as_slice())
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{lib}, chunk {chunk}: {e}"));
            assert_eq!(got, t.readings, "{lib}, chunk {chunk}");
        }
    }
}
