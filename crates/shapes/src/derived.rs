//! The `data` and `order` shapes again, as the plain types simd-json-derive, nanoserde,
//! miniserde and facet can derive (with serde's too, so the gate reads them like every other
//! output).
//!
//! Why copies: the shapes' string type is a generic parameter with a default
//! (`Order<S = String>`), which none of simd-json-derive's, nanoserde's and miniserde's derives
//! accepts, and their date-times are `time::OffsetDateTime` read through `#[serde(with)]`, which
//! none of them supports and whose traits the orphan rule forbids implementing for
//! `OffsetDateTime` here. facet's own `OffsetDateTime` (its feature `time`) writes RFC 3339 with
//! `Z` and no trailing zeros, not the shapes' text, and a derive on the shapes would build facet
//! into every crate. So each date-time is a [`FacetStamp`] (the same RFC 3339 reader and round-trip
//! writer as the shapes), and the fields, names and order are the shapes' own:
//! `tests/shapes/derived.rs` checks that each copy writes the shape's exact bytes. A user
//! adopting one of these libraries makes the same two changes.
//! (Written out, not by a macro: nanoserde's derive cannot read a struct `macro_rules!` emits.)

use facet::Facet;
use miniserde::de::Visitor;
use miniserde::make_place;
use nanoserde::{DeJson, DeJsonErr, DeJsonState, SerJson, SerJsonState};
use serde::{Deserialize, Serialize};
use std::str::Chars;
use time::OffsetDateTime;

use crate::timestamp::{parse_rfc3339, round_trip};

/// A date-time written as .NET's round-trip format and read as any RFC 3339, for each library.
/// facet reads and writes it through its text (`proxy`), by the two `TryFrom`s below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Facet)]
#[facet(proxy = String)]
pub struct FacetStamp(#[facet(opaque)] pub OffsetDateTime);

impl TryFrom<String> for FacetStamp {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        parse_rfc3339(&text).map(FacetStamp)
    }
}

impl TryFrom<&FacetStamp> for String {
    type Error = String;
    fn try_from(stamp: &FacetStamp) -> Result<String, String> {
        round_trip::format(&stamp.0)
    }
}

impl Serialize for FacetStamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        round_trip::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for FacetStamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        round_trip::deserialize(d).map(FacetStamp)
    }
}

impl simd_json_derive::Serialize for FacetStamp {
    fn json_write<W: std::io::Write>(&self, writer: &mut W) -> simd_json_derive::Result {
        let text = round_trip::format(&self.0).map_err(std::io::Error::other)?;
        text.json_write(writer)
    }
}

impl<'input> simd_json_derive::Deserialize<'input> for FacetStamp {
    fn from_tape(tape: &mut simd_json_derive::Tape<'input>) -> simd_json_derive::de::Result<Self>
    where
        Self: Sized + 'input,
    {
        match tape.next() {
            Some(simd_json::Node::String(s)) => parse_rfc3339(s).map(FacetStamp).map_err(simd_json_derive::de::Error::custom),
            _ => Err(simd_json_derive::de::Error::expected_string()),
        }
    }
}

impl SerJson for FacetStamp {
    fn ser_json(&self, d: usize, s: &mut SerJsonState) {
        // nanoserde's writer cannot fail; a date-time outside the format's range cannot be
        // generated, so this text is never the fallback.
        round_trip::format(&self.0).unwrap_or_default().ser_json(d, s)
    }
}

impl DeJson for FacetStamp {
    fn de_json(s: &mut DeJsonState, i: &mut Chars) -> Result<Self, DeJsonErr> {
        let text = String::de_json(s, i)?;
        parse_rfc3339(&text)
            .map(FacetStamp)
            .map_err(|_| s.err_parse("an RFC 3339 date-time"))
    }
}

impl miniserde::Serialize for FacetStamp {
    fn begin(&self) -> miniserde::ser::Fragment<'_> {
        miniserde::ser::Fragment::Str(round_trip::format(&self.0).unwrap_or_default().into())
    }
}

make_place!(Place);

impl Visitor for Place<FacetStamp> {
    fn string(&mut self, s: &str) -> miniserde::Result<()> {
        self.out = Some(FacetStamp(parse_rfc3339(s).map_err(|_| miniserde::Error)?));
        Ok(())
    }
}

