//! `iterator/jiter`: jiter's pull parser (`Jiter`: next_object, next_key, next_str ...) driving a
//! decoder written by hand for each type, the way pydantic-core reads models with it. A hand
//! decoder is that API's intended use, so each built-in shape has one here ([`FromJiter`]); a
//! user's type can implement the trait to get the row too. Unknown keys are skipped and a
//! missing field is an error, as serde's derive does.

use jiter::{Jiter, NumberInt};
use jsoncost_shapes::timestamp::parse_rfc3339;
use jsoncost_shapes::{Address, Attributes, Customer, Data, Item, ListItem, Order, OrderLine};
use serde::Serialize;
use time::OffsetDateTime;

use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, emit, error_text};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// A type decoded from jiter's pull parser (the built-in shapes' decoders).
pub trait FromJiter: Sized {
    /// Reads one value at the parser's position.
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String>;
}

/// A hand decoder of `T` over jiter's pull parser, implemented by any type: usually a marker
/// local to a bench, so a type defined in another crate can be given one (the orphan rule
/// forbids implementing a foreign trait for a foreign type there):
///
/// ```
/// # #[derive(serde::Serialize)] struct Event { id: u64 }
/// struct EventDecoder; // local to the bench
/// impl jsoncost_codecs::jiter_decode::JiterDecoder<Event> for EventDecoder {
///     fn decode(j: &mut jiter::Jiter<'_>) -> Result<Event, String> {
///         let mut id = None;
///         let mut key = j.next_object().map_err(|e| e.to_string())?;
///         while let Some(k) = key {
///             match k {
///                 "id" => id = Some(j.next_int().map_err(|e| e.to_string())?),
///                 _ => j.next_skip().map_err(|e| e.to_string())?,
///             }
///             key = j.next_key().map_err(|e| e.to_string())?;
///         }
///         match id {
///             Some(jiter::NumberInt::Int(i)) => Ok(Event { id: i as u64 }),
///             _ => Err("missing or bad id".into()),
///         }
///     }
/// }
/// ```
pub trait JiterDecoder<T> {
    /// Reads one `T` at the parser's position.
    fn decode(j: &mut Jiter<'_>) -> Result<T, String>;
}

impl<T: FromJiter> JiterDecoder<T> for T {
    fn decode(j: &mut Jiter<'_>) -> Result<T, String> {
        T::from_jiter(j)
    }
}

/// `iterator/jiter` for a type with a hand decoder `D`: one pass, the whole input (trailing
/// bytes are an error, as with every other parser here).
pub fn strategies<T: Serialize, D: JiterDecoder<T>>(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
    vec![OpStrategy::boxed(
        StrategyId::new("iterator", "jiter"),
        Contract::TypedValue,
        Effort::Code,
        Some(input.len() as u64),
        move |s| {
            let mut j = Jiter::new(input);
            let v = D::decode(&mut j)?;
            j.finish().map_err(error_text)?;
            emit(s, &v)
        },
    )]
}

/// Each key of the object at the parser's position: `$key => $read` for the known ones, the
/// value skipped for any other. The key is matched before the parser moves on, so it is never
/// copied.
macro_rules! fields {
    ($j:ident, { $($key:literal => $slot:ident = $read:expr),* $(,)? }) => {{
        let mut first = true;
        loop {
            let key = if first { $j.next_object() } else { $j.next_key() };
            first = false;
            match key.map_err(error_text)? {
                None => break,
                $(Some($key) => $slot = Some($read),)*
                Some(_) => $j.next_skip().map_err(error_text)?,
            }
        }
    }};
}

fn need<T>(v: Option<T>, field: &str) -> Result<T, String> {
    v.ok_or_else(|| format!("missing field `{field}`"))
}

fn string(j: &mut Jiter<'_>) -> Result<String, String> {
    j.next_str().map(str::to_owned).map_err(error_text)
}

fn float(j: &mut Jiter<'_>) -> Result<f64, String> {
    j.next_float().map_err(error_text)
}

fn boolean(j: &mut Jiter<'_>) -> Result<bool, String> {
    j.next_bool().map_err(error_text)
}

fn int<T: TryFrom<i64> + TryFrom<u64>>(j: &mut Jiter<'_>) -> Result<T, String> {
    let out_of_range = |n: &dyn std::fmt::Display| format!("integer {n} out of range for {}", std::any::type_name::<T>());
    match j.next_int().map_err(error_text)? {
        NumberInt::Int(i) => T::try_from(i).map_err(|_| out_of_range(&i)),
        NumberInt::BigInt(b) => u64::try_from(&b)
            .ok()
            .and_then(|u| T::try_from(u).ok())
            .ok_or_else(|| out_of_range(&b)),
    }
}

fn timestamp(j: &mut Jiter<'_>) -> Result<OffsetDateTime, String> {
    parse_rfc3339(j.next_str().map_err(error_text)?)
}

fn array<T>(j: &mut Jiter<'_>, mut element: impl FnMut(&mut Jiter<'_>) -> Result<T, String>) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    if j.next_array().map_err(error_text)?.is_some() {
        loop {
            out.push(element(j)?);
            if j.array_step().map_err(error_text)?.is_none() {
                break;
            }
        }
    }
    Ok(out)
}

