//! Model variants of one document, for the micro experiment's "what the model costs" table:
//! the same values decoded through different serde models.
//!
//! The document is `order-model`: the `order` shape's document (same seed, same values) plus
//! an `events` array of 8 order events of three kinds, each `{"type": ..., "at": <date-time>,
//! ...}`. The `order` shape has no polymorphic field, so it cannot show what serde's tagged and
//! untagged enums cost; the events add one, and 8 more date-times next to `created_at` and
//! `updated_at`. `shipping_address` is the sub-object a handler does not use (the variants that
//! skip it or keep it unparsed).
//!
//! [`OrderModel`] is generic over the string type `S`, the date-time type `D`, the event type
//! `E` and the address type `A`, so one definition gives most variants; `#[serde(flatten)]` and
//! `#[serde(deny_unknown_fields)]` are container attributes and have their own structs. Every
//! variant converts to the plain model ([`OrderModel`] with its defaults) for the correctness
//! gate, untimed ([`OrderModel::to_plain`]).

use std::borrow::Cow;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use time::{Duration, OffsetDateTime};

use crate::generate::Generator;
use crate::models::{Address, Customer, OrderLine};
use crate::{ORDER_LINES, timestamp};

/// Events in an `order-model` document.
pub const ORDER_MODEL_EVENTS: usize = 8;

/// A date-time as the plain model holds it: parsed (`time::OffsetDateTime`), written in the
/// round-trip format of the other shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp(pub OffsetDateTime);

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        timestamp::round_trip::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Stamp, D::Error> {
        timestamp::round_trip::deserialize(d).map(Stamp)
    }
}

/// A `Cow<str>` that borrows from the input when it can (`#[serde(borrow)]`: without it serde
/// always allocates a `Cow`). A newtype because the attribute needs a concrete field, and
/// [`OrderModel`]'s date-time is a type parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CowStr<'a>(#[serde(borrow)] pub Cow<'a, str>);

/// The `order-model` document. With its defaults, the plain model every variant is checked
/// against: `String`s, parsed date-times, events as one flat struct with optional fields (what
/// a model without enums writes), the address decoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderModel<S = String, D = Stamp, E = Event<S, D>, A = Address<S>> {
    /// As [`Order::id`](crate::Order::id).
    pub id: S,
    /// As [`Order::status`](crate::Order::status).
    pub status: S,
    /// As [`Order::total`](crate::Order::total).
    pub total: f64,
    /// As [`Order::currency`](crate::Order::currency).
    pub currency: S,
    /// As [`Order::created_at`](crate::Order::created_at).
    pub created_at: D,
    /// As [`Order::updated_at`](crate::Order::updated_at).
    pub updated_at: D,
    /// As [`Order::customer`](crate::Order::customer).
    pub customer: Customer<S>,
    /// As [`Order::shipping_address`](crate::Order::shipping_address).
    pub shipping_address: A,
    /// As [`Order::lines`](crate::Order::lines).
    pub lines: Vec<OrderLine<S>>,
    /// As [`Order::notes`](crate::Order::notes).
    pub notes: S,
    /// As [`Order::tags`](crate::Order::tags).
    pub tags: Vec<S>,
    /// As [`Order::channel`](crate::Order::channel).
    pub channel: S,
    /// As [`Order::priority`](crate::Order::priority).
    pub priority: u8,
    /// As [`Order::is_gift`](crate::Order::is_gift).
    pub is_gift: bool,
    /// The order's events: [`ORDER_MODEL_EVENTS`] of three kinds.
    pub events: Vec<E>,
}

/// The plain model's event: one struct, the kind in `type`, each kind's fields optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event<S = String, D = Stamp> {
    /// The kind: `placed`, `paid` or `shipped` (`type` in the document).
    #[serde(rename = "type")]
    pub kind: S,
    /// When it happened.
    pub at: D,
    /// Where a `placed` order came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<S>,
    /// How a `paid` order was paid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<S>,
    /// What a `paid` event paid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<f64>,
    /// Who carries a `shipped` order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<S>,
    /// The carrier's tracking number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking: Option<S>,
}