impl miniserde::Deserialize for FacetStamp {
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
    Facet,
)]
pub struct Data {
    /// As [`Data::id`](crate::Data::id).
    #[serde(rename = "Id")]
    #[nserde(rename = "Id")]
    #[facet(rename = "Id")]
    pub id: i64,
    /// As [`Data::name`](crate::Data::name).
    #[serde(rename = "Name")]
    #[nserde(rename = "Name")]
    #[facet(rename = "Name")]
    pub name: String,
    /// As [`Data::timestamp`](crate::Data::timestamp).
    #[serde(rename = "Timestamp")]
    #[nserde(rename = "Timestamp")]
    #[facet(rename = "Timestamp")]
    pub timestamp: FacetStamp,
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
    Facet,
)]
pub struct Order {
    /// As [`Order::id`](crate::Order::id).
    pub id: String,
    /// As [`Order::status`](crate::Order::status).
    pub status: String,
    /// As [`Order::total`](crate::Order::total).
    pub total: f64,
    /// As [`Order::currency`](crate::Order::currency).
    pub currency: String,
    /// As [`Order::created_at`](crate::Order::created_at).
    pub created_at: FacetStamp,
    /// As [`Order::updated_at`](crate::Order::updated_at).
    pub updated_at: FacetStamp,
    /// As [`Order::customer`](crate::Order::customer).
    pub customer: Customer,
    /// As [`Order::shipping_address`](crate::Order::shipping_address).
    pub shipping_address: Address,
    /// As [`Order::lines`](crate::Order::lines).
    pub lines: Vec<OrderLine>,
    /// As [`Order::notes`](crate::Order::notes).
    pub notes: String,
    /// As [`Order::tags`](crate::Order::tags).
    pub tags: Vec<String>,
    /// As [`Order::channel`](crate::Order::channel).
    pub channel: String,
    /// As [`Order::priority`](crate::Order::priority).
    pub priority: u8,
    /// As [`Order::is_gift`](crate::Order::is_gift).
    pub is_gift: bool,
}

/// [`crate::Customer`].
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
    Facet,
)]
pub struct Customer {
    /// As [`Customer::id`](crate::Customer::id).
    pub id: u64,
    /// As [`Customer::name`](crate::Customer::name).
    pub name: String,
    /// As [`Customer::email`](crate::Customer::email).
    pub email: String,
    /// As [`Customer::phone`](crate::Customer::phone).
    pub phone: String,
    /// As [`Customer::tier`](crate::Customer::tier).
    pub tier: String,
    /// As [`Customer::loyalty_points`](crate::Customer::loyalty_points).
    pub loyalty_points: u32,
}

/// [`crate::Address`].
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
    Facet,
)]
pub struct Address {
    /// As [`Address::line1`](crate::Address::line1).
    pub line1: String,
    /// As [`Address::line2`](crate::Address::line2).
    pub line2: String,
    /// As [`Address::city`](crate::Address::city).
    pub city: String,
    /// As [`Address::region`](crate::Address::region).
    pub region: String,
    /// As [`Address::postal_code`](crate::Address::postal_code).
    pub postal_code: String,
    /// As [`Address::country`](crate::Address::country).
    pub country: String,
}

/// [`crate::OrderLine`].
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
    Facet,
)]
pub struct OrderLine {
    /// As [`OrderLine::sku`](crate::OrderLine::sku).
    pub sku: String,
    /// As [`OrderLine::name`](crate::OrderLine::name).
    pub name: String,
    /// As [`OrderLine::quantity`](crate::OrderLine::quantity).
    pub quantity: u32,
    /// As [`OrderLine::unit_price`](crate::OrderLine::unit_price).
    pub unit_price: f64,
    /// As [`OrderLine::discount`](crate::OrderLine::discount).
    pub discount: f64,
    /// As [`OrderLine::tax_rate`](crate::OrderLine::tax_rate).
    pub tax_rate: f64,
    /// As [`OrderLine::warehouse`](crate::OrderLine::warehouse).
    pub warehouse: String,
    /// As [`OrderLine::backordered`](crate::OrderLine::backordered).
    pub backordered: bool,
}