impl FromJiter for Data {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut id, mut name, mut ts) = (None, None, None);
        fields!(j, { "Id" => id = int(j)?, "Name" => name = string(j)?, "Timestamp" => ts = timestamp(j)? });
        Ok(Data {
            id: need(id, "Id")?,
            name: need(name, "Name")?,
            timestamp: need(ts, "Timestamp")?,
        })
    }
}

impl FromJiter for Customer {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut id, mut name, mut email, mut phone, mut tier, mut points) = (None, None, None, None, None, None);
        fields!(j, {
            "id" => id = int(j)?,
            "name" => name = string(j)?,
            "email" => email = string(j)?,
            "phone" => phone = string(j)?,
            "tier" => tier = string(j)?,
            "loyalty_points" => points = int(j)?,
        });
        Ok(Customer {
            id: need(id, "id")?,
            name: need(name, "name")?,
            email: need(email, "email")?,
            phone: need(phone, "phone")?,
            tier: need(tier, "tier")?,
            loyalty_points: need(points, "loyalty_points")?,
        })
    }
}

impl FromJiter for Address {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut line1, mut line2, mut city, mut region, mut postal, mut country) = (None, None, None, None, None, None);
        fields!(j, {
            "line1" => line1 = string(j)?,
            "line2" => line2 = string(j)?,
            "city" => city = string(j)?,
            "region" => region = string(j)?,
            "postal_code" => postal = string(j)?,
            "country" => country = string(j)?,
        });
        Ok(Address {
            line1: need(line1, "line1")?,
            line2: need(line2, "line2")?,
            city: need(city, "city")?,
            region: need(region, "region")?,
            postal_code: need(postal, "postal_code")?,
            country: need(country, "country")?,
        })
    }
}

impl FromJiter for OrderLine {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut sku, mut name, mut quantity, mut unit_price, mut discount, mut tax_rate, mut warehouse, mut backordered) =
            (None, None, None, None, None, None, None, None);
        fields!(j, {
            "sku" => sku = string(j)?,
            "name" => name = string(j)?,
            "quantity" => quantity = int(j)?,
            "unit_price" => unit_price = float(j)?,
            "discount" => discount = float(j)?,
            "tax_rate" => tax_rate = float(j)?,
            "warehouse" => warehouse = string(j)?,
            "backordered" => backordered = boolean(j)?,
        });
        Ok(OrderLine {
            sku: need(sku, "sku")?,
            name: need(name, "name")?,
            quantity: need(quantity, "quantity")?,
            unit_price: need(unit_price, "unit_price")?,
            discount: need(discount, "discount")?,
            tax_rate: need(tax_rate, "tax_rate")?,
            warehouse: need(warehouse, "warehouse")?,
            backordered: need(backordered, "backordered")?,
        })
    }
}

impl FromJiter for Order {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut id, mut status, mut total, mut currency, mut created_at, mut updated_at, mut customer) =
            (None, None, None, None, None, None, None);
        let (mut shipping_address, mut lines, mut notes, mut tags, mut channel, mut priority, mut is_gift) =
            (None, None, None, None, None, None, None);
        fields!(j, {
            "id" => id = string(j)?,
            "status" => status = string(j)?,
            "total" => total = float(j)?,
            "currency" => currency = string(j)?,
            "created_at" => created_at = timestamp(j)?,
            "updated_at" => updated_at = timestamp(j)?,
            "customer" => customer = Customer::from_jiter(j)?,
            "shipping_address" => shipping_address = Address::from_jiter(j)?,
            "lines" => lines = array(j, OrderLine::from_jiter)?,
            "notes" => notes = string(j)?,
            "tags" => tags = array(j, string)?,
            "channel" => channel = string(j)?,
            "priority" => priority = int(j)?,
            "is_gift" => is_gift = boolean(j)?,
        });
        Ok(Order {
            id: need(id, "id")?,
            status: need(status, "status")?,
            total: need(total, "total")?,
            currency: need(currency, "currency")?,
            created_at: need(created_at, "created_at")?,
            updated_at: need(updated_at, "updated_at")?,
            customer: need(customer, "customer")?,
            shipping_address: need(shipping_address, "shipping_address")?,
            lines: need(lines, "lines")?,
            notes: need(notes, "notes")?,
            tags: need(tags, "tags")?,
            channel: need(channel, "channel")?,
            priority: need(priority, "priority")?,
            is_gift: need(is_gift, "is_gift")?,
        })
    }
}

