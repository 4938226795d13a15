//! Cross-check of jsoncost's engine against divan: the same operations (`typed/serde_json`
//! deserialize of `data` and `order`), so their means and allocation counts can be compared.
//! Run: `cargo bench -p jsoncost-codecs --bench crosscheck` and compare with
//! `jsoncost micro --shape data,order --filter typed/serde_json`.

use divan::AllocProfiler;
use jsoncost_shapes::{DEFAULT_SEED, Data, Generator, ORDER_LINES, Order};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

#[divan::bench]
fn data_typed_serde_json(b: divan::Bencher) {
    let input = serde_json::to_vec(&Generator::new(DEFAULT_SEED).data(12345)).unwrap();
    b.bench(|| serde_json::from_slice::<Data>(divan::black_box(&input)).unwrap());
}

#[divan::bench]
fn order_typed_serde_json(b: divan::Bencher) {
    let input = serde_json::to_vec(&Generator::new(DEFAULT_SEED).order(1, ORDER_LINES)).unwrap();
    b.bench(|| serde_json::from_slice::<Order>(divan::black_box(&input)).unwrap());
}