/// The same three kinds as an enum, once per serde enum representation.
macro_rules! event_enum {
    ($(#[$attr:meta])* $name:ident) => {
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        $(#[$attr])*
        #[serde(rename_all = "lowercase")]
        pub enum $name<S = String, D = Stamp> {
            /// The order was placed.
            Placed {
                /// When.
                at: D,
                /// Where it came from.
                channel: S,
            },
            /// The order was paid.
            Paid {
                /// When.
                at: D,
                /// How.
                method: S,
                /// How much.
                amount: f64,
            },
            /// The order was shipped.
            Shipped {
                /// When.
                at: D,
                /// Who carries it.
                carrier: S,
                /// The carrier's tracking number.
                tracking: S,
            },
        }

        impl<S: AsRef<str>, D: ToStamp> ToEvent for $name<S, D> {
            fn to_event(self) -> Result<Event, String> {
                Ok(match self {
                    $name::Placed { at, channel } => flat("placed", at.to_stamp()?).channel(channel.as_ref()),
                    $name::Paid { at, method, amount } => Event {
                        method: Some(method.as_ref().to_owned()),
                        amount: Some(amount),
                        ..flat("paid", at.to_stamp()?)
                    },
                    $name::Shipped { at, carrier, tracking } => Event {
                        carrier: Some(carrier.as_ref().to_owned()),
                        tracking: Some(tracking.as_ref().to_owned()),
                        ..flat("shipped", at.to_stamp()?)
                    },
                })
            }
        }

        impl $name {
            /// The plain event as this enum (for rendering a document in its layout).
            pub fn from_event(e: &Event) -> Result<$name, String> {
                let missing = |field: &str| format!("a {} event without {field}", e.kind);
                let s = |v: &Option<String>, field: &str| v.clone().ok_or_else(|| missing(field));
                Ok(match e.kind.as_str() {
                    "placed" => $name::Placed { at: e.at, channel: s(&e.channel, "channel")? },
                    "paid" => $name::Paid {
                        at: e.at,
                        method: s(&e.method, "method")?,
                        amount: e.amount.ok_or_else(|| missing("amount"))?,
                    },
                    "shipped" => $name::Shipped {
                        at: e.at,
                        carrier: s(&e.carrier, "carrier")?,
                        tracking: s(&e.tracking, "tracking")?,
                    },
                    other => return Err(format!("unknown event type {other:?}")),
                })
            }
        }
    };
}

event_enum!(
    /// `#[serde(tag = "type")]`: reads the document as it is; serde buffers each event whole
    /// (its internal `Content`), picks out the tag, then reads the kind from the buffer.
    #[serde(tag = "type")]
    TaggedEvent
);

event_enum!(
    /// `#[serde(tag = "type", content = "content")]`: with the tag first, serde reads the content
    /// straight into the kind; needs the `{"type": .., "content": {..}}` layout, so its row
    /// reads its own rendering of the same values.
    #[serde(tag = "type", content = "content")]
    AdjacentEvent
);

/// `#[serde(untagged)]`: serde buffers each event and tries the kinds in order until one fits
/// (each kind's struct keeps the `type` it was written with).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UntaggedEvent<S = String, D = Stamp> {
    /// The order was placed.
    Placed {
        /// `placed`.
        #[serde(rename = "type")]
        kind: S,
        /// When.
        at: D,
        /// Where it came from.
        channel: S,
    },
    /// The order was paid.
    Paid {
        /// `paid`.
        #[serde(rename = "type")]
        kind: S,
        /// When.
        at: D,
        /// How.
        method: S,
        /// How much.
        amount: f64,
    },
    /// The order was shipped.
    Shipped {
        /// `shipped`.
        #[serde(rename = "type")]
        kind: S,
        /// When.
        at: D,
        /// Who carries it.
        carrier: S,
        /// The carrier's tracking number.
        tracking: S,
    },
}

impl<S: AsRef<str>, D: ToStamp> ToEvent for UntaggedEvent<S, D> {
    fn to_event(self) -> Result<Event, String> {
        Ok(match self {
            UntaggedEvent::Placed { kind, at, channel } => flat(kind.as_ref(), at.to_stamp()?).channel(channel.as_ref()),
            UntaggedEvent::Paid { kind, at, method, amount } => Event {
                method: Some(method.as_ref().to_owned()),
                amount: Some(amount),
                ..flat(kind.as_ref(), at.to_stamp()?)
            },
            UntaggedEvent::Shipped {
                kind,
                at,
                carrier,
                tracking,
            } => Event {
                carrier: Some(carrier.as_ref().to_owned()),
                tracking: Some(tracking.as_ref().to_owned()),
                ..flat(kind.as_ref(), at.to_stamp()?)
            },
        })
    }
}

fn flat(kind: &str, at: Stamp) -> Event {
    Event {
        kind: kind.to_owned(),
        at,
        channel: None,
        method: None,
        amount: None,
        carrier: None,
        tracking: None,
    }
}

impl Event {
    fn channel(mut self, channel: &str) -> Event {
        self.channel = Some(channel.to_owned());
        self
    }
}

/// The fields [`OrderModelFlattened`] takes from the document's top level through
/// `#[serde(flatten)]`: the metadata many services share between their entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// As [`Order::id`](crate::Order::id).
    pub id: String,
    /// As [`Order::created_at`](crate::Order::created_at).
    pub created_at: Stamp,
    /// As [`Order::updated_at`](crate::Order::updated_at).
    pub updated_at: Stamp,
}

