//! Shared by the integration tests: chunked byte sources and whole-document references.
#![allow(dead_code)]

use std::io::{self, Read};

use bytes::Bytes;
use jsoncost_stream::{Config, Error, Field, Library};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A reader that returns `data` cut at the given offsets (never more than one piece per read).
pub struct Pieces {
    data: Vec<u8>,
    cuts: Vec<usize>,
    at: usize,
}

impl Pieces {
    pub fn new(data: &[u8], cuts: &[usize]) -> Self {
        let mut cuts: Vec<usize> = cuts.iter().copied().filter(|&c| c > 0 && c < data.len()).collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts.push(data.len());
        Pieces {
            data: data.to_vec(),
            cuts,
            at: 0,
        }
    }

    /// The same pieces as a list of `Bytes` chunks.
    pub fn chunks(data: &[u8], cuts: &[usize]) -> Vec<Bytes> {
        let p = Pieces::new(data, cuts);
        let mut from = 0;
        p.cuts
            .iter()
            .map(|&c| {
                let b = Bytes::copy_from_slice(&data[from..c]);
                from = c;
                b
            })
            .collect()
    }
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(&next) = self.cuts.iter().find(|&&c| c > self.at) else {
            return Ok(0);
        };
        let n = (next - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// What one library's `from_slice` makes of the whole document.
pub fn whole<T: DeserializeOwned>(lib: Library, doc: &[u8]) -> Result<T, String> {
    match lib {
        Library::SerdeJson => serde_json::from_slice(doc).map_err(|e| e.to_string()),
        Library::SonicRs => sonic_rs::from_slice(doc).map_err(|e| e.to_string()),
        Library::SimdJson => simd_json::serde::from_slice(&mut doc.to_vec()).map_err(|e| e.to_string()),
    }
}

/// The elements at `pointer` according to `from_slice` of the whole document.
pub fn reference(lib: Library, doc: &[u8], pointer: &str) -> Vec<Value> {
    let v: Value = whole(lib, doc).expect("the generated document is valid");
    v.pointer(pointer)
        .and_then(Value::as_array)
        .cloned()
        .expect("the pointer names an array")
}

/// Everything the sync stream yields: the elements (or the first error) and the fields.
pub fn stream_sync(config: &Config, reader: impl Read) -> (Result<Vec<Value>, Error>, Vec<Field>) {
    let mut it = config.reader::<Value, _>(reader);
    let got = (&mut it).collect::<Result<Vec<_>, _>>();
    (got, it.fields().to_vec())
}

/// The same through the async front end.
pub fn stream_async(config: &Config, chunks: Vec<Bytes>) -> (Result<Vec<Value>, Error>, Vec<Field>) {
    use futures::StreamExt;
    let source = futures::stream::iter(chunks.into_iter().map(Ok::<_, io::Error>));
    let mut s = config.stream::<Value, _>(source);
    let got = futures::executor::block_on(async {
        let mut out = Vec::new();
        while let Some(item) = s.next().await {
            out.push(item?);
        }
        Ok(out)
    });
    (got, s.fields().to_vec())
}

/// The bound tests' read chunk (64 KiB) and element cap (1 KiB).
pub const CHUNK: usize = 64 * 1024;
/// See [`CHUNK`].
pub const MAX_ELEMENT: usize = 1024;

/// A `/Readings` config of `lib` with the bound tests' [`CHUNK`] and [`MAX_ELEMENT`].
pub fn bounded_config(lib: Library) -> Config {
    Config::new("/Readings")
        .unwrap()
        .library(lib)
        .chunk_size(CHUNK)
        .max_element_bytes(MAX_ELEMENT)
}
