//! The stream peers a Rust user would reach for instead of jsoncost's incremental parser, each
//! written the way its documentation shows:
//!
//! - `visitor/serde_json`: serde's own answer to "stream an array" (dtolnay's recipe in
//!   serde-rs/json#404): a `DeserializeSeed`/`Visitor` pair over
//!   `serde_json::Deserializer::from_reader` that is handed the Readings one at a time, so memory
//!   stays bounded (the reader's speed is what it costs).
//! - `struson/serde`: struson's pull reader walks the object and deserializes each reading with
//!   its serde integration (`deserialize_next`).
//!
//! `actson` is not here: it is an event (push) parser with no serde integration, so reading a
//! `Reading` from it means a hand-written state machine over its events — that would measure
//! jsoncost's decoder, not the library.

use std::fmt;
use std::io::Read;

use jsoncost_shapes::Reading;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use struson::reader::{JsonReader, JsonStreamReader};

/// The telemetry document's DeviceId, each reading handed to `each` as it is read.
pub(super) fn serde_visitor<R: Read>(reader: R, each: &mut dyn FnMut(Reading)) -> Result<Option<String>, String> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let device = Telemetry { each }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(device)
}

/// Visits the top-level object: DeviceId kept, Readings streamed, anything else skipped.
struct Telemetry<'a> {
    each: &'a mut dyn FnMut(Reading),
}

impl<'de> DeserializeSeed<'de> for Telemetry<'_> {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Telemetry<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a telemetry object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut device = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "DeviceId" => device = Some(map.next_value::<String>()?),
                "Readings" => map.next_value_seed(Readings { each: &mut *self.each })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(device)
    }
}

/// Visits the Readings array one element at a time.
struct Readings<'a> {
    each: &'a mut dyn FnMut(Reading),
}

impl<'de> DeserializeSeed<'de> for Readings<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Readings<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of readings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(r) = seq.next_element::<Reading>()? {
            (self.each)(r);
        }
        Ok(())
    }
}

/// The same walk with struson's pull reader (it buffers the reader itself).
pub(super) fn struson<R: Read>(reader: R, each: &mut dyn FnMut(Reading)) -> Result<Option<String>, String> {
    let e = |e: &dyn fmt::Display| e.to_string();
    let mut json = JsonStreamReader::new(reader);
    let mut device = None;
    json.begin_object().map_err(|x| e(&x))?;
    while json.has_next().map_err(|x| e(&x))? {
        match json.next_name_owned().map_err(|x| e(&x))?.as_str() {
            "DeviceId" => device = Some(json.next_string().map_err(|x| e(&x))?),
            "Readings" => {
                json.begin_array().map_err(|x| e(&x))?;
                while json.has_next().map_err(|x| e(&x))? {
                    each(json.deserialize_next::<Reading>().map_err(|x| e(&x))?);
                }
                json.end_array().map_err(|x| e(&x))?;
            }
            _ => json.skip_value().map_err(|x| e(&x))?,
        }
    }
    json.end_object().map_err(|x| e(&x))?;
    json.consume_trailing_whitespace().map_err(|x| e(&x))?;
    Ok(device)
}
