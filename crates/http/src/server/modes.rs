//! What each mode does to stored bytes before they are sent.

use bytes::Bytes;
use jsoncost_shapes::{Item, ListItem};
use jsoncost_stream::Library;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::errors::ApiError;
use crate::mode::ServeMode;

fn decode<T: DeserializeOwned>(mode: ServeMode, bytes: &[u8], what: &str) -> Result<T, ApiError> {
    let stored = |message: String| ApiError::StoredDocument {
        what: what.to_string(),
        message,
    };
    match mode {
        // sonic-rs stops at 255 levels and skips a deep unknown field without recursing, so no
        // stored document can overflow this worker's stack; the depth guard holds it to
        // serde_json's 128, as on jsoncost's other sonic-rs paths.
        ServeMode::TypedSonicRs => {
            Library::SonicRs.guard_depth(bytes).map_err(|e| stored(e.to_string()))?;
            sonic_rs::from_slice(bytes).map_err(|e| stored(e.to_string()))
        }
        _ => serde_json::from_slice(bytes).map_err(|e| stored(e.to_string())),
    }
}

fn encode<T: Serialize>(mode: ServeMode, value: &T) -> Result<Bytes, ApiError> {
    let out = match mode {
        ServeMode::TypedSonicRs => sonic_rs::to_vec(value).map_err(|e| ApiError::Encode {
            library: "sonic-rs",
            message: e.to_string(),
        })?,
        _ => serde_json::to_vec(value).map_err(|e| ApiError::Encode {
            library: "serde_json",
            message: e.to_string(),
        })?,
    };
    Ok(out.into())
}

/// One item's response body.
pub fn item_body(mode: ServeMode, id: u64, stored: Bytes) -> Result<Bytes, ApiError> {
    match mode {
        ServeMode::Passthrough => Ok(stored),
        typed => {
            let item: Item = decode(typed, &stored, &format!("item {id}"))?;
            encode(typed, &item)
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
        typed => {
            let list = entries
                .iter()
                .enumerate()
                .map(|(i, e)| decode::<ListItem>(typed, e, &format!("list entry {}", i + 1)))
                .collect::<Result<Vec<_>, _>>()?;
            encode(typed, &list)
        }
    }
}
