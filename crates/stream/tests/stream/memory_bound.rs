//! The memory bound, counted exactly by the counting allocator installed in this test binary:
//! the stream holds one chunk plus the unfinished element, whatever the document's size.

use crate::common::{CHUNK, MAX_ELEMENT, bounded_config as config};
use jsoncost_engine::alloc::thread_measure;
use jsoncost_shapes::{Reading, Telemetry, write_telemetry};
use jsoncost_stream::{ErrorKind, Library, TelemetryAggregate, bytes_stream};

const READINGS: u64 = 100_000;
/// The stated bound: the 64 KiB chunk (plus 128 bytes of block slack) and the largest
/// element, with room for what the libraries allocate per element.
const BOUND: u64 = 256 * 1024;

fn document() -> (Vec<u8>, Telemetry) {
    let mut doc = Vec::new();
    write_telemetry(&mut doc, READINGS, 11).unwrap();
    let whole: Telemetry = serde_json::from_slice(&doc).unwrap();
    (doc, whole)
}

#[test]
fn aggregating_100000_readings_stays_under_256_kib_of_heap() {
    let (doc, whole) = document();
    assert!(doc.len() > 7_000_000, "the document is {} bytes", doc.len());
    for lib in Library::ALL {
        // A libraries' one-time set-up (sonic-rs keeps a small static) is not the stream's.
        config(lib).reader::<Reading, _>(&doc[..200_000]).take(10).for_each(drop);
        let (aggregate, stats) = thread_measure(|| {
            let mut a = TelemetryAggregate::default();
            for r in config(lib).reader::<Reading, _>(doc.as_slice()) {
                a.push(&r.expect("valid document"));
            }
            a
        });
        assert_eq!(aggregate, TelemetryAggregate::of(&whole.readings), "{lib}");
        assert_eq!(aggregate.count(), READINGS);
        eprintln!(
            "{lib}: peak {} bytes, {} allocations, {} bytes allocated",
            stats.peak_bytes, stats.count, stats.bytes
        );
        assert!(
            stats.peak_bytes >= CHUNK as u64,
            "{lib}: the buffer itself is counted ({} bytes)",
            stats.peak_bytes
        );
        assert!(stats.peak_bytes < BOUND, "{lib}: peak {} bytes", stats.peak_bytes);
        assert_eq!(stats.net_live_bytes, 0, "{lib}: everything is freed");
        assert!(stats.count < 200, "{lib}: {} allocations for {READINGS} elements", stats.count);
    }
}

#[test]
fn the_async_path_has_the_same_results_and_a_bound_of_its_own_chunks_more() {
    let (doc, whole) = document();
    for lib in Library::ALL {
        let ((aggregate, readings), stats) = thread_measure(|| {
            futures::executor::block_on(async {
                use futures::StreamExt;
                let mut s = config(lib).stream::<Reading, _>(bytes_stream(doc.as_slice(), CHUNK));
                let mut a = TelemetryAggregate::default();
                while let Some(r) = s.next().await {
                    a.push(&r.expect("valid document"));
                }
                (a, s.elements_read())
            })
        });
        assert_eq!(aggregate, TelemetryAggregate::of(&whole.readings), "{lib}");
        assert_eq!(readings, READINGS);
        eprintln!("{lib} async: peak {} bytes", stats.peak_bytes);
        // The producer's 64 KiB chunk being copied in, and its next read buffer, come on top.
        assert!(
            stats.peak_bytes < BOUND + 2 * CHUNK as u64,
            "{lib}: peak {} bytes",
            stats.peak_bytes
        );
    }
}

#[test]
fn materializing_costs_the_vec_and_no_more_than_the_bound_besides() {
    let (doc, whole) = document();
    for lib in Library::ALL {
        let (readings, stats) = thread_measure(|| {
            config(lib)
                .reader::<Reading, _>(doc.as_slice())
                .collect::<Result<Vec<_>, _>>()
                .expect("valid document")
        });
        assert_eq!(readings, whole.readings, "{lib}");
        let vec_bytes = (readings.capacity() * size_of::<Reading>()) as u64;
        eprintln!("{lib} materialized: peak {} bytes, vec {vec_bytes} bytes", stats.peak_bytes);
        assert!(
            stats.peak_bytes < vec_bytes + BOUND,
            "{lib}: peak {} bytes, vec {vec_bytes}",
            stats.peak_bytes
        );
    }
}

#[test]
fn a_10_mb_element_is_refused_within_the_bound() {
    let doc = format!(r#"{{"DeviceId":"d","Readings":[{{"s":"{}"}}]}}"#, "a".repeat(10_000_000));
    for lib in Library::ALL {
        let (e, stats) = thread_measure(|| config(lib).reader::<serde_json::Value, _>(doc.as_bytes()).find_map(Result::err));
        let e = e.expect("an error");
        assert!(matches!(e.kind(), ErrorKind::TooLarge { max: MAX_ELEMENT, .. }), "{lib}: {e}");
        assert!(stats.peak_bytes < BOUND, "{lib}: peak {} bytes", stats.peak_bytes);
    }
}

/// Counts the reads the stream asks for and the largest buffer it offers.
struct CountingReads<'a> {
    data: &'a [u8],
    reads: usize,
}

impl std::io::Read for CountingReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reads += 1;
        let n = buf.len().min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn no_element_maximum_still_reads_a_chunk_at_a_time() {
    // usize::MAX is the natural "no maximum"; the bound it adds to the chunk must not wrap.
    let element = format!(r#"{{"s":"{}"}}"#, "a".repeat(100_000));
    let doc = format!("[{element},1]");
    let chunk = 4096;
    let config = jsoncost_stream::Config::new("")
        .unwrap()
        .chunk_size(chunk)
        .max_element_bytes(usize::MAX);
    let mut input = CountingReads {
        data: doc.as_bytes(),
        reads: 0,
    };
    let values: Vec<serde_json::Value> = config.reader(&mut input).map(Result::unwrap).collect();
    assert_eq!(values, [serde_json::from_str::<serde_json::Value>(&element).unwrap(), 1.into()]);
    // One read per chunk, and one that finds the end.
    assert!(
        input.reads <= doc.len() / chunk + 2,
        "{} reads of a {} byte document",
        input.reads,
        doc.len()
    );
}
