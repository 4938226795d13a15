//! `cargo bench --bench json [-- --quick --out FILE ...]`: jsoncost on this crate's own types,
//! which live in `src/` (jsoncost is only a dev-dependency). `cargo test --bench json` runs
//! every strategy once through the correctness gate instead.

use own_types::variants::{ShipmentLean, ShipmentTextDates};
use own_types::{Manifest, Shipment, WEBHOOK, Webhook, manifest, shipment};
use serde::Deserialize;

/// Counts allocations over the allocator JSONCOST_ALLOCATOR selects (the system's unless told),
/// so `cargo bench --bench json -- --allocators system,mimalloc,jemalloc` can compare them.
#[global_allocator]
static ALLOC: jsoncost::CountingAllocator<jsoncost::SelectedAllocator> = jsoncost::CountingAllocator::selected();

/// `Shipment`'s zero-copy form, for the borrowed/* rows. A marker local to the bench: the
/// orphan rule forbids implementing jsoncost's trait for `Shipment` itself here.
struct ShipmentRef;

impl jsoncost::BorrowedForm<Shipment> for ShipmentRef {
    type Of<'a> = Shipment<&'a str>;
}

/// The date-times kept as text: a variant whose conversion can fail.
struct TextDates;

impl jsoncost::Variant<Shipment> for TextDates {
    type Decoded<'de> = ShipmentTextDates;
    fn to_plain(s: ShipmentTextDates) -> Result<Shipment, String> {
        Shipment::try_from(s)
    }
}

fn main() {
    let one = serde_json::to_vec(&shipment(2)).expect("a shipment serializes");
    let many = serde_json::to_vec(&manifest(24)).expect("a manifest serializes");
    // About how many bytes one shipment adds to a manifest: the sweep's manifests are sized by
    // their shipments, as a real one grows.
    let per_shipment = (many.len() as u64 / 24).max(1);
    jsoncost::Study::from_args()
        .typed::<Shipment>("shipment", one.clone())
        .borrowed_as::<ShipmentRef>()
        .lazy(&["/shipmentId", "/status"])
        // The service's own paths as rows: its body extractor's decode (a Deserializer that
        // also refuses trailing bytes) and its pretty responses.
        .custom_deserialize("checked-end/serde_json", |bytes: &[u8]| {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            let s = Shipment::deserialize(&mut de)?;
            de.end().map(|()| s)
        })
        .custom_serialize("pretty/serde_json", serde_json::to_vec_pretty)
        // Real data some libraries cannot read: declared, so `cargo test` passes on it, and
        // fails loudly once simd-json reads it.
        .typed::<Webhook>("webhook", WEBHOOK)
        .expect_failure("webhook/deserialize::*/simd-json", "simd-json rejects the 30-digit amount")
        .expect_failure("webhook/deserialize::typed/jiter", "jiter rejects u64::MAX as an integer")
        .typed::<Manifest>("manifest", many)
        // Where the winner changes with size: the manifest at 4 KB to 256 KB.
        .typed_by_size::<Manifest>("manifest", &[4 << 10, 16 << 10, 64 << 10, 256 << 10], |bytes| {
            manifest(((bytes + per_shipment / 2) / per_shipment).max(1))
        })
        // What the model costs: the same shipment through other models of it.
        .variants::<Shipment>("shipment-model", one)
        .variant::<ShipmentLean>("ignored-parcels")
        .leaving_out(&["/parcels"])
        .variant_of::<TextDates>("datetime-string")
        .run();
}
