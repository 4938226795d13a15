//! The API over a real store (redb in a temp dir): same documents as the in-memory source,
//! read through the blocking pool.

use crate::common;

use std::sync::Arc;

use jsoncost_http::server::{self, ServerConfig};
use jsoncost_http::verify::{Route, modes_agree_blocking};
use jsoncost_http::{ItemSource, MemorySource, ServeMode, StoreData, StoreSource};
use jsoncost_shapes::DEFAULT_SEED;
use jsoncost_stores::OpenOptions;

#[test]
fn a_redb_backed_server_answers_what_the_memory_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("redb:{}", dir.path().join("http.redb").display());
    let data = StoreData {
        items: 20,
        list_len: 60,
        seed: DEFAULT_SEED,
    };
    let source = StoreSource::open(Some(&url), &OpenOptions::default(), 4, &data).unwrap();
    assert_eq!(source.list_len(), 60);
    assert!(source.is_blocking());
    assert_eq!(source.item(21).unwrap(), None);

    let stored = server::start(ServerConfig::with_source(Arc::new(source))).unwrap();
    let memory = server::start(ServerConfig::with_source(Arc::new(MemorySource::generate(20, 60, DEFAULT_SEED)))).unwrap();
    for route in [Route::Item(1), Route::Item(20), Route::List(48), Route::List(60)] {
        let a = modes_agree_blocking(&stored.url(""), route).unwrap();
        let b = modes_agree_blocking(&memory.url(""), route).unwrap();
        assert_eq!(a, b, "{route:?}");
    }
    let missing = common::get(stored.addr(), &ServeMode::Passthrough.item_path(21));
    assert_eq!((missing.status, missing.json()["error"].as_str()), (404, Some("item_not_found")));
    let over = common::get(stored.addr(), &ServeMode::Passthrough.list_path(61));
    assert_eq!(over.status, 400);
    stored.shutdown().unwrap();
    memory.shutdown().unwrap();

    // A second open finds the data loaded and serves it.
    let again = StoreSource::open(Some(&url), &OpenOptions::default(), 1, &data).unwrap();
    assert_eq!(again.list(2).unwrap().len(), 2);
}
