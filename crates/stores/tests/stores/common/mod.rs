//! Checks every store must pass, shared by the embedded and the server tests.
#![allow(dead_code)] // each test binary uses its own subset

use jsoncost_shapes::{ORDER_LINES, Order};
use jsoncost_stores::{LoadOutcome, OpenOptions, OrderDocs, Store, StoreError, ensure_loaded, open};

/// A small, quick data set of real `order` documents.
pub const DOCS: OrderDocs = OrderDocs {
    count: 40,
    lines: ORDER_LINES,
    seed: 11,
};

/// The server URL in `var`, or None after saying on stderr that the test is skipped and why.
pub fn server_url(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            eprintln!("SKIPPED {test}: {var} is not set (run scripts/services.sh start && eval \"$(scripts/services.sh env)\")");
            None
        }
    }
}

pub fn open_store(url: &str, opts: &OpenOptions) -> Box<dyn Store> {
    match open(url, opts) {
        Ok(store) => store,
        Err(e) => panic!("opening {url}: {e}"),
    }
}

/// Load, idempotent reuse, reload, every read decoding to the generated order, and the
/// missing-document and never-loaded errors. `exact_bytes`: the store returns the loaded text
/// unchanged (all but PostgreSQL jsonb, which re-renders it).
pub fn exercise(store: &mut dyn Store, collection: &str, exact_bytes: bool) {
    let marker = DOCS.marker();
    let first = ensure_loaded(store, collection, &marker, true, || DOCS.documents()).unwrap();
    assert!(matches!(first, LoadOutcome::Loaded { docs: 40, .. }), "{first:?}");
    assert_eq!(store.loaded(collection).unwrap(), Some(marker.clone()));
    let again = ensure_loaded(store, collection, &marker, false, || -> std::iter::Empty<(String, Vec<u8>)> {
        panic!("a matching marker must not load again")
    })
    .unwrap();
    assert_eq!(again, LoadOutcome::Reused(marker.clone()));

    // A load with another marker replaces the collection: the documents past its count are gone.
    let fewer = OrderDocs { count: 10, ..DOCS };
    let replaced = ensure_loaded(store, collection, &fewer.marker(), false, || fewer.documents()).unwrap();
    assert!(matches!(replaced, LoadOutcome::Loaded { docs: 10, .. }), "{replaced:?}");
    assert_eq!(store.loaded(collection).unwrap(), Some(fewer.marker()));
    assert_not_found(store, collection, &OrderDocs::id(25));
    ensure_loaded(store, collection, &marker, false, || DOCS.documents()).unwrap();

    let expected: Vec<(String, Vec<u8>)> = DOCS.documents().collect();
    for index in [0usize, 1, 17, 39] {
        let (id, bytes) = &expected[index];
        let order: Order = serde_json::from_slice(bytes).unwrap();

        let mut raw = None;
        store.read_raw(collection, id, &mut |b| raw = Some(b.to_vec())).unwrap();
        let raw = raw.expect("read_raw calls f");
        if exact_bytes {
            assert_eq!(raw, *bytes, "{} {id}: raw bytes differ from the loaded ones", store.describe());
        } else {
            let got: serde_json::Value = serde_json::from_slice(&raw).unwrap();
            assert_eq!(got, serde_json::from_slice::<serde_json::Value>(bytes).unwrap(), "{id}");
        }
        assert_eq!(serde_json::from_slice::<Order>(&raw).unwrap(), order, "{id}");
        assert_eq!(store.read_default(collection, id).unwrap(), order, "{id}");
        assert_eq!(store.read_default_dom(collection, id).unwrap(), order, "{id}");
    }

    assert_not_found(store, collection, "order-99999999");
    let never = format!("{collection}-never-loaded");
    let err = store.read_raw(&never, &OrderDocs::id(0), &mut |_| ()).unwrap_err();
    assert!(matches!(err, StoreError::NotLoaded { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&never) && message.contains("--reload"), "{message}");
    assert_eq!(store.loaded(&never).unwrap(), None);
    assert!(matches!(store.loaded("bad:name"), Err(StoreError::BadCollection { .. })));
}

pub fn assert_not_found(store: &mut dyn Store, collection: &str, id: &str) {
    for err in [
        store
            .read_raw(collection, id, &mut |_| panic!("no bytes for a missing document"))
            .unwrap_err(),
        store.read_default(collection, id).unwrap_err(),
        store.read_default_dom(collection, id).unwrap_err(),
    ] {
        assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
        assert!(err.to_string().contains(id), "{err}");
        assert!(err.is_document_error());
        assert_eq!(err.exit_code(), 2);
    }
}

/// A document that is not an order at all: the default reads fail with the id and serde's message.
pub fn assert_wrong_shape_is_decode_error(store: &mut dyn Store, collection: &str) {
    let docs = vec![("order-wrong".to_string(), br#"{"id": 5, "status": "paid"}"#.to_vec())];
    store
        .load(
            collection,
            &mut docs.into_iter(),
            &jsoncost_stores::LoadMarker {
                docs: 1,
                description: "wrong".into(),
            },
        )
        .unwrap();
    for err in [
        store.read_default(collection, "order-wrong").unwrap_err(),
        store.read_default_dom(collection, "order-wrong").unwrap_err(),
    ] {
        let StoreError::Decode { id, message, .. } = &err else {
            panic!("expected Decode, got {err:?}")
        };
        assert_eq!(id, "order-wrong");
        assert!(message.contains("invalid type"), "{message}");
        assert!(err.is_document_error());
    }
}

/// Invalid JSON and non-UTF-8 bytes, stored as is: the raw read returns them, the default
/// reads fail with the id and the parser's message.
pub fn assert_corrupt_is_decode_error(store: &mut dyn Store, collection: &str) {
    let broken = br#"{"id": "order-broken", "status": oops}"#.to_vec();
    let docs = vec![
        ("order-broken".to_string(), broken.clone()),
        ("order-binary".to_string(), b"\xff\xfe{}".to_vec()),
    ];
    let loaded = store
        .load(
            collection,
            &mut docs.into_iter(),
            &jsoncost_stores::LoadMarker {
                docs: 2,
                description: "corrupt".into(),
            },
        )
        .unwrap();
    assert_eq!(loaded, 2);

    let mut raw = Vec::new();
    store.read_raw(collection, "order-broken", &mut |b| raw = b.to_vec()).unwrap();
    assert_eq!(raw, broken);
    for err in [
        store.read_default(collection, "order-broken").unwrap_err(),
        store.read_default_dom(collection, "order-broken").unwrap_err(),
    ] {
        let StoreError::Decode { id, message, .. } = &err else {
            panic!("expected Decode, got {err:?}")
        };
        assert_eq!(id, "order-broken");
        assert!(message.contains("expected value at line 1 column"), "{message}");
        assert!(err.to_string().contains("order-broken"), "{err}");
        assert!(err.is_document_error());
        assert_eq!(err.exit_code(), 2);
    }
    let err = store.read_default(collection, "order-binary").unwrap_err();
    let StoreError::Decode { id, .. } = &err else {
        panic!("expected Decode, got {err:?}")
    };
    assert_eq!(id, "order-binary");
}
