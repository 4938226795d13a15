//! Chunking + parsing against the whole-document parse: for any bytes, cut anywhere, with any
//! library, the stream must not panic, must fail exactly when the library's `from_slice` of the
//! whole document fails (or the pointer names no array), and must otherwise yield the same
//! elements, through the sync and the async front ends alike.
//!
//! Input layout: byte 0 picks the library (and the pointer), bytes 1..5 are four cut points,
//! byte 5 the chunk size; the rest is the document.
#![no_main]

use std::io::{self, Read};

use jsoncost_stream::{Config, Library};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A reader returning the document cut at the given points.
struct Cuts<'a> {
    data: &'a [u8],
    cuts: Vec<usize>,
    at: usize,
}

impl Read for Cuts<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let next = self.cuts.iter().copied().find(|&c| c > self.at).unwrap_or(self.data.len());
        let n = (next - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn whole(lib: Library, doc: &[u8]) -> Option<Value> {
    match lib {
        Library::SerdeJson => serde_json::from_slice(doc).ok(),
        Library::SonicRs => sonic_rs::from_slice(doc).ok(),
        Library::SimdJson => simd_json::serde::from_slice(&mut doc.to_vec()).ok(),
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (head, doc) = data.split_at(6);
    let lib = Library::ALL[head[0] as usize % 3];
    let pointer = ["", "/Readings", "/data/1/items"][(head[0] as usize / 3) % 3];
    let mut cuts: Vec<usize> = head[1..5].iter().map(|&c| c as usize * (doc.len() + 1) / 256).collect();
    cuts.sort_unstable();
    let chunk = 1 + head[5] as usize % 64;
    let config = Config::new(pointer)
        .unwrap()
        .library(lib)
        .chunk_size(chunk)
        .max_element_bytes(1 << 20);

    let expected = whole(lib, doc).and_then(|v| v.pointer(pointer).cloned());
    let got = config
        .reader::<Value, _>(Cuts {
            data: doc,
            cuts: cuts.clone(),
            at: 0,
        })
        .collect::<Result<Vec<_>, _>>();
    match (&expected, &got) {
        (Some(Value::Array(items)), Ok(got)) => assert_eq!(got, items, "{lib}: elements differ"),
        (Some(Value::Array(_)), Err(e)) => panic!("{lib}: stream failed on a valid document: {e}"),
        (_, Ok(_)) => panic!("{lib}: stream accepted what from_slice rejects"),
        (_, Err(_)) => {}
    }

    // The async front end, same pieces, same outcome.
    let mut from = 0;
    let chunks: Vec<io::Result<bytes::Bytes>> = cuts
        .iter()
        .copied()
        .chain([doc.len()])
        .map(|c| {
            let piece = bytes::Bytes::copy_from_slice(&doc[from.min(c)..c]);
            from = from.max(c);
            Ok(piece)
        })
        .collect();
    let stream = config.stream::<Value, _>(futures::stream::iter(chunks));
    let got_async = futures::executor::block_on(futures::TryStreamExt::try_collect::<Vec<_>>(stream));
    match (got, got_async) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{lib}: async differs"),
        (Err(a), Err(b)) => assert_eq!(
            (a.offset(), a.element(), a.to_string()),
            (b.offset(), b.element(), b.to_string()),
            "{lib}: async error differs"
        ),
        (a, b) => panic!("{lib}: sync {a:?} vs async {b:?}"),
    }
});
