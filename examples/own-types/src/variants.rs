//! Model variants of [`Shipment`]: the same document through other serde models, each turned
//! into the plain `Shipment` (`From`/`TryFrom`): what jsoncost's gate compares (`Study::variants`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::{Carrier, Shipment, Status};

/// The parcels skipped (`IgnoredAny`): a handler that only routes the shipment. Registered
/// with `.leaving_out(&["/parcels"])`, so the gate compares the rest.
#[derive(Debug, Deserialize)]
pub struct ShipmentLean {
    #[serde(rename = "shipmentId")]
    pub id: u64,
    pub carrier: Carrier,
    pub status: Status,
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub delivered: Option<OffsetDateTime>,
    pub reference: Option<String>,
    pub parcels: IgnoredAny,
    pub labels: BTreeMap<String, String>,
}

impl From<ShipmentLean> for Shipment {
    fn from(s: ShipmentLean) -> Shipment {
        Shipment {
            id: s.id,
            carrier: s.carrier,
            status: s.status,
            created: s.created,
            delivered: s.delivered,
            reference: s.reference,
            parcels: Vec::new(),
            labels: s.labels,
        }
    }
}

/// The date-times kept as the text they were written as.
#[derive(Debug, Deserialize)]
pub struct ShipmentTextDates {
    #[serde(rename = "shipmentId")]
    pub id: u64,
    pub carrier: Carrier,
    pub status: Status,
    pub created: String,
    pub delivered: Option<String>,
    pub reference: Option<String>,
    pub parcels: Vec<crate::Parcel>,
    pub labels: BTreeMap<String, String>,
}

/// The conversion parses the text, which can fail (the bench registers it as a
/// `jsoncost::Variant`, whose conversion may fail, rather than through `Into`).
impl TryFrom<ShipmentTextDates> for Shipment {
    type Error = String;
    fn try_from(s: ShipmentTextDates) -> Result<Shipment, String> {
        let parse = |t: &str| OffsetDateTime::parse(t, &Rfc3339).map_err(|e| format!("{t:?}: {e}"));
        Ok(Shipment {
            id: s.id,
            carrier: s.carrier,
            status: s.status,
            created: parse(&s.created)?,
            delivered: s.delivered.as_deref().map(parse).transpose()?,
            reference: s.reference,
            parcels: s.parcels,
            labels: s.labels,
        })
    }
}
