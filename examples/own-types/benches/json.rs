//! `cargo bench --bench json [-- --quick --out FILE ...]`: jsoncost on this crate's own types.

use own_types::variants::{ShipmentLean, TextDates};
use own_types::{Manifest, Shipment, manifest, shipment};

#[global_allocator]
static ALLOC: jsoncost::CountingAllocator = jsoncost::CountingAllocator::system();

fn main() {
    let one = serde_json::to_vec(&shipment(2)).expect("a shipment serializes");
    let many = serde_json::to_vec(&manifest(24)).expect("a manifest serializes");
    jsoncost::Study::from_args()
        .typed::<Shipment>("shipment", one)
        .borrowed()
        .lazy(&["/shipmentId", "/status"])
        .typed::<Manifest>("manifest", many)
        // What the model costs: the same shipment through other models of it.
        .variants::<Shipment>("shipment-model", serde_json::to_vec(&shipment(2)).expect("a shipment serializes"))
        .variant::<ShipmentLean>("ignored-parcels")
        .leaving_out(&["/parcels"])
        .variant_of::<TextDates>("datetime-string")
        .run();
}
