//! The payload models. String fields are generic over `S` so one definition serves the owned
//! form (`S = String`, the default) and the zero-copy borrowed form (`S = &'a str`), which
//! borrows every string from the input and fails on a string with escapes (the generators
//! write none).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::timestamp;

/// The 3-field record of the micro study (~73 bytes as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Data<S = String> {
    /// The record's number (`Id`), given to the generator.
    pub id: i64,
    /// A first name (`Name`).
    pub name: S,
    /// A date-time in 2025 (`Timestamp`), in .NET's round-trip format.
    #[serde(with = "timestamp::round_trip")]
    pub timestamp: OffsetDateTime,
}

/// The ~4 KB order document of the store study: 14 top-level properties, two nested objects
/// and an array of lines (20 in `order`, more in `order-large`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order<S = String> {
    /// The document's key, [`order_id`](crate::order_id) of its index.
    pub id: S,
    /// Where the order is: `pending`, `paid`, `packed`, `shipped`, `delivered` or `returned`.
    pub status: S,
    /// The lines' sum after discount and tax, rounded to cents.
    pub total: f64,
    /// ISO 4217 code of every price (`EUR`).
    pub currency: S,
    /// When the order was placed.
    #[serde(with = "timestamp::round_trip")]
    pub created_at: OffsetDateTime,
    /// When it last changed: after `created_at`.
    #[serde(with = "timestamp::round_trip")]
    pub updated_at: OffsetDateTime,
    /// Who placed it.
    pub customer: Customer<S>,
    /// Where it goes.
    pub shipping_address: Address<S>,
    /// What was ordered: [`ORDER_LINES`](crate::ORDER_LINES) lines, or
    /// [`ORDER_LARGE_LINES`](crate::ORDER_LARGE_LINES) in `order-large`.
    pub lines: Vec<OrderLine<S>>,
    /// Free text for the courier (~100 bytes).
    pub notes: S,
    /// Four words.
    pub tags: Vec<S>,
    /// Where it was placed: `web`, `mobile`, `store` or `partner`.
    pub channel: S,
    /// 0 (lowest) to 4.
    pub priority: u8,
    /// Wrapped as a gift.
    pub is_gift: bool,
}

/// The customer of an [`Order`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer<S = String> {
    /// Customer number, below 10 000 000.
    pub id: u64,
    /// First and last name.
    pub name: S,
    /// `first.last@example.com`.
    pub email: S,
    /// A Lisbon number, `+351 21 NNN NNNN`.
    pub phone: S,
    /// Loyalty tier: `standard`, `silver`, `gold` or `platinum`.
    pub tier: S,
    /// Loyalty points, below 100 000.
    pub loyalty_points: u32,
}

/// A postal address: an [`Order`]'s shipping address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Address<S = String> {
    /// House number and street.
    pub line1: S,
    /// Floor and door.
    pub line2: S,
    /// City.
    pub city: S,
    /// Region or state of the city.
    pub region: S,
    /// Five digits.
    pub postal_code: S,
    /// ISO 3166 alpha-2 code.
    pub country: S,
}

/// One line of an [`Order`]: a product, how many, at what price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderLine<S = String> {
    /// Stock-keeping unit, `SKU-NNNNNN-WORD`.
    pub sku: S,
    /// Product name: brand, two words, category.
    pub name: S,
    /// Units ordered, 1 to 11.
    pub quantity: u32,
    /// Price of one unit, in cents precision.
    pub unit_price: f64,
    /// Share taken off the price, 0 to 0.29.
    pub discount: f64,
    /// Tax rate applied after the discount: 0, 0.07, 0.2 or 0.23.
    pub tax_rate: f64,
    /// The warehouse it ships from, `WORD-NN`.
    pub warehouse: S,
    /// Not in stock yet (one line in ten).
    pub backordered: bool,
}

/// The ~1.7 KB catalog item served by the http study's cached route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item<S = String> {
    /// Catalog number, the route's path parameter.
    pub id: u64,
    /// `SKU-` and the id in eight digits.
    pub sku: S,
    /// Brand, two words, category.
    pub name: S,
    /// 160 words: most of the document's bytes.
    pub description: S,
    /// Price in `currency`, in cents precision.
    pub price: f64,
    /// ISO 4217 code of the price (`EUR`).
    pub currency: S,
    /// Catalog category, e.g. `kitchen`.
    pub category: S,
    /// Maker, e.g. `Northwind`.
    pub brand: S,
    /// Six words.
    pub tags: Vec<S>,
    /// Physical attributes.
    pub attributes: Attributes<S>,
    /// Three image URLs.
    pub images: Vec<S>,
    /// Average review, 1.0 to 4.9.
    pub rating: f64,
    /// Reviews behind `rating`.
    pub review_count: u32,
    /// Available to order (four items in five).
    pub in_stock: bool,
    /// When the item entered the catalog.
    #[serde(with = "timestamp::round_trip")]
    pub created_at: OffsetDateTime,
    /// When it last changed: after `created_at`.
    #[serde(with = "timestamp::round_trip")]
    pub updated_at: OffsetDateTime,
}

/// An [`Item`]'s physical attributes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attributes<S = String> {
    /// Colour name.
    pub color: S,
    /// `XS` to `XL`.
    pub size: S,
    /// What it is made of, e.g. `oak`.
    pub material: S,
    /// Weight, 50 g to 20 kg.
    pub weight_grams: u32,
    /// Country of origin, ISO 3166 alpha-2.
    pub origin: S,
}

/// One entry of the 48-item list (~760 bytes; 48 of them are ~36.6 KB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListItem<S = String> {
    /// Catalog number.
    pub id: u64,
    /// `SKU-` and the id in eight digits.
    pub sku: S,
    /// Brand, two words, category.
    pub name: S,
    /// 58 words, the list's shortened description.
    pub summary: S,
    /// Price in `currency`, in cents precision.
    pub price: f64,
    /// ISO 4217 code of the price (`EUR`).
    pub currency: S,
    /// Catalog category.
    pub category: S,
    /// Maker.
    pub brand: S,
    /// Tag words.
    pub tags: Vec<S>,
    /// One image URL.
    pub thumbnail: S,
    /// Average review.
    pub rating: f64,
    /// Reviews behind `rating`.
    pub review_count: u32,
    /// Available to order.
    pub in_stock: bool,
    /// When it last changed.
    #[serde(with = "timestamp::round_trip")]
    pub updated_at: OffsetDateTime,
}

/// The list of 48 items (a top-level JSON array).
pub type Items48<S = String> = Vec<ListItem<S>>;

/// The stream study's request body: `{"DeviceId": ..., "Readings": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Telemetry<S = String> {
    /// The sending device (`DeviceId`).
    pub device_id: S,
    /// Its readings (`Readings`), the array the stream experiment streams.
    pub readings: Vec<Reading>,
}

/// One reading, ~72 bytes as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Reading {
    /// When it was taken, to the second.
    #[serde(with = "timestamp::seconds")]
    pub timestamp: OffsetDateTime,
    /// Degrees Celsius, 15.0 to 29.9.
    pub temperature: f64,
    /// Relative humidity in percent, 30.0 to 69.9.
    pub humidity: f64,
}
