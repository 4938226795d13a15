//! The async front end: elements pulled from a stream of `Bytes` chunks, such as an axum
//! request body (`Body::into_data_stream()`) or [`bytes_stream`] over a tokio reader.

use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use futures::Stream;
use serde::de::DeserializeOwned;
use tokio::io::AsyncRead;
use tokio_util::io::ReaderStream;

use crate::error::Error;
use crate::field::Field;
use crate::framer::{Framer, Step};

/// The elements of the array as a `futures::Stream`. Chunks are copied into the framer's own
/// buffer (at most one chunk at a time), so memory stays bounded however large the chunks are
/// beyond the one being copied.
pub struct ElementStream<T, S> {
    framer: Framer,
    source: S,
    pending: Bytes,
    source_done: bool,
    _element: PhantomData<fn() -> T>,
}

impl<T, S> ElementStream<T, S> {
    pub(crate) fn new(framer: Framer, source: S) -> Self {
        ElementStream {
            framer,
            source,
            pending: Bytes::new(),
            source_done: false,
            _element: PhantomData,
        }
    }

    /// The document's other values kept so far (see [`crate::Config::keep`]; all of them once
    /// the stream has ended).
    pub fn fields(&self) -> &[Field] {
        self.framer.fields()
    }

    /// The field at `pointer`, e.g. `"/DeviceId"`, if it has been seen.
    pub fn field(&self, pointer: &str) -> Option<&Field> {
        self.framer.fields().iter().find(|f| f.pointer == pointer)
    }

    /// Elements read so far (including one that failed).
    pub fn elements_read(&self) -> u64 {
        self.framer.elements()
    }

    /// Bytes taken from the source so far.
    pub fn bytes_read(&self) -> u64 {
        self.framer.bytes_received()
    }
}

impl<T, S, E> Stream for ElementStream<T, S>
where
    T: DeserializeOwned,
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Item = Result<T, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match this.framer.next_element::<T>() {
                Ok(Step::Element(v)) => return Poll::Ready(Some(Ok(v))),
                Ok(Step::Done) => return Poll::Ready(None),
                Err(e) => return Poll::Ready(Some(Err(e))),
                Ok(Step::NeedMore) if !this.pending.is_empty() => {
                    let space = match this.framer.prepare_fill() {
                        Ok(space) => space,
                        Err(e) => return Poll::Ready(Some(Err(e))),
                    };
                    let n = space.len().min(this.pending.len());
                    space[..n].copy_from_slice(&this.pending[..n]);
                    this.pending.advance(n);
                    this.framer.commit(n);
                }
                Ok(Step::NeedMore) if this.source_done => this.framer.commit(0),
                Ok(Step::NeedMore) => match ready!(Pin::new(&mut this.source).poll_next(cx)) {
                    Some(Ok(chunk)) => this.pending = chunk,
                    Some(Err(e)) => return Poll::Ready(Some(Err(this.framer.io_error(io::Error::other(e))))),
                    None => this.source_done = true,
                },
            }
        }
    }
}

/// A tokio reader as a stream of chunks of up to `chunk_size` bytes (what the
/// `incremental-async` strategy feeds: a file read in 64 KiB chunks).
pub fn bytes_stream<R: AsyncRead>(reader: R, chunk_size: usize) -> ReaderStream<R> {
    ReaderStream::with_capacity(reader, chunk_size.max(1))
}
