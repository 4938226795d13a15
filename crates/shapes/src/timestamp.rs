//! Date-time fields: real `OffsetDateTime`s on the Rust side, written as the .NET studies wrote
//! them so payload sizes match.

use serde::{Deserializer, Serializer, de};
use std::fmt;
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, macros::format_description};

/// .NET's round-trip ("o") format: seven fractional digits and a `+00:00` offset, e.g.
/// `2025-02-17T13:45:53.2140627+00:00`. Reads any RFC 3339 date-time.
pub mod round_trip {
    use super::*;

    /// Writes `t` in the round-trip format (as `#[serde(with)]` calls it).
    pub fn serialize<S: Serializer>(t: &OffsetDateTime, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format(t).map_err(serde::ser::Error::custom)?)
    }

    /// The round-trip text of `t`. Formatting into a stack buffer would save an allocation,
    /// but serializers are measured as users would write them: with the date-time crate's own
    /// formatter.
    pub fn format(t: &OffsetDateTime) -> Result<String, String> {
        let fmt = format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:7][offset_hour sign:mandatory]:[offset_minute]"
        );
        t.format(&fmt).map_err(|e| e.to_string())
    }

    /// Reads any RFC 3339 date-time.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<OffsetDateTime, D::Error> {
        d.deserialize_str(Rfc3339Visitor)
    }
}

/// RFC 3339 with whole seconds and `Z` (the telemetry readings: `2025-02-17T13:45:53Z`).
pub mod seconds {
    use super::*;

    /// Writes `t` as RFC 3339 with whole seconds and `Z`.
    pub fn serialize<S: Serializer>(t: &OffsetDateTime, s: S) -> Result<S::Ok, S::Error> {
        let text = t.format(&Rfc3339).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }

    /// Reads any RFC 3339 date-time.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<OffsetDateTime, D::Error> {
        d.deserialize_str(Rfc3339Visitor)
    }
}

/// Reads an RFC 3339 date-time as the serde forms do (for decoders that do not go through serde).
pub fn parse_rfc3339(v: &str) -> Result<OffsetDateTime, String> {
    OffsetDateTime::parse(v, &Rfc3339).map_err(|e| format!("invalid date-time {v:?}: {e}"))
}

struct Rfc3339Visitor;

impl de::Visitor<'_> for Rfc3339Visitor {
    type Value = OffsetDateTime;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an RFC 3339 date-time string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<OffsetDateTime, E> {
        parse_rfc3339(v).map_err(E::custom)
    }
}
