//! Prints the JSON size of each shape for the default seed: `cargo run -p jsoncost-shapes --example sizes`.
use jsoncost_shapes::*;

fn main() {
    let mut g = Generator::new(DEFAULT_SEED);
    let len = |v: Vec<u8>| v.len();
    println!("data        {}", len(serde_json::to_vec(&g.data(12345)).unwrap()));
    println!("order       {}", len(serde_json::to_vec(&g.order(1, ORDER_LINES)).unwrap()));
    println!("order-large {}", len(serde_json::to_vec(&g.order(2, ORDER_LARGE_LINES)).unwrap()));
    println!("item        {}", len(serde_json::to_vec(&g.item(7)).unwrap()));
    println!("items48     {}", len(serde_json::to_vec(&g.items48(1)).unwrap()));
    println!("telemetry/1000 {}", len(serde_json::to_vec(&g.telemetry(1000)).unwrap()));
}
