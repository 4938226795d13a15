//! The allocator dimension of this crate's own types: this binary is a bench (the same `Study`
//! as benches/json.rs, cut to one type) which, run as a test, runs itself with `--bench
//! --allocators system,mimalloc`, as `cargo bench -- --allocators ...` would. The counts, the
//! pairs and the recorded allocators are exact; nothing is timed.

use std::process::Command;

use jsoncost::{Allocator, Results};
use own_types::{Shipment, shipment};

#[global_allocator]
static ALLOC: jsoncost::CountingAllocator<jsoncost::SelectedAllocator> = jsoncost::CountingAllocator::selected();

fn main() {
    if std::env::args().any(|a| a == "--bench") {
        jsoncost::Study::from_args()
            .typed::<Shipment>("shipment", serde_json::to_vec(&shipment(2)).expect("a shipment serializes"))
            .run();
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let run = Command::new(std::env::current_exe().unwrap())
        .args([
            "--bench",
            "--quick",
            "--allocators",
            "system,mimalloc",
            "--rounds",
            "3",
            "--filter",
            "typed/serde_json",
        ])
        .args(["--format", "markdown", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&run.stderr));
    assert!(
        stdout.starts_with("## Allocators: mimalloc against system: paired in lockstep"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- **micro: shipment/deserialize**\n  - With mimalloc, "),
        "{stdout}"
    );
    let results: Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(results.machine.allocator, Some(Allocator::System));
    let tables: Vec<&str> = results.experiments.iter().map(|e| e.table.as_str()).collect();
    assert_eq!(tables, ["shipment/deserialize", "shipment/serialize"]);
    assert_eq!(results.allocators.len(), 1);
    let c = &results.allocators[0];
    assert_eq!((c.base, c.allocator, c.lockstep), (Allocator::System, Allocator::Mimalloc, true));
    let rows: Vec<(&str, &str, usize)> = c.rows.iter().map(|r| (r.table.as_str(), r.method.as_str(), r.ratio.n)).collect();
    assert_eq!(
        rows,
        [
            ("shipment/deserialize", "typed/serde_json", 3),
            ("shipment/serialize", "typed/serde_json", 3)
        ]
    );
    for r in &c.rows {
        assert!(r.allocs.is_some_and(|n| n > 0.0), "{r:?}");
        assert_eq!((r.base_allocated_bytes, r.base_allocs), (r.allocated_bytes, r.allocs), "{r:?}");
    }
    assert!(out.with_extension("html").exists());
    println!("allocators: the bench ran under system and mimalloc in lockstep ... ok");
}
