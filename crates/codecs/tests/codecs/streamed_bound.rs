//! The streamed gate's memory: the exact reference read again for a streamed check builds one
//! element at a time and, of the rest of the document, only what the comparison reads, however
//! many members the document holds around the array. Counted by the counting allocator
//! installed in this test binary, on bodies generated as they are read (never held).

use std::io::{self, Read, Write};

use jsoncost_codecs::StrategyId;
use jsoncost_codecs::exact::{self, Outside, ParseStop};
use jsoncost_codecs::gate::{Verdict, verify_streamed};
use jsoncost_engine::alloc::thread_measure;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The bound asserted: the 64 KiB read buffer, one element on each side and a few KiB of
/// scratch; far below the ~100 MB the million members take as values.
const BOUND: u64 = 256 * 1024;

const SIBLINGS: u64 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reading {
    #[serde(rename = "Temperature")]
    temperature: f64,
}

/// The document around the array, as a telemetry type reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Doc {
    #[serde(rename = "DeviceId")]
    device_id: String,
    #[serde(rename = "Readings")]
    readings: Vec<Reading>,
}

/// `{"DeviceId":"a","0":0,"1":1, … ,"Readings":[R, R],"big":"xx…","long":0.77…}` with
/// `members` siblings before the array, a 4 MiB string and a number of 100,000 digits after
/// it, generated as it is read: the reader holds 8 KiB at most.
struct Siblings {
    members: u64,
    next: u64,
    pending: Vec<u8>,
    at: usize,
    /// What follows the members, each `(text, repeated byte, times)`.
    tail: std::vec::IntoIter<(&'static [u8], u8, usize)>,
    /// Of the current tail part: its repeated byte and how many are left.
    repeat: (u8, usize),
}

impl Siblings {
    fn new(members: u64) -> Self {
        let tail = vec![
            (
                &br#""Readings":[{"Temperature":21.5},{"Temperature":-3}],"big":""#[..],
                b'x',
                4 << 20,
            ),
            (&br#"","long":0."#[..], b'7', 100_000),
            (&b"}"[..], b' ', 0),
        ];
        Siblings {
            members,
            next: 0,
            pending: br#"{"DeviceId":"a","#.to_vec(),
            at: 0,
            tail: tail.into_iter(),
            repeat: (b' ', 0),
        }
    }
}

impl Read for Siblings {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.pending.len() {
            self.pending.clear();
            self.at = 0;
            while self.pending.len() < 8192 && self.next < self.members {
                write!(self.pending, r#""{}":{},"#, self.next, self.next % 10)?;
                self.next += 1;
            }
            if self.pending.is_empty() {
                let (byte, left) = &mut self.repeat;
                if *left > 0 {
                    let n = (*left).min(8192);
                    self.pending.resize(n, *byte);
                    *left -= n;
                } else if let Some((text, byte, times)) = self.tail.next() {
                    self.pending.extend_from_slice(text);
                    self.repeat = (byte, times);
                } else {
                    return Ok(0);
                }
            }
        }
        let n = (self.pending.len() - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn readings() -> Vec<Reading> {
    vec![Reading { temperature: 21.5 }, Reading { temperature: -3.0 }]
}

#[test]
fn the_streamed_gate_holds_only_what_it_compares_around_a_million_siblings() {
    let outside = Doc {
        device_id: "a".into(),
        readings: Vec::new(),
    };
    // Measured around the check alone: the generator's own 4 MB string is outside it.
    let mut body = Siblings::new(SIBLINGS);
    let (verdict, stats) = thread_measure(|| {
        verify_streamed(
            &StrategyId::new("incremental", "serde_json"),
            &mut body,
            "/Readings",
            Some(&outside),
            &mut readings().into_iter().map(Ok),
        )
    });
    eprintln!("with the outside compared: peak {} bytes", stats.peak_bytes);
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
    assert!(stats.peak_bytes < BOUND, "peak {} bytes, bound {BOUND}", stats.peak_bytes);

    // What it compares is still compared: another DeviceId fails.
    let other = Doc {
        device_id: "b".into(),
        ..outside.clone()
    };
    let verdict = verify_streamed(
        &StrategyId::named("x"),
        Siblings::new(10),
        "/Readings",
        Some(&other),
        &mut readings().into_iter().map(Ok),
    );
    assert_eq!(
        verdict,
        Verdict::Fail("output differs from the exact reference at /DeviceId: expected \"a\", got \"b\"".into())
    );

    // Without an outside to compare, nothing around the array is kept.
    let mut body = Siblings::new(SIBLINGS);
    let (verdict, stats) = thread_measure(|| {
        verify_streamed::<Value, Reading, _>(
            &StrategyId::named("x"),
            &mut body,
            "/Readings",
            None,
            &mut readings().into_iter().map(Ok),
        )
    });
    eprintln!("without: peak {} bytes", stats.peak_bytes);
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
    assert!(stats.peak_bytes < BOUND, "peak {} bytes, bound {BOUND}", stats.peak_bytes);
}

#[test]
fn the_reference_keeps_the_members_it_is_asked_for_around_a_million_siblings() {
    let device = ["/DeviceId".to_string()];
    let mut body = Siblings::new(SIBLINGS);
    let ((rest, elements), stats) = thread_measure(|| {
        let mut elements = 0;
        let rest = exact::parse_streamed::<_, ()>(&mut body, "/Readings", Outside::Members(&device), |_, _| {
            elements += 1;
            Ok(())
        });
        (rest, elements)
    });
    eprintln!("peak {} bytes", stats.peak_bytes);
    assert_eq!((rest, elements), (Ok(json!({"DeviceId": "a", "Readings": []})), 2));
    assert!(stats.peak_bytes < BOUND, "peak {} bytes, bound {BOUND}", stats.peak_bytes);
    // The same document with every member kept is the whole rest (here with a few siblings).
    let rest = exact::parse_streamed::<_, ()>(Siblings::new(3), "/Readings", Outside::All, |_, _| Ok(()));
    let Ok(Value::Object(rest)) = rest else { panic!("{rest:?}") };
    let keys: Vec<&str> = rest.keys().map(String::as_str).collect();
    assert_eq!(keys, ["0", "1", "2", "DeviceId", "Readings", "big", "long"]);
    assert!(matches!(
        exact::parse_streamed::<_, ()>(&b"{}"[..], "/Readings", Outside::Members(&[]), |_, _| Ok(())),
        Err(ParseStop::Reference(_))
    ));
}
