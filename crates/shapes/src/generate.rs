//! Deterministic generators: the same seed gives the same documents, byte for byte, on every
//! machine (ChaCha8 is specified to be portable, unlike `StdRng`).

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{self, Write};
use time::{Duration, OffsetDateTime, macros::datetime};

use crate::models::*;

const FIRST: &[&str] = &[
    "Ada", "Grace", "Linus", "Barbara", "Ken", "Margaret", "Dennis", "Frances", "Edsger", "Radia", "Donald", "Hedy",
];
const LAST: &[&str] = &[
    "Lovelace", "Hopper", "Torvalds", "Liskov", "Thompson", "Hamilton", "Ritchie", "Allen", "Dijkstra", "Perlman", "Knuth", "Lamarr",
];
const WORDS: &[&str] = &[
    "amber", "basalt", "cedar", "delta", "ember", "fjord", "granite", "harbor", "indigo", "juniper", "kestrel", "lumen", "meadow",
    "nimbus", "onyx", "prairie", "quartz", "raven", "sierra", "tundra", "umber", "vertex", "willow", "xenon", "yarrow", "zephyr", "steel",
    "linen",
];
const CITIES: &[(&str, &str, &str)] = &[
    ("Lisbon", "Lisboa", "PT"),
    ("Portland", "Oregon", "US"),
    ("Lyon", "Auvergne-Rhone-Alpes", "FR"),
    ("Osaka", "Kansai", "JP"),
    ("Leeds", "West Yorkshire", "GB"),
    ("Graz", "Styria", "AT"),
    ("Austin", "Texas", "US"),
    ("Utrecht", "Utrecht", "NL"),
];
const STATUSES: &[&str] = &["pending", "paid", "packed", "shipped", "delivered", "returned"];
const CATEGORIES: &[&str] = &["kitchen", "garden", "outdoor", "office", "lighting", "audio", "travel", "tools"];
const BRANDS: &[&str] = &[
    "Northwind",
    "Contoso",
    "Fabrikam",
    "Tailspin",
    "Litware",
    "Proseware",
    "Wingtip",
    "Adatum",
];

/// A seeded generator of every shape.
pub struct Generator {
    rng: ChaCha8Rng,
}

fn epoch() -> OffsetDateTime {
    datetime!(2025-01-01 00:00:00 UTC)
}

