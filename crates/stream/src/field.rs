//! The document's other values, kept as they are seen (those `Config::keep` names).

use serde::de::DeserializeOwned;

/// A value of the document outside the streamed array, e.g. `/DeviceId`: a member of an object
/// on the pointer's path, or an element of an array on it. Validated by the stream's library and
/// kept as its raw JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Where the value is, as a JSON pointer.
    pub pointer: String,
    /// Absolute byte offset of the value's first byte.
    pub offset: u64,
    /// The value's JSON text, exactly as in the input.
    pub raw: String,
}

impl Field {
    /// Deserializes the value, e.g. `field.parse::<String>()` for a device id.
    pub fn parse<T: DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(&self.raw)
    }
}
