//! The sync front end: elements pulled from a `std::io::Read`.

use std::io::{self, Read};
use std::iter::FusedIterator;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::field::Field;
use crate::framer::{Framer, Step};

/// The elements of the array, read from `R` one chunk at a time. Each item is one element or
/// the error that ends the stream. After the last element the rest of the document is read and
/// validated before the iterator ends, so a clean end means a complete, valid document.
pub struct Elements<T, R> {
    framer: Framer,
    reader: R,
    _element: PhantomData<fn() -> T>,
}

impl<T, R> Elements<T, R> {
    pub(crate) fn new(framer: Framer, reader: R) -> Self {
        Elements {
            framer,
            reader,
            _element: PhantomData,
        }
    }

    /// The document's other values kept so far (see [`crate::Config::keep`]; all of them once
    /// the iterator has ended).
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

    /// Bytes read from the source so far.
    pub fn bytes_read(&self) -> u64 {
        self.framer.bytes_received()
    }

    /// Bytes of buffer allocated (it grows only for an element longer than a chunk, and never
    /// past chunk size + maximum element size + 128).
    pub fn buffer_len(&self) -> usize {
        self.framer.buffer_len()
    }
}

impl<T, R: Read> Elements<T, R> {
    fn fill(&mut self) -> Result<(), Error> {
        let space = self.framer.prepare_fill()?;
        let read = loop {
            match self.reader.read(space) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match read {
            Ok(n) => {
                self.framer.commit(n);
                Ok(())
            }
            Err(e) => Err(self.framer.io_error(e)),
        }
    }
}

impl<T: DeserializeOwned, R: Read> Iterator for Elements<T, R> {
    type Item = Result<T, Error>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.framer.next_element::<T>() {
                Ok(Step::Element(v)) => return Some(Ok(v)),
                Ok(Step::Done) => return None,
                Ok(Step::NeedMore) => {
                    if let Err(e) = self.fill() {
                        return Some(Err(e));
                    }
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl<T: DeserializeOwned, R: Read> FusedIterator for Elements<T, R> {}