/// `#[serde(flatten)]` of [`Meta`]: serde reads the whole object as a map and buffers every key
/// the outer struct does not name (its internal `Content`) for the flattened struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderModelFlattened {
    /// The id and date-times, read through `#[serde(flatten)]`.
    #[serde(flatten)]
    pub meta: Meta,
    /// As [`Order::status`](crate::Order::status).
    pub status: String,
    /// As [`Order::total`](crate::Order::total).
    pub total: f64,
    /// As [`Order::currency`](crate::Order::currency).
    pub currency: String,
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
    /// The order's events: [`ORDER_MODEL_EVENTS`] of three kinds.
    pub events: Vec<Event>,
}

/// The plain model with `#[serde(deny_unknown_fields)]` on the top-level struct (a key it does
/// not name is an error instead of skipped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderModelStrict {
    /// As [`Order::id`](crate::Order::id).
    pub id: String,
    /// As [`Order::status`](crate::Order::status).
    pub status: String,
    /// As [`Order::total`](crate::Order::total).
    pub total: f64,
    /// As [`Order::currency`](crate::Order::currency).
    pub currency: String,
    /// As [`Order::created_at`](crate::Order::created_at).
    pub created_at: Stamp,
    /// As [`Order::updated_at`](crate::Order::updated_at).
    pub updated_at: Stamp,
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
    /// The order's events: [`ORDER_MODEL_EVENTS`] of three kinds.
    pub events: Vec<Event>,
}

/// Internally tagged events.
pub type OrderModelTagged = OrderModel<String, Stamp, TaggedEvent>;
/// Adjacently tagged events (the document in [`adjacent_document`]'s layout).
pub type OrderModelAdjacent = OrderModel<String, Stamp, AdjacentEvent>;
/// Untagged events.
pub type OrderModelUntagged = OrderModel<String, Stamp, UntaggedEvent>;
/// Date-times kept as the `String` they were written as.
pub type OrderModelDateString = OrderModel<String, String>;
/// Date-times as `Cow<str>` borrowed from the input.
pub type OrderModelDateCow<'a> = OrderModel<String, CowStr<'a>>;
/// The unused address kept unparsed (serde_json's `RawValue`: validated, bytes copied).
pub type OrderModelRaw = OrderModel<String, Stamp, Event, Box<RawValue>>;
/// The unused address skipped (`IgnoredAny`: validated, nothing kept).
pub type OrderModelIgnored = OrderModel<String, Stamp, Event, IgnoredAny>;
/// Every string a `Box<str>` (no spare capacity, one word smaller than `String`).
pub type OrderModelBoxStr = OrderModel<Box<str>, Stamp, Event<Box<str>>>;
/// Every string a `&str` borrowed from the input (zero-copy; fails on a string with escapes,
/// which the generator never writes).
pub type OrderModelBorrowed<'a> = OrderModel<&'a str, Stamp, Event<&'a str>>;

/// A date-time field's type, turned into the plain [`Stamp`] (parsed, untimed, for the gate).
pub trait ToStamp {
    /// The plain date-time, parsed when held as text.
    fn to_stamp(self) -> Result<Stamp, String>;
}

impl ToStamp for Stamp {
    fn to_stamp(self) -> Result<Stamp, String> {
        Ok(self)
    }
}

impl ToStamp for String {
    fn to_stamp(self) -> Result<Stamp, String> {
        timestamp::parse_rfc3339(&self).map(Stamp)
    }
}

impl ToStamp for CowStr<'_> {
    fn to_stamp(self) -> Result<Stamp, String> {
        timestamp::parse_rfc3339(&self.0).map(Stamp)
    }
}

/// An event type, turned into the plain [`Event`].
pub trait ToEvent {
    /// The plain event, with this kind's fields set.
    fn to_event(self) -> Result<Event, String>;
}