impl FromJiter for Attributes {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut color, mut size, mut material, mut weight, mut origin) = (None, None, None, None, None);
        fields!(j, {
            "color" => color = string(j)?,
            "size" => size = string(j)?,
            "material" => material = string(j)?,
            "weight_grams" => weight = int(j)?,
            "origin" => origin = string(j)?,
        });
        Ok(Attributes {
            color: need(color, "color")?,
            size: need(size, "size")?,
            material: need(material, "material")?,
            weight_grams: need(weight, "weight_grams")?,
            origin: need(origin, "origin")?,
        })
    }
}

impl FromJiter for Item {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut id, mut sku, mut name, mut description, mut price, mut currency, mut category, mut brand) =
            (None, None, None, None, None, None, None, None);
        let (mut tags, mut attributes, mut images, mut rating, mut review_count, mut in_stock, mut created_at, mut updated_at) =
            (None, None, None, None, None, None, None, None);
        fields!(j, {
            "id" => id = int(j)?,
            "sku" => sku = string(j)?,
            "name" => name = string(j)?,
            "description" => description = string(j)?,
            "price" => price = float(j)?,
            "currency" => currency = string(j)?,
            "category" => category = string(j)?,
            "brand" => brand = string(j)?,
            "tags" => tags = array(j, string)?,
            "attributes" => attributes = Attributes::from_jiter(j)?,
            "images" => images = array(j, string)?,
            "rating" => rating = float(j)?,
            "review_count" => review_count = int(j)?,
            "in_stock" => in_stock = boolean(j)?,
            "created_at" => created_at = timestamp(j)?,
            "updated_at" => updated_at = timestamp(j)?,
        });
        Ok(Item {
            id: need(id, "id")?,
            sku: need(sku, "sku")?,
            name: need(name, "name")?,
            description: need(description, "description")?,
            price: need(price, "price")?,
            currency: need(currency, "currency")?,
            category: need(category, "category")?,
            brand: need(brand, "brand")?,
            tags: need(tags, "tags")?,
            attributes: need(attributes, "attributes")?,
            images: need(images, "images")?,
            rating: need(rating, "rating")?,
            review_count: need(review_count, "review_count")?,
            in_stock: need(in_stock, "in_stock")?,
            created_at: need(created_at, "created_at")?,
            updated_at: need(updated_at, "updated_at")?,
        })
    }
}

impl FromJiter for ListItem {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        let (mut id, mut sku, mut name, mut summary, mut price, mut currency, mut category) = (None, None, None, None, None, None, None);
        let (mut brand, mut tags, mut thumbnail, mut rating, mut review_count, mut in_stock, mut updated_at) =
            (None, None, None, None, None, None, None);
        fields!(j, {
            "id" => id = int(j)?,
            "sku" => sku = string(j)?,
            "name" => name = string(j)?,
            "summary" => summary = string(j)?,
            "price" => price = float(j)?,
            "currency" => currency = string(j)?,
            "category" => category = string(j)?,
            "brand" => brand = string(j)?,
            "tags" => tags = array(j, string)?,
            "thumbnail" => thumbnail = string(j)?,
            "rating" => rating = float(j)?,
            "review_count" => review_count = int(j)?,
            "in_stock" => in_stock = boolean(j)?,
            "updated_at" => updated_at = timestamp(j)?,
        });
        Ok(ListItem {
            id: need(id, "id")?,
            sku: need(sku, "sku")?,
            name: need(name, "name")?,
            summary: need(summary, "summary")?,
            price: need(price, "price")?,
            currency: need(currency, "currency")?,
            category: need(category, "category")?,
            brand: need(brand, "brand")?,
            tags: need(tags, "tags")?,
            thumbnail: need(thumbnail, "thumbnail")?,
            rating: need(rating, "rating")?,
            review_count: need(review_count, "review_count")?,
            in_stock: need(in_stock, "in_stock")?,
            updated_at: need(updated_at, "updated_at")?,
        })
    }
}

/// `Items48` is `Vec<ListItem>`: a top-level array.
impl<T: FromJiter> FromJiter for Vec<T> {
    fn from_jiter(j: &mut Jiter<'_>) -> Result<Self, String> {
        array(j, T::from_jiter)
    }
}