impl Generator {
    /// A generator whose documents are fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn pick(&mut self, from: &[&'static str]) -> &'static str {
        from.choose(&mut self.rng).expect("non-empty list")
    }

    fn words(&mut self, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.pick(WORDS));
        }
        s
    }

    fn cents(&mut self, lo: u32, hi: u32) -> f64 {
        f64::from(self.rng.random_range(lo..hi)) / 100.0
    }

    /// A date-time in 2025 with 100 ns resolution (.NET ticks), so the 7-digit format round-trips.
    fn timestamp(&mut self) -> OffsetDateTime {
        let secs = self.rng.random_range(0..365 * 86_400i64);
        let ticks = self.rng.random_range(0..10_000_000i64);
        epoch() + Duration::seconds(secs) + Duration::nanoseconds(ticks * 100)
    }

    /// The 3-field record.
    pub fn data(&mut self, id: i64) -> Data {
        let name = self.pick(FIRST).to_string();
        Data {
            id,
            name,
            timestamp: self.timestamp(),
        }
    }

    /// An order with `lines` lines ([`ORDER_LINES`](crate::ORDER_LINES) for `order`,
    /// [`ORDER_LARGE_LINES`](crate::ORDER_LARGE_LINES) for `order-large`).
    pub fn order(&mut self, index: u64, lines: usize) -> Order {
        let (city, region, country) = *CITIES.choose(&mut self.rng).expect("cities");
        let first = self.pick(FIRST);
        let last = self.pick(LAST);
        let lines: Vec<OrderLine> = (0..lines)
            .map(|_| OrderLine {
                sku: format!(
                    "SKU-{:06}-{}",
                    self.rng.random_range(0..1_000_000u32),
                    self.pick(WORDS).to_uppercase()
                ),
                name: format!("{} {} {}", self.pick(BRANDS), self.words(2), self.pick(CATEGORIES)),
                quantity: self.rng.random_range(1..12),
                unit_price: self.cents(199, 49_999),
                discount: f64::from(self.rng.random_range(0..30u32)) / 100.0,
                tax_rate: [0.0, 0.07, 0.2, 0.23][self.rng.random_range(0..4)],
                warehouse: format!("{}-{:02}", self.pick(WORDS).to_uppercase(), self.rng.random_range(1..40u32)),
                backordered: self.rng.random_bool(0.1),
            })
            .collect();
        let total: f64 = lines
            .iter()
            .map(|l| f64::from(l.quantity) * l.unit_price * (1.0 - l.discount) * (1.0 + l.tax_rate))
            .sum();
        let created = self.timestamp();
        Order {
            id: order_id(index),
            status: self.pick(STATUSES).to_string(),
            total: (total * 100.0).round() / 100.0,
            currency: "EUR".to_string(),
            created_at: created,
            updated_at: created + Duration::minutes(self.rng.random_range(1..10_000)),
            customer: Customer {
                id: self.rng.random_range(1..10_000_000),
                name: format!("{first} {last}"),
                email: format!("{}.{}@example.com", first.to_lowercase(), last.to_lowercase()),
                phone: format!(
                    "+351 21 {:03} {:04}",
                    self.rng.random_range(0..1000u32),
                    self.rng.random_range(0..10_000u32)
                ),
                tier: self.pick(&["standard", "silver", "gold", "platinum"]).to_string(),
                loyalty_points: self.rng.random_range(0..100_000),
            },
            shipping_address: Address {
                line1: format!("{} {} Street", self.rng.random_range(1..999u32), self.pick(WORDS)),
                line2: format!("Floor {}, door {}", self.rng.random_range(1..20u32), self.rng.random_range(1..9u32)),
                city: city.to_string(),
                region: region.to_string(),
                postal_code: format!("{:05}", self.rng.random_range(1000..99_999u32)),
                country: country.to_string(),
            },
            lines,
            notes: format!("Leave at the {} door; ring twice. {}", self.pick(WORDS), self.words(12)),
            tags: (0..4).map(|_| self.pick(WORDS).to_string()).collect(),
            channel: self.pick(&["web", "mobile", "store", "partner"]).to_string(),
            priority: self.rng.random_range(0..5),
            is_gift: self.rng.random_bool(0.2),
        }
    }

    /// A catalog item (~1.7 KB).
    pub fn item(&mut self, id: u64) -> Item {
        let brand = self.pick(BRANDS);
        let category = self.pick(CATEGORIES);
        let created = self.timestamp();
        Item {
            id,
            sku: format!("SKU-{id:08}"),
            name: format!("{brand} {} {category}", self.words(2)),
            description: self.words(160),
            price: self.cents(199, 99_999),
            currency: "EUR".to_string(),
            category: category.to_string(),
            brand: brand.to_string(),
            tags: (0..6).map(|_| self.pick(WORDS).to_string()).collect(),
            attributes: Attributes {
                color: self.pick(WORDS).to_string(),
                size: self.pick(&["XS", "S", "M", "L", "XL"]).to_string(),
                material: self.pick(&["oak", "steel", "cotton", "glass", "ceramic"]).to_string(),
                weight_grams: self.rng.random_range(50..20_000),
                origin: CITIES.choose(&mut self.rng).expect("cities").2.to_string(),
            },
            images: (1..=3).map(|k| format!("https://img.example.com/items/{id:08}/{k}.jpg")).collect(),
            rating: f64::from(self.rng.random_range(10..50u32)) / 10.0,
            review_count: self.rng.random_range(0..5000),
            in_stock: self.rng.random_bool(0.8),
            created_at: created,
            updated_at: created + Duration::hours(self.rng.random_range(1..5000)),
        }
    }

    /// One entry of the item list (~760 bytes).
    pub fn list_item(&mut self, id: u64) -> ListItem {
        let brand = self.pick(BRANDS);
        let category = self.pick(CATEGORIES);
        ListItem {
            id,
            sku: format!("SKU-{id:08}"),
            name: format!("{brand} {} {category}", self.words(2)),
            summary: self.words(58),
            price: self.cents(199, 99_999),
            currency: "EUR".to_string(),
            category: category.to_string(),
            brand: brand.to_string(),
            tags: (0..4).map(|_| self.pick(WORDS).to_string()).collect(),
            thumbnail: format!("https://img.example.com/items/{id:08}/thumb.jpg"),
            rating: f64::from(self.rng.random_range(10..50u32)) / 10.0,
            review_count: self.rng.random_range(0..5000),
            in_stock: self.rng.random_bool(0.8),
            updated_at: self.timestamp(),
        }
    }

    /// 48 list entries with ids `first_id..first_id + 48`.
    pub fn items48(&mut self, first_id: u64) -> Items48 {
        (first_id..first_id + 48).map(|id| self.list_item(id)).collect()
    }

    /// One telemetry reading `index` seconds after the series start.
    pub fn reading(&mut self, index: u64) -> Reading {
        Reading {
            timestamp: epoch() + Duration::seconds(index as i64),
            temperature: f64::from(self.rng.random_range(150..300u32)) / 10.0,
            humidity: f64::from(self.rng.random_range(300..700u32)) / 10.0,
        }
    }

    /// A telemetry document with `n` readings, in memory.
    pub fn telemetry(&mut self, n: u64) -> Telemetry {
        Telemetry {
            device_id: device_id(),
            readings: (0..n).map(|i| self.reading(i)).collect(),
        }
    }
}

/// The id of the order at `index` in a store (distinct for distinct indexes).
pub fn order_id(index: u64) -> String {
    format!("order-{index:08}")
}

fn device_id() -> String {
    "device-7f3a9c2e-0001".to_string()
}

/// Writes the telemetry document with `n` readings for `seed` to `w` without holding it in
/// memory; the bytes equal `serde_json::to_vec(&Generator::new(seed).telemetry(n))`.
/// Returns the number of bytes written.
pub fn write_telemetry<W: Write>(mut w: W, n: u64, seed: u64) -> io::Result<u64> {
    let mut g = Generator::new(seed);
    let mut written = 0u64;
    let head = format!(
        "{{\"DeviceId\":{},\"Readings\":[",
        serde_json::to_string(&device_id()).map_err(io::Error::other)?
    );
    w.write_all(head.as_bytes())?;
    written += head.len() as u64;
    let mut buf = Vec::with_capacity(128);
    for i in 0..n {
        buf.clear();
        if i > 0 {
            buf.push(b',');
        }
        serde_json::to_writer(&mut buf, &g.reading(i)).map_err(io::Error::other)?;
        w.write_all(&buf)?;
        written += buf.len() as u64;
    }
    w.write_all(b"]}")?;
    w.flush()?;
    Ok(written + 2)
}
