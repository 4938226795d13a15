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
    pub id: i64,
    pub name: S,
    #[serde(with = "timestamp::round_trip")]
    pub timestamp: OffsetDateTime,
}

/// The ~4 KB order document of the store study: 14 top-level properties, two nested objects
/// and an array of lines (20 in `order`, more in `order-large`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order<S = String> {
    pub id: S,
    pub status: S,
    pub total: f64,
    pub currency: S,
    #[serde(with = "timestamp::round_trip")]
    pub created_at: OffsetDateTime,
    #[serde(with = "timestamp::round_trip")]
    pub updated_at: OffsetDateTime,
    pub customer: Customer<S>,
    pub shipping_address: Address<S>,
    pub lines: Vec<OrderLine<S>>,
    pub notes: S,
    pub tags: Vec<S>,
    pub channel: S,
    pub priority: u8,
    pub is_gift: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer<S = String> {
    pub id: u64,
    pub name: S,
    pub email: S,
    pub phone: S,
    pub tier: S,
    pub loyalty_points: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Address<S = String> {
    pub line1: S,
    pub line2: S,
    pub city: S,
    pub region: S,
    pub postal_code: S,
    pub country: S,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderLine<S = String> {
    pub sku: S,
    pub name: S,
    pub quantity: u32,
    pub unit_price: f64,
    pub discount: f64,
    pub tax_rate: f64,
    pub warehouse: S,
    pub backordered: bool,
}

/// The ~1.7 KB catalog item served by the http study's cached route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item<S = String> {
    pub id: u64,
    pub sku: S,
    pub name: S,
    pub description: S,
    pub price: f64,
    pub currency: S,
    pub category: S,
    pub brand: S,
    pub tags: Vec<S>,
    pub attributes: Attributes<S>,
    pub images: Vec<S>,
    pub rating: f64,
    pub review_count: u32,
    pub in_stock: bool,
    #[serde(with = "timestamp::round_trip")]
    pub created_at: OffsetDateTime,
    #[serde(with = "timestamp::round_trip")]
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attributes<S = String> {
    pub color: S,
    pub size: S,
    pub material: S,
    pub weight_grams: u32,
    pub origin: S,
}

/// One entry of the 48-item list (~760 bytes; 48 of them are ~36.6 KB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListItem<S = String> {
    pub id: u64,
    pub sku: S,
    pub name: S,
    pub summary: S,
    pub price: f64,
    pub currency: S,
    pub category: S,
    pub brand: S,
    pub tags: Vec<S>,
    pub thumbnail: S,
    pub rating: f64,
    pub review_count: u32,
    pub in_stock: bool,
    #[serde(with = "timestamp::round_trip")]
    pub updated_at: OffsetDateTime,
}

/// The list of 48 items (a top-level JSON array).
pub type Items48<S = String> = Vec<ListItem<S>>;

/// The stream study's request body: `{"DeviceId": ..., "Readings": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Telemetry<S = String> {
    pub device_id: S,
    pub readings: Vec<Reading>,
}

/// One reading, ~72 bytes as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Reading {
    #[serde(with = "timestamp::seconds")]
    pub timestamp: OffsetDateTime,
    pub temperature: f64,
    pub humidity: f64,
}
