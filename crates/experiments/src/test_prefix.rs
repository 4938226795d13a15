//! Test mode's bounded stream: a copy of a large document whose streamed array keeps only its
//! first elements, so `cargo test` gates a 50 MB body in a second in the debug profile, not a
//! minute. `cargo bench` streams the whole document.

use std::cell::Cell;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use std::rc::Rc;

use struson::reader::{JsonReader, JsonStreamReader, ValueType};
use struson::writer::{JsonStreamWriter, JsonWriter};

/// Documents up to this size are gated whole; of a larger one, about this much of the array.
pub(crate) const TEST_PREFIX_BYTES: u64 = 1 << 20;

/// The prefix written: how many elements it kept of the array.
#[derive(Debug, PartialEq)]
pub(crate) struct Prefix {
    pub elements: u64,
}

/// Counts the bytes written through it, so the copy stops near its budget.
struct Counted<W> {
    inner: W,
    /// Shared with the copy, which cannot reach through the JSON writer.
    written: Rc<Cell<u64>>,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written.set(self.written.get() + n as u64);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes to `to` the document at `from` with the array at `pointer` (RFC 6901) cut after the
/// element that brings the copy past `budget` bytes; what follows the array in its enclosing
/// objects and arrays is left out, so the copy is a complete document. An error (a pointer
/// that names no array, a file that is not JSON) is the caller's cue to gate the whole file,
/// whose run then says what is wrong.
pub(crate) fn write_prefix(from: &Path, pointer: &str, budget: u64, to: &Path) -> Result<Prefix, String> {
    let tokens: Vec<String> = match pointer {
        "" => Vec::new(),
        p => p
            .strip_prefix('/')
            .ok_or_else(|| format!("{p:?} is not a JSON pointer"))?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    };
    let file = std::fs::File::open(from).map_err(|e| format!("cannot open {}: {e}", from.display()))?;
    let out = std::fs::File::create(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let mut reader = JsonStreamReader::new(BufReader::new(file));
    let written = Rc::new(Cell::new(0));
    let mut writer = JsonStreamWriter::new(Counted {
        inner: BufWriter::new(out),
        written: Rc::clone(&written),
    });
    let mut copy = Copy {
        budget,
        elements: 0,
        written,
    };
    copy.value(&mut reader, &mut writer, &tokens).map_err(|e| e.to_string())?;
    let mut counted = writer.finish_document().map_err(|e| e.to_string())?;
    counted.flush().map_err(|e| e.to_string())?;
    Ok(Prefix { elements: copy.elements })
}

struct Copy {
    budget: u64,
    elements: u64,
    /// Bytes the JSON writer has handed on (it buffers a little: the budget is approximate).
    written: Rc<Cell<u64>>,
}

type Reader = JsonStreamReader<BufReader<std::fs::File>>;
type Writer = JsonStreamWriter<Counted<BufWriter<std::fs::File>>>;

impl Copy {
    /// Copies the value at the reader down `path`; true when it cut the array (so the
    /// containers around it close at once, leaving the rest of the document unread).
    fn value(&mut self, r: &mut Reader, w: &mut Writer, path: &[String]) -> Result<bool, Box<dyn std::error::Error>> {
        let Some((token, rest)) = path.split_first() else {
            return self.array(r, w);
        };
        match r.peek()? {
            ValueType::Object => {
                r.begin_object()?;
                w.begin_object()?;
                let mut found = false;
                while r.has_next()? {
                    let name = r.next_name_owned()?;
                    w.name(&name)?;
                    if !found && name == *token {
                        found = true;
                        if self.value(r, w, rest)? {
                            w.end_object()?;
                            return Ok(true);
                        }
                    } else {
                        r.transfer_to(w)?;
                    }
                }
                r.end_object()?;
                w.end_object()?;
                if !found {
                    return Err(format!("no member {token:?}").into());
                }
                Ok(false)
            }
            ValueType::Array => {
                let at: usize = token.parse().map_err(|_| format!("{token:?} is not an array index"))?;
                r.begin_array()?;
                w.begin_array()?;
                let mut i = 0;
                while r.has_next()? {
                    if i == at {
                        if self.value(r, w, rest)? {
                            w.end_array()?;
                            return Ok(true);
                        }
                    } else {
                        r.transfer_to(w)?;
                    }
                    i += 1;
                }
                r.end_array()?;
                w.end_array()?;
                if i <= at {
                    return Err(format!("no element {at}").into());
                }
                Ok(false)
            }
            other => Err(format!("a {other:?} where the pointer goes on").into()),
        }
    }

    /// The streamed array: elements until the copy is past its budget.
    fn array(&mut self, r: &mut Reader, w: &mut Writer) -> Result<bool, Box<dyn std::error::Error>> {
        r.begin_array()?;
        w.begin_array()?;
        while r.has_next()? {
            if self.written.get() >= self.budget {
                w.end_array()?;
                return Ok(true);
            }
            r.transfer_to(w)?;
            self.elements += 1;
        }
        r.end_array()?;
        w.end_array()?;
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(doc: &str, pointer: &str, budget: u64) -> Result<(String, u64), String> {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("in.json"), dir.path().join("out.json"));
        std::fs::write(&from, doc).unwrap();
        let p = write_prefix(&from, pointer, budget, &to)?;
        Ok((std::fs::read_to_string(&to).unwrap(), p.elements))
    }

    #[test]
    fn the_array_keeps_its_first_elements_and_the_document_stays_whole_json() {
        let big: Vec<String> = (0..2000)
            .map(|i| format!(r#"{{"id":{i},"n":123456789012345678901234567890}}"#))
            .collect();
        let doc = format!(
            r#"{{"meta":{{"v":1}},"data":{{"items":[{}],"after":true}},"tail":[1]}}"#,
            big.join(",")
        );
        let (out, kept) = prefix(&doc, "/data/items", 4096).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["meta"]["v"], 1);
        let items = v["data"]["items"].as_array().unwrap();
        assert_eq!(items.len() as u64, kept);
        assert!((50..200).contains(&kept), "{kept}");
        assert!(
            out.contains(r#"{"id":0,"n":123456789012345678901234567890}"#),
            "numbers kept as written"
        );
        // What followed the array is left out.
        assert!(v["data"].get("after").is_none() && v.get("tail").is_none());
        // Under the budget: everything, the rest included.
        let (out, kept) = prefix(r#"[1,2,{"a":"x\"y"}]"#, "", 4096).unwrap();
        assert_eq!((out.as_str(), kept), (r#"[1,2,{"a":"x\"y"}]"#, 3));
        let (out, _) = prefix(r#"{"a":[[0],[1,2]],"b":2}"#, "/a/1", 4096).unwrap();
        assert_eq!(out, r#"{"a":[[0],[1,2]],"b":2}"#);
    }

    #[test]
    fn a_pointer_to_nothing_or_a_document_that_is_not_json_is_an_error() {
        assert_eq!(prefix(r#"{"a":[1]}"#, "/b", 10).unwrap_err(), "no member \"b\"");
        assert!(prefix(r#"{"a":[1]"#, "/a", 1 << 20).is_err());
        assert!(prefix(r#"{"a":1}"#, "/a", 10).is_err());
    }
}