impl<S: AsRef<str>, D: ToStamp> ToEvent for Event<S, D> {
    fn to_event(self) -> Result<Event, String> {
        let s = |v: Option<S>| v.map(|v| v.as_ref().to_owned());
        Ok(Event {
            kind: self.kind.as_ref().to_owned(),
            at: self.at.to_stamp()?,
            channel: s(self.channel),
            method: s(self.method),
            amount: self.amount,
            carrier: s(self.carrier),
            tracking: s(self.tracking),
        })
    }
}

/// The address field's type, turned into the plain [`Address`].
pub trait ToAddress {
    /// The plain address.
    fn to_address(self) -> Result<Address, String>;
}

impl<S: AsRef<str>> ToAddress for Address<S> {
    fn to_address(self) -> Result<Address, String> {
        Ok(Address {
            line1: self.line1.as_ref().to_owned(),
            line2: self.line2.as_ref().to_owned(),
            city: self.city.as_ref().to_owned(),
            region: self.region.as_ref().to_owned(),
            postal_code: self.postal_code.as_ref().to_owned(),
            country: self.country.as_ref().to_owned(),
        })
    }
}

impl ToAddress for Box<RawValue> {
    /// The kept bytes parsed now (untimed), so the gate compares what was kept.
    fn to_address(self) -> Result<Address, String> {
        serde_json::from_str(self.get()).map_err(|e| format!("the kept shipping_address is not an address: {e}"))
    }
}

impl ToAddress for IgnoredAny {
    /// Nothing was kept: an empty address, which the gate leaves out (`/shipping_address`) on
    /// both sides.
    fn to_address(self) -> Result<Address, String> {
        Ok(Address {
            line1: String::new(),
            line2: String::new(),
            city: String::new(),
            region: String::new(),
            postal_code: String::new(),
            country: String::new(),
        })
    }
}

fn owned<S: AsRef<str>>(s: S) -> String {
    s.as_ref().to_owned()
}

fn customer<S: AsRef<str>>(c: Customer<S>) -> Customer {
    Customer {
        id: c.id,
        name: owned(c.name),
        email: owned(c.email),
        phone: owned(c.phone),
        tier: owned(c.tier),
        loyalty_points: c.loyalty_points,
    }
}

fn line<S: AsRef<str>>(l: OrderLine<S>) -> OrderLine {
    OrderLine {
        sku: owned(l.sku),
        name: owned(l.name),
        quantity: l.quantity,
        unit_price: l.unit_price,
        discount: l.discount,
        tax_rate: l.tax_rate,
        warehouse: owned(l.warehouse),
        backordered: l.backordered,
    }
}

fn events<E: ToEvent>(events: Vec<E>) -> Result<Vec<Event>, String> {
    events.into_iter().map(ToEvent::to_event).collect()
}

impl<S: AsRef<str>, D: ToStamp, E: ToEvent, A: ToAddress> OrderModel<S, D, E, A> {
    /// The plain model of the same values (for the gate, untimed).
    pub fn to_plain(self) -> Result<OrderModel, String> {
        Ok(OrderModel {
            id: owned(self.id),
            status: owned(self.status),
            total: self.total,
            currency: owned(self.currency),
            created_at: self.created_at.to_stamp()?,
            updated_at: self.updated_at.to_stamp()?,
            customer: customer(self.customer),
            shipping_address: self.shipping_address.to_address()?,
            lines: self.lines.into_iter().map(line).collect(),
            notes: owned(self.notes),
            tags: self.tags.into_iter().map(owned).collect(),
            channel: owned(self.channel),
            priority: self.priority,
            is_gift: self.is_gift,
            events: events(self.events)?,
        })
    }
}

impl From<OrderModelFlattened> for OrderModel {
    fn from(v: OrderModelFlattened) -> OrderModel {
        OrderModel {
            id: v.meta.id,
            status: v.status,
            total: v.total,
            currency: v.currency,
            created_at: v.meta.created_at,
            updated_at: v.meta.updated_at,
            customer: v.customer,
            shipping_address: v.shipping_address,
            lines: v.lines,
            notes: v.notes,
            tags: v.tags,
            channel: v.channel,
            priority: v.priority,
            is_gift: v.is_gift,
            events: v.events,
        }
    }
}

