//! The store's levers besides the library: a projection done by the server (SQL JSON operators,
//! SQLite always; PostgreSQL json and jsonb with services) gives exactly the fields of the
//! document, and a new client per read (Redis, PostgreSQL) reads the same order; stores without
//! them say so with `None`.

use crate::common;

use common::{open_store, server_url};
use jsoncost_shapes::Order;
use jsoncost_stores::{OpenOptions, OrderDocs, PgColumn, Store, ensure_loaded};

const DOCS: OrderDocs = OrderDocs {
    count: 12,
    lines: 3,
    seed: 5,
};

fn fields() -> Vec<String> {
    ["/id", "/status", "/lines/1/sku", "/customer"].map(String::from).to_vec()
}

fn load(store: &mut dyn Store, collection: &str) -> Vec<(String, Vec<u8>)> {
    ensure_loaded(store, collection, &DOCS.marker(), true, || DOCS.documents()).unwrap();
    DOCS.documents().collect()
}

/// The projected fields of every loaded document are the document's own, value for value.
fn projection_is_exact(store: &mut dyn Store, collection: &str) {
    for (id, bytes) in load(store, collection) {
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let mut got = vec![None; fields().len()];
        store
            .read_projection(collection, &id, &fields(), &mut |i, text| {
                got[i] = Some(serde_json::from_slice::<serde_json::Value>(text).unwrap())
            })
            .expect("this store projects")
            .unwrap();
        for (i, f) in fields().iter().enumerate() {
            assert_eq!(got[i].as_ref(), doc.pointer(f), "{id} {f}");
        }
    }
    let missing = store
        .read_projection(collection, &OrderDocs::id(0), &["/nope".to_string()], &mut |_, _| {})
        .unwrap()
        .unwrap_err();
    assert!(missing.to_string().contains("field /nope not found"), "{missing}");
}

fn new_client_reads_the_order(store: &mut dyn Store, collection: &str) {
    for (id, bytes) in load(store, collection).into_iter().take(3) {
        let expected: Order = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            store
                .read_with_new_client(collection, &id)
                .expect("this store makes clients")
                .unwrap(),
            expected
        );
    }
}

#[test]
fn sqlite_projects_and_embedded_stores_have_no_new_client() {
    let dir = tempfile::tempdir().unwrap();
    let mut sqlite = open_store(&format!("sqlite:{}", dir.path().join("s.db").display()), &OpenOptions::default());
    projection_is_exact(sqlite.as_mut(), "levers");
    assert!(sqlite.read_with_new_client("levers", &OrderDocs::id(0)).is_none());
    let mut redb = open_store(&format!("redb:{}", dir.path().join("s.redb").display()), &OpenOptions::default());
    load(redb.as_mut(), "levers");
    assert!(
        redb.read_projection("levers", &OrderDocs::id(0), &fields(), &mut |_, _| {})
            .is_none()
    );
    assert!(redb.read_with_new_client("levers", &OrderDocs::id(0)).is_none());
}

#[test]
fn postgres_projects_json_and_jsonb_and_reads_with_a_new_client() {
    let Some(url) = server_url(
        "JSONCOST_TEST_PG_URL",
        "postgres_projects_json_and_jsonb_and_reads_with_a_new_client",
    ) else {
        return;
    };
    for column in [PgColumn::Json, PgColumn::Jsonb] {
        let opts = OpenOptions {
            pg_column: column,
            ..OpenOptions::default()
        };
        let mut store = open_store(&url, &opts);
        projection_is_exact(store.as_mut(), "levers");
        new_client_reads_the_order(store.as_mut(), "levers");
    }
}

#[test]
fn redis_reads_with_a_new_client_and_has_no_projection() {
    let Some(url) = server_url("JSONCOST_TEST_REDIS_URL", "redis_reads_with_a_new_client_and_has_no_projection") else {
        return;
    };
    let mut store = open_store(&url, &OpenOptions::default());
    new_client_reads_the_order(store.as_mut(), "levers");
    assert!(
        store
            .read_projection("levers", &OrderDocs::id(0), &fields(), &mut |_, _| {})
            .is_none()
    );
}
