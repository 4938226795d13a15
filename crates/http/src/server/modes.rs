//! What each mode does to stored bytes before they are sent.

use bytes::Bytes;
use jsoncost_codecs::libraries::{Decoder, Encoder};
use jsoncost_shapes::{Item, ListItem};
use jsoncost_stream::guard_unbounded;

use super::errors::ApiError;
use crate::mode::ServeMode;

/// `bytes` read with `read`, a library without a depth limit of its own held to serde_json's.
fn decode<T>(read: &Decoder<T>, bytes: &[u8], what: &str) -> Result<T, ApiError> {
    let stored = |message: String| ApiError::StoredDocument {
        what: what.to_string(),
        message,
    };
    // sonic-rs stops at 255 levels and skips a deep unknown field without recursing, so no
    // stored document can overflow this worker's stack; the depth guard holds it to
    // serde_json's 128, as on jsoncost's other sonic-rs paths.
    if read.depth_unbounded {
        guard_unbounded(read.library, bytes).map_err(|e| stored(e.to_string()))?;
    }
    read.from_slice(bytes).map_err(stored)
}

fn encode<T>(write: &Encoder<T>, value: &T) -> Result<Bytes, ApiError> {
    let out = (write.write)(value).map_err(|message| ApiError::Encode {
        library: write.library,
        message,
    })?;
    Ok(out.into())
}

/// One item's response body.
pub fn item_body(mode: ServeMode, id: u64, stored: Bytes) -> Result<Bytes, ApiError> {
    match mode {
        ServeMode::Passthrough => Ok(stored),
        ServeMode::Typed(typed) => {
            let (read, write) = &typed.codec().item;
            let item: Item = decode(read, &stored, &format!("item {id}"))?;
            encode(write, &item)
        }
    }
}

/// A list's response body: a JSON array of the entries.
pub fn list_body(mode: ServeMode, entries: &[Bytes]) -> Result<Bytes, ApiError> {
    match mode {
        ServeMode::Passthrough => {
            let len = entries.iter().map(|e| e.len() + 1).sum::<usize>() + 1;
            let mut out = Vec::with_capacity(len.max(2));
            out.push(b'[');
            for (i, entry) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(entry);
            }
            out.push(b']');
            Ok(out.into())
        }
        ServeMode::Typed(typed) => {
            let (read, write) = &typed.codec().list;
            let list = entries
                .iter()
                .enumerate()
                .map(|(i, e)| decode::<ListItem>(read, e, &format!("list entry {}", i + 1)))
                .collect::<Result<Vec<_>, _>>()?;
            encode(write, &list)
        }
    }
}
