//! The `data` and `order` shapes again, as the plain types simd-json-derive, nanoserde and
//! miniserde can derive (with serde's too, so the gate reads them like every other output).
//!
//! Why copies: the shapes' string type is a generic parameter with a default
//! (`Order<S = String>`), which none of the three derives accepts, and their date-times are
//! `time::OffsetDateTime` read through `#[serde(with)]`, which none of them supports and whose
//! traits the orphan rule forbids implementing for `OffsetDateTime` here. So each date-time is a
//! [`Stamp`] (the same RFC 3339 reader and round-trip writer as the shapes), and the fields,
//! names and order are the shapes' own: `tests/shapes/derived.rs` checks that each copy writes the
//! shape's exact bytes. A user adopting one of these libraries makes the same two changes.
//! (Written out, not by a macro: nanoserde's derive cannot read a struct `macro_rules!` emits.)

use miniserde::de::Visitor;
use miniserde::make_place;
use nanoserde::{DeJson, DeJsonErr, DeJsonState, SerJson, SerJsonState};
use serde::{Deserialize, Serialize};
use std::str::Chars;
use time::OffsetDateTime;

use crate::timestamp::{parse_rfc3339, round_trip};

/// A date-time written as .NET's round-trip format and read as any RFC 3339, for each library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp(pub OffsetDateTime);

impl Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        round_trip::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        round_trip::deserialize(d).map(Stamp)
    }
}

impl simd_json_derive::Serialize for Stamp {
    fn json_write<W: std::io::Write>(&self, writer: &mut W) -> simd_json_derive::Result {
        let text = round_trip::format(&self.0).map_err(std::io::Error::other)?;
        text.json_write(writer)
    }
}

impl<'input> simd_json_derive::Deserialize<'input> for Stamp {
    fn from_tape(tape: &mut simd_json_derive::Tape<'input>) -> simd_json_derive::de::Result<Self>
    where
        Self: Sized + 'input,
    {
        match tape.next() {
            Some(simd_json::Node::String(s)) => parse_rfc3339(s).map(Stamp).map_err(simd_json_derive::de::Error::custom),
            _ => Err(simd_json_derive::de::Error::expected_string()),
        }
    }
}

impl SerJson for Stamp {
    fn ser_json(&self, d: usize, s: &mut SerJsonState) {
        // nanoserde's writer cannot fail; a date-time outside the format's range cannot be
        // generated, so this text is never the fallback.
        round_trip::format(&self.0).unwrap_or_default().ser_json(d, s)
    }
}

impl DeJson for Stamp {
    fn de_json(s: &mut DeJsonState, i: &mut Chars) -> Result<Self, DeJsonErr> {
        let text = String::de_json(s, i)?;
        parse_rfc3339(&text).map(Stamp).map_err(|_| s.err_parse("an RFC 3339 date-time"))
    }
}

impl miniserde::Serialize for Stamp {
    fn begin(&self) -> miniserde::ser::Fragment<'_> {
        miniserde::ser::Fragment::Str(round_trip::format(&self.0).unwrap_or_default().into())
    }
}

make_place!(Place);

impl Visitor for Place<Stamp> {
    fn string(&mut self, s: &str) -> miniserde::Result<()> {
        self.out = Some(Stamp(parse_rfc3339(s).map_err(|_| miniserde::Error)?));
        Ok(())
    }
}

impl miniserde::Deserialize for Stamp {
    fn begin(out: &mut Option<Self>) -> &mut dyn Visitor {
        Place::new(out)
    }
}

/// [`crate::Data`]: its PascalCase names field by field (not every derive reads
/// `rename_all`).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    SerJson,
    DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
)]
pub struct Data {
    #[serde(rename = "Id")]
    #[nserde(rename = "Id")]
    pub id: i64,
    #[serde(rename = "Name")]
    #[nserde(rename = "Name")]
    pub name: String,
    #[serde(rename = "Timestamp")]
    #[nserde(rename = "Timestamp")]
    pub timestamp: Stamp,
}

/// [`crate::Order`].
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    SerJson,
    DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
)]
pub struct Order {
    pub id: String,
    pub status: String,
    pub total: f64,
    pub currency: String,
    pub created_at: Stamp,
    pub updated_at: Stamp,
    pub customer: Customer,
    pub shipping_address: Address,
    pub lines: Vec<OrderLine>,
    pub notes: String,
    pub tags: Vec<String>,
    pub channel: String,
    pub priority: u8,
    pub is_gift: bool,
}

#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    SerJson,
    DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
)]
pub struct Customer {
    pub id: u64,
    pub name: String,
    pub email: String,
    pub phone: String,
    pub tier: String,
    pub loyalty_points: u32,
}

#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    SerJson,
    DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
)]
pub struct Address {
    pub line1: String,
    pub line2: String,
    pub city: String,
    pub region: String,
    pub postal_code: String,
    pub country: String,
}

#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    simd_json_derive::Serialize,
    simd_json_derive::Deserialize,
    SerJson,
    DeJson,
    miniserde::Serialize,
    miniserde::Deserialize,
)]
pub struct OrderLine {
    pub sku: String,
    pub name: String,
    pub quantity: u32,
    pub unit_price: f64,
    pub discount: f64,
    pub tax_rate: f64,
    pub warehouse: String,
    pub backordered: bool,
}
