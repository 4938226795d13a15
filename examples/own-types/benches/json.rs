//! `cargo bench --bench json [-- --quick --out FILE ...]`: jsoncost on this crate's own types,
//! which live in `src/` (jsoncost is only a dev-dependency). `cargo test --bench json` runs
//! every strategy once through the correctness gate instead.

use own_types::variants::{ShipmentLean, ShipmentTextDates};
use own_types::{Manifest, Shipment, manifest, shipment};

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
    jsoncost::Study::from_args()
        .typed::<Shipment>("shipment", one.clone())
        .borrowed_as::<ShipmentRef>()
        .lazy(&["/shipmentId", "/status"])
        .typed::<Manifest>("manifest", many)
        // What the model costs: the same shipment through other models of it.
        .variants::<Shipment>("shipment-model", one)
        .variant::<ShipmentLean>("ignored-parcels")
        .leaving_out(&["/parcels"])
        .variant_of::<TextDates>("datetime-string")
        .run();
}
