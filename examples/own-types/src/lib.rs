//! A crate's own models, none of them jsoncost's built-in shapes: a shipment with an enum, a
//! data-carrying enum, `Option`s, nested `Vec`s, a map, u64 ids, date-times (`time`) and a
//! renamed field; and a deterministic sample of them (serialized by serde_json, so the sample is
//! exactly what the types write).

pub mod variants;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// String fields are generic so one definition serves the owned form and the zero-copy one
/// (`Shipment<&str>`, which the bench registers as the borrowed form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shipment<S: Ord = String> {
    #[serde(rename = "shipmentId")]
    pub id: u64,
    pub carrier: Carrier,
    pub status: Status<S>,
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub delivered: Option<OffsetDateTime>,
    pub reference: Option<S>,
    pub parcels: Vec<Parcel<S>>,
    pub labels: BTreeMap<S, S>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Carrier {
    Dhl,
    Ups,
    Local,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Status<S = String> {
    Created,
    InTransit { hub: S },
    Delivered { signed_by: Option<S> },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parcel<S = String> {
    pub id: u64,
    pub weight_kg: f64,
    pub items: Vec<Line<S>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line<S = String> {
    pub sku: S,
    pub quantity: u32,
    pub hazardous: Option<bool>,
}

/// The manifest a warehouse posts: many shipments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest<S: Ord = String> {
    pub warehouse: S,
    pub shipments: Vec<Shipment<S>>,
}

/// A deterministic shipment (no randomness: the same bytes everywhere).
pub fn shipment(i: u64) -> Shipment {
    let created = OffsetDateTime::from_unix_timestamp(1_740_000_000 + i as i64 * 3_607).expect("a valid time");
    let status = match i % 3 {
        0 => Status::Created,
        1 => Status::InTransit {
            hub: format!("HUB-{:02}", i % 17),
        },
        _ => Status::Delivered {
            signed_by: i.is_multiple_of(2).then(|| format!("R. Recipient {i}")),
        },
    };
    let parcels = (0..1 + i % 3)
        .map(|p| Parcel {
            id: 9_000_000_000 + i * 10 + p,
            weight_kg: 0.25 + (i * 7 + p * 3) as f64 / 8.0,
            items: (0..2 + (i + p) % 3)
                .map(|k| Line {
                    sku: format!("SKU-{:05}", (i * 31 + p * 7 + k) % 100_000),
                    quantity: 1 + ((i + k) % 5) as u32,
                    hazardous: (k % 2 == 1).then_some(k % 4 == 3),
                })
                .collect(),
        })
        .collect();
    let mut labels = BTreeMap::new();
    labels.insert("priority".to_string(), ["low", "normal", "high"][(i % 3) as usize].to_string());
    labels.insert("channel".to_string(), "web".to_string());
    Shipment {
        id: 4_000_000_000_000 + i,
        carrier: [Carrier::Dhl, Carrier::Ups, Carrier::Local][(i % 3) as usize],
        delivered: matches!(status, Status::Delivered { .. }).then(|| created + time::Duration::hours(30)),
        status,
        created,
        reference: (!i.is_multiple_of(2)).then(|| format!("PO-{}", 70_000 + i)),
        parcels,
        labels,
    }
}

pub fn manifest(shipments: u64) -> Manifest {
    Manifest {
        warehouse: "Leipzig-2".to_string(),
        shipments: (1..=shipments).map(shipment).collect(),
    }
}

/// A carrier's webhook as it arrives: an id at u64::MAX, a 30-digit amount the service does
/// not read (so `Webhook` does not declare it), and escaped text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Webhook {
    pub id: u64,
    pub note: String,
}

/// Such a webhook's body.
pub const WEBHOOK: &str =
    r#"{"id": 18446744073709551615, "amount": 123456789012345678901234567890, "note": "a \"quoted\" line\nand a tab\t"}"#;