impl From<OrderModelStrict> for OrderModel {
    fn from(v: OrderModelStrict) -> OrderModel {
        OrderModel {
            id: v.id,
            status: v.status,
            total: v.total,
            currency: v.currency,
            created_at: v.created_at,
            updated_at: v.updated_at,
            customer: v.customer,
            shipping_address: v.shipping_address,
            lines: v.lines,
            notes: v.notes,
            tags: v.tags,
            channel: v.channel,
            priority: v.priority,
            is_gift: v.is_gift,
            events: v.events,
        }
    }
}

/// The `order-model` document's values for `seed`: the `order` shape's order (index 1, 20 lines)
/// and [`ORDER_MODEL_EVENTS`] events drawn from their own seeded stream (so the order part is
/// the `order` document's, value for value): placed, paid, then shipments.
pub fn order_model(seed: u64) -> OrderModel {
    let o = Generator::new(seed).order(1, ORDER_LINES);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0E5E_17E5);
    let mut at = o.created_at;
    let mut step = |rng: &mut ChaCha8Rng| {
        at += Duration::seconds(rng.random_range(30..86_400)) + Duration::nanoseconds(rng.random_range(0..10_000_000i64) * 100);
        Stamp(at)
    };
    let mut events = vec![flat("placed", Stamp(o.created_at)).channel(&o.channel)];
    events.push(Event {
        method: Some((*["card", "paypal", "transfer"].choose(&mut rng).expect("methods")).to_owned()),
        amount: Some(o.total),
        ..flat("paid", step(&mut rng))
    });
    while events.len() < ORDER_MODEL_EVENTS {
        let carrier = *["dhl", "ups", "gls", "local"].choose(&mut rng).expect("carriers");
        let tracking = format!("{}{:010}", carrier.to_uppercase(), rng.random_range(0..10_000_000_000u64));
        events.push(Event {
            carrier: Some(carrier.to_owned()),
            tracking: Some(tracking),
            ..flat("shipped", step(&mut rng))
        });
    }
    OrderModel {
        id: o.id,
        status: o.status,
        total: o.total,
        currency: o.currency,
        created_at: Stamp(o.created_at),
        updated_at: Stamp(o.updated_at),
        customer: o.customer,
        shipping_address: o.shipping_address,
        lines: o.lines,
        notes: o.notes,
        tags: o.tags,
        channel: o.channel,
        priority: o.priority,
        is_gift: o.is_gift,
        events,
    }
}

/// The `order-model` document for `seed`, as serde_json writes the plain model.
pub fn order_model_document(seed: u64) -> Vec<u8> {
    serde_json::to_vec(&order_model(seed)).expect("the plain model serializes")
}

/// The same values with the events adjacently tagged (`{"type": .., "content": {..}}`), the
/// only layout [`AdjacentEvent`] reads.
pub fn adjacent_document(seed: u64) -> Vec<u8> {
    let m = order_model(seed);
    let events: Result<Vec<AdjacentEvent>, String> = m.events.iter().map(AdjacentEvent::from_event).collect();
    let adjacent = OrderModelAdjacent {
        id: m.id,
        status: m.status,
        total: m.total,
        currency: m.currency,
        created_at: m.created_at,
        updated_at: m.updated_at,
        customer: m.customer,
        shipping_address: m.shipping_address,
        lines: m.lines,
        notes: m.notes,
        tags: m.tags,
        channel: m.channel,
        priority: m.priority,
        is_gift: m.is_gift,
        events: events.expect("generated events have their kind's fields"),
    };
    serde_json::to_vec(&adjacent).expect("the adjacent model serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_the_order_document_plus_events() {
        let doc: serde_json::Value = serde_json::from_slice(&order_model_document(7)).unwrap();
        let mut order = serde_json::to_value(Generator::new(7).order(1, ORDER_LINES)).unwrap();
        order["events"] = doc["events"].clone();
        assert_eq!(doc, order);
        let events = doc["events"].as_array().unwrap();
        assert_eq!(events.len(), ORDER_MODEL_EVENTS);
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(&kinds[..3], ["placed", "paid", "shipped"]);
        assert_eq!(order_model_document(7), order_model_document(7));
    }

    #[test]
    fn the_adjacent_rendering_holds_the_same_values() {
        let adjacent: OrderModelAdjacent = serde_json::from_slice(&adjacent_document(3)).unwrap();
        assert_eq!(adjacent.to_plain().unwrap(), order_model(3));
        let doc: serde_json::Value = serde_json::from_slice(&adjacent_document(3)).unwrap();
        assert_eq!(doc["events"][1]["type"], "paid");
        assert!(doc["events"][1]["content"]["amount"].is_f64());
    }
}
